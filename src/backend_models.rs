//! Tokenizers and embedding models cached per backend.
//!
//! A backend is a single-threaded process, so `thread_local` maps are enough (the pattern
//! pg_jsonschema uses). Loading the ONNX session and the 17 MB tokenizer costs far more
//! than one query embedding, so each happens once per backend per file (and thread count).
//! Closures' errors are returned, never raised inside: borrows are released before the
//! SQL layer reports them.

use std::cell::RefCell;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use dof_core::embed::{EmbedError, ModelSpec, OnnxEmbedder, OnnxOptions};
use dof_core::tokenize::{ModelTokenizer, TokenizeError};

use crate::guc;

#[derive(Clone, PartialEq, Eq, Hash)]
struct EmbedderKey {
    model_file: PathBuf,
    tokenizer_file: PathBuf,
    intra_threads: usize,
}

thread_local! {
    static TOKENIZERS: RefCell<HashMap<PathBuf, Arc<ModelTokenizer>>> = RefCell::new(HashMap::new());
    static EMBEDDERS: RefCell<HashMap<EmbedderKey, OnnxEmbedder>> = RefCell::new(HashMap::new());
}

/// The spec of `model`, or of `pg_dof.default_model` when `None`.
pub fn resolve(model: Option<&str>) -> Result<ModelSpec, EmbedError> {
    let name = model.map_or_else(guc::default_model, str::to_string);
    ModelSpec::in_dir(&guc::model_dir(), &name)
}

/// The (cached) tokenizer of `spec`.
pub fn tokenizer(spec: &ModelSpec) -> Result<Arc<ModelTokenizer>, TokenizeError> {
    TOKENIZERS.with(|cell| {
        if let Some(tokenizer) = cell.borrow().get(&spec.tokenizer_file) {
            return Ok(Arc::clone(tokenizer));
        }
        let tokenizer = Arc::new(ModelTokenizer::from_file(&spec.tokenizer_file)?);
        cell.borrow_mut().insert(spec.tokenizer_file.clone(), Arc::clone(&tokenizer));
        Ok(tokenizer)
    })
}

/// Runs `f` with the (cached) embedder of `spec`.
pub fn with_embedder<R>(
    spec: &ModelSpec,
    f: impl FnOnce(&mut OnnxEmbedder) -> Result<R, EmbedError>,
) -> Result<R, EmbedError> {
    let key = EmbedderKey {
        model_file: spec.model_file.clone(),
        tokenizer_file: spec.tokenizer_file.clone(),
        intra_threads: guc::intra_op_threads(),
    };
    EMBEDDERS.with(|cell| {
        let mut embedders = cell.borrow_mut();
        if !embedders.contains_key(&key) {
            // the model file first: a missing model is the more likely and clearer error
            if !spec.model_file.is_file() {
                return Err(EmbedError::ModelMissing { path: spec.model_file.clone() });
            }
            let options = OnnxOptions { intra_threads: key.intra_threads, max_positions: spec.max_positions, ..OnnxOptions::default() };
            let embedder = OnnxEmbedder::load(&guc::onnxruntime_library(), &spec.model_file, tokenizer(spec)?, options)?;
            embedders.insert(key.clone(), embedder);
        }
        let embedder = embedders.get_mut(&key).expect("inserted above");
        f(embedder)
    })
}
