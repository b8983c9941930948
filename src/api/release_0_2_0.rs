//! The symbols only 0.2.0's SQL (and 0.1.0's) calls: the embedding functions that took a
//! model's fields one by one, the indexing call without passages and the vector leg's
//! query on dof_chunks (src/api/vector_search.rs). A database still at 0.2.0 loads the
//! current library and calls these by name until `ALTER EXTENSION pg_dof UPDATE`, which
//! declares the versions that take the `dof_models` row (src/api/embed.rs) and drops these;
//! the current install script declares none of them (`sql = false`). The upgrade test
//! fails when a released script names a symbol the library lacks.

use pgrx::prelude::*;

use super::embed::{checked_dimension, embed_late_chunks, embed_query, embed_texts, spec, Texts};
use super::errors::raise_null_argument;
use super::index_document::{chunk_and_embed, chunk_row};
use super::vector_search::{index_order, nearest, Given, Statement};
use pgrx::AnyElement;

#[pg_extern(stable, parallel_safe, sql = false)]
#[allow(clippy::too_many_arguments)]
fn dof_embed_query_internal(
    query: Option<&str>,
    kind: &str,
    name: &str,
    model_file: Option<&str>,
    tokenizer_file: Option<&str>,
    dimension: i32,
    max_positions: i32,
    prefix: &str,
    revision: &str,
) -> Option<Vec<f32>> {
    let query = query?; // NULL in, NULL out, as a strict function
    let spec = spec(kind, name, model_file, tokenizer_file, checked_dimension(dimension), max_positions, revision);
    embed_query(&spec, query, prefix)
}

#[pg_extern(stable, parallel_safe, sql = false)]
#[allow(clippy::too_many_arguments)]
fn dof_embed_internal(
    texts: Option<Vec<Option<String>>>,
    kind: &str,
    name: &str,
    model_file: Option<&str>,
    tokenizer_file: Option<&str>,
    dimension: i32,
    max_positions: i32,
    prefix: &str,
    revision: &str,
) -> TableIterator<'static, (name!(ordinality, i32), name!(embedding, Vec<f32>))> {
    let texts = texts.unwrap_or_else(|| raise_null_argument("texts"));
    let spec = spec(kind, name, model_file, tokenizer_file, checked_dimension(dimension), max_positions, revision);
    // 0.2.0's SQL passes the prefix, not whether the texts are queries
    embed_texts(&spec, &texts, prefix, Texts::Passages)
}

#[pg_extern(stable, parallel_safe, sql = false)]
#[allow(clippy::too_many_arguments)]
fn dof_embed_late_internal(
    chunks: Option<Vec<Option<String>>>,
    front_matter: Option<Vec<Option<String>>>,
    kind: &str,
    name: &str,
    model_file: Option<&str>,
    tokenizer_file: Option<&str>,
    dimension: i32,
    max_positions: i32,
    prefix: &str,
    revision: &str,
) -> TableIterator<'static, (name!(ordinality, i32), name!(embedding, Vec<f32>))> {
    let chunks = chunks.unwrap_or_else(|| raise_null_argument("chunks"));
    let spec = spec(kind, name, model_file, tokenizer_file, checked_dimension(dimension), max_positions, revision);
    embed_late_chunks(&spec, &chunks, front_matter, prefix)
}

/// 0.2.0's indexing call: chunks with one vector each (a long chunk's windows pooled), no
/// passages, for a 0.2.0 `dof_collections` row (which has no `passage_tokens`).
#[pg_extern(stable, parallel_safe, sql = false)]
#[allow(clippy::type_complexity)]
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
    let embedded = chunk_and_embed(body, pattern, &collection, &model, None);
    TableIterator::new(embedded.into_iter().map(|e| chunk_row(e.chunk, e.vector)))
}

/// 0.2.0's vector leg query: the nearest chunks by their own vector, on dof_chunks' HNSW
/// index of the dimension (a 0.2.0 database has no dof_passages), with the conditions of
/// the arguments given (0.2.0 gives no model).
fn chunk_statement(dimension: i32, given: Given) -> String {
    let order = index_order(dimension);
    let conditions = given.conditions();
    format!(
        "SELECT array_agg(hits.id ORDER BY hits.distance, hits.id), array_agg(hits.distance ORDER BY hits.distance, hits.id)
         FROM (SELECT c.id, (c.embedding::vector({dimension}) <=> $1::vector({dimension}))::double precision AS distance
               FROM dof_chunks c
               WHERE vector_dims(c.embedding) = {dimension}{conditions}
               ORDER BY c.embedding::{order}({dimension}) <=> $1::{order}({dimension})
               LIMIT $4) hits"
    )
}

#[pg_extern(stable, sql = false)]
#[allow(clippy::type_complexity)]
fn dof_nearest_internal(
    query: AnyElement,
    dimension: i32,
    collection: Option<String>,
    filter: Option<String>,
    wanted: i64,
) -> TableIterator<'static, (name!(ids, Option<Vec<i64>>), name!(distances, Option<Vec<f64>>))> {
    let chunks = Statement { function: "dof_nearest_internal", text: chunk_statement };
    TableIterator::once(nearest(&chunks, query, dimension, collection, filter, wanted, None))
}
