//! Chunks and embeds whole corpora for the scale benchmark (`bench/scripts/store_search.sh`),
//! outside PostgreSQL with the product's chunker and embedder, so that the search
//! measurement runs over real, distinct chunks with their real vectors.
//!
//!   cargo run --release -p dof_bench --bin embed_corpus -- OUT_DIR [MAX_TOKENS] [CORPUS...]
//!
//! Writes OUT_DIR/documents.csv (source_id, body) and OUT_DIR/chunks.csv (source_id,
//! chunk_index, pattern, heading_path as JSON, content, token_count, char_start, char_end,
//! embedding as a pgvector literal), both ready for `COPY ... (FORMAT csv)`. Embedding 10M
//! tokens takes about an hour on two cores, so the work is resumable: OUT_DIR/progress
//! records each finished group of documents with the files' sizes after it, and a rerun
//! truncates the files to the last record and goes on from there.
//! `--count` only chunks and prints what embedding would take.

use std::collections::HashSet;
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use dof_bench::{corpora as corpora_root, load_corpus, model_path, tokenizer_path};
use dof_core::chunk::{chunk_document, Chunk, ChunkOptions};
use dof_core::embed::{Embedder, OnnxEmbedder, OnnxOptions};
use dof_core::tokenize::ModelTokenizer;
use indicatif::{ProgressBar, ProgressStyle};

