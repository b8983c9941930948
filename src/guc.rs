//! Every `pg_dof.*` setting, in one place, with typed accessors.

use std::ffi::{CStr, CString};
use std::path::PathBuf;

use pgrx::guc::{GucContext, GucFlags, GucRegistry, GucSetting};
use pgrx::pg_sys;

/// Where `make setup` installs the ONNX Runtime library (dof_core::install).
const DEFAULT_ONNXRUNTIME_LIBRARY: &CStr = c_literal(concat!(dof_core::install_onnxruntime_library!(), "\0"));
/// Where `make setup` installs models, one folder per model name.
const DEFAULT_MODEL_DIR: &CStr = c_literal(concat!(dof_core::install_model_dir!(), "\0"));

/// A C string from a NUL-terminated literal, checked at compile time.
const fn c_literal(bytes: &'static str) -> &'static CStr {
    match CStr::from_bytes_with_nul(bytes.as_bytes()) {
        Ok(c) => c,
        Err(_) => panic!("not a NUL-terminated string without inner NULs"),
    }
}

/// Default intra-op threads when the setting is 0: the machine's cores, capped so that many
/// connections embedding at once do not oversubscribe the CPU (PostgresML users hit that).
const MAX_AUTO_THREADS: usize = 4;

static ONNXRUNTIME_LIBRARY: GucSetting<Option<CString>> = GucSetting::<Option<CString>>::new(Some(DEFAULT_ONNXRUNTIME_LIBRARY));
static MODEL_DIR: GucSetting<Option<CString>> = GucSetting::<Option<CString>>::new(Some(DEFAULT_MODEL_DIR));
static DEFAULT_MODEL_NAME: GucSetting<Option<CString>> = GucSetting::<Option<CString>>::new(Some(c""));
static INTRA_OP_THREADS: GucSetting<i32> = GucSetting::<i32>::new(0);
static ONNX_SPINNING: GucSetting<bool> = GucSetting::<bool>::new(true);
static ALLOW_DROP: GucSetting<bool> = GucSetting::<bool>::new(false);
static MODEL_CACHE_SIZE: GucSetting<i32> = GucSetting::<i32>::new(2);
static SENTENCE_CACHE_SIZE: GucSetting<i32> = GucSetting::<i32>::new(20_000);
static QUERY_CACHE_SIZE: GucSetting<i32> = GucSetting::<i32>::new(1000);
static QUEUE_WORKERS: GucSetting<i32> = GucSetting::<i32>::new(-1);
static QUEUE_WORKER_THREADS: GucSetting<i32> = GucSetting::<i32>::new(0);
static QUEUE_DATABASE: GucSetting<Option<CString>> = GucSetting::<Option<CString>>::new(Some(c"postgres"));
static QUEUE_NAPTIME_MS: GucSetting<i32> = GucSetting::<i32>::new(1000);
static QUEUE_BATCH_SIZE: GucSetting<i32> = GucSetting::<i32>::new(4);
static QUEUE_MAX_ATTEMPTS: GucSetting<i32> = GucSetting::<i32>::new(3);
static PRELOAD_TOKENIZER: GucSetting<Option<CString>> = GucSetting::<Option<CString>>::new(Some(c""));
static INGEST_NICE: GucSetting<i32> = GucSetting::<i32>::new(crate::ingest_priority::DEFAULT_NICE);
static STATS_FOLD_EVERY: GucSetting<i32> = GucSetting::<i32>::new(256);

pub fn init() {
    GucRegistry::define_string_guc(
        c"pg_dof.onnxruntime_library",
        c"Path of the ONNX Runtime shared library (libonnxruntime.so).",
        c"Loaded by each backend on its first embedding; a change takes effect in new sessions. Superuser only.",
        &ONNXRUNTIME_LIBRARY,
        GucContext::Suset,
        GucFlags::default(),
    );
    GucRegistry::define_string_guc(
        c"pg_dof.model_dir",
        c"Folder holding one sub-folder per embedding model (model.onnx + tokenizer.json).",
        c"Files in it must be readable by the server's operating-system user. Superuser only.",
        &MODEL_DIR,
        GucContext::Suset,
        GucFlags::default(),
    );
    GucRegistry::define_string_guc(
        c"pg_dof.default_model",
        c"Embedding model used when a function's model argument is NULL.",
        c"A name in dof_models; empty (the default) means the row marked is_default.",
        &DEFAULT_MODEL_NAME,
        GucContext::Userset,
        GucFlags::default(),
    );
    GucRegistry::define_int_guc(
        c"pg_dof.intra_op_threads",
        c"ONNX Runtime intra-op threads per backend (0 = number of cores, at most 4).",
        c"A changed value reloads the model in this backend at its next use.",
        &INTRA_OP_THREADS,
        0,
        64,
        GucContext::Userset,
        GucFlags::default(),
    );
    GucRegistry::define_bool_guc(
        c"pg_dof.onnx_spinning",
        c"Whether ONNX Runtime's threads spin between operations (faster alone, slower when several backends embed at once).",
        c"A changed value reloads the model in this backend at its next use. Off suits servers where several sessions or queue workers embed at the same time.",
        &ONNX_SPINNING,
        GucContext::Userset,
        GucFlags::default(),
    );
    GucRegistry::define_int_guc(
        c"pg_dof.ingest_nice",
        c"CPU nice value a backend takes when it first embeds documents to store them (0 = unchanged).",
        c"Searches in other sessions then get the CPU first while documents are indexed. It lasts until the session ends: an unprivileged process cannot raise its priority again.",
        &INGEST_NICE,
        0,
        19,
        GucContext::Userset,
        GucFlags::default(),
    );
    GucRegistry::define_int_guc(
        c"pg_dof.model_cache_size",
        c"Embedding models (and, separately, tokenizers) a backend keeps loaded.",
        c"Least recently used first out; each e5-small session holds about 100 MB. dof_model_cache() lists them.",
        &MODEL_CACHE_SIZE,
        1,
        64,
        GucContext::Userset,
        GucFlags::default(),
    );
    GucRegistry::define_int_guc(
        c"pg_dof.sentence_cache_size",
        c"Sentence vectors a backend keeps for the semantic chunker (0 = none).",
        c"Re-cutting with another threshold reuses them instead of running the model; about 1.5 KB each at 384 dimensions. dof_sentence_cache() reports hits and misses.",
        &SENTENCE_CACHE_SIZE,
        0,
        10_000_000,
        GucContext::Userset,
        GucFlags::default(),
    );
    GucRegistry::define_int_guc(
        c"pg_dof.query_cache_size",
        c"Query vectors a backend keeps for searches (0 = none).",
        c"A query searched again is not embedded again (the model's run is most of a hybrid search); about 1.5 KB each at 384 dimensions. dof_query_cache() reports hits and misses.",
        &QUERY_CACHE_SIZE,
        0,
        10_000_000,
        GucContext::Userset,
        GucFlags::default(),
    );
    GucRegistry::define_int_guc(
        c"pg_dof.stats_fold_every",
        c"Statements' BM25 statistics deltas a collection gathers before the next statement that writes its chunks folds them (0 = never).",
        c"A fold rewrites the collection's lexemes that have more than one row; until then a search reads a row per lexeme for each statement that wrote it. dof_compact_stats, dof load and the queue fold too.",
        &STATS_FOLD_EVERY,
        0,
        i32::MAX,
        GucContext::Userset,
        GucFlags::default(),
    );
    // PostgreSQL refuses (FATAL) a postmaster-level setting defined after startup: these
    // exist only when shared_preload_libraries loads pg_dof, where they are read.
    // SAFETY: a plain read of a postmaster global, in this process's main thread
    if unsafe { pg_sys::process_shared_preload_libraries_in_progress } {
        define_queue_workers();
        define_preload_tokenizer();
    }
    GucRegistry::define_int_guc(
        c"pg_dof.queue_worker_threads",
        c"ONNX Runtime threads of each queue worker (0: the cores divided among the workers).",
        c"Workers times threads should not exceed the cores: embedding is the whole cost.",
        &QUEUE_WORKER_THREADS,
        0,
        64,
        GucContext::Sighup,
        GucFlags::default(),
    );
    DEFINING.set(true);
    // SAFETY: the hook only reads its argument and the catalog, in a transaction
    unsafe {
        GucRegistry::define_string_guc_with_hooks(
            c"pg_dof.queue_database",
            c"The database whose deferred queue the background workers drain.",
            c"A change (reload) restarts the workers in the new database. ALTER SYSTEM refuses a database that does not exist.",
            &QUEUE_DATABASE,
            GucContext::Sighup,
            GucFlags::default(),
            Some(check_queue_database),
            None,
            None,
        )
    };
    DEFINING.set(false);
    GucRegistry::define_int_guc(
        c"pg_dof.queue_naptime",
        c"How long an idle queue worker sleeps before looking again (milliseconds).",
        c"",
        &QUEUE_NAPTIME_MS,
        10,
        3_600_000,
        GucContext::Sighup,
        GucFlags::UNIT_MS,
    );
    GucRegistry::define_int_guc(
        c"pg_dof.queue_batch_size",
        c"Documents a queue worker indexes per transaction.",
        c"Small batches stop sooner on shutdown and lose less on a crash.",
        &QUEUE_BATCH_SIZE,
        1,
        10_000,
        GucContext::Sighup,
        GucFlags::default(),
    );
    GucRegistry::define_int_guc(
        c"pg_dof.queue_max_attempts",
        c"Times a queue worker tries a document before leaving it failed.",
        c"A failed document is retried after a pause that doubles with each attempt (10 s, 20 s, ...).",
        &QUEUE_MAX_ATTEMPTS,
        1,
        100,
        GucContext::Sighup,
        GucFlags::default(),
    );
    GucRegistry::define_bool_guc(
        c"pg_dof.allow_drop",
        c"Lets DROP EXTENSION pg_dof (and drops that cascade to it) delete stored documents.",
        c"Off: such a drop is refused while dof_documents has rows (the dof_drop_guard event trigger).",
        &ALLOW_DROP,
        GucContext::Userset,
        GucFlags::default(),
    );
    // SAFETY: called from _PG_init, in the backend's main thread.
    unsafe { pg_sys::MarkGUCPrefixReserved(c"pg_dof".as_ptr()) };
}

thread_local! {
    /// pg_dof's settings are being defined (`_PG_init`): a value already set is not checked
    /// again in every backend that loads the library.
    static DEFINING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// `pg_dof.queue_database`'s check: a database that does not exist is refused where that
/// can be known, in a backend's transaction (`ALTER SYSTEM SET`): the workers would exit
/// with a FATAL every 5 s. In the postmaster or while reading postgresql.conf there is no
/// catalog to ask, and the value is taken.
#[pgrx::pg_guard]
unsafe extern "C-unwind" fn check_queue_database(
    value: *mut *mut std::ffi::c_char,
    _extra: *mut *mut std::ffi::c_void,
    _source: pg_sys::GucSource::Type,
) -> bool {
    // SAFETY: PostgreSQL passes a pointer to the proposed value, NUL-terminated or NULL
    let name = unsafe { value.as_ref().filter(|v| !v.is_null()).map(|v| CStr::from_ptr(*v)) };
    // SAFETY: plain reads of backend globals, in the backend's main thread
    let can_ask = unsafe { pg_sys::IsTransactionState() && pg_sys::MyDatabaseId != pg_sys::InvalidOid };
    let Some(name) = name.filter(|_| can_ask && !DEFINING.get()) else { return true };
    // SAFETY: a catalog lookup inside a transaction; missing_ok, so no ERROR
    if unsafe { pg_sys::get_database_oid(name.as_ptr(), true) } != pg_sys::InvalidOid {
        return true;
    }
    let detail = c"No database has that name: the queue workers could not connect (SELECT datname FROM pg_database lists them).";
    // SAFETY: GUC_check_errdetail's string, allocated in the current memory context as it expects
    unsafe { pg_sys::GUC_check_errdetail_string = pg_sys::pstrdup(detail.as_ptr()) };
    false
}

fn define_queue_workers() {
    GucRegistry::define_int_guc(
        c"pg_dof.queue_workers",
        c"Background workers draining the deferred queue (-1: the cores divided by pg_dof.queue_worker_threads, or by 4; 0: none).",
        c"Registered at server start when pg_dof is in shared_preload_libraries.",
        &QUEUE_WORKERS,
        -1,
        64,
        GucContext::Postmaster,
        GucFlags::default(),
    );
}

fn define_preload_tokenizer() {
    GucRegistry::define_string_guc(
        c"pg_dof.preload_tokenizer",
        c"Tokenizer the server loads at start, which every backend then shares (a path under pg_dof.model_dir, or absolute; empty, the default: none).",
        c"Read at server start when pg_dof is in shared_preload_libraries: each backend then skips loading it on its first chunking or embedding (e5's, multilingual-e5-small/tokenizer.json: about 1 s and 300 MB a backend), and every connection starts about 7 ms later.",
        &PRELOAD_TOKENIZER,
        GucContext::Postmaster,
        GucFlags::default(),
    );
}

/// The tokenizer file to load at server start (`pg_dof.preload_tokenizer` under
/// `pg_dof.model_dir`, as a model's files are found), if any.
pub fn preload_tokenizer() -> Option<PathBuf> {
    let file = string_setting(&PRELOAD_TOKENIZER);
    (!file.is_empty()).then(|| model_dir().join(file))
}

fn string_setting(setting: &GucSetting<Option<CString>>) -> String {
    setting.get().map(|value| value.to_string_lossy().into_owned()).unwrap_or_default()
}

pub fn onnxruntime_library() -> PathBuf {
    PathBuf::from(string_setting(&ONNXRUNTIME_LIBRARY))
}

pub fn model_dir() -> PathBuf {
    PathBuf::from(string_setting(&MODEL_DIR))
}

pub fn intra_op_threads() -> usize {
    match INTRA_OP_THREADS.get() {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get()).min(MAX_AUTO_THREADS),
        n => n as usize,
    }
}

pub fn ingest_nice() -> i32 {
    INGEST_NICE.get()
}

pub fn onnx_spinning() -> bool {
    ONNX_SPINNING.get()
}

pub fn model_cache_size() -> std::num::NonZeroUsize {
    usize::try_from(MODEL_CACHE_SIZE.get()).ok().and_then(std::num::NonZeroUsize::new).unwrap_or(std::num::NonZeroUsize::MIN)
}

fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Queue workers to register: the setting, or (-1) as many as the cores allow at
/// `pg_dof.queue_worker_threads` each, 4 when that is 0 (ONNX Runtime's intra-op threads
/// stop paying off beyond about 4 for e5-small); at least one. Never more than
/// [`queue_worker_cap`]: 64 workers with `max_worker_processes` 8 took every slot, and
/// parallel query got none.
pub fn queue_workers() -> usize {
    let wanted = match QUEUE_WORKERS.get() {
        n if n >= 0 => n as usize,
        _ => match QUEUE_WORKER_THREADS.get() {
            0 => (cores() / MAX_AUTO_THREADS).max(1),
            threads => (cores() / threads as usize).max(1),
        },
    };
    // SAFETY: a plain read of a server setting fixed at postmaster start
    wanted.min(queue_worker_cap(unsafe { pg_sys::max_worker_processes }))
}

/// The most queue workers a server with `max_worker_processes` slots runs: half of them
/// (at least one), so parallel query and other extensions keep the rest.
fn queue_worker_cap(max_worker_processes: i32) -> usize {
    (usize::try_from(max_worker_processes).unwrap_or(0) / 2).max(1)
}

/// The `pg_dof.queue_workers` setting as given (before [`queue_worker_cap`]).
pub fn queue_workers_setting() -> i32 {
    QUEUE_WORKERS.get()
}

/// ONNX Runtime threads per queue worker: the setting, or the cores shared among them.
pub fn queue_worker_threads() -> usize {
    match QUEUE_WORKER_THREADS.get() {
        0 => (cores() / queue_workers().max(1)).max(1),
        n => n as usize,
    }
}

pub fn queue_database() -> String {
    string_setting(&QUEUE_DATABASE)
}

pub fn queue_naptime() -> std::time::Duration {
    std::time::Duration::from_millis(QUEUE_NAPTIME_MS.get().max(10) as u64)
}

pub fn queue_batch_size() -> i32 {
    QUEUE_BATCH_SIZE.get()
}

pub fn queue_max_attempts() -> i32 {
    QUEUE_MAX_ATTEMPTS.get()
}

/// `None` when the sentence cache is off.
pub fn sentence_cache_size() -> Option<std::num::NonZeroUsize> {
    usize::try_from(SENTENCE_CACHE_SIZE.get()).ok().and_then(std::num::NonZeroUsize::new)
}

/// `None` when the query cache is off.
pub fn query_cache_size() -> Option<std::num::NonZeroUsize> {
    usize::try_from(QUERY_CACHE_SIZE.get()).ok().and_then(std::num::NonZeroUsize::new)
}

pub fn stats_fold_every() -> i32 {
    STATS_FOLD_EVERY.get()
}

pub fn allow_drop() -> bool {
    ALLOW_DROP.get()
}
