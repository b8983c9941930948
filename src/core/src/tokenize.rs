//! Loading the embedding model's own `tokenizer.json`, so token counts and spans are the
//! model's, not an estimate.

use std::path::{Path, PathBuf};

use tokenizers::Tokenizer;

#[derive(Debug, thiserror::Error)]
pub enum TokenizeError {
    #[error("tokenizer file \"{path}\" does not exist")]
    Missing { path: PathBuf },
    #[error("could not load tokenizer \"{path}\": {reason}")]
    Load { path: PathBuf, reason: String },
    #[error("could not tokenize text: {0}")]
    Encode(String),
}

/// A model's tokenizer with truncation and padding switched off: some `tokenizer.json`
/// files carry those settings, and they would silently cut spans and corrupt masks.
pub struct ModelTokenizer {
    inner: Tokenizer,
}

/// Token ids of one text with the character span of each token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tokens {
    pub ids: Vec<u32>,
    /// Byte offsets into the encoded text; special tokens have `(0, 0)`.
    pub offsets: Vec<(usize, usize)>,
}

impl ModelTokenizer {
    pub fn from_file(path: &Path) -> Result<Self, TokenizeError> {
        if !path.is_file() {
            return Err(TokenizeError::Missing { path: path.to_path_buf() });
        }
        let load_error = |reason: String| TokenizeError::Load { path: path.to_path_buf(), reason };
        let mut inner = Tokenizer::from_file(path).map_err(|e| load_error(e.to_string()))?;
        inner.with_truncation(None).map_err(|e| load_error(e.to_string()))?;
        inner.with_padding(None);
        Ok(Self { inner })
    }

    /// Encodes `text`, with the model's special tokens (`<s> … </s>` for e5) when asked.
    pub fn encode(&self, text: &str, with_special_tokens: bool) -> Result<Tokens, TokenizeError> {
        let encoding = self
            .inner
            .encode(text, with_special_tokens)
            .map_err(|e| TokenizeError::Encode(e.to_string()))?;
        Ok(Tokens { ids: encoding.get_ids().to_vec(), offsets: encoding.get_offsets().to_vec() })
    }

    /// Number of tokens of `text` without special tokens.
    pub fn count(&self, text: &str) -> Result<usize, TokenizeError> {
        Ok(self.encode(text, false)?.ids.len())
    }

    /// Id used for padding positions (masked out, so any valid id works; `<pad>` if known).
    pub fn pad_id(&self) -> u32 {
        self.inner.token_to_id("<pad>").or_else(|| self.inner.token_to_id("[PAD]")).unwrap_or(0)
    }
}