/// Chunks embedded per model call group: enough that length-sorted batches pad little.
const GROUP_CHUNKS: usize = 512;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let count_only = args.iter().any(|a| a == "--count");
    let mut positional = args.iter().filter(|a| *a != "--count");
    let out = PathBuf::from(positional.next().expect("usage: embed_corpus OUT_DIR [MAX_TOKENS] [CORPUS...]"));
    let max_tokens: usize = positional.next().map_or(128, |t| t.parse().expect("MAX_TOKENS is a number"));
    let mut corpora: Vec<String> = positional.cloned().collect();
    if corpora.is_empty() {
        corpora = vec!["dof-editions".into(), "legalize-pe-sample".into()];
    }
    let tokenizer = Arc::new(ModelTokenizer::from_file(&tokenizer_path()).expect("run `make setup` first"));
    let options = ChunkOptions { max_tokens, ..ChunkOptions::default() };
    let mut documents: Vec<(String, String, Vec<Chunk>)> = Vec::new();
    for corpus in &corpora {
        for (path, body) in load_corpus(corpus) {
            // the path under the corpora folder: the same edition exists once per converter
            let name = path.strip_prefix(corpora_root()).unwrap_or(&path).to_string_lossy().into_owned();
            let chunks = chunk_document(&body, tokenizer.as_ref(), &options).expect("chunks");
            documents.push((name, body, chunks));
        }
    }
    let chunks: usize = documents.iter().map(|d| d.2.len()).sum();
    let tokens: usize = documents.iter().flat_map(|d| &d.2).map(|c| c.token_count).sum();
    eprintln!("{} documents, {chunks} chunks, {tokens} tokens at max_tokens {max_tokens}", documents.len());
    if count_only {
        return;
    }

    std::fs::create_dir_all(&out).expect("OUT_DIR can be created");
    let (done, sizes) = resume(&out);
    let doc_file = open_at(&out.join("documents.csv"), sizes.0);
    let chunk_file = open_at(&out.join("chunks.csv"), sizes.1);
    let (mut doc_file, mut chunk_file) = (std::io::BufWriter::new(doc_file), std::io::BufWriter::new(chunk_file));
    let mut progress = OpenOptions::new().create(true).append(true).open(out.join("progress")).expect("progress file");

    let model = model_path();
    let runtime = dof_core::install::onnxruntime_library();
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut embedder =
        OnnxEmbedder::load(&runtime, &model, Arc::clone(&tokenizer), OnnxOptions { intra_threads: threads, ..OnnxOptions::default() })
            .expect("model loads");

    let todo: Vec<&(String, String, Vec<Chunk>)> = documents.iter().filter(|d| !done.contains(&d.0)).collect();
    let bar = ProgressBar::new(todo.iter().flat_map(|d| &d.2).map(|c| c.token_count as u64).sum());
    bar.set_style(ProgressStyle::with_template("{elapsed_precise} {bar:40} {pos}/{len} tokens, {per_sec}, eta {eta}").expect("template"));
    let mut group: Vec<&(String, String, Vec<Chunk>)> = Vec::new();
    for (i, document) in todo.iter().enumerate() {
        group.push(document);
        let grouped: usize = group.iter().map(|d| d.2.len()).sum();
        if grouped < GROUP_CHUNKS && i + 1 < todo.len() {
            continue;
        }
        let texts: Vec<String> = group.iter().flat_map(|d| &d.2).map(|c| format!("passage: {}", c.content)).collect();
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        let vectors = embedder.embed(&refs, &mut || {}).expect("embeds");
        let mut vectors = vectors.iter();
        for (source, body, chunks) in group.drain(..) {
            write_row(&mut doc_file, &[source.as_str(), body.as_str()]);
            for chunk in chunks {
                let vector = vectors.next().expect("one vector per chunk");
                let literal = format!("[{}]", vector.iter().map(f32::to_string).collect::<Vec<_>>().join(","));
                let heading = format!("[{}]", chunk.heading_path.iter().map(|h| json_string(h)).collect::<Vec<_>>().join(","));
                write_row(
                    &mut chunk_file,
                    &[
                        source.as_str(),
                        &chunk.chunk_index.to_string(),
                        chunk.pattern.as_str(),
                        &heading,
                        &chunk.content,
                        &chunk.token_count.to_string(),
                        &chunk.char_start.to_string(),
                        &chunk.char_end.to_string(),
                        &literal,
                    ],
                );
                bar.inc(chunk.token_count as u64);
            }
            // A document counts as done only once its rows are on disk, sizes recorded.
            doc_file.flush().expect("write");
            chunk_file.flush().expect("write");
            let sizes = (doc_file.get_ref().metadata().expect("size").len(), chunk_file.get_ref().metadata().expect("size").len());
            writeln!(progress, "{source}\t{}\t{}", sizes.0, sizes.1).expect("write progress");
        }
        if !std::io::stderr().is_terminal() {
            // indicatif draws nothing without a terminal: a line per group instead
            eprintln!("{}/{} tokens, {:.0} tokens/s", bar.position(), bar.length().unwrap_or(0), bar.per_sec());
        }
    }
    bar.finish();
    eprintln!("done: {}", out.display());
}

/// Sources already written and the files' sizes after the last of them.
fn resume(out: &Path) -> (HashSet<String>, (u64, u64)) {
    let mut done = HashSet::new();
    let mut sizes = (0, 0);
    if let Ok(file) = File::open(out.join("progress")) {
        for line in BufReader::new(file).lines().map_while(Result::ok) {
            let fields: Vec<&str> = line.split('\t').collect();
            if let [source, docs, chunks] = fields[..] {
                if let (Ok(d), Ok(c)) = (docs.parse(), chunks.parse()) {
                    done.insert(source.to_string());
                    sizes = (d, c);
                }
            }
        }
    }
    if !done.is_empty() {
        eprintln!("resuming after {} documents", done.len());
    }
    (done, sizes)
}

/// Opens `path` for appending after truncating it to `size` (a partly written group).
fn open_at(path: &Path, size: u64) -> File {
    let file = OpenOptions::new().create(true).append(true).open(path).expect("output file");
    file.set_len(size).expect("truncate");
    file
}

fn write_row(out: &mut impl Write, fields: &[&str]) {
    let row: Vec<String> = fields.iter().map(|f| format!("\"{}\"", f.replace('"', "\"\""))).collect();
    writeln!(out, "{}", row.join(",")).expect("write");
}

fn json_string(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}
