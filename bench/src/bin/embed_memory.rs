//! Peak memory of embedding: the process's VmHWM after embedding TEXTS texts of ~400
//! tokens with a given `batch_tokens` (the cap on batch × padded length per model call),
//! and the time it took. One setting per process, since the peak only grows:
//!
//!   for b in 8192 4096 2048; do cargo run --release -p dof_bench --bin embed_memory -- $b; done
use std::sync::Arc;
use std::time::Instant;

use dof_bench::{cpu_line, tokenizer_path};
use dof_core::embed::{Embedder, OnnxEmbedder, OnnxOptions};
use dof_core::tokenize::ModelTokenizer;

fn peak_mb() -> usize {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status.lines().find(|l| l.starts_with("VmHWM:")).and_then(|l| l.split_whitespace().nth(1)?.parse::<usize>().ok()).unwrap_or(0) / 1024
}

fn main() {
    let batch_tokens: usize = std::env::args().nth(1).map_or(16 * 512, |b| b.parse().expect("a number"));
    let count: usize = std::env::var("TEXTS").ok().and_then(|t| t.parse().ok()).unwrap_or(200);
    // REPEAT sentences per text: 60 is ~400 tokens (the probe), 8 is ~60
    let repeat: usize = std::env::var("REPEAT").ok().and_then(|t| t.parse().ok()).unwrap_or(60);
    let tokenizer = Arc::new(ModelTokenizer::from_file(&tokenizer_path()).expect("run `make setup` first"));
    let model = dof_bench::model_path();
    let runtime = dof_core::install::onnxruntime_library();
    let options = OnnxOptions { intra_threads: 2, batch_tokens, ..OnnxOptions::default() };
    let mut embedder = OnnxEmbedder::load(&runtime, &model, tokenizer, options).expect("model loads");
    let loaded = peak_mb();
    let texts: Vec<String> =
        (1..=count).map(|i| format!("passage: {}", format!("Artículo {i} de la ley federal. ").repeat(repeat))).collect();
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let start = Instant::now();
    let vectors = embedder.embed(&refs, &mut || {}).expect("embeds");
    let seconds = start.elapsed().as_secs_f64();
    println!("{}", cpu_line());
    println!("| batch_tokens | texts × sentences | peak RSS after load MB | peak RSS MB | seconds | texts/s |");
    println!("|---|---|---|---|---|---|");
    println!(
        "| {batch_tokens} | {} × {repeat} | {loaded} | {} | {seconds:.1} | {:.1} |",
        vectors.len(),
        peak_mb(),
        vectors.len() as f64 / seconds
    );
}
