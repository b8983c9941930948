//! Locating the installed model files and the shared corpora for integration tests.
//!
//! Model files come from `make setup` (under dof_core::install::home(): $PG_DOF_HOME or the default root).
//! When they are missing, tests print SKIPPED and pass — unless PG_DOF_REQUIRE_MODEL=1
//! (set by `make test`), where a missing file fails them.
#![allow(dead_code)]

use std::path::PathBuf;
use std::sync::OnceLock;

use dof_core::tokenize::ModelTokenizer;

pub fn runtime_library() -> PathBuf {
    dof_core::install::onnxruntime_library()
}

pub fn model_dir() -> PathBuf {
    dof_core::install::model_dir()
}

/// `true` when `paths` exist; otherwise SKIPPED (or a failure under PG_DOF_REQUIRE_MODEL=1).
pub fn require(paths: &[PathBuf]) -> bool {
    let missing: Vec<_> = paths.iter().filter(|p| !p.is_file()).collect();
    if missing.is_empty() {
        return true;
    }
    assert!(std::env::var("PG_DOF_REQUIRE_MODEL").as_deref() != Ok("1"), "missing {missing:?}: run `make setup`");
    eprintln!("SKIPPED: missing {missing:?} (run `make setup`)");
    false
}

/// The e5 tokenizer, loaded once per test binary.
pub fn tokenizer() -> Option<&'static ModelTokenizer> {
    static TOKENIZER: OnceLock<Option<ModelTokenizer>> = OnceLock::new();
    TOKENIZER
        .get_or_init(|| {
            let path = model_dir().join("multilingual-e5-small/tokenizer.json");
            require(std::slice::from_ref(&path)).then(|| ModelTokenizer::from_file(&path).expect("tokenizer loads"))
        })
        .as_ref()
}

/// The shared corpora folder: $PG_DOF_CORPORA, or ../shared/corpora beside the checkout.
/// Resolved at run time (cargo runs tests in the package folder, dof_core): a path baked in
/// at compile time would point at whichever clone compiled a cached test binary.
pub fn corpora() -> PathBuf {
    std::env::var("PG_DOF_CORPORA")
        .map(PathBuf::from)
        .unwrap_or_else(|_| std::env::current_dir().expect("a working directory").join("../../shared/corpora"))
}

/// A file of the repository, resolved at run time like [`corpora`].
pub fn repository_file(relative: &str) -> PathBuf {
    std::env::current_dir().expect("a working directory").join("..").join(relative)
}

/// Sentence vectors from the hash embedder: the semantic strategy's embedder in tests that
/// check invariants, not quality.
pub fn hash_sentences(texts: &[&str]) -> Result<Vec<Vec<f32>>, dof_core::embed::EmbedError> {
    let embedder = dof_core::embed::hash::HashEmbedder::new(64);
    Ok(texts.iter().map(|t| embedder.embed_one(t)).collect())
}

#[allow(unused_imports)] // not every test binary walks the corpora
pub use dof_core::corpus::markdown_files;
