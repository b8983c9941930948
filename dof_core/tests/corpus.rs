//! Every markdown file of the shared corpora through the chunker's invariants, with the
//! real e5 tokenizer at max_tokens = 800: no chunk over the limit, token counts equal to a
//! full encode of the chunk, offsets pointing at the text, nothing lost; and the fast
//! measuring pass equal to a full encode of each whole document (total and boundaries).
//!
//! Reads ../shared/corpora (or $PG_DOF_CORPORA); says SKIPPED when a folder is absent.

mod common;

use std::collections::HashSet;

use dof_core::chunk::strategies::STRATEGIES;
use dof_core::chunk::{chunk_document_using, invariants, ChunkOptions};
use dof_core::tokenize::ModelTokenizer;

/// The fast measuring pass against a full encode of the whole document: the same total,
/// and every word boundary is a token boundary.
fn words_match_a_full_encode(tokenizer: &ModelTokenizer, text: &str) -> Result<(), String> {
    let text = text.trim_end();
    let words = tokenizer.words(text, &|| {}).map_err(|e| e.to_string())?;
    let encoding = tokenizer.inner().encode(text, false).map_err(|e| e.to_string())?;
    let total: usize = words.iter().map(|w| w.tokens as usize).sum();
    if total != encoding.len() {
        return Err(format!("words sum to {total} tokens, a full encode gives {}", encoding.len()));
    }
    let starts: HashSet<usize> =
        encoding.get_offsets().iter().map(|&(start, end)| start + (text[start..end].len() - text[start..end].trim_start().len())).collect();
    let ends: HashSet<usize> = encoding.get_offsets().iter().map(|&(_, end)| end).collect();
    // glue words span whitespace; a line word ending in a lone "▁" ends one byte past it
    let glue = |w: &dof_core::tokenize::Word| text[w.start..w.end.min(text.len())].trim().is_empty();
    match words.iter().find(|w| !glue(w) && (!starts.contains(&w.start) || !(ends.contains(&w.end) || ends.contains(&(w.end - 1))))) {
        Some(w) => Err(format!("word {}..{} ({:?}) is not on token boundaries", w.start, w.end, &text[w.start..w.end])),
        None => Ok(()),
    }
}

fn run_folder(name: &str) {
    let Some(tokenizer) = common::tokenizer() else {
        return;
    };
    let folder = common::corpora().join(name);
    if !folder.is_dir() {
        eprintln!("SKIPPED: corpus folder {} is absent", folder.display());
        return;
    }
    let files = common::markdown_files(&folder);
    assert!(!files.is_empty(), "no markdown under {}", folder.display());
    let (mut chunks_total, mut bytes) = (0usize, 0usize);
    for file in &files {
        let text = std::fs::read_to_string(file).expect("utf-8 markdown");
        // every strategy keeps every invariant on every file (semantic with the hash embedder:
        // cuts by word overlap, the bounds are the same)
        for strategy in STRATEGIES {
            let options = ChunkOptions { strategy: strategy.name().to_string(), ..ChunkOptions::default() };
            let chunks = chunk_document_using(&text, tokenizer, &options, &|| {}, Some(&common::hash_sentences)).expect("chunks");
            if let Err(problem) = invariants::check(&text, &chunks, options.max_tokens, tokenizer) {
                panic!("{} ({}): {problem}", file.display(), strategy.name());
            }
            chunks_total += chunks.len();
        }
        if let Err(problem) = words_match_a_full_encode(tokenizer, &text) {
            panic!("{}: {problem}", file.display());
        }
        bytes += text.len();
    }
    eprintln!("{name}: {} files, {bytes} bytes, {chunks_total} chunks over {} strategies, invariants hold", files.len(), STRATEGIES.len());
}

#[test]
fn dof_editions_keep_every_invariant() {
    run_folder("dof-editions");
}

#[test]
fn legalize_pe_sample_keeps_every_invariant() {
    run_folder("legalize-pe-sample");
}
