//! Embedding models cached per backend.
//!
//! A backend is a single-threaded process, so a `thread_local` map is enough (the pattern
//! pg_jsonschema uses). Loading the ONNX session and the 17 MB tokenizer costs far more
//! than a query embedding, so it happens once per backend per model files and thread count.
//! The closure's errors are returned, never raised inside: the borrow is released before
//! the SQL layer reports them.

use std::cell::RefCell;
use std::collections::HashMap;
use std::path::PathBuf;

use dof_core::embed::{EmbedError, ModelSpec, OnnxEmbedder, OnnxOptions};

use crate::guc;

#[derive(Clone, PartialEq, Eq, Hash)]
struct CacheKey {
    model_file: PathBuf,
    tokenizer_file: PathBuf,
    intra_threads: usize,
}

thread_local! {
    static EMBEDDERS: RefCell<HashMap<CacheKey, OnnxEmbedder>> = RefCell::new(HashMap::new());
}

/// The spec of `model`, or of `pg_dof.default_model` when `None`.
pub fn resolve(model: Option<&str>) -> Result<ModelSpec, EmbedError> {
    let name = model.map_or_else(guc::default_model, str::to_string);
    ModelSpec::in_dir(&guc::model_dir(), &name)
}

/// Runs `f` with the (cached) embedder of `spec`.
pub fn with_embedder<R>(
    spec: &ModelSpec,
    f: impl FnOnce(&mut OnnxEmbedder) -> Result<R, EmbedError>,
) -> Result<R, EmbedError> {
    let key = CacheKey {
        model_file: spec.model_file.clone(),
        tokenizer_file: spec.tokenizer_file.clone(),
        intra_threads: guc::intra_op_threads(),
    };
    EMBEDDERS.with(|cell| {
        let mut embedders = cell.borrow_mut();
        if !embedders.contains_key(&key) {
            let options = OnnxOptions { intra_threads: key.intra_threads, max_positions: spec.max_positions, ..OnnxOptions::default() };
            let embedder = OnnxEmbedder::load(&guc::onnxruntime_library(), &spec.model_file, &spec.tokenizer_file, options)?;
            embedders.insert(key.clone(), embedder);
        }
        let embedder = embedders.get_mut(&key).expect("inserted above");
        f(embedder)
    })
}
