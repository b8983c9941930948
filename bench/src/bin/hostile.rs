//! Chunking throughput on hostile shapes beside ordinary prose, single thread, e5
//! tokenizer: a long word (a base64 image), emoji and ZWJ sequences on one line, a table of
//! 10,000 columns, deep nesting, control and bidi characters, NEL-separated lines, a line
//! of words joined by no-break spaces. Each shape is ~SIZE bytes (default 1 MB); the target
//! is throughput within 10x of prose. A shape that takes over DEADLINE seconds (default 60)
//! is stopped through the chunker's interrupt hook, the same path PostgreSQL's cancel takes.
//!
//!   cargo run --release -p dof_bench --bin hostile        (ONLY=base64: matching shapes only)

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::{Duration, Instant};

use dof_bench::{corpora, cpu_line, median, median_seconds, tokenizer_path};
use dof_core::chunk::{chunk_document_with, invariants, ChunkOptions};
use dof_core::tokenize::ModelTokenizer;

/// Deterministic pseudo-random bytes (xorshift), so every run chunks the same text.
fn bytes(n: usize, mut seed: u64) -> Vec<u8> {
    (0..n)
        .map(|_| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed >> 24) as u8
        })
        .collect()
}

fn base64(data: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    data.chunks(3)
        .flat_map(|c| {
            let n = (u32::from(c[0]) << 16) | (u32::from(*c.get(1).unwrap_or(&0)) << 8) | u32::from(*c.get(2).unwrap_or(&0));
            (0..4).map(move |i| ALPHABET[((n >> (18 - 6 * i)) & 63) as usize] as char)
        })
        .collect()
}

fn repeat_to(unit: &str, size: usize) -> String {
    unit.repeat(size / unit.len().max(1) + 1)
}

/// Real Spanish legal prose (the legalize-pe sample, files concatenated up to `size`), or
/// a synthetic stand-in, said so, when the shared corpora are absent.
fn real_prose(size: usize) -> Option<String> {
    let folder = corpora().join("legalize-pe-sample");
    if !folder.is_dir() {
        eprintln!(
            "NOTE: {} is absent (PG_DOF_CORPORA): the prose baseline is synthetic and repetitive, so ratios are pessimistic",
            folder.display()
        );
        return None;
    }
    let mut prose = String::new();
    for path in dof_core::corpus::markdown_files(&folder) {
        if prose.len() >= size {
            break;
        }
        prose.push_str(&std::fs::read_to_string(path).ok()?);
        prose.push_str("\n\n");
    }
    Some(prose)
}

fn shapes(size: usize) -> Vec<(&'static str, String)> {
    let prose_paragraph = "El Servicio de Administración Tributaria publica las reglas de carácter general \
        aplicables a los impuestos federales; los contribuyentes presentarán sus declaraciones a más \
        tardar el día 17 del mes siguiente, conforme al artículo 31 del Código Fiscal de la Federación.\n\n";
    let mut prose = String::from("# Resolución Miscelánea Fiscal\n\n");
    let mut section = 1;
    while prose.len() < size {
        prose.push_str(&format!("## Sección {section}\n\n"));
        for _ in 0..6 {
            prose.push_str(prose_paragraph);
        }
        section += 1;
    }
    let image =
        format!("# Anexo\n\nTexto antes.\n\n![sello](data:image/png;base64,{})\n\nTexto después.\n", base64(&bytes(size * 3 / 4, 7)));
    let emoji = format!("# Emojis\n\n{}\n", repeat_to("👩‍👩‍👧‍👦🏳️‍🌈👍🏽🇲🇽", size));
    let columns = 10_000;
    let header: String = (0..columns).map(|i| format!("| col{i} ")).collect::<String>() + "|\n";
    let separator = "|---".repeat(columns) + "|\n";
    let row: String = (0..columns).map(|i| format!("| {} ", i * 7 % 1000)).collect::<String>() + "|\n";
    let mut table = format!("# Tabla\n\n{header}{separator}");
    while table.len() < size {
        table.push_str(&row);
    }
    let depth = 5_000;
    let mut nesting = String::from("# Anidado\n\n");
    while nesting.len() < size {
        nesting.push_str(&"> ".repeat(depth));
        nesting.push_str("texto citado muy adentro\n\n");
        for level in 0..200 {
            nesting.push_str(&"  ".repeat(level));
            nesting.push_str("- elemento de lista\n");
        }
        nesting.push('\n');
    }
    let control = format!("# Control\n\n{}\n", repeat_to("\u{202e}abc\u{200f}\u{1}\u{2}def\u{202c}\u{7f} ", size));
    let nel: String = (0..)
        .map(|i| format!("\u{85}\u{94}{i}\n"))
        .take_while({
            let mut total = 0;
            move |line: &String| {
                total += line.len();
                total < size
            }
        })
        .collect();
    let nbsp = format!("# Espacios\n\n{}\n", repeat_to("palabra\u{a0}unida\u{a0}", size));
    let (prose_name, prose) = match real_prose(size) {
        Some(real) => ("prose: legalize-pe files (baseline)", real),
        None => ("prose: synthetic (baseline)", prose),
    };
    vec![
        (prose_name, prose),
        ("base64 image, one word", image),
        ("emoji + ZWJ, one line", emoji),
        ("table, 10,000 columns", table),
        ("deep nesting (quotes 5,000, lists 200)", nesting),
        ("bidi + control characters", control),
        ("NEL-separated lines", nel),
        ("no-break spaces, one line", nbsp),
    ]
}

