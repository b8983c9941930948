//! Loading the embedding model's own `tokenizer.json`, so token counts and spans are the
//! model's, not an estimate.

use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use rustc_hash::FxHashMap;
use tokenizers::{Model, NormalizedString, Normalizer, OffsetReferential, OffsetType, PreTokenizedString, PreTokenizer, Tokenizer};

use crate::blank;
use crate::signals::with_signals_blocked;

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
    /// Shared with helper threads that tokenize long texts (see [`ModelTokenizer::off_thread`]).
    inner: Arc<Tokenizer>,
    /// Memo of [`ModelTokenizer::words`]: see there.
    memo: Mutex<WordMemo>,
}

#[derive(Default)]
struct WordMemo {
    /// Token count of a raw word (a run of non-whitespace characters), or [`IRREGULAR`].
    raw: FxHashMap<Box<str>, u32>,
    /// Token count of a normalised pre-token (the exact path).
    pre_tokens: FxHashMap<Box<str>, u32>,
}

impl WordMemo {
    fn len(&self) -> usize {
        self.raw.len() + self.pre_tokens.len()
    }
}

/// A raw word whose count depends on its neighbours: its line takes the exact path.
const IRREGULAR: u32 = u32::MAX;
/// The separators of raw words: every one normalises to a space in the tokenizers this
/// path is for, and a space ends a pre-token.
const WORD_SEPARATORS: [char; 5] = [' ', '\t', '\n', '\r', '\u{c}'];

