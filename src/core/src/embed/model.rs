//! What pg_dof needs to know about an embedding model beyond its ONNX file.

use std::path::{Path, PathBuf};

use super::EmbedError;

/// A model installed as `<model_dir>/<name>/{model.onnx,tokenizer.json}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelSpec {
    pub name: String,
    pub model_file: PathBuf,
    pub tokenizer_file: PathBuf,
    /// Text put before a query (e5: `"query: "`).
    pub query_prefix: String,
    /// Text put before a passage (e5: `"passage: "`).
    pub passage_prefix: String,
    pub max_positions: usize,
}

impl ModelSpec {
    /// The spec of model `name` under `model_dir`. Names are folder names, so they are
    /// restricted to `[A-Za-z0-9._-]` (no path separators, no `..`).
    pub fn in_dir(model_dir: &Path, name: &str) -> Result<Self, EmbedError> {
        let valid = !name.is_empty()
            && name != "."
            && name != ".."
            && name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'));
        if !valid {
            return Err(EmbedError::InvalidModelName(name.to_string()));
        }
        let folder = model_dir.join(name);
        // The e5 family was trained with these prefixes; without them retrieval degrades.
        let (query_prefix, passage_prefix) =
            if name.contains("e5") { ("query: ", "passage: ") } else { ("", "") };
        Ok(Self {
            name: name.to_string(),
            model_file: folder.join("model.onnx"),
            tokenizer_file: folder.join("tokenizer.json"),
            query_prefix: query_prefix.to_string(),
            passage_prefix: passage_prefix.to_string(),
            max_positions: 512,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn e5_models_get_their_prefixes_and_files_live_in_the_model_folder() {
        let spec = ModelSpec::in_dir(Path::new("/models"), "multilingual-e5-small").unwrap();
        assert_eq!(spec.query_prefix, "query: ");
        assert_eq!(spec.passage_prefix, "passage: ");
        assert_eq!(spec.model_file, Path::new("/models/multilingual-e5-small/model.onnx"));
        assert_eq!(spec.tokenizer_file, Path::new("/models/multilingual-e5-small/tokenizer.json"));
        assert_eq!(ModelSpec::in_dir(Path::new("/m"), "minilm").unwrap().query_prefix, "");
    }

    #[test]
    fn names_that_could_leave_the_model_folder_are_rejected() {
        for name in ["", ".", "..", "../etc", "a/b", "a b", "x\0"] {
            assert!(
                matches!(ModelSpec::in_dir(Path::new("/m"), name), Err(EmbedError::InvalidModelName(_))),
                "{name:?} accepted"
            );
        }
    }
}
