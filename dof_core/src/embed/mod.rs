//! Embedding: the [`Embedder`] trait, the ONNX Runtime embedder, and pooling.

pub mod hash;
pub mod late;
pub mod model;
pub mod onnx;
pub mod pool;

use std::path::PathBuf;

use crate::tokenize::TokenizeError;

pub use hash::HashEmbedder;
pub use model::{ModelKind, ModelSpec};
pub use onnx::{OnnxEmbedder, OnnxOptions};

#[derive(Debug, thiserror::Error)]
pub enum EmbedError {
    #[error("invalid model name \"{0}\": use letters, digits, '.', '_' and '-'")]
    InvalidModelName(String),
    #[error("ONNX Runtime library \"{path}\" does not exist")]
    RuntimeMissing { path: PathBuf },
    #[error("could not load ONNX Runtime from \"{path}\": {reason}")]
    RuntimeLoad { path: PathBuf, reason: String },
    #[error("model file \"{path}\" does not exist")]
    ModelMissing { path: PathBuf },
    #[error("could not load model \"{path}\": {reason}")]
    ModelLoad { path: PathBuf, reason: String },
    #[error(transparent)]
    Tokenizer(#[from] TokenizeError),
    #[error("model inference failed: {0}")]
    Inference(String),
    /// The model failed on a window of its `max_positions` tokens ([`onnx::OnnxEmbedder::check_window`]).
    #[error("the model cannot embed a window of {max_positions} tokens (its max_positions): {reason}")]
    WindowTooLong { max_positions: usize, reason: String },
    #[error("model output has shape {0:?}; expected [batch, sequence, hidden]")]
    OutputShape(Vec<i64>),
    #[error("model \"{name}\" is registered with dimension {registered} but produces {actual}")]
    DimensionMismatch { name: String, registered: usize, actual: usize },
    #[error("{0}")]
    InvalidInput(String),
    /// The run was terminated because `OnnxOptions::interrupt_pending` said so.
    #[error("embedding interrupted")]
    Interrupted,
}

/// Something that turns texts into unit vectors of a fixed dimension.
pub trait Embedder {
    fn dimension(&self) -> usize;

    /// One L2-normalised vector per text, in input order. `between_batches` runs between
    /// model calls: the SQL layer checks for query cancellation there.
    fn embed(&mut self, texts: &[&str], between_batches: &mut dyn FnMut()) -> Result<Vec<Vec<f32>>, EmbedError>;
}