/// Entries kept in the word cache before it is cleared (a long-lived backend must not
/// grow without bound; ~40 MB at this size).
const WORD_CACHE_LIMIT: usize = 500_000;
/// Longer words and pre-tokens are counted but not memoised: a base64 image would
/// otherwise keep megabytes of keys alive in a long-lived backend.
const MEMO_MAX_BYTES: usize = 256;
/// Texts at least this long are tokenized on a helper thread while the caller's interrupt
/// hook runs every [`OFF_THREAD_POLL`]: one tokenizer call cannot be interrupted, and a
/// 5 MB word without whitespace takes ~1.7 s.
const OFF_THREAD_BYTES: usize = 256 * 1024;
const OFF_THREAD_POLL: Duration = Duration::from_millis(10);
/// `between_pieces` runs after about this many bytes of text.
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
        Ok(Self { inner: Arc::new(inner), memo: Mutex::new(WordMemo::default()) })
    }

    /// Encodes `text`, with the model's special tokens (`<s> … </s>` for e5) when asked.
    pub fn encode(&self, text: &str, with_special_tokens: bool) -> Result<Tokens, TokenizeError> {
        let encoding = self.inner.encode(text, with_special_tokens).map_err(|e| TokenizeError::Encode(e.to_string()))?;
        Ok(Tokens { ids: encoding.get_ids().to_vec(), offsets: encoding.get_offsets().to_vec() })
    }

    /// Number of tokens of `text` without special tokens.
    pub fn count(&self, text: &str) -> Result<usize, TokenizeError> {
        Ok(self.encode(text, false)?.ids.len())
    }

    /// The text's words with their exact token counts, in order.
    ///
    /// Exact means: the token count of any span from one word's start to a later word's end
    /// is the sum of its words' counts — the number a full `encode` of that span gives
    /// (tested on every chunk of the shared corpora). Two paths, both memoised:
    ///
    /// - fast: a raw word (a run of characters between spaces, tabs and newlines) whose
    ///   normalised form has no whitespace is one pre-token for a whitespace-splitting
    ///   pre-tokenizer (e5's Metaspace), so its count does not depend on its neighbours
    ///   and is memoised by the raw word itself;
    /// - exact: a line holding any other word (one with a no-break space, a leading
    ///   combining mark, a special token such as `<s>`) becomes one word counted by the
    ///   tokenizer's own pipeline (see `exact_line`).
    pub fn words(&self, text: &str, between_pieces: &dyn Fn()) -> Result<Vec<Word>, TokenizeError> {
        let mut words = Vec::with_capacity(text.len() / 6);
        let mut memo = self.memo.lock().unwrap_or_else(PoisonError::into_inner);
        if memo.len() > WORD_CACHE_LIMIT {
            *memo = WordMemo::default();
        }
        let mut line_start = 0;
        let mut since_check = 0;
        for line in text.split_inclusive('\n') {
            let first_word = words.len();
            if !self.fast_line(line, line_start, &mut memo, &mut words, between_pieces)? {
                words.truncate(first_word);
                self.exact_line(text, line_start, line_start + line.len(), &mut memo.pre_tokens, &mut words, between_pieces)?;
            }
            line_start += line.len();
            since_check += line.len();
            if since_check >= MEASURE_PIECE_BYTES {
                since_check = 0;
                between_pieces();
            }
        }
        Ok(words)
    }

    /// The fast path over one line; `false` when a word in it is irregular.
    fn fast_line(
        &self,
        line: &str,
        offset: usize,
        memo: &mut WordMemo,
        words: &mut Vec<Word>,
        interrupt: &dyn Fn(),
    ) -> Result<bool, TokenizeError> {
        let mut position = 0;
        for raw in line.split(WORD_SEPARATORS) {
            let start = offset + position;
            position += raw.len() + 1; // every separator is one byte
            if raw.is_empty() {
                continue;
            }
            let count = match memo.raw.get(raw) {
                Some(&count) => count,
                None => {
                    let count = if raw.len() >= OFF_THREAD_BYTES {
                        self.off_thread(raw, interrupt, |inner, raw| isolated_count(inner, raw, &mut FxHashMap::default()))?
                    } else {
                        isolated_count(&self.inner, raw, &mut memo.pre_tokens)?
                    };
                    if raw.len() <= MEMO_MAX_BYTES {
                        memo.raw.insert(raw.into(), count);
                    }
                    count
                }
            };
            if count == IRREGULAR {
                return Ok(false);
            }
            if count > 0 {
                // a word's span starts and ends on visible characters (a vertical tab, which
                // the normaliser deletes, may cling to it), so trimmed chunk spans are clean
                let leading = raw.len() - blank::trim_start(raw).len();
                let visible = blank::trim_end(blank::trim_start(raw)).len();
                words.push(Word { start: start + leading, end: start + leading + visible, tokens: count });
            }
        }
        Ok(true)
    }

    /// The exact path for the line `text[start..end]`: its visible part becomes one word
    /// counted by the tokenizer's own pipeline (added tokens, normaliser, pre-tokenizer,
    /// model memoised per pre-token). No pre-token offsets are used: they shift when the
    /// normaliser deletes characters (found by fuzzing). Two context effects are kept:
    /// - a special token opening the line follows whitespace, which in a longer span is a
    ///   "▁" token of its own: a glue word over that whitespace;
    /// - a line ending in a character that normalises to a space (e.g. U+200B) ends in a
    ///   lone "▁" on its own, which a following line absorbs: the word ends one byte past
    ///   the line, so a span ending at the line is counted afresh, and any longer span
    ///   counts the line without it.
    fn exact_line(
        &self,
        text: &str,
        start: usize,
        end: usize,
        pre_tokens: &mut FxHashMap<Box<str>, u32>,
        words: &mut Vec<Word>,
        interrupt: &dyn Fn(),
    ) -> Result<(), TokenizeError> {
        let line = &text[start..end];
        let visible_start = start + (line.len() - blank::trim_start(line).len());
        let visible_end = start + blank::trim_end(line).len();
        if visible_start >= visible_end {
            return Ok(());
        }
        let visible = &text[visible_start..visible_end];
        if self.starts_with_special_token(visible) {
            let glue_start = blank::trim_end(&text[..visible_start]).len();
            if glue_start > 0 {
                words.push(Word { start: glue_start, end: visible_start, tokens: 1 });
            }
        }
        let (count, trailing_space) = if visible.len() >= OFF_THREAD_BYTES {
            self.off_thread(visible, interrupt, |inner, visible| pipeline_count(inner, visible, &mut FxHashMap::default()))?
        } else {
            pipeline_count(&self.inner, visible, pre_tokens)?
        };
        let tokens = count - u32::from(trailing_space);
        if tokens > 0 {
            words.push(Word { start: visible_start, end: visible_end + usize::from(trailing_space), tokens });
        }
        Ok(())
    }

    fn starts_with_special_token(&self, text: &str) -> bool {
        text.starts_with('<') && self.inner.get_added_vocabulary().get_vocab().keys().any(|t| text.starts_with(t.as_str()))
    }

    /// `work` on `text`, on a helper thread, with `interrupt` running every few
    /// milliseconds until it is done. When `interrupt` unwinds (PostgreSQL's cancel), the
    /// helper finishes on its own and its result is dropped; it never touches the caller's
    /// memo, only a copy of the text and the shared tokenizer.
    fn off_thread<R: Send + 'static>(
        &self,
        text: &str,
        interrupt: &dyn Fn(),
        work: impl FnOnce(&Tokenizer, &str) -> Result<R, TokenizeError> + Send + 'static,
    ) -> Result<R, TokenizeError> {
        let inner = Arc::clone(&self.inner);
        let text: Box<str> = text.into();
        let (done, result) = mpsc::sync_channel(1);
        // spawned with signals blocked, so PostgreSQL's signals still reach the backend's thread
        with_signals_blocked(|| {
            std::thread::Builder::new().name("pg_dof tokenize".into()).spawn(move || {
                let _ = done.send(work(&inner, &text));
            })
        })
        .map_err(|e| TokenizeError::Encode(format!("could not start a tokenizer thread: {e}")))?;
        loop {
            interrupt();
            match result.recv_timeout(OFF_THREAD_POLL) {
                Ok(outcome) => return outcome,
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => return Err(TokenizeError::Encode("the tokenizer thread failed".into())),
            }
        }
    }

    /// [`ModelTokenizer::count`], with `interrupt` running while a long text is counted.
    pub fn count_interruptibly(&self, text: &str, interrupt: &dyn Fn()) -> Result<usize, TokenizeError> {
        if text.len() < OFF_THREAD_BYTES {
            return self.count(text);
        }
        self.off_thread(text, interrupt, |inner, text| {
            Ok(inner.encode(text, false).map_err(|e| TokenizeError::Encode(e.to_string()))?.get_ids().len())
        })
    }

    /// Whether the tokenizer treats `c` as a blank: between two letters it tokenizes like
    /// a space or like nothing. (Asking the normaliser alone is not enough: it keeps
    /// U+0085, which Rust calls whitespace, and the model then gives it a token.)
    pub fn normalizes_to_blank(&self, c: char) -> bool {
        let ids = |text: &str| self.inner.encode(text, false).map(|e| e.get_ids().to_vec()).ok();
        let between = ids(&format!("x{c}y"));
        between.is_some() && (between == ids("x y") || between == ids("xy"))
    }

    /// Forgets the memoised word counts (benchmarks measure from a cold memo).
    pub fn clear_word_cache(&self) {
        *self.memo.lock().unwrap_or_else(PoisonError::into_inner) = WordMemo::default();
    }

    /// The underlying `tokenizers` tokenizer.
    pub fn inner(&self) -> &Tokenizer {
        &self.inner
    }

    /// Id used for padding positions (masked out, so any valid id works; `<pad>` if known).
    pub fn pad_id(&self) -> u32 {
        self.inner.token_to_id("<pad>").or_else(|| self.inner.token_to_id("[PAD]")).unwrap_or(0)
    }
}

