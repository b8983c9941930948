//! Sizing text for chunking: the [`ChunkSizer`] trait, the model tokenizer as a sizer, the
//! character fallback, and [`Measure`] — a document's words with prefix sums, so the size
//! of any span is two binary searches instead of a re-tokenization.

use std::cell::Cell;
use std::ops::Range;

use crate::blank::is_blank;
use crate::tokenize::{ModelTokenizer, TokenizeError, Word};

/// How chunk sizes are counted.
pub trait ChunkSizer {
    /// Recorded on every chunk: `"tokenizer"` or `"characters"`.
    fn name(&self) -> &'static str;
    /// The text's words, in order, each with its size. A span from one word's start to a
    /// later word's end must measure exactly the sum of its words. `between_pieces` runs
    /// now and then on long texts (the SQL layer checks for cancellation there).
    fn words(&self, text: &str, between_pieces: &dyn Fn()) -> Result<Vec<Word>, TokenizeError>;
    /// The exact size of `text` on its own.
    fn count(&self, text: &str) -> Result<usize, TokenizeError>;
    /// [`ChunkSizer::count`], running `interrupt` now and then if counting takes long.
    fn count_interruptibly(&self, text: &str, _interrupt: &dyn Fn()) -> Result<usize, TokenizeError> {
        self.count(text)
    }
    /// Where the first `budget` units of `text` end (a byte offset on a char boundary), or
    /// `None` when all of `text` is within the budget. One pass; a proposal that the caller
    /// verifies with [`ChunkSizer::count`], since a prefix sized on its own can differ at its
    /// end from the same characters in context.
    fn prefix_end(&self, text: &str, budget: usize) -> Result<Option<usize>, TokenizeError>;
    /// Whether this sizer gives `c` no units of its own (between two letters, the
    /// tokenizer treats it like a space or like nothing): the invariant checker lets only
    /// such characters fall outside every chunk.
    fn is_blank(&self, c: char) -> bool;
}

impl ChunkSizer for ModelTokenizer {
    fn name(&self) -> &'static str {
        "tokenizer"
    }

    fn words(&self, text: &str, between_pieces: &dyn Fn()) -> Result<Vec<Word>, TokenizeError> {
        ModelTokenizer::words(self, text, between_pieces)
    }

    fn count(&self, text: &str) -> Result<usize, TokenizeError> {
        ModelTokenizer::count(self, text)
    }

    fn count_interruptibly(&self, text: &str, interrupt: &dyn Fn()) -> Result<usize, TokenizeError> {
        ModelTokenizer::count_interruptibly(self, text, interrupt)
    }

    fn prefix_end(&self, text: &str, budget: usize) -> Result<Option<usize>, TokenizeError> {
        let tokens = self.encode(text, false)?;
        // the first token past the budget starts where the prefix ends; byte-fallback
        // tokens of one character share its offsets, so the cut stays on a char boundary
        Ok(tokens.offsets.get(budget).map(|&(start, _)| text.floor_char_boundary(start)))
    }

    fn is_blank(&self, c: char) -> bool {
        self.normalizes_to_blank(c)
    }
}

/// The fallback when no tokenizer is configured: each word costs its characters plus one
/// for the whitespace before it (so a whitespace run counts as one character). Chunks
/// sized this way say `"characters"` in their metadata; `max_tokens` then means characters.
#[derive(Debug, Default, Clone, Copy)]
pub struct CharacterSizer;

impl ChunkSizer for CharacterSizer {
    fn name(&self) -> &'static str {
        "characters"
    }

    fn words(&self, text: &str, _between_pieces: &dyn Fn()) -> Result<Vec<Word>, TokenizeError> {
        Ok(whitespace_words(text).map(|w| Word { start: w.start, end: w.end, tokens: text[w].chars().count() as u32 + 1 }).collect())
    }

    fn count(&self, text: &str) -> Result<usize, TokenizeError> {
        Ok(whitespace_words(text).map(|w| text[w].chars().count() + 1).sum())
    }

    fn prefix_end(&self, text: &str, budget: usize) -> Result<Option<usize>, TokenizeError> {
        let mut size = 0;
        let mut in_word = false;
        for (at, c) in text.char_indices() {
            if is_blank(c) {
                in_word = false;
                continue;
            }
            size += if in_word { 1 } else { 2 }; // a word's first character brings its +1
            in_word = true;
            if size > budget {
                return Ok(Some(at));
            }
        }
        Ok(None)
    }

    fn is_blank(&self, c: char) -> bool {
        is_blank(c)
    }
}

/// Byte spans of the blank-separated words of `text` ([`crate::blank`]).
pub fn whitespace_words(text: &str) -> impl Iterator<Item = Range<usize>> + '_ {
    let mut start: Option<usize> = None;
    text.char_indices().chain(std::iter::once((text.len(), ' '))).filter_map(move |(i, c)| {
        if is_blank(c) {
            start.take().map(|s| s..i)
        } else {
            start.get_or_insert(i);
            None
        }
    })
}

