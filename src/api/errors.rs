//! Core errors as PostgreSQL errors: a SQLSTATE, a lowercase message in pgvector's style,
//! and a hint that names the setting or command that fixes it.

use dof_core::chunk::ChunkError;
use dof_core::embed::{EmbedError, ModelSpec};
use dof_core::tokenize::TokenizeError;
use pgrx::pg_sys::panic::ErrorReport;
use pgrx::{PgLogLevel, PgSqlErrorCode};

const SETUP_HINT: &str = "run `make setup` in the pg_dof source tree to install it";

pub(crate) fn raise(code: PgSqlErrorCode, message: String, hint: Option<String>) -> ! {
    let report = ErrorReport::new(code, message, "pg_dof");
    let report = match hint {
        Some(hint) => report.set_hint(hint),
        None => report,
    };
    report.report(PgLogLevel::ERROR);
    unreachable!("ERROR does not return")
}

/// A NULL where a value is required (SQLSTATE 22004), naming the argument.
pub fn raise_null_argument(name: &str) -> ! {
    raise(PgSqlErrorCode::ERRCODE_NULL_VALUE_NOT_ALLOWED, format!("{name} must not be NULL"), None)
}

/// A model file path outside pg_dof.model_dir from a non-superuser (SQLSTATE 42501). Said
/// before the file is looked at, so the answer does not reveal whether it exists.
pub fn checked_model_file(file: &str) -> &str {
    if ModelSpec::stays_in_model_dir(file) || unsafe { pgrx::pg_sys::superuser() } {
        return file;
    }
    raise(
        PgSqlErrorCode::ERRCODE_INSUFFICIENT_PRIVILEGE,
        format!("model file \"{file}\" is outside pg_dof.model_dir"),
        Some("model and tokenizer files are paths relative to pg_dof.model_dir without \"..\"; only a superuser may name others".into()),
    )
}

/// A bad argument value (SQLSTATE 22023).
pub fn raise_invalid_parameter(message: &str) -> ! {
    raise(PgSqlErrorCode::ERRCODE_INVALID_PARAMETER_VALUE, message.to_string(), None)
}

/// An input over a size limit (SQLSTATE 54000).
pub fn raise_too_long(message: &str, hint: &str) -> ! {
    raise(PgSqlErrorCode::ERRCODE_PROGRAM_LIMIT_EXCEEDED, message.to_string(), Some(hint.to_string()))
}

pub fn raise_chunk_error(error: ChunkError) -> ! {
    match error {
        ChunkError::Tokenize(e) => raise_embed_error(EmbedError::Tokenizer(e)),
        ChunkError::Embed(e) => raise_embed_error(e),
        ChunkError::NeedsModel(_) => raise(
            PgSqlErrorCode::ERRCODE_INVALID_PARAMETER_VALUE,
            error.to_string(),
            Some(format!(
                "name a registered model: dof_chunk(..., model => '{}'); a collection uses its own model",
                dof_core::install::DEFAULT_MODEL
            )),
        ),
        ChunkError::MaxTokensTooSmall(_)
        | ChunkError::UnknownStrategy(_)
        | ChunkError::UnknownPattern(_)
        | ChunkError::InvalidSetting { .. } => raise_invalid_parameter(&error.to_string()),
    }
}

/// Raises `error` as an `ERROR`; never returns.
pub fn raise_embed_error(error: EmbedError) -> ! {
    use PgSqlErrorCode::*;
    let (code, hint) = match &error {
        EmbedError::InvalidModelName(_) => (ERRCODE_INVALID_PARAMETER_VALUE, "model names are folder names under pg_dof.model_dir".to_string()),
        EmbedError::RuntimeMissing { .. } => (
            ERRCODE_UNDEFINED_FILE,
            format!("set pg_dof.onnxruntime_library to the path of libonnxruntime.so, or {SETUP_HINT}"),
        ),
        EmbedError::RuntimeLoad { .. } => (
            ERRCODE_SYSTEM_ERROR,
            format!("pg_dof.onnxruntime_library must name ONNX Runtime 1.31 or later; {SETUP_HINT}"),
        ),
        EmbedError::ModelMissing { .. } | EmbedError::Tokenizer(TokenizeError::Missing { .. }) => (
            ERRCODE_UNDEFINED_FILE,
            format!("check pg_dof.model_dir and the model name (each model is a folder with model.onnx and tokenizer.json), or {SETUP_HINT}"),
        ),
        EmbedError::ModelLoad { .. } | EmbedError::Tokenizer(TokenizeError::Load { .. }) => (
            ERRCODE_INVALID_PARAMETER_VALUE,
            "the model must be an ONNX encoder with inputs input_ids and attention_mask and output [batch, sequence, hidden], and tokenizer.json a Hugging Face tokenizer".to_string(),
        ),
        EmbedError::OutputShape(_) => (
            ERRCODE_INVALID_PARAMETER_VALUE,
            "pg_dof needs per-token states ([batch, sequence, hidden]) to pool; export the model without a pooling head".to_string(),
        ),
        EmbedError::DimensionMismatch { .. } => (
            ERRCODE_DATA_EXCEPTION,
            "re-register the model with dof_register_model() so dof_models records its real dimension".to_string(),
        ),
        EmbedError::InvalidInput(_) => (ERRCODE_INVALID_PARAMETER_VALUE, "dof_chunk() cuts documents into pieces the model can embed".to_string()),
        EmbedError::WindowTooLong { .. } => (
            ERRCODE_INVALID_PARAMETER_VALUE,
            "pass the model's own max_positions to dof_register_model: its config.json's max_position_embeddings (less 2 for XLM-RoBERTa models such as e5: 512)".to_string(),
        ),
        EmbedError::Interrupted => {
            // the pending cancel or termination raises its own error here; only a cancel
            // held off by PostgreSQL falls through
            pgrx::check_for_interrupts!();
            (ERRCODE_QUERY_CANCELED, "the model run was stopped by a pending cancel".to_string())
        }
        EmbedError::Tokenizer(TokenizeError::Encode(_)) | EmbedError::Inference(_) => {
            (ERRCODE_EXTERNAL_ROUTINE_EXCEPTION, "the server log may have ONNX Runtime's details".to_string())
        }
    };
    // a loader's reason can quote the file it read: the server log gets it, the client not
    let unquoted = match &error {
        EmbedError::ModelLoad { path, reason } => Some(("model", path, reason)),
        EmbedError::Tokenizer(TokenizeError::Load { path, reason }) => Some(("tokenizer", path, reason)),
        _ => None,
    };
    let message = match unquoted {
        Some((what, path, reason)) => {
            pgrx::log!("pg_dof: could not load {what} \"{}\": {reason}", path.display());
            format!("could not load {what} \"{}\" (details in the server log)", path.display())
        }
        None => error.to_string(),
    };
    raise(code, message, Some(hint))
}
