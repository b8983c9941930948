//! The one chunk-and-embed entry point of ingestion: a document's body, its stored pattern,
//! its collection row and its model row in; chunks with their passages and vectors out.
//! `dof_index_document` (sql/index_document.sql), the one function that builds a
//! document's chunks, stores what this returns; the triggers and the queue both go through
//! it (`dof_shard_import` only copies chunks another shard stored).

use dof_core::chunk::passages::{chunk_vector, Passage};
use dof_core::chunk::{Chunk, ChunkOptions};
use dof_core::classify::Pattern;
use pgrx::heap_tuple::PgHeapTuple;
use pgrx::prelude::*;
use pgrx::{AllocatedByRust, JsonB};

use super::chunk::{chunk_by_model, chunk_options, names_tokenizer, passages_by_model};
use super::embed::{check_interrupts, spec_of_row};
use super::errors::{raise_embed_error, raise_invalid_parameter, raise_null_argument};
use super::strategies::settings;
use crate::backend_models;

/// A `dof_collections` row and a `dof_models` row, as pgrx passes them.
pub(crate) type Row<'a> = PgHeapTuple<'a, AllocatedByRust>;

/// One column of a collection's row, or an ERROR naming it.
macro_rules! field {
    ($collection:expr, $name:literal, $type:ty) => {
        $collection
            .get_by_name::<$type>($name)
            .unwrap_or_else(|e| raise_invalid_parameter(&format!("dof_collections.{}: {e}", $name)))
            .unwrap_or_else(|| raise_null_argument(concat!("dof_collections.", $name)))
    };
}

/// How a collection chunks, read from its `dof_collections` row.
fn chunking(collection: &Row<'_>, pattern: Option<&str>) -> ChunkOptions {
    let strategy = field!(collection, "chunker", String);
    let options = settings(&field!(collection, "chunker_options", JsonB));
    chunk_options(field!(collection, "max_tokens", i32), field!(collection, "overlap_tokens", i32), pattern, &strategy, options)
}

/// A chunk as stored: its vector, its passages and theirs.
pub(super) struct Embedded {
    pub chunk: Chunk,
    pub vector: Vec<f32>,
    pub passages: Vec<Passage>,
    pub passage_vectors: Vec<Vec<f32>>,
}

/// Chunks `body` the way `collection` says and embeds the chunks with `model`: the
/// tokenizer and the model are the backend's cached ones, the pattern is the stored one (no
/// second classification). Embedded independently, each chunk is cut into passages of at
/// most `passage_tokens` (dof_core::chunk::passages; `None`: each chunk is its one
/// passage), each passage is embedded, and the chunk's vector is their mean; late-chunked,
/// a chunk is its one passage with its late vector.
pub(super) fn chunk_and_embed(
    body: &str,
    pattern: Option<&str>,
    collection: &Row<'_>,
    model: &Row<'_>,
    passage_tokens: Option<usize>,
) -> Vec<Embedded> {
    // indexing is the long, CPU-bound work: searches in other sessions go first
    crate::ingest_priority::yield_to_searches();
    // a stored pattern that this build does not know (a later release's) is classified again
    let pattern = pattern.filter(|p| Pattern::parse(p).is_some());
    let options = chunking(collection, pattern);
    let late_chunking = field!(collection, "late_chunking", bool);
    let spec = spec_of_row(model);
    // a hash model sizes in characters, unless its row names a tokenizer: then its chunks
    // are those of the real model with that tokenizer (as dof_chunk(model => ...) cuts them)
    let chunks = chunk_by_model(body, &options, Some((&spec, names_tokenizer(model))));
    if chunks.is_empty() {
        return Vec::new();
    }
    let limit = passage_tokens.filter(|_| !late_chunking).unwrap_or(usize::MAX);
    let passages = passages_by_model(&chunks, limit, &spec, names_tokenizer(model));
    let passage_vectors: Vec<Vec<Vec<f32>>> = if late_chunking {
        let contents: Vec<&str> = chunks.iter().map(|c| c.content.as_str()).collect();
        let front_matter: Vec<String> =
            chunks.iter().map(|c| c.heading_path.iter().take(2).cloned().collect::<Vec<_>>().join("\n")).collect();
        let front: Vec<&str> = front_matter.iter().map(String::as_str).collect();
        let vectors = backend_models::embed_late(&spec, &contents, &front, &spec.passage_prefix, &mut check_interrupts)
            .unwrap_or_else(|e| raise_embed_error(e));
        vectors.into_iter().map(|v| vec![v]).collect()
    } else {
        let texts: Vec<&str> = passages.iter().flatten().map(|p| p.content.as_str()).collect();
        let mut vectors = backend_models::embed(&spec, &texts, &spec.passage_prefix, &mut check_interrupts)
            .unwrap_or_else(|e| raise_embed_error(e))
            .into_iter();
        passages.iter().map(|p| vectors.by_ref().take(p.len()).collect()).collect()
    };
    chunks
        .into_iter()
        .zip(passages)
        .zip(passage_vectors)
        .map(|((chunk, passages), passage_vectors)| Embedded { chunk, vector: chunk_vector(&passage_vectors), passages, passage_vectors })
        .collect()
}

