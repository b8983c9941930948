//! Chunking throughput, single thread, e5 tokenizer, max_tokens = 800: pg_dof's chunker
//! beside one raw `tokenizers` encode pass and text-splitter's MarkdownSplitter sized by
//! the same tokenizer, in the same run. Medians of RUNS runs (default 3).
//!
//!   cargo run --release -p dof_bench --bin chunking

use dof_bench::{cpu_line, load_corpus, median_seconds, megabytes, tokenizer_path};
use dof_core::chunk::{chunk_document, ChunkOptions};
use dof_core::classify::{Features, Thresholds};
use dof_core::tokenize::ModelTokenizer;
use text_splitter::{ChunkConfig, MarkdownSplitter};

/// text-splitter runs at ~0.07 MB/s (measured with its Python binding): it gets a subset.
const SUBSET_BYTES: usize = 2_000_000;

fn main() {
    println!("{}", cpu_line());
    let runs: usize = std::env::var("RUNS").ok().and_then(|r| r.parse().ok()).unwrap_or(3);
    let ours = ModelTokenizer::from_file(&tokenizer_path()).expect("run `make setup` first");
    let raw = ours.inner().clone();
    let options = ChunkOptions::default();
    let thresholds = Thresholds::default();
    println!("| workload | corpus | MB | median s | MB/s | chunks/s | vs raw encode | vs text-splitter |");
    println!("|---|---|---|---|---|---|---|---|");
    for corpus in ["legalize-pe-sample", "dof-editions"] {
        let files = load_corpus(corpus);
        let docs: Vec<&str> = files.iter().map(|(_, text)| text.as_str()).collect();
        let mut subset = Vec::new();
        let mut subset_bytes = 0;
        for doc in &docs {
            if subset_bytes >= SUBSET_BYTES {
                break;
            }
            subset.push(*doc);
            subset_bytes += doc.len();
        }
        let mb = megabytes(&docs);
        let classify = median_seconds(runs.max(5), || {
            for doc in &docs {
                std::hint::black_box(Features::of(doc).pattern(&thresholds));
            }
        });
        println!("| classify | {corpus} | {mb:.1} | {classify:.4} | {:.0} ({:.2} GB/s) | | | |", mb / classify, mb / classify / 1000.0);
        let chunk_all = |docs: &[&str]| -> usize {
            ours.clear_word_cache();
            docs.iter().map(|doc| chunk_document(doc, &ours, &options).expect("chunks").len()).sum()
        };
        let encode_all = |docs: &[&str]| {
            for doc in docs {
                std::hint::black_box(raw.encode(*doc, false).expect("encodes").len());
            }
        };
        let chunks = chunk_all(&docs);
        let ours_s = median_seconds(runs, || {
            chunk_all(&docs);
        });
        let raw_s = median_seconds(runs, || encode_all(&docs));
        println!("| raw encode (tokenizers) | {corpus} | {mb:.1} | {raw_s:.2} | {:.2} | | 1.00× | |", mb / raw_s);
        println!(
            "| pg_dof chunk_document | {corpus} | {mb:.1} | {ours_s:.2} | {:.2} | {:.0} | {:.2}× | |",
            mb / ours_s,
            chunks as f64 / ours_s,
            raw_s / ours_s
        );
        let sub_mb = megabytes(&subset);
        let splitter = MarkdownSplitter::new(ChunkConfig::new(options.max_tokens).with_sizer(&raw));
        let splitter_chunks: usize = subset.iter().map(|doc| splitter.chunks(doc).count()).sum();
        let splitter_s = median_seconds(runs, || {
            for doc in &subset {
                std::hint::black_box(splitter.chunks(doc).count());
            }
        });
        let ours_sub = median_seconds(runs, || {
            chunk_all(&subset);
        });
        let raw_sub = median_seconds(runs, || encode_all(&subset));
        let subset_name = format!("{corpus} (first {:.1} MB)", sub_mb);
        println!(
            "| text-splitter MarkdownSplitter | {subset_name} | {sub_mb:.1} | {splitter_s:.2} | {:.3} | {:.0} | {:.2}× | 1.00× |",
            sub_mb / splitter_s,
            splitter_chunks as f64 / splitter_s,
            raw_sub / splitter_s
        );
        println!(
            "| raw encode (tokenizers) | {subset_name} | {sub_mb:.1} | {raw_sub:.2} | {:.2} | | 1.00× | {:.1}× |",
            sub_mb / raw_sub,
            splitter_s / raw_sub
        );
        println!(
            "| pg_dof chunk_document | {subset_name} | {sub_mb:.1} | {ours_sub:.2} | {:.2} | | {:.2}× | {:.1}× |",
            sub_mb / ours_sub,
            raw_sub / ours_sub,
            splitter_s / ours_sub
        );
    }
}
