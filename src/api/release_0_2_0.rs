//! The symbols only 0.2.0's SQL (and 0.1.0's) calls: the embedding functions that took a
//! model's fields one by one. A database still at 0.2.0 loads the current library and calls
//! these by name until `ALTER EXTENSION pg_dof UPDATE`, which declares the versions that
//! take the `dof_models` row (src/api/embed.rs) and drops these; the current install script
//! declares none of them (`sql = false`). The upgrade test fails when a released script
//! names a symbol the library lacks.

use pgrx::prelude::*;

use super::embed::{checked_dimension, embed_late_chunks, embed_query, embed_texts, spec};
use super::errors::raise_null_argument;

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
    embed_texts(&spec, &texts, prefix)
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
