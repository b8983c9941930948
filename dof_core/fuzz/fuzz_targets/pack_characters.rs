//! classify + chunk with the character sizer on inputs of at most 4 KB, one strategy a run
//! (the semantic one with the hash embedder), any pattern: every invariant is checked (no
//! chunk over the limit, every character accounted for, offsets on the chunk text). The
//! fast sibling of `classify_chunk`, which also runs the real tokenizer.
//!
//!   cargo +nightly fuzz run pack_characters -- -max_total_time=600 -max_len=4096
#![no_main]

use dof_core::chunk::strategies::STRATEGIES;
use dof_core::chunk::{chunk_document_using, invariants, CharacterSizer, ChunkOptions};
use dof_core::classify::{Pattern, Thresholds};
use dof_core::embed::hash::HashEmbedder;
use dof_core::embed::EmbedError;
use libfuzzer_sys::fuzz_target;

fn hash_sentences(texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
    let embedder = HashEmbedder::new(32);
    Ok(texts.iter().map(|t| embedder.embed_one(t)).collect())
}

fuzz_target!(|data: &[u8]| {
    // the first byte picks the strategy, the pattern and the limit: one strategy a run (all
    // four a run were 410 runs/s; every strategy still gets a quarter of the runs)
    let (control, body) = data.split_first().unwrap_or((&0, &[]));
    let text = String::from_utf8_lossy(&body[..body.len().min(4096)]);
    let control = usize::from(*control);
    let strategy = &STRATEGIES[control % STRATEGIES.len()];
    let pattern = match control / STRATEGIES.len() % 6 {
        0 => None,
        n => Some(Pattern::ALL[n - 1]),
    };
    let max_tokens = 16 + control / (STRATEGIES.len() * 6) * 16;
    let options = ChunkOptions {
        max_tokens,
        overlap_tokens: 8,
        thresholds: Thresholds { small_bytes: 64, giant_bytes: 4096, ..Thresholds::default() },
        pattern,
        strategy: strategy.name().to_string(),
        ..Default::default()
    };
    let chunks = chunk_document_using(&text, &CharacterSizer, &options, &|| {}, Some(&hash_sentences)).expect("valid options never fail");
    if let Err(problem) = invariants::check(&text, &chunks, options.max_tokens, &CharacterSizer) {
        panic!("{}: {problem}", strategy.name());
    }
});