/// Tokens of `piece` by the tokenizer's pipeline, and whether its last pre-token is a
/// lone "▁" (whitespace only after normalisation).
fn pipeline_count(inner: &Tokenizer, piece: &str, pre_tokens: &mut FxHashMap<Box<str>, u32>) -> Result<(u32, bool), TokenizeError> {
    let pre_tokenized = pre_tokenize(inner, piece)?;
    let splits = pre_tokenized.get_splits(OffsetReferential::Normalized, OffsetType::Byte);
    let mut total = 0;
    let mut trailing_space = false;
    for (normalized, _, tokens) in splits {
        let count = match tokens {
            Some(tokens) => tokens.len() as u32,
            None => model_count(inner, normalized, pre_tokens)?,
        };
        total += count;
        trailing_space = tokens.is_none() && count == 1 && normalized.chars().all(|c| c == '▁' || c.is_whitespace());
    }
    Ok((total, trailing_space))
}

/// Tokens of a raw word on its own, or [`IRREGULAR`] when that could differ in context.
fn isolated_count(inner: &Tokenizer, raw: &str, pre_tokens: &mut FxHashMap<Box<str>, u32>) -> Result<u32, TokenizeError> {
    let leading_mark = raw.chars().next().is_some_and(|c| !c.is_ascii() && !c.is_alphanumeric());
    let special = raw.contains('<') && inner.get_added_vocabulary().get_vocab().keys().any(|t| raw.contains(t.as_str()));
    if leading_mark || special {
        return Ok(IRREGULAR);
    }
    if let Some(normalizer) = inner.get_normalizer() {
        let mut normalized = NormalizedString::from(raw);
        normalizer.normalize(&mut normalized).map_err(|e| TokenizeError::Encode(e.to_string()))?;
        if normalized.get().contains(char::is_whitespace) {
            return Ok(IRREGULAR);
        }
    }
    Ok(pipeline_count(inner, raw, pre_tokens)?.0)
}

/// The tokenizer's pipeline up to the model: added tokens, normaliser, pre-tokenizer.
fn pre_tokenize(inner: &Tokenizer, piece: &str) -> Result<PreTokenizedString, TokenizeError> {
    let mut pre_tokenized = inner.get_added_vocabulary().extract_and_normalize(inner.get_normalizer(), piece);
    if let Some(pre_tokenizer) = inner.get_pre_tokenizer() {
        pre_tokenizer.pre_tokenize(&mut pre_tokenized).map_err(|e| TokenizeError::Encode(e.to_string()))?;
    }
    Ok(pre_tokenized)
}

/// Tokens the model makes of one normalised pre-token, memoised.
fn model_count(inner: &Tokenizer, normalized: &str, cache: &mut FxHashMap<Box<str>, u32>) -> Result<u32, TokenizeError> {
    if let Some(&count) = cache.get(normalized) {
        return Ok(count);
    }
    let count = inner.get_model().tokenize(normalized).map_err(|e| TokenizeError::Encode(e.to_string()))?.len() as u32;
    if normalized.len() <= MEMO_MAX_BYTES {
        cache.insert(normalized.into(), count);
    }
    Ok(count)
}
