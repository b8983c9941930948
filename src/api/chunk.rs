//! dof_classify and dof_chunk.

use std::sync::Arc;

use dof_core::chunk::measure::ChunkSizer;
use dof_core::chunk::strategies::{chunk_paragraphs, SentenceEmbedder, Settings, STRATEGIES};
use dof_core::chunk::{chunk_document_using, CharacterSizer, Chunk, ChunkError, ChunkOptions, MIN_MAX_TOKENS};
use dof_core::classify::{Features, Pattern, Thresholds};
use dof_core::embed::{EmbedError, ModelKind, ModelSpec};
use dof_core::tokenize::ModelTokenizer;
use pgrx::prelude::*;
use pgrx::JsonB;

use super::embed::spec_of_row;
use super::errors::{checked_model_file, raise_chunk_error, raise_embed_error, raise_invalid_parameter, raise_null_argument};
use crate::{backend_models, guc, sentence_cache};

fn thresholds(small_bytes: i32, table_line_ratio: f64, giant_bytes: i32, min_h2_headings: i32, min_bold_lines: i32) -> Thresholds {
    let non_negative = |name: &str, value: i32| -> usize {
        usize::try_from(value).unwrap_or_else(|_| raise_invalid_parameter(&format!("{name} must not be negative")))
    };
    if !(0.0..=1.0).contains(&table_line_ratio) {
        raise_invalid_parameter("table_line_ratio must be between 0 and 1");
    }
    Thresholds {
        small_bytes: non_negative("small_bytes", small_bytes),
        table_line_ratio,
        giant_bytes: non_negative("giant_bytes", giant_bytes),
        min_h2_headings: non_negative("min_h2_headings", min_h2_headings),
        min_bold_lines: non_negative("min_bold_lines", min_bold_lines),
    }
}

/// The document's structural pattern (seed 000 rules; thresholds are parameters).
#[pg_extern(immutable, strict, parallel_safe)]
fn dof_classify(
    doc: &str,
    small_bytes: default!(i32, 10000),
    table_line_ratio: default!(f64, 0.40),
    giant_bytes: default!(i32, 1000000),
    min_h2_headings: default!(i32, 2),
    min_bold_lines: default!(i32, 2),
) -> &'static str {
    let thresholds = thresholds(small_bytes, table_line_ratio, giant_bytes, min_h2_headings, min_bold_lines);
    Features::of(doc).pattern(&thresholds).as_str()
}

/// The features behind dof_classify's decision, with the decision.
#[pg_extern(immutable, strict, parallel_safe)]
fn dof_classify_features(
    doc: &str,
) -> TableIterator<
    'static,
    (
        name!(pattern, &'static str),
        name!(bytes, i64),
        name!(non_empty_lines, i64),
        name!(table_lines, i64),
        name!(table_line_ratio, f64),
        name!(h2_headings, i64),
        name!(bold_lines, i64),
    ),
> {
    let f = Features::of(doc);
    TableIterator::once((
        f.pattern(&Thresholds::default()).as_str(),
        f.bytes as i64,
        f.non_empty_lines as i64,
        f.table_lines as i64,
        f.table_line_ratio(),
        f.h2_headings as i64,
        f.bold_lines as i64,
    ))
}

/// Recorded on every stored chunk, so re-chunking can target older chunks.
#[pg_extern(immutable, parallel_safe)]
fn dof_chunker_version() -> &'static str {
    dof_core::chunk::CHUNKER_VERSION
}

/// Every chunking strategy, with its settings (`chunker_options` keys).
#[pg_extern(immutable, parallel_safe)]
fn dof_chunk_strategies() -> TableIterator<'static, (name!(name, &'static str), name!(description, &'static str), name!(settings, JsonB))> {
    TableIterator::new(STRATEGIES.iter().map(|s| {
        let settings = s.settings().iter().map(|(k, v)| (k.to_string(), serde_json::Value::String(v.to_string()))).collect();
        (s.name(), s.description(), JsonB(serde_json::Value::Object(settings)))
    }))
}

/// Whether `strategy` with `options` is usable; an ERROR (22023) that says why not. The
/// CHECK constraint on dof_collections calls it, so a bad chunker is refused when it is set,
/// not at the first insert.
#[pg_extern(immutable, parallel_safe, strict)]
fn dof_check_chunker(strategy: &str, options: JsonB) -> bool {
    let settings = settings(&options);
    dof_core::chunk::strategies::find(strategy, &settings).unwrap_or_else(|e| raise_chunk_error(e));
    true
}

/// A JSON object's values as settings: strings as they are, numbers and booleans as text.
pub(crate) fn settings(options: &JsonB) -> Settings {
    let serde_json::Value::Object(map) = &options.0 else {
        raise_invalid_parameter(&format!("chunker options must be a JSON object, got {}", options.0))
    };
    map.iter()
        .map(|(key, value)| {
            let text = match value {
                serde_json::Value::String(s) => s.clone(),
                serde_json::Value::Number(_) | serde_json::Value::Bool(_) => value.to_string(),
                _ => raise_invalid_parameter(&format!("chunker option \"{key}\" must be a string, number or boolean, got {value}")),
            };
            (key.clone(), text)
        })
        .collect()
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

/// The (cached) tokenizer in `file`, relative to pg_dof.model_dir (checked for the caller).
fn tokenizer_in(file: &str) -> Arc<ModelTokenizer> {
    tokenizer_at(&guc::model_dir().join(checked_model_file(file)))
}

/// The (cached) tokenizer at `path`, or an ERROR saying why not.
fn tokenizer_at(path: &std::path::Path) -> Arc<ModelTokenizer> {
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
    let tokenizer = match spec.kind {
        ModelKind::Onnx => Some(spec.tokenizer_file.as_path()),
        ModelKind::Hash => names_tokenizer.then_some(spec.tokenizer_file.as_path()),
    };
    chunk_with(doc, options, tokenizer, Some(spec))
}

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
