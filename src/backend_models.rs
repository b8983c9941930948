//! Tokenizers and embedding models cached per backend, bounded.
//!
//! A backend is a single-threaded process, so `thread_local` caches are enough (the pattern
//! pg_jsonschema uses). Loading the ONNX session and the 17 MB tokenizer costs far more
//! than one query embedding, so each is loaded once and kept, in a least-recently-used
//! cache of `pg_dof.model_cache_size` entries (a backend that uses many models keeps only
//! the last few: each e5-small session holds ~100 MB).
//!
//! Both caches are keyed by what the bytes come from: the files' identity (path, size,
//! modification time), and for sessions the registry row too (its revision changes on every
//! `dof_register_model`). Replacing `tokenizer.json` in place therefore loads the new one.
//! A session is keyed without its thread count: changing `pg_dof.intra_op_threads` replaces
//! the session instead of keeping a second copy of the model. Errors are returned, never
//! raised while a cache is borrowed.

use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::SystemTime;

use dof_core::embed::{EmbedError, Embedder, HashEmbedder, ModelKind, ModelSpec, OnnxEmbedder, OnnxOptions};
use dof_core::tokenize::{ModelTokenizer, TokenizeError};
use lru::LruCache;

use crate::guc;

/// A file as it is on disk now: a changed file gets a new stamp.
#[derive(Clone, PartialEq, Eq, Hash)]
struct FileStamp {
    path: PathBuf,
    /// `None` when the file cannot be read: loading it then reports the error.
    size_and_mtime: Option<(u64, SystemTime)>,
}

impl FileStamp {
    fn of(path: &Path) -> Self {
        let size_and_mtime = std::fs::metadata(path).ok().and_then(|m| Some((m.len(), m.modified().ok()?)));
        Self { path: path.to_path_buf(), size_and_mtime }
    }
}

/// What a vector of `spec` depends on: the spec and its files as they are on disk now (a file
/// changed in place changes it, as it makes the session load again). The sessions and the
/// vector caches key by it.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct SessionKey {
    spec: ModelSpec,
    model: FileStamp,
    tokenizer: FileStamp,
}

impl SessionKey {
    pub fn of(spec: &ModelSpec) -> Self {
        Self { spec: spec.clone(), model: FileStamp::of(&spec.model_file), tokenizer: FileStamp::of(&spec.tokenizer_file) }
    }
}

struct Session {
    intra_threads: usize,
    spinning: bool,
    embedder: OnnxEmbedder,
}

thread_local! {
    static TOKENIZERS: RefCell<LruCache<FileStamp, Arc<ModelTokenizer>>> = RefCell::new(LruCache::new(guc::model_cache_size()));
    static SESSIONS: RefCell<LruCache<SessionKey, Session>> = RefCell::new(LruCache::new(guc::model_cache_size()));
}

/// Shrinks or grows `cache` to the current `pg_dof.model_cache_size` (evicting the least
/// recently used entries first).
fn fit<K: std::hash::Hash + Eq, V>(cache: &mut LruCache<K, V>) {
    let wanted = guc::model_cache_size();
    if cache.cap() != wanted {
        cache.resize(wanted);
    }
}

/// Removes every entry of `cache` whose key matches.
fn pop_where<K: std::hash::Hash + Eq + Clone, V>(cache: &mut LruCache<K, V>, matches: impl Fn(&K) -> bool) {
    let keys: Vec<K> = cache.iter().map(|(k, _)| k).filter(|k| matches(k)).cloned().collect();
    for key in keys {
        cache.pop(&key);
    }
}

/// The (cached) tokenizer of `spec`.
pub fn tokenizer(spec: &ModelSpec) -> Result<Arc<ModelTokenizer>, TokenizeError> {
    tokenizer_at(&spec.tokenizer_file)
}

/// The (cached) tokenizer in `path`.
pub fn tokenizer_at(path: &Path) -> Result<Arc<ModelTokenizer>, TokenizeError> {
    let key = FileStamp::of(path);
    TOKENIZERS.with(|cell| {
        let mut cache = cell.borrow_mut();
        fit(&mut cache);
        if let Some(tokenizer) = cache.get(&key) {
            return Ok(Arc::clone(tokenizer));
        }
        // an older version of the same file will not be asked for again
        pop_where(&mut cache, |stamp| stamp.path == key.path);
        let tokenizer = Arc::new(ModelTokenizer::from_file(path)?);
        cache.put(key, Arc::clone(&tokenizer));
        Ok(tokenizer)
    })
}

/// Loads the tokenizer `pg_dof.preload_tokenizer` names into this process's cache. Called in
/// the postmaster at server start (shared_preload_libraries): every backend it forks starts
/// with the cache as it was, so a backend's first chunking or embedding with that file finds
/// it (the key is the same path and stamp) instead of loading it, about 1 s and 300 MB of
/// e5's 17 MB tokenizer.json a backend, and the backends share its pages until they write
/// them. Loading starts no thread, so the postmaster forks none. A file that cannot be loaded
/// is logged and left to the backends, which report it when they need it. Off by default:
/// every connection then starts later (`SELECT 1` 30.9 -> 37.5 ms, first_search.sh).
pub fn preload_tokenizer() {
    if let Some(path) = guc::preload_tokenizer() {
        match tokenizer_at(&path) {
            Ok(tokenizer) => {
                let _ = PRELOADED.set(tokenizer);
            }
            Err(error) => pgrx::log!("pg_dof: pg_dof.preload_tokenizer not loaded: {error}"),
        }
    }
}

