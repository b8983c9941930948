//! dof_chunk: a document's chunks by a strategy, sized by a model's tokenizer. The
//! strategies' list and settings are in strategies.rs, the classifier in classify.rs, the
//! paragraph chunker in paragraphs.rs.

use std::sync::Arc;

use dof_core::chunk::measure::ChunkSizer;
use dof_core::chunk::passages::{passages, Passage};
use dof_core::chunk::strategies::{SentenceEmbedder, Settings};
use dof_core::chunk::{chunk_document_using, CharacterSizer, Chunk, ChunkError, ChunkOptions, MIN_MAX_TOKENS};
use dof_core::classify::Pattern;
use dof_core::embed::{EmbedError, ModelKind, ModelSpec};
use dof_core::tokenize::ModelTokenizer;
use pgrx::prelude::*;
use pgrx::JsonB;

use super::embed::spec_of_row;
use super::errors::{raise_chunk_error, raise_embed_error, raise_invalid_parameter, raise_null_argument};
use super::strategies::settings;
use crate::{backend_models, sentence_cache};

/// Recorded on every stored chunk, so re-chunking can target older chunks.
#[pg_extern(immutable, parallel_safe)]
fn dof_chunker_version() -> &'static str {
    dof_core::chunk::CHUNKER_VERSION
}

