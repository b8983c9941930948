//! The symbols only 0.2.0's SQL (and 0.1.0's) calls: the embedding functions that took a
//! model's fields one by one. A database still at 0.2.0 loads the current library and calls
//! these by name until `ALTER EXTENSION pg_dof UPDATE`, which declares the versions that
//! take the `dof_models` row (src/api/embed.rs) and drops these; the current install script
//! declares none of them (`sql = false`). The upgrade test fails when a released script
//! names a symbol the library lacks.

use pgrx::prelude::*;

use super::embed::{check_interrupts, checked_dimension, inputs, numbered, spec, Rule, MAX_TEXT_BYTES};
use super::errors::{raise_embed_error, raise_invalid_parameter, raise_null_argument};
use crate::backend_models;

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
    let query = [Some(query?.to_string())]; // NULL in, NULL out, as a strict function
    let spec = spec(kind, name, model_file, tokenizer_file, checked_dimension(dimension), max_positions, revision);
    let texts = inputs(&query, "query", Rule::AtMostBytes(MAX_TEXT_BYTES));
    match backend_models::embed(&spec, &texts, prefix, &mut check_interrupts) {
        Ok(mut vectors) => vectors.pop(),
        Err(error) => raise_embed_error(error),
    }
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
    let texts = inputs(&texts, "texts", Rule::AtMostBytes(MAX_TEXT_BYTES));
    let vectors = backend_models::embed(&spec, &texts, prefix, &mut check_interrupts).unwrap_or_else(|e| raise_embed_error(e));
    numbered(vectors)
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
    let chunks = inputs(&chunks, "chunks", Rule::HasText);
    let front_matter = front_matter.unwrap_or_default();
    let front: Vec<&str> = front_matter.iter().map(|f| f.as_deref().unwrap_or("")).collect();
    if !front.is_empty() && front.len() != chunks.len() {
        raise_invalid_parameter(&format!("front_matter has {} elements but chunks has {}", front.len(), chunks.len()));
    }
    let vectors =
        backend_models::embed_late(&spec, &chunks, &front, prefix, &mut check_interrupts).unwrap_or_else(|e| raise_embed_error(e));
    numbered(vectors)
}
