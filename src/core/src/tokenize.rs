//! Loading the embedding model's own `tokenizer.json`, so token counts and spans are the
//! model's, not an estimate.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

use tokenizers::{Model, OffsetReferential, OffsetType, PreTokenizer, Tokenizer};

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
    /// Token count of each pre-token ("word") seen so far: see [`ModelTokenizer::words`].
    word_counts: Mutex<HashMap<Box<str>, u32>>,
}

/// Entries kept in the word cache before it is cleared (a long-lived backend must not
/// grow without bound; ~40 MB at this size).
const WORD_CACHE_LIMIT: usize = 500_000;
/// Texts are measured in pieces of about this many bytes, cut after a newline, so the
/// normaliser's per-byte alignment table stays small (it is 16 bytes per byte of input).
const MEASURE_PIECE_BYTES: usize = 64 * 1024;

/// One pre-token of a text: the byte span of its visible characters and its exact
/// number of model tokens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Word {
    pub start: usize,
    pub end: usize,
    pub tokens: u32,
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
        Ok(Self { inner, word_counts: Mutex::new(HashMap::new()) })
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

    /// The text's pre-tokens ("words") with their exact token counts, in order.
    ///
    /// This is the tokenizer's own pipeline — added-token extraction, normaliser,
    /// pre-tokenizer — with the model step memoised per distinct pre-token. For tokenizers
    /// whose pre-tokenizer splits on whitespace (e5's Metaspace), the model only ever sees
    /// one pre-token at a time, so the memo is exact, and the token count of any span that
    /// starts at a word's start and ends at a word's end is the sum over its words: the
    /// same number a full `encode` of that span gives (tested over the shared corpora).
    pub fn words(&self, text: &str, between_pieces: &mut dyn FnMut()) -> Result<Vec<Word>, TokenizeError> {
        let mut words = Vec::with_capacity(text.len() / 6);
        let mut cache = self.word_counts.lock().unwrap_or_else(PoisonError::into_inner);
        if cache.len() > WORD_CACHE_LIMIT {
            cache.clear();
        }
        let mut piece_start = 0;
        while piece_start < text.len() {
            let piece_end = piece_end(text, piece_start);
            self.measure_piece(&text[piece_start..piece_end], piece_start, &mut cache, &mut words)?;
            piece_start = piece_end;
            between_pieces();
        }
        Ok(words)
    }

    fn measure_piece(
        &self,
        piece: &str,
        offset: usize,
        cache: &mut HashMap<Box<str>, u32>,
        words: &mut Vec<Word>,
    ) -> Result<(), TokenizeError> {
        let encode_error = |e: tokenizers::Error| TokenizeError::Encode(e.to_string());
        let mut pre_tokenized =
            self.inner.get_added_vocabulary().extract_and_normalize(self.inner.get_normalizer(), piece);
        if let Some(pre_tokenizer) = self.inner.get_pre_tokenizer() {
            pre_tokenizer.pre_tokenize(&mut pre_tokenized).map_err(encode_error)?;
        }
        let model = self.inner.get_model();
        for (normalized, (start, end), tokens) in pre_tokenized.get_splits(OffsetReferential::Original, OffsetType::Byte) {
            let count = match tokens {
                Some(tokens) => tokens.len() as u32, // an added (special) token
                None => match cache.get(normalized) {
                    Some(&count) => count,
                    None => {
                        let count = model.tokenize(normalized).map_err(encode_error)?.len() as u32;
                        cache.insert(normalized.into(), count);
                        count
                    }
                },
            };
            // The span of a pre-token includes the whitespace it absorbed ("▁"); a word
            // starts at its first visible character.
            let source = &piece[start..end];
            let visible = source.len() - source.trim_start().len();
            if visible == source.len() {
                // whitespace only: only at the very end of a text, and chunks never end in
                // whitespace, so it never counts towards a chunk
                continue;
            }
            if count > 0 {
                words.push(Word { start: offset + start + visible, end: offset + end, tokens: count });
            }
        }
        Ok(())
    }

    /// Id used for padding positions (masked out, so any valid id works; `<pad>` if known).
    pub fn pad_id(&self) -> u32 {
        self.inner.token_to_id("<pad>").or_else(|| self.inner.token_to_id("[PAD]")).unwrap_or(0)
    }
}

/// End of the measuring piece that starts at `start`: just after the first newline past
/// `start + MEASURE_PIECE_BYTES`, or the end of the text. Pre-tokens never cross a newline
/// (it normalises to a space), so measuring piece by piece is exact.
fn piece_end(text: &str, start: usize) -> usize {
    let target = start + MEASURE_PIECE_BYTES;
    if target >= text.len() {
        return text.len();
    }
    match text.as_bytes()[target..].iter().position(|&b| b == b'\n') {
        Some(newline) => target + newline + 1,
        None => text.len(),
    }
}
