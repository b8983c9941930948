//! The seed's tables for the shared corpora (not a timing): documents per pattern, chunks
//! per document and tokens per chunk (mean / median / max), chunks over the limit.
//!
//!   cargo run --release -p dof_bench --bin corpus_report [MAX_TOKENS]

use std::collections::BTreeMap;

use dof_bench::{load_corpus, median, tokenizer_path};
use dof_core::chunk::{chunk_document, ChunkOptions};
use dof_core::classify::Pattern;
use dof_core::tokenize::ModelTokenizer;

fn main() {
    let max_tokens = std::env::args().nth(1).map_or(800, |m| m.parse().expect("a number"));
    let tokenizer = ModelTokenizer::from_file(&tokenizer_path()).expect("run `make setup` first");
    let options = ChunkOptions { max_tokens, ..ChunkOptions::default() };
    for corpus in ["dof-editions", "legalize-pe-sample"] {
        let files = load_corpus(corpus);
        let mut documents: BTreeMap<&str, Vec<f64>> = BTreeMap::new();
        let mut tokens: BTreeMap<&str, Vec<f64>> = BTreeMap::new();
        for (_, text) in &files {
            let chunks = chunk_document(text, &tokenizer, &options).expect("chunks");
            let pattern = chunks.first().map_or(Pattern::Small, |c| c.pattern).as_str();
            documents.entry(pattern).or_default().push(chunks.len() as f64);
            tokens.entry(pattern).or_default().extend(chunks.iter().map(|c| c.token_count as f64));
        }
        println!("\n{corpus}: {} documents, max_tokens = {max_tokens}\n", files.len());
        println!("| pattern | documents | % | chunks/doc mean | median | max | tokens/chunk mean | median | max | over limit |");
        println!("|---|---|---|---|---|---|---|---|---|---|");
        for (pattern, per_doc) in documents.iter_mut() {
            let chunk_tokens = tokens.get_mut(pattern).expect("same keys");
            let mean = |v: &[f64]| {
                if v.is_empty() {
                    0.0
                } else {
                    v.iter().sum::<f64>() / v.len() as f64
                }
            };
            let max = |v: &[f64]| v.iter().copied().fold(0.0, f64::max);
            println!(
                "| {pattern} | {} | {:.1}% | {:.1} | {:.1} | {:.0} | {:.0} | {:.0} | {:.0} | {} |",
                per_doc.len(),
                100.0 * per_doc.len() as f64 / files.len() as f64,
                mean(per_doc),
                median(per_doc),
                max(per_doc),
                mean(chunk_tokens),
                median(chunk_tokens),
                max(chunk_tokens),
                chunk_tokens.iter().filter(|&&t| t > max_tokens as f64).count()
            );
        }
    }
}