/// The chunks of `doc` by `strategy`, none over `max_tokens` tokens of `model`'s tokenizer
/// (NULL, or a hash model without a tokenizer, counts characters); the semantic strategy
/// embeds sentences with `model`. The user-facing dof_chunk (sql/chunk.sql) takes a model
/// name instead.
#[pg_extern(stable, parallel_safe, name = "dof_chunk_internal", requires = ["models"])]
#[allow(clippy::type_complexity)] // pgrx reads the row's column names from this tuple
fn dof_chunk_strategy_internal(
    doc: Option<&str>,
    max_tokens: Option<i32>,
    overlap_tokens: Option<i32>,
    pattern: Option<&str>,
    model: Option<pgrx::composite_type!("dof_models")>,
    strategy: Option<&str>,
    options: Option<JsonB>,
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
        name!(header_repeated, bool),
        name!(overlap, bool),
        name!(split, bool),
        name!(sizer, &'static str),
    ),
> {
    let Some((doc, max_tokens, overlap_tokens)) = document_and_limits(doc, max_tokens, overlap_tokens) else {
        return TableIterator::new(Vec::new());
    };
    let strategy = strategy.unwrap_or_else(|| raise_null_argument("strategy"));
    let settings = settings(&options.unwrap_or_else(|| raise_null_argument("options")));
    let options = chunk_options(max_tokens, overlap_tokens, pattern, strategy, settings);
    let model = model.as_ref().map(|row| (spec_of_row(row), names_tokenizer(row)));
    let chunks = chunk_by_model(doc, &options, model.as_ref().map(|(spec, named)| (spec, *named)));
    TableIterator::new(chunks.into_iter().map(chunk_row))
}

/// What every dof_chunk_internal checks first: NULL limits are refused, a NULL document has
/// no chunks (`None`).
pub(super) fn document_and_limits(doc: Option<&str>, max_tokens: Option<i32>, overlap_tokens: Option<i32>) -> Option<(&str, i32, i32)> {
    let max_tokens = max_tokens.unwrap_or_else(|| raise_null_argument("max_tokens"));
    let overlap_tokens = overlap_tokens.unwrap_or_else(|| raise_null_argument("overlap_tokens"));
    doc.map(|doc| (doc, max_tokens, overlap_tokens))
}

/// The (cached) tokenizer at `path`, or an ERROR saying why not.
pub(super) fn tokenizer_at(path: &std::path::Path) -> Arc<ModelTokenizer> {
    backend_models::tokenizer_at(path).unwrap_or_else(|e| raise_embed_error(EmbedError::Tokenizer(e)))
}

/// Whether a model row names a tokenizer (a hash model may, to chunk like a real one).
pub(crate) fn names_tokenizer(model: &pgrx::heap_tuple::PgHeapTuple<'_, pgrx::AllocatedByRust>) -> bool {
    matches!(model.get_by_name::<String>("tokenizer_file"), Ok(Some(_)))
}

/// Chunks of `doc` sized by the model's tokenizer (an ONNX model's, or a hash model's when
/// its row names one; otherwise characters), the semantic strategy's sentences embedded
/// with the model through the backend's sentence cache. No model: characters, and the
/// semantic strategy says it needs one.
pub(crate) fn chunk_by_model(doc: &str, options: &ChunkOptions, model: Option<(&ModelSpec, bool)>) -> Vec<Chunk> {
    let Some((spec, names_tokenizer)) = model else {
        return chunk_with(doc, options, None, None);
    };
    chunk_with(doc, options, sizing_tokenizer(spec, names_tokenizer), Some(spec))
}

/// The tokenizer that sizes chunks for a model: an ONNX model's own, a hash model's only when
/// its row names one (`names_tokenizer`); `None` counts characters.
fn sizing_tokenizer(spec: &ModelSpec, names_tokenizer: bool) -> Option<&std::path::Path> {
    match spec.kind {
        ModelKind::Onnx => Some(spec.tokenizer_file.as_path()),
        ModelKind::Hash => names_tokenizer.then_some(spec.tokenizer_file.as_path()),
    }
}

/// Each chunk's passages (dof_core::chunk::passages) of at most `passage_tokens` tokens,
/// sized as the model sizes its chunks, cancellable.
pub(crate) fn passages_by_model(chunks: &[Chunk], passage_tokens: usize, spec: &ModelSpec, names_tokenizer: bool) -> Vec<Vec<Passage>> {
    let check_interrupts = &|| {
        pgrx::check_for_interrupts!();
    };
    let cut =
        |sizer: &dyn ChunkSizer| chunks.iter().map(|c| passages(c, passage_tokens, sizer, check_interrupts)).collect::<Result<Vec<_>, _>>();
    let result = match sizing_tokenizer(spec, names_tokenizer) {
        None => cut(&CharacterSizer),
        Some(path) => cut(tokenizer_at(path).as_ref()),
    };
    result.unwrap_or_else(|error| raise_chunk_error(error))
}

pub(crate) fn chunk_options(
    max_tokens: i32,
    overlap_tokens: i32,
    pattern: Option<&str>,
    strategy: &str,
    settings: Settings,
) -> ChunkOptions {
    let pattern = pattern.map(|name| Pattern::parse(name).unwrap_or_else(|| raise_chunk_error(ChunkError::UnknownPattern(name.into()))));
    if max_tokens < MIN_MAX_TOKENS as i32 {
        raise_invalid_parameter(&ChunkError::MaxTokensTooSmall(i64::from(max_tokens)).to_string());
    }
    let max_tokens = max_tokens as usize;
    let overlap_tokens = usize::try_from(overlap_tokens).unwrap_or_else(|_| raise_invalid_parameter("overlap_tokens must not be negative"));
    ChunkOptions { max_tokens, overlap_tokens, pattern, strategy: strategy.to_string(), settings, ..ChunkOptions::default() }
}

/// Chunks with the tokenizer at `tokenizer_path` (or characters when `None`), sentences
/// embedded with `embed` (for the semantic strategy), cancellable.
pub(crate) fn chunk_with(
    doc: &str,
    options: &ChunkOptions,
    tokenizer_path: Option<&std::path::Path>,
    embed: Option<&ModelSpec>,
) -> Vec<Chunk> {
    let check_interrupts = &|| {
        pgrx::check_for_interrupts!();
    };
    let embedder = embed.map(|spec| move |texts: &[&str]| sentence_cache::embed(spec, texts, &mut || check_interrupts()));
    let embedder = embedder.as_ref().map(|embed| embed as &SentenceEmbedder);
    let result = match tokenizer_path {
        None => chunk_document_using(doc, &CharacterSizer, options, check_interrupts, embedder),
        Some(path) => chunk_document_using(doc, tokenizer_at(path).as_ref(), options, check_interrupts, embedder),
    };
    result.unwrap_or_else(|error| raise_chunk_error(error))
}

#[allow(clippy::type_complexity)]
pub(super) fn chunk_row(chunk: Chunk) -> (i32, &'static str, Vec<String>, String, i32, i32, i32, bool, bool, bool, bool, &'static str) {
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
        chunk.header_repeated,
        chunk.overlap,
        chunk.split,
        chunk.sizer,
    )
}