fn main() {
    let size: usize = std::env::var("SIZE").ok().and_then(|s| s.parse().ok()).unwrap_or(1_000_000);
    let runs: usize = std::env::var("RUNS").ok().and_then(|r| r.parse().ok()).unwrap_or(3);
    let deadline = Duration::from_secs(std::env::var("DEADLINE").ok().and_then(|s| s.parse().ok()).unwrap_or(60));
    // ONLY=base64 (a part of a shape's name) measures the shapes that match, for profiling
    let only = std::env::var("ONLY").ok();
    let tokenizer = ModelTokenizer::from_file(&tokenizer_path()).expect("run `make setup` first");
    println!("{}", cpu_line());
    // "one encode": a single tokenizers encode of the whole text, the least any exact
    // chunker must spend; the ratio shows what splitting adds, the slowdown what the text
    // itself costs the tokenizer
    println!(
        "| shape | max_tokens | MB | chunks | median s | MB/s | slowdown vs prose | one encode s | chunking / one encode | invariants |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|");
    for max_tokens in [800, 64] {
        let options = ChunkOptions { max_tokens, overlap_tokens: max_tokens / 16, ..ChunkOptions::default() };
        let mut prose_rate = None;
        for (name, text) in shapes(size).into_iter().filter(|(name, _)| only.as_ref().is_none_or(|o| name.contains(o.as_str()))) {
            let mb = text.len() as f64 / 1e6;
            let mut times = Vec::new();
            let mut outcome = Ok(Vec::new());
            for _ in 0..runs {
                tokenizer.clear_word_cache();
                let start = Instant::now();
                let interrupt = || {
                    if start.elapsed() > deadline {
                        panic!("stopped after {deadline:?}");
                    }
                };
                outcome = catch_unwind(AssertUnwindSafe(|| chunk_document_with(&text, &tokenizer, &options, &interrupt).expect("chunks")));
                times.push(start.elapsed().as_secs_f64());
                if outcome.is_err() {
                    break;
                }
            }
            let seconds = median(&mut times);
            let encode = median_seconds(runs, || {
                std::hint::black_box(tokenizer.inner().encode(text.as_str(), false).expect("encodes").len());
            });
            match outcome {
                Ok(chunks) => {
                    let rate = mb / seconds;
                    let prose = *prose_rate.get_or_insert(rate);
                    let check = match invariants::check(&text, &chunks, max_tokens, &tokenizer) {
                        Ok(()) => "ok".to_string(),
                        Err(problem) => format!("FAILED: {problem}"),
                    };
                    println!(
                        "| {name} | {max_tokens} | {mb:.2} | {} | {seconds:.3} | {rate:.2} | {:.1}× | {encode:.3} | {:.1}× | {check} |",
                        chunks.len(),
                        prose / rate,
                        seconds / encode
                    );
                }
                Err(_) => {
                    println!("| {name} | {max_tokens} | {mb:.2} | - | > {} | - | stopped | {encode:.3} | - | - |", deadline.as_secs())
                }
            }
        }
    }
}