/// A document measured once.
pub struct Measure<'a> {
    text: &'a str,
    sizer: &'a dyn ChunkSizer,
    words: Vec<Word>,
    /// `cumulative[i]` = size of words `0..i`.
    cumulative: Vec<u64>,
    /// Runs before every count (the SQL layer checks for query cancellation there), so
    /// packing and splitting, not only the measuring pass, stop within a count's time.
    interrupt: &'a dyn Fn(),
    /// Bytes per unit at the last [`Measure::prefix_end`] cut: sizes the next window.
    bytes_per_unit: Cell<f64>,
}

impl<'a> Measure<'a> {
    pub fn new(text: &'a str, sizer: &'a dyn ChunkSizer, interrupt: &'a dyn Fn()) -> Result<Self, TokenizeError> {
        let words = sizer.words(text, interrupt)?;
        let mut cumulative = Vec::with_capacity(words.len() + 1);
        let mut total = 0u64;
        cumulative.push(0);
        for word in &words {
            total += u64::from(word.tokens);
            cumulative.push(total);
        }
        Ok(Self { text, sizer, words, cumulative, interrupt, bytes_per_unit: Cell::new(4.0) })
    }

    pub fn text(&self) -> &'a str {
        self.text
    }

    pub fn sizer(&self) -> &'a dyn ChunkSizer {
        self.sizer
    }

    /// Exact size of `text[span]`: prefix sums when the span starts at a word's start and
    /// ends at a word's end, a fresh count of the slice otherwise (cuts inside a word).
    pub fn count(&self, span: Range<usize>) -> Result<usize, TokenizeError> {
        (self.interrupt)();
        if span.start >= span.end {
            return Ok(0);
        }
        match self.clean_words(span.clone()) {
            Some(words) => Ok((self.cumulative[words.end] - self.cumulative[words.start]) as usize),
            None => self.sizer.count_interruptibly(&self.text[span], self.interrupt),
        }
    }

    /// Indices of the words that lie entirely inside `span`.
    pub fn words_in(&self, span: Range<usize>) -> Range<usize> {
        let first = self.words.partition_point(|w| w.start < span.start);
        let past = self.words.partition_point(|w| w.end <= span.end);
        first..past.max(first)
    }

    /// The words of `span` when it starts at a word's start and ends at a word's end (its
    /// size is then a difference of prefix sums), `None` otherwise.
    fn clean_words(&self, span: Range<usize>) -> Option<Range<usize>> {
        let words = self.words_in(span.clone());
        let starts_clean = self.words.get(words.start).is_some_and(|w| w.start == span.start);
        let ends_clean = words.end > words.start && self.words[words.end - 1].end == span.end;
        (starts_clean && ends_clean).then_some(words)
    }

    /// Where the first `budget` units of `text[start..]` end, looking no further than
    /// `limit`: tokenizes a window that grows until it holds more than `budget` units, so
    /// the cost is proportional to the piece found, not to the rest of the text. `None`
    /// when everything up to `limit` is within the budget (by that window's count).
    pub fn prefix_end(&self, start: usize, limit: usize, budget: usize) -> Result<Option<usize>, TokenizeError> {
        (self.interrupt)();
        // the text being split is usually of one kind (a base64 run, a line of emoji):
        // the last cut's density predicts the next; 1.25x leaves room for variation
        let mut window = (budget as f64 * self.bytes_per_unit.get() * 1.25) as usize + 64;
        loop {
            let end = self.text.floor_char_boundary(start.saturating_add(window).min(limit));
            if let Some(cut) = self.sizer.prefix_end(&self.text[start..end], budget)? {
                self.bytes_per_unit.set((cut.max(1) as f64 / budget as f64).clamp(0.25, 64.0));
                return Ok(Some(start + cut));
            }
            if end >= limit {
                return Ok(None);
            }
            window = window.saturating_mul(2);
        }
    }

    /// Whether `span`'s count is two lookups in the prefix sums rather than a tokenization.
    pub fn is_clean(&self, span: Range<usize>) -> bool {
        self.clean_words(span).is_some()
    }

    pub fn word(&self, index: usize) -> Word {
        self.words[index]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whitespace_words_finds_byte_spans_across_multibyte_separators() {
        let text = "  uno\u{3000}dos\n\ntrés ";
        let words: Vec<&str> = whitespace_words(text).map(|r| &text[r]).collect();
        assert_eq!(words, ["uno", "dos", "trés"]);
    }

    #[test]
    fn character_sizer_is_additive_over_words() {
        let text = "uno  dos\ntres";
        let measure = Measure::new(text, &CharacterSizer, &|| {}).unwrap();
        assert_eq!(measure.count(0..text.len()).unwrap(), 4 + 4 + 5);
        assert_eq!(measure.count(0..text.len()).unwrap(), CharacterSizer.count(text).unwrap());
        assert_eq!(measure.count(5..8).unwrap(), 4);
        // a cut inside a word is counted afresh
        assert_eq!(measure.count(1..3).unwrap(), 3);
        assert_eq!(measure.words_in(0..8), 0..2);
    }
}