/// A collection's `passage_tokens`.
fn passage_tokens(collection: &Row<'_>) -> usize {
    usize::try_from(field!(collection, "passage_tokens", i32))
        .unwrap_or_else(|_| raise_invalid_parameter("dof_collections.passage_tokens must not be negative"))
}

/// The chunks of a document as `dof_index_document` stores them, with their passages
/// ([`chunk_and_embed`]). The passages come flattened, one element per passage
/// (`passage_embeddings`: their vectors one after another), as pgrx returns no array of
/// vectors; dof_index_document stores them in dof_passages.
#[pg_extern(stable, parallel_safe, requires = ["tables"])]
#[allow(clippy::type_complexity)] // pgrx reads the row's column names from this tuple
fn dof_chunk_passages_internal(
    body: Option<&str>,
    pattern: Option<&str>,
    collection: Option<pgrx::composite_type!("dof_collections")>,
    model: Option<pgrx::composite_type!("dof_models")>,
) -> TableIterator<
    'static,
    (
        name!(chunk_index, i32),
        name!(pattern, &'static str),
        name!(heading_path, Vec<String>),
        name!(content, String),
        name!(token_count, i32),
        name!(char_start, i32),
        name!(char_end, i32),
        name!(table_piece, bool),
        name!(overlap, bool),
        name!(split, bool),
        name!(sizer, &'static str),
        name!(chunker, &'static str),
        name!(embedding, Vec<f32>),
        name!(passage_starts, Vec<i32>),
        name!(passage_ends, Vec<i32>),
        name!(passage_tokens, Vec<i32>),
        name!(passage_embeddings, Vec<f32>),
    ),
> {
    let collection = collection.unwrap_or_else(|| raise_null_argument("collection"));
    let model = model.unwrap_or_else(|| raise_null_argument("model"));
    let Some(body) = body else { return TableIterator::new(Vec::new()) };
    let embedded = chunk_and_embed(body, pattern, &collection, &model, Some(passage_tokens(&collection)));
    TableIterator::new(embedded.into_iter().map(|e| {
        let (index, pattern, path, content, tokens, start, end, table, overlap, split, sizer, chunker, vector) =
            chunk_row(e.chunk, e.vector);
        let to_i32 = |n: usize| i32::try_from(n).unwrap_or(i32::MAX);
        (
            index,
            pattern,
            path,
            content,
            tokens,
            start,
            end,
            table,
            overlap,
            split,
            sizer,
            chunker,
            vector,
            e.passages.iter().map(|p| to_i32(p.char_start)).collect(),
            e.passages.iter().map(|p| to_i32(p.char_end)).collect(),
            e.passages.iter().map(|p| to_i32(p.token_count)).collect(),
            e.passage_vectors.concat(),
        )
    }))
}

/// A chunk's columns as dof_chunks stores them.
#[allow(clippy::type_complexity)]
pub(super) fn chunk_row(
    chunk: Chunk,
    embedding: Vec<f32>,
) -> (i32, &'static str, Vec<String>, String, i32, i32, i32, bool, bool, bool, &'static str, &'static str, Vec<f32>) {
    let to_i32 = |n: usize| i32::try_from(n).unwrap_or(i32::MAX);
    (
        to_i32(chunk.chunk_index),
        chunk.pattern.as_str(),
        chunk.heading_path,
        chunk.content,
        to_i32(chunk.token_count),
        to_i32(chunk.char_start),
        to_i32(chunk.char_end),
        chunk.table_piece,
        chunk.overlap,
        chunk.split,
        chunk.sizer,
        chunk.strategy,
        embedding,
    )
}
