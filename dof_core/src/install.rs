//! Where `make setup` installs the ONNX Runtime library and the models: defined here once,
//! for the extension's setting defaults (src/guc.rs), the tests, the benchmarks and the
//! fuzz target. `scripts/config.sh` (PG_DOF_HOME, ORT_VERSION) is the shell side of the
//! same layout; a core test checks that the two agree.

use std::path::PathBuf;

/// The install root, as a literal (the extension's settings need C-string constants).
#[macro_export]
macro_rules! install_home {
    () => {
        "/usr/local/share/pg_dof"
    };
}

/// The ONNX Runtime library, relative to the install root, as a literal.
#[macro_export]
macro_rules! install_onnxruntime_file {
    () => {
        "lib/libonnxruntime.so.1.31.1"
    };
}

/// The ONNX Runtime library under the install root, as a literal.
#[macro_export]
macro_rules! install_onnxruntime_library {
    () => {
        concat!($crate::install_home!(), "/", $crate::install_onnxruntime_file!())
    };
}

/// The model folder under the install root, as a literal.
#[macro_export]
macro_rules! install_model_dir {
    () => {
        concat!($crate::install_home!(), "/models")
    };
}

/// The default model's folder name under the model folder.
pub const DEFAULT_MODEL: &str = "multilingual-e5-small";

/// The built-in int8 variant's folder name (and registry name): the default model's
/// weights, int8 except the feed-forward output projections (model-prep/quantize_e5_int8.py).
pub const INT8_MODEL: &str = "multilingual-e5-small-int8";

/// The install root: `$PG_DOF_HOME` when set (tests and benchmarks), else the default.
pub fn home() -> PathBuf {
    std::env::var_os("PG_DOF_HOME").map_or_else(|| PathBuf::from(install_home!()), PathBuf::from)
}

/// The ONNX Runtime library under [`home`].
pub fn onnxruntime_library() -> PathBuf {
    home().join(install_onnxruntime_file!())
}

/// The model folder under [`home`].
pub fn model_dir() -> PathBuf {
    home().join("models")
}

/// The default model's `tokenizer.json` under [`home`].
pub fn default_tokenizer() -> PathBuf {
    model_dir().join(DEFAULT_MODEL).join("tokenizer.json")
}

#[cfg(test)]
mod tests {
    /// scripts/config.sh must install where the extension looks by default.
    #[test]
    fn the_shell_configuration_names_the_same_layout() {
        let config = include_str!("../../scripts/config.sh");
        assert!(config.contains(&format!("PG_DOF_HOME=\"${{PG_DOF_HOME:-{}}}\"", install_home!())), "PG_DOF_HOME default");
        let version = install_onnxruntime_library!().rsplit("libonnxruntime.so.").next().expect("a version");
        assert!(config.contains(&format!("\nORT_VERSION={version}\n")), "ORT_VERSION {version}");
        assert!(config.contains(&format!("MODEL_NAME={}", super::DEFAULT_MODEL)), "MODEL_NAME");
        assert!(config.contains(&format!("MODEL_INT8_NAME={}", super::INT8_MODEL)), "MODEL_INT8_NAME");
    }
}
