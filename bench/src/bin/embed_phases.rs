//! Where dof_embed's time goes, outside PostgreSQL with the same code: tokenization,
//! model inference and pooling, on chunks of the DOF editions cut to 400 tokens.
//!
//!   cargo run --release -p dof_bench --bin embed_phases [THREADS]

use std::sync::Arc;
use std::time::Instant;

use dof_bench::{cpu_line, load_corpus, median_seconds, tokenizer_path};
use dof_core::chunk::{chunk_document, ChunkOptions};
use dof_core::embed::pool::{l2_normalize, mean_pool};
use dof_core::embed::{Embedder, OnnxEmbedder, OnnxOptions};
use dof_core::tokenize::ModelTokenizer;

fn main() {
    println!("{}", cpu_line());
    let threads: usize = std::env::args().nth(1).map_or(2, |t| t.parse().expect("a number"));
    let tokenizer = Arc::new(ModelTokenizer::from_file(&tokenizer_path()).expect("run `make setup` first"));
    let options = ChunkOptions { max_tokens: 400, ..ChunkOptions::default() };
    let files = load_corpus("dof-editions");
    let chunks: Vec<String> = files
        .iter()
        .take(6)
        .flat_map(|(_, text)| chunk_document(text, tokenizer.as_ref(), &options).expect("chunks"))
        .map(|c| format!("passage: {}", c.content))
        .take(256)
        .collect();
    let texts: Vec<&str> = chunks.iter().map(String::as_str).collect();
    let model = dof_bench::model_path();
    let runtime = dof_core::install::onnxruntime_library();
    let mut embedder =
        OnnxEmbedder::load(&runtime, &model, Arc::clone(&tokenizer), OnnxOptions { intra_threads: threads, ..OnnxOptions::default() })
            .expect("model loads");
    let tokens: usize = texts.iter().map(|t| tokenizer.encode(t, true).expect("encodes").ids.len().min(512)).sum();
    let tokenize = median_seconds(3, || {
        for text in &texts {
            std::hint::black_box(tokenizer.encode(text, true).expect("encodes"));
        }
    });
    embedder.embed(&texts, &mut || {}).expect("warm-up");
    let total = median_seconds(3, || {
        std::hint::black_box(embedder.embed(&texts, &mut || {}).expect("embeds"));
    });
    // pooling the same number of token states (384 floats each)
    let states = vec![0.5f32; tokens * 384];
    let start = Instant::now();
    let mut offset = 0;
    for text in &texts {
        let n = tokenizer.encode(text, true).expect("encodes").ids.len().min(512);
        let mut v = mean_pool(&states[offset * 384..(offset + n) * 384], 384, 0..n);
        l2_normalize(&mut v);
        offset += n;
    }
    let pool = start.elapsed().as_secs_f64();
    let inference = total - tokenize - pool;
    println!("\n{tokens} tokens in {} chunks, {threads} intra-op threads\n", texts.len());
    println!("| phase | seconds | share |");
    println!("|---|---|---|");
    for (name, seconds) in [("tokenize", tokenize), ("inference (ONNX Runtime)", inference), ("pool + normalise", pool)] {
        println!("| {name} | {seconds:.3} | {:.1}% |", 100.0 * seconds / total);
    }
    println!("| total (dof_core embed) | {total:.3} | {:.0} tok/s |", tokens as f64 / total);
}