/// The tokenizer loaded at server start, held for the life of every process (a static is
/// never dropped): a backend that exits drops its cache, and dropping the last reference
/// would free the tokenizer's millions of allocations, writing every page the backend
/// shares with the postmaster: with it, a connection that only ran `SELECT 1` took 335 ms
/// instead of 30 (median of 30 in a row).
static PRELOADED: std::sync::OnceLock<Arc<ModelTokenizer>> = std::sync::OnceLock::new();

/// Runs `f` with the (cached) ONNX embedder of `spec`, checked against its registered dimension.
fn with_onnx<R>(spec: &ModelSpec, f: impl FnOnce(&mut OnnxEmbedder) -> Result<R, EmbedError>) -> Result<R, EmbedError> {
    let key = SessionKey::of(spec);
    let (intra_threads, spinning) = (guc::intra_op_threads(), guc::onnx_spinning());
    SESSIONS.with(|cell| {
        let mut sessions = cell.borrow_mut();
        fit(&mut sessions);
        if sessions.get(&key).is_none_or(|s| s.intra_threads != intra_threads || s.spinning != spinning) {
            // drop every older session of this model before loading: never two copies at once
            pop_where(&mut sessions, |old| old.spec.name == spec.name);
            let embedder = load(spec, intra_threads, spinning)?;
            if spec.dimension != 0 && embedder.dimension() != spec.dimension {
                return Err(EmbedError::DimensionMismatch {
                    name: spec.name.clone(),
                    registered: spec.dimension,
                    actual: embedder.dimension(),
                });
            }
            sessions.put(key.clone(), Session { intra_threads, spinning, embedder });
        }
        f(&mut sessions.get_mut(&key).expect("inserted above").embedder)
    })
}

/// One entry of a backend cache, for dof_model_cache().
pub struct CacheEntry {
    pub cache: &'static str,
    pub model: Option<String>,
    pub revision: Option<String>,
    pub file: String,
    pub intra_op_threads: Option<usize>,
}

/// What this backend holds now, most recently used first.
pub fn entries() -> Vec<CacheEntry> {
    let mut entries: Vec<CacheEntry> = SESSIONS.with(|cell| {
        cell.borrow()
            .iter()
            .map(|(key, session)| CacheEntry {
                cache: "session",
                model: Some(key.spec.name.clone()),
                revision: Some(key.spec.revision.clone()),
                file: key.model.path.display().to_string(),
                intra_op_threads: Some(session.intra_threads),
            })
            .collect()
    });
    TOKENIZERS.with(|cell| {
        entries.extend(cell.borrow().iter().map(|(key, _)| CacheEntry {
            cache: "tokenizer",
            model: None,
            revision: None,
            file: key.path.display().to_string(),
            intra_op_threads: None,
        }))
    });
    entries
}

/// Loads a model without caching it (registration probes).
pub fn load(spec: &ModelSpec, intra_threads: usize, spinning: bool) -> Result<OnnxEmbedder, EmbedError> {
    // the model file first: a missing model is the likelier and clearer error
    if !spec.model_file.is_file() {
        return Err(EmbedError::ModelMissing { path: spec.model_file.clone() });
    }
    let options = OnnxOptions {
        intra_threads,
        spinning,
        max_positions: spec.max_positions,
        interrupt_pending: Some(cancel_or_die_pending),
        ..OnnxOptions::default()
    };
    OnnxEmbedder::load(&guc::onnxruntime_library(), &spec.model_file, tokenizer(spec)?, options)
}

/// Whether a query cancel (`pg_cancel_backend`, `statement_timeout`) or a termination
/// (`pg_terminate_backend`, shutdown) is waiting to be processed. Read from ONNX Runtime's
/// watcher thread: both flags are `volatile sig_atomic_t` that signal handlers set, so a
/// volatile read from another thread is what they are made for. Other interrupt kinds
/// (`InterruptPending` alone: catch-up, barriers) must not stop a model run.
fn cancel_or_die_pending() -> bool {
    // SAFETY: plain reads of two signal-handler flags; no PostgreSQL function is called.
    unsafe {
        std::ptr::read_volatile(&raw const pgrx::pg_sys::QueryCancelPending) != 0
            || std::ptr::read_volatile(&raw const pgrx::pg_sys::ProcDiePending) != 0
    }
}

/// Independent embeddings of `texts`, each with `prefix`.
pub fn embed(spec: &ModelSpec, texts: &[&str], prefix: &str, between_batches: &mut dyn FnMut()) -> Result<Vec<Vec<f32>>, EmbedError> {
    let prefixed: Vec<String> = texts.iter().map(|t| format!("{prefix}{t}")).collect();
    let refs: Vec<&str> = prefixed.iter().map(String::as_str).collect();
    match spec.kind {
        ModelKind::Hash => HashEmbedder::new(spec.dimension).embed(&refs, between_batches),
        ModelKind::Onnx => with_onnx(spec, |embedder| embedder.embed(&refs, between_batches)),
    }
}

/// Late-chunked embeddings of one document's `chunks`.
pub fn embed_late(
    spec: &ModelSpec,
    chunks: &[&str],
    front_matter: &[&str],
    prefix: &str,
    between_batches: &mut dyn FnMut(),
) -> Result<Vec<Vec<f32>>, EmbedError> {
    match spec.kind {
        // no context to share: the hash embedder embeds each chunk on its own
        ModelKind::Hash => embed(spec, chunks, prefix, between_batches),
        ModelKind::Onnx => with_onnx(spec, |embedder| embedder.embed_late(chunks, front_matter, prefix, between_batches)),
    }
}
