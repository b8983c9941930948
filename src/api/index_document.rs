//! The one chunk-and-embed entry point of ingestion: a document's body, its stored pattern,
//! its collection row and its model row in; chunks with their vectors out. `dof_index_document` (sql/index_document.sql), the one
//! function that builds a document's chunks, stores what this returns; the triggers and the
//! queue both go through it (`dof_shard_import` only copies chunks another shard stored).

use dof_core::chunk::{Chunk, ChunkOptions};
use dof_core::classify::Pattern;
use pgrx::heap_tuple::PgHeapTuple;
use pgrx::prelude::*;
use pgrx::{AllocatedByRust, JsonB};

use super::chunk::{chunk_by_model, chunk_options, names_tokenizer};
use super::embed::{check_interrupts, spec_of_row};
use super::errors::{raise_embed_error, raise_invalid_parameter, raise_null_argument};
use super::strategies::settings;
use crate::backend_models;

/// How a collection chunks and embeds, read from its `dof_collections` row.
struct CollectionSettings {
    options: ChunkOptions,
    late_chunking: bool,
}

fn collection_settings(collection: &PgHeapTuple<'_, AllocatedByRust>, pattern: Option<&str>) -> CollectionSettings {
    macro_rules! field {
        ($name:literal, $type:ty) => {
            collection
                .get_by_name::<$type>($name)
                .unwrap_or_else(|e| raise_invalid_parameter(&format!("dof_collections.{}: {e}", $name)))
                .unwrap_or_else(|| raise_null_argument(concat!("dof_collections.", $name)))
        };
    }
    let strategy = field!("chunker", String);
    let options = settings(&field!("chunker_options", JsonB));
    let options = chunk_options(field!("max_tokens", i32), field!("overlap_tokens", i32), pattern, &strategy, options);
    CollectionSettings { options, late_chunking: field!("late_chunking", bool) }
}

/// Chunks `body` the way `collection` says and embeds the chunks with `model` (late or
/// independently, per the collection), in one call: the tokenizer and the model are the
/// backend's cached ones, the pattern is the stored one (no second classification).
#[pg_extern(stable, parallel_safe, requires = ["tables"])]
#[allow(clippy::type_complexity)] // pgrx reads the row's column names from this tuple
fn dof_chunk_embed_internal(
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
    ),
> {
    let collection = collection.unwrap_or_else(|| raise_null_argument("collection"));
    let model = model.unwrap_or_else(|| raise_null_argument("model"));
    let Some(body) = body else { return TableIterator::new(Vec::new()) };
    // indexing is the long, CPU-bound work: searches in other sessions go first
    crate::ingest_priority::yield_to_searches();
    // a stored pattern that this build does not know (a later release's) is classified again
    let pattern = pattern.filter(|p| Pattern::parse(p).is_some());
    let settings = collection_settings(&collection, pattern);
    let spec = spec_of_row(&model);
    // a hash model sizes in characters, unless its row names a tokenizer: then its chunks
    // are those of the real model with that tokenizer (as dof_chunk(model => ...) cuts them)
    let chunks = chunk_by_model(body, &settings.options, Some((&spec, names_tokenizer(&model))));
    if chunks.is_empty() {
        return TableIterator::new(Vec::new());
    }
    let contents: Vec<&str> = chunks.iter().map(|c| c.content.as_str()).collect();
    let vectors = if settings.late_chunking {
        let front_matter: Vec<String> =
            chunks.iter().map(|c| c.heading_path.iter().take(2).cloned().collect::<Vec<_>>().join("\n")).collect();
        let front: Vec<&str> = front_matter.iter().map(String::as_str).collect();
        backend_models::embed_late(&spec, &contents, &front, &spec.passage_prefix, &mut check_interrupts)
    } else {
        backend_models::embed(&spec, &contents, &spec.passage_prefix, &mut check_interrupts)
    };
    let vectors = vectors.unwrap_or_else(|e| raise_embed_error(e));
    TableIterator::new(chunks.into_iter().zip(vectors).map(|(chunk, vector)| row(chunk, vector)))
}

#[allow(clippy::type_complexity)]
fn row(
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
