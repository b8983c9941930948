//! What pg_dof knows about an embedding model: a row of the `dof_models` registry.

use std::path::{Path, PathBuf};

use super::EmbedError;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ModelKind {
    /// A BERT-style encoder run by ONNX Runtime, with its `tokenizer.json`.
    Onnx,
    /// The deterministic hash embedder (tests, offline use); no files.
    Hash,
}

impl ModelKind {
    pub fn parse(kind: &str) -> Option<ModelKind> {
        match kind {
            "onnx" => Some(ModelKind::Onnx),
            "hash" => Some(ModelKind::Hash),
            _ => None,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ModelSpec {
    pub name: String,
    pub kind: ModelKind,
    pub model_file: PathBuf,
    pub tokenizer_file: PathBuf,
    pub dimension: usize,
    pub max_positions: usize,
    /// Text put before a query (e5: `"query: "`).
    pub query_prefix: String,
    /// Text put before a passage (e5: `"passage: "`).
    pub passage_prefix: String,
    /// Changes when the files change: cached sessions are keyed by it.
    pub revision: String,
}

impl ModelSpec {
    /// An ONNX model whose files are named relative to `model_dir` (or absolute).
    #[allow(clippy::too_many_arguments)]
    pub fn onnx(
        name: &str,
        model_dir: &Path,
        model_file: &str,
        tokenizer_file: &str,
        dimension: usize,
        max_positions: usize,
        query_prefix: &str,
        passage_prefix: &str,
        revision: &str,
    ) -> Result<Self, EmbedError> {
        validate_name(name)?;
        Ok(Self {
            name: name.to_string(),
            kind: ModelKind::Onnx,
            model_file: model_dir.join(model_file),
            tokenizer_file: model_dir.join(tokenizer_file),
            dimension,
            max_positions,
            query_prefix: query_prefix.to_string(),
            passage_prefix: passage_prefix.to_string(),
            revision: revision.to_string(),
        })
    }

    /// Whether `file` resolves inside the model folder: relative, with no `..` component.
    /// Only a superuser may use other paths (the SQL layer checks), so that a user cannot
    /// make the server open files outside `pg_dof.model_dir`.
    pub fn stays_in_model_dir(file: &str) -> bool {
        let path = Path::new(file);
        !file.is_empty() && path.components().all(|c| matches!(c, std::path::Component::Normal(_) | std::path::Component::CurDir))
    }

    /// The default model's layout: `<model_dir>/<name>/{model.onnx,tokenizer.json}`, e5
    /// prefixes, 384 dimensions, 512 positions.
    pub fn e5_in_dir(model_dir: &Path, name: &str) -> Result<Self, EmbedError> {
        validate_name(name)?;
        Self::onnx(name, model_dir, &format!("{name}/model.onnx"), &format!("{name}/tokenizer.json"), 384, 512, "query: ", "passage: ", "1")
    }
}

/// Model names are identifiers in SQL and folder names on disk: `[A-Za-z0-9._-]`, no `..`.
pub fn validate_name(name: &str) -> Result<(), EmbedError> {
    let valid =
        !name.is_empty() && name != "." && name != ".." && name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'));
    if valid {
        Ok(())
    } else {
        Err(EmbedError::InvalidModelName(name.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_relative_paths_without_parent_steps_stay_in_the_model_dir() {
        assert!(ModelSpec::stays_in_model_dir("multilingual-e5-small/tokenizer.json"));
        assert!(ModelSpec::stays_in_model_dir("./m/model.onnx"));
        for outside in ["/etc/passwd", "../secret.json", "m/../../x", ""] {
            assert!(!ModelSpec::stays_in_model_dir(outside), "{outside}");
        }
    }

    #[test]
    fn relative_files_resolve_under_the_model_dir_and_absolute_ones_stay() {
        let spec = ModelSpec::onnx("m", Path::new("/models"), "m/model.onnx", "/abs/tokenizer.json", 8, 16, "", "", "1").unwrap();
        assert_eq!(spec.model_file, Path::new("/models/m/model.onnx"));
        assert_eq!(spec.tokenizer_file, Path::new("/abs/tokenizer.json"));
        let e5 = ModelSpec::e5_in_dir(Path::new("/models"), "multilingual-e5-small").unwrap();
        assert_eq!(e5.query_prefix, "query: ");
        assert_eq!(e5.model_file, Path::new("/models/multilingual-e5-small/model.onnx"));
    }

    #[test]
    fn names_that_could_leave_the_model_folder_are_rejected() {
        for name in ["", ".", "..", "../etc", "a/b", "a b", "x\0"] {
            assert!(matches!(validate_name(name), Err(EmbedError::InvalidModelName(_))), "{name:?} accepted");
        }
        assert!(ModelKind::parse("onnx").is_some() && ModelKind::parse("tf").is_none());
    }
}
