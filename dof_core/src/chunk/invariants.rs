//! The chunker's invariants as a checker, shared by unit, property, corpus and fuzz tests:
//!
//! - no chunk over the limit, and each token count equal to a fresh count of its content;
//! - every chunk's offsets point at its text (`content` ends with that source span, and
//!   the character offsets select the same span);
//! - nothing lost: the spans, in order, cover every character after the front matter
//!   ([`crate::front_matter::span`], the document's data) that the sizer does not treat
//!   as blank (for a tokenizer: a character that, between two letters, tokenizes unlike
//!   a space and unlike nothing — U+0085 is a token for e5 though Unicode calls it
//!   whitespace).

use std::collections::HashMap;

use super::measure::ChunkSizer;
use super::Chunk;

pub fn check(text: &str, chunks: &[Chunk], max_tokens: usize, sizer: &dyn ChunkSizer) -> Result<(), String> {
    // asking a tokenizer takes a few encodes: once per distinct character
    let mut blank_memo: HashMap<char, bool> = HashMap::new();
    let mut is_blank = |c: char| *blank_memo.entry(c).or_insert_with(|| sizer.is_blank(c));
    let char_to_byte: Vec<usize> = text.char_indices().map(|(i, _)| i).chain(std::iter::once(text.len())).collect();
    let mut covered_to = crate::front_matter::span(text).end;
    let mut previous_start = 0usize;
    for chunk in chunks {
        let id = chunk.chunk_index;
        if chunk.token_count > max_tokens {
            return Err(format!("chunk {id}: {} tokens > limit {max_tokens}", chunk.token_count));
        }
        let recount = sizer.count(&chunk.content).map_err(|e| e.to_string())?;
        if recount != chunk.token_count {
            return Err(format!("chunk {id}: token_count {} but its content counts {recount}", chunk.token_count));
        }
        let (start, end) = (chunk.byte_start, chunk.byte_end);
        if start >= end || end > text.len() {
            return Err(format!("chunk {id}: bad span {start}..{end}"));
        }
        let span_text = &text[start..end];
        if !chunk.content.ends_with(span_text) {
            return Err(format!("chunk {id}: content does not end with its source span"));
        }
        if chunk.content.len() != span_text.len() && !chunk.header_repeated {
            return Err(format!("chunk {id}: content differs from its span without a repeated header"));
        }
        if char_to_byte.get(chunk.char_start) != Some(&start) || char_to_byte.get(chunk.char_end) != Some(&end) {
            return Err(format!("chunk {id}: char offsets {}..{} do not select bytes {start}..{end}", chunk.char_start, chunk.char_end));
        }
        if start < previous_start {
            return Err(format!("chunk {id}: starts before the previous chunk"));
        }
        previous_start = start;
        if start > covered_to {
            if let Some((offset, c)) = text[covered_to..start].char_indices().find(|(_, c)| !is_blank(*c)) {
                return Err(format!("character {c:?} at byte {} is in no chunk", covered_to + offset));
            }
        }
        covered_to = covered_to.max(end);
    }
    if let Some((offset, c)) = text[covered_to..].char_indices().find(|(_, c)| !is_blank(*c)) {
        return Err(format!("character {c:?} at byte {} is in no chunk", covered_to + offset));
    }
    Ok(())
}
