//! classify + chunk on arbitrary input, with every strategy (`strategies::STRATEGIES`; the
//! semantic one with the hash embedder), the character sizer and (when installed) the real
//! e5 tokenizer; every invariant is checked, so a violation is a crash. The slow target
//! (the real tokenizer: ~12 runs/s); `classify`, `sentences`, `blocks` and
//! `pack_characters` are the fast ones.
//!
//!   cargo +nightly fuzz run classify_chunk -- -max_total_time=1800
#![no_main]

use std::sync::OnceLock;

use dof_core::chunk::measure::ChunkSizer;
use dof_core::chunk::strategies::STRATEGIES;
use dof_core::chunk::{chunk_document_using, invariants, CharacterSizer, ChunkOptions};
use dof_core::classify::{classify, Pattern, Thresholds};
use dof_core::embed::hash::HashEmbedder;
use dof_core::embed::EmbedError;
use dof_core::tokenize::ModelTokenizer;
use libfuzzer_sys::fuzz_target;

fn tokenizer() -> Option<&'static ModelTokenizer> {
    static TOKENIZER: OnceLock<Option<ModelTokenizer>> = OnceLock::new();
    TOKENIZER
        .get_or_init(|| {
            let tokenizer = ModelTokenizer::from_file(&dof_core::install::default_tokenizer()).ok();
            // say it once: without the tokenizer only the character sizer is fuzzed
            eprintln!("classify_chunk: e5 tokenizer {}", if tokenizer.is_some() { "loaded" } else { "MISSING, character sizer only" });
            tokenizer
        })
        .as_ref()
}

fn hash_sentences(texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
    let embedder = HashEmbedder::new(32);
    Ok(texts.iter().map(|t| embedder.embed_one(t)).collect())
}

fn check(text: &str, sizer: &dyn ChunkSizer, options: &ChunkOptions) {
    let chunks = chunk_document_using(text, sizer, options, &|| {}, Some(&hash_sentences)).expect("valid options never fail");
    if let Err(problem) = invariants::check(text, &chunks, options.max_tokens, sizer) {
        panic!("{} sizer: {problem}", sizer.name());
    }
}

fuzz_target!(|data: &[u8]| {
    let (control, body) = data.split_first().unwrap_or((&0, &[]));
    let text = String::from_utf8_lossy(body);
    let small = Thresholds { small_bytes: 64, giant_bytes: 4096, ..Thresholds::default() };
    let _ = classify(&text, &small);
    let pattern = match control % 6 {
        0 => None,
        n => Some(Pattern::ALL[usize::from(n) - 1]),
    };
    let max_tokens = 16 + usize::from(control / 6) * 4;
    for strategy in STRATEGIES {
        let options = ChunkOptions {
            max_tokens,
            overlap_tokens: 8,
            thresholds: small.clone(),
            pattern,
            strategy: strategy.name().to_string(),
            ..Default::default()
        };
        check(&text, &CharacterSizer, &options);
        if let Some(tokenizer) = tokenizer() {
            check(&text, tokenizer, &options);
        }
    }
});
