//! Every markdown file of the shared corpora through the chunker's invariants, with the
//! real e5 tokenizer at max_tokens = 800: no chunk over the limit, token counts equal to a
//! full encode of the chunk, offsets pointing at the text, nothing lost.
//!
//! Reads ../shared/corpora (or $PG_DOF_CORPORA); says SKIPPED when a folder is absent.

mod common;

use dof_core::chunk::{chunk_document, invariants, ChunkOptions};

fn run_folder(name: &str) {
    let Some(tokenizer) = common::tokenizer() else { return };
    let folder = common::corpora().join(name);
    if !folder.is_dir() {
        eprintln!("SKIPPED: corpus folder {} is absent", folder.display());
        return;
    }
    let files = common::markdown_files(&folder);
    assert!(!files.is_empty(), "no markdown under {}", folder.display());
    let options = ChunkOptions::default();
    let (mut chunks_total, mut bytes) = (0usize, 0usize);
    for file in &files {
        let text = std::fs::read_to_string(file).expect("utf-8 markdown");
        let chunks = chunk_document(&text, tokenizer, &options).expect("chunks");
        if let Err(problem) = invariants::check(&text, &chunks, options.max_tokens, tokenizer) {
            panic!("{}: {problem}", file.display());
        }
        chunks_total += chunks.len();
        bytes += text.len();
    }
    eprintln!("{name}: {} files, {bytes} bytes, {chunks_total} chunks, invariants hold", files.len());
}

#[test]
fn dof_editions_keep_every_invariant() {
    run_folder("dof-editions");
}

#[test]
fn legalize_pe_sample_keeps_every_invariant() {
    run_folder("legalize-pe-sample");
}
