//! Tokenizers and embedding models cached per backend.
//!
//! A backend is a single-threaded process, so `thread_local` maps are enough (the pattern
//! pg_jsonschema uses). Loading the ONNX session and the 17 MB tokenizer costs far more
//! than one query embedding, so each happens once per backend per model revision (and
//! thread count). Errors are returned, never raised while a map is borrowed.

use std::cell::RefCell;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use dof_core::embed::{EmbedError, Embedder, HashEmbedder, ModelKind, ModelSpec, OnnxEmbedder, OnnxOptions};
use dof_core::tokenize::{ModelTokenizer, TokenizeError};

use crate::guc;

#[derive(Clone, PartialEq, Eq, Hash)]
struct EmbedderKey {
    spec: ModelSpec,
    intra_threads: usize,
}

thread_local! {
    static TOKENIZERS: RefCell<HashMap<PathBuf, Arc<ModelTokenizer>>> = RefCell::new(HashMap::new());
    static EMBEDDERS: RefCell<HashMap<EmbedderKey, OnnxEmbedder>> = RefCell::new(HashMap::new());
}

/// The (cached) tokenizer of `spec`.
pub fn tokenizer(spec: &ModelSpec) -> Result<Arc<ModelTokenizer>, TokenizeError> {
    tokenizer_at(&spec.tokenizer_file)
}

/// The (cached) tokenizer in `path`.
pub fn tokenizer_at(path: &Path) -> Result<Arc<ModelTokenizer>, TokenizeError> {
    TOKENIZERS.with(|cell| {
        if let Some(tokenizer) = cell.borrow().get(path) {
            return Ok(Arc::clone(tokenizer));
        }
        let tokenizer = Arc::new(ModelTokenizer::from_file(path)?);
        cell.borrow_mut().insert(path.to_path_buf(), Arc::clone(&tokenizer));
        Ok(tokenizer)
    })
}

/// Runs `f` with the (cached) ONNX embedder of `spec`, checked against its registered dimension.
fn with_onnx<R>(spec: &ModelSpec, f: impl FnOnce(&mut OnnxEmbedder) -> Result<R, EmbedError>) -> Result<R, EmbedError> {
    let key = EmbedderKey { spec: spec.clone(), intra_threads: guc::intra_op_threads() };
    EMBEDDERS.with(|cell| {
        let mut embedders = cell.borrow_mut();
        if !embedders.contains_key(&key) {
            let embedder = load(spec, key.intra_threads)?;
            if spec.dimension != 0 && embedder.dimension() != spec.dimension {
                return Err(EmbedError::DimensionMismatch {
                    name: spec.name.clone(),
                    registered: spec.dimension,
                    actual: embedder.dimension(),
                });
            }
            embedders.insert(key.clone(), embedder);
        }
        f(embedders.get_mut(&key).expect("inserted above"))
    })
}

/// Loads a model without caching it (registration probes).
pub fn load(spec: &ModelSpec, intra_threads: usize) -> Result<OnnxEmbedder, EmbedError> {
    // the model file first: a missing model is the likelier and clearer error
    if !spec.model_file.is_file() {
        return Err(EmbedError::ModelMissing { path: spec.model_file.clone() });
    }
    let options = OnnxOptions {
        intra_threads,
        max_positions: spec.max_positions,
        interrupt_pending: Some(cancel_or_die_pending),
        ..OnnxOptions::default()
    };
    OnnxEmbedder::load(&guc::onnxruntime_library(), &spec.model_file, tokenizer(spec)?, options)
}

/// Whether a query cancel (`pg_cancel_backend`, `statement_timeout`) or a termination
/// (`pg_terminate_backend`, shutdown) is waiting to be processed. Read from ONNX Runtime's
/// watcher thread: both flags are `volatile sig_atomic_t` that signal handlers set, so a
/// volatile read from another thread is what they are made for. Other interrupt kinds
/// (`InterruptPending` alone: catch-up, barriers) must not stop a model run.
fn cancel_or_die_pending() -> bool {
    // SAFETY: plain reads of two signal-handler flags; no PostgreSQL function is called.
    unsafe {
        std::ptr::read_volatile(&raw const pgrx::pg_sys::QueryCancelPending) != 0
            || std::ptr::read_volatile(&raw const pgrx::pg_sys::ProcDiePending) != 0
    }
}

/// Independent embeddings of `texts`, each with `prefix`.
pub fn embed(spec: &ModelSpec, texts: &[&str], prefix: &str, between_batches: &mut dyn FnMut()) -> Result<Vec<Vec<f32>>, EmbedError> {
    let prefixed: Vec<String> = texts.iter().map(|t| format!("{prefix}{t}")).collect();
    let refs: Vec<&str> = prefixed.iter().map(String::as_str).collect();
    match spec.kind {
        ModelKind::Hash => HashEmbedder::new(spec.dimension).embed(&refs, between_batches),
        ModelKind::Onnx => with_onnx(spec, |embedder| embedder.embed(&refs, between_batches)),
    }
}

/// Late-chunked embeddings of one document's `chunks`.
pub fn embed_late(
    spec: &ModelSpec,
    chunks: &[&str],
    front_matter: &[&str],
    prefix: &str,
    between_batches: &mut dyn FnMut(),
) -> Result<Vec<Vec<f32>>, EmbedError> {
    match spec.kind {
        // no context to share: the hash embedder embeds each chunk on its own
        ModelKind::Hash => embed(spec, chunks, prefix, between_batches),
        ModelKind::Onnx => with_onnx(spec, |embedder| embedder.embed_late(chunks, front_matter, prefix, between_batches)),
    }
}
