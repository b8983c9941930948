//! dof_chunk_paragraphs: chunks of a list of paragraphs (the seed's `chunk_paragraphs`).

use std::sync::Arc;

use dof_core::chunk::measure::ChunkSizer;
use dof_core::chunk::strategies::chunk_paragraphs;
use dof_core::chunk::CharacterSizer;
use dof_core::tokenize::ModelTokenizer;
use pgrx::prelude::*;
use pgrx::JsonB;

use super::chunk::tokenizer_at;
use super::errors::{checked_model_file, raise_chunk_error, raise_invalid_parameter, raise_null_argument};
use crate::guc;

/// The seed's `chunk_paragraphs` over a list of paragraphs; `tokenizer_file` (relative to
/// pg_dof.model_dir) bounds the chunks to `max_tokens` of it, NULL counts characters. The
/// user-facing dof_chunk_paragraphs (sql/chunk.sql) takes a model name.
#[pg_extern(stable, parallel_safe)]
#[allow(clippy::type_complexity, clippy::too_many_arguments)]
fn dof_chunk_paragraphs_internal(
    paragraphs: Option<Vec<Option<String>>>,
    source_id: Option<&str>,
    max_chars: Option<i32>,
    min_chars: Option<i32>,
    metadata: Option<JsonB>,
    max_tokens: Option<i32>,
    tokenizer_file: Option<&str>,
) -> TableIterator<
    'static,
    (
        name!(chunk_id, String),
        name!(chunk_index, i32),
        name!(content, String),
        name!(metadata, JsonB),
        name!(para_count, i32),
        name!(split, bool),
        name!(first_paragraph, i32),
        name!(last_paragraph, i32),
        name!(token_count, i32),
        name!(sizer, &'static str),
    ),
> {
    let Some(paragraphs) = paragraphs else { return TableIterator::new(Vec::new()) };
    let source_id = source_id.unwrap_or_else(|| raise_null_argument("source_id")).to_string();
    let positive = |name: &str, value: Option<i32>| -> usize {
        let value = value.unwrap_or_else(|| raise_null_argument(name));
        usize::try_from(value)
            .ok()
            .filter(|&n| n >= 1)
            .unwrap_or_else(|| raise_invalid_parameter(&format!("{name} must be at least 1, got {value}")))
    };
    let (max_chars, min_chars) = (positive("max_chars", max_chars), positive("min_chars", min_chars));
    let base = match metadata.map(|m| m.0) {
        None => serde_json::Map::new(),
        Some(serde_json::Value::Object(map)) => map,
        Some(other) => raise_invalid_parameter(&format!("metadata must be a JSON object, got {other}")),
    };
    let max_tokens = max_tokens.map(|n| usize::try_from(n).unwrap_or_else(|_| raise_invalid_parameter("max_tokens must not be negative")));
    let texts: Vec<&str> = paragraphs.iter().map(|p| p.as_deref().unwrap_or("")).collect();
    let check_interrupts = &|| {
        pgrx::check_for_interrupts!();
    };
    let tokenizer = max_tokens.and(tokenizer_file).map(tokenizer_in);
    let sizer: &dyn ChunkSizer = match &tokenizer {
        Some(tokenizer) => tokenizer.as_ref(),
        None => &CharacterSizer,
    };
    let chunks =
        chunk_paragraphs(&texts, max_chars, min_chars, sizer, max_tokens, check_interrupts).unwrap_or_else(|e| raise_chunk_error(e));
    let to_i32 = |n: usize| i32::try_from(n).unwrap_or(i32::MAX);
    let sizer_name = sizer.name();
    TableIterator::new(chunks.into_iter().map(move |chunk| {
        let mut metadata = base.clone();
        // the seed's record: how many paragraphs a chunk merged, or that it is a piece of one
        if chunk.split {
            metadata.insert("split".into(), serde_json::Value::Bool(true));
        } else {
            metadata.insert("para_count".into(), serde_json::Value::from(chunk.para_count));
        }
        (
            format!("{source_id}#{}", chunk.index),
            to_i32(chunk.index),
            chunk.content,
            JsonB(serde_json::Value::Object(metadata)),
            to_i32(chunk.para_count),
            chunk.split,
            to_i32(chunk.first_paragraph + 1),
            to_i32(chunk.last_paragraph + 1),
            to_i32(chunk.token_count),
            sizer_name,
        )
    }))
}

/// The (cached) tokenizer in `file`, relative to pg_dof.model_dir (checked for the caller).
fn tokenizer_in(file: &str) -> Arc<ModelTokenizer> {
    tokenizer_at(&guc::model_dir().join(checked_model_file(file)))
}
