//! Background workers that drain the deferred queue by themselves (`pg_dof.queue_workers`
//! of them, started by the launcher, `queue_launcher.rs`, when pg_dof is in
//! `shared_preload_libraries`). Each connects to `pg_dof.queue_database` (the launcher
//! passes the name after finding it in the catalog), and in a loop runs one batch per
//! transaction through `dof_process_queue_batch` (claims with `FOR UPDATE SKIP LOCKED`, so
//! workers and manual `CALL dof_process_queue()`s never take the same document), retrying a
//! failed document until `pg_dof.queue_max_attempts`; when the queue is empty it folds the
//! BM25 statistics deltas and sleeps `pg_dof.queue_naptime`, waking early on a signal: a
//! transaction that queues documents wakes the workers of its database when it commits
//! (`dof_queue_wake_internal`, called by a statement trigger on `dof_queue`).
//!
//! Stopping: SIGTERM (fast shutdown, `pg_terminate_backend`) is PostgreSQL's own `die`:
//! it sets `ProcDiePending`, which ends a model run within milliseconds (the watcher in
//! `backend_models.rs`) and the next interrupt check exits the worker (FATAL), whatever the
//! batch; after a terminate the launcher starts it again 5 s later. A batch is one
//! transaction, so a worker stopped or killed (even `kill -9`, which makes the postmaster
//! reinitialise) leaves no document half indexed: its batch rolls back and is claimed
//! again. (pgrx's own SIGTERM handler only sets a flag, read between batches: a worker
//! embedding a 600 KB document ignored a terminate for 105 s.) A changed
//! `pg_dof.queue_database` (SIGHUP) stops the workers, and the launcher starts them again
//! in the new database; a worker whose launcher is gone stops.

use std::cell::Cell;
use std::time::Duration;

use pgrx::bgworkers::{BackgroundWorker, SignalWakeFlags};
use pgrx::pg_sys::panic::CaughtError;
use pgrx::prelude::*;
use pgrx::spi::SpiError;
use pgrx::{register_xact_callback, PgXactCallbackEvent};

use crate::guc;

#[pg_guard]
#[no_mangle]
pub extern "C-unwind" fn dof_queue_worker_main(argument: pg_sys::Datum) {
    BackgroundWorker::attach_signal_handlers(SignalWakeFlags::SIGHUP);
    // SAFETY: installing PostgreSQL's own SIGTERM handler, as its background workers do
    unsafe { crate::server_version::set_signal_handler(libc::SIGTERM, Some(postgres_die)) };
    // the launcher passes its PID as the argument and the database (which it found in the
    // catalog) as the extra
    let launcher = argument.value() as libc::pid_t;
    let database = BackgroundWorker::get_extra().to_string();
    BackgroundWorker::connect_worker_to_spi(Some(&database), None);
    let threads = guc::queue_worker_threads();
    if let Err(error) = BackgroundWorker::transaction(|| Spi::run(&format!("SET pg_dof.intra_op_threads = {threads}"))) {
        // a logged exit, not a panic: the launcher starts the worker again after 5 s
        warning!("pg_dof queue worker: database \"{database}\": cannot set its model threads: {error}; stopping");
        // SAFETY: ends this background worker process, as the postmaster expects it to
        unsafe { pg_sys::proc_exit(1) };
    }
    log!("pg_dof queue worker: serving database \"{database}\" with {threads} model thread(s)");
    let mut indexed_since_compaction = 0i64;
    let mut failing: Option<Failure> = None;
    loop {
        if BackgroundWorker::sighup_received() {
            // SAFETY: the documented way for a background worker to re-read its settings
            unsafe { pg_sys::ProcessConfigFile(pg_sys::GucContext::PGC_SIGHUP) };
            if guc::queue_database() != database {
                // the launcher starts the workers again in the new database
                log!("pg_dof queue worker: pg_dof.queue_database changed; stopping");
                break;
            }
        }
        if !launcher_alive(launcher) {
            // a launcher terminated or lost in a crash: the one started again has its own
            log!("pg_dof queue worker: its launcher (PID {launcher}) is gone; stopping");
            break;
        }
        // shown in pg_stat_activity: state active while a batch runs, idle while waiting
        report(pg_sys::BackendState::STATE_RUNNING, c"pg_dof queue worker: indexing a batch");
        let claimed = match guarded(run_batch) {
            Ok(claimed) => {
                if let Some(failure) = failing.take() {
                    log!("pg_dof queue worker: database \"{database}\" works again (after: {})", failure.message);
                }
                claimed
            }
            Err(message) => {
                let failure = failing.get_or_insert(Failure { message: String::new(), rounds: 0 });
                if failure.message != message {
                    warning!(
                        "pg_dof queue worker: database \"{database}\": {message}; trying again after {} s, then less and less often (up to every {} s), without logging this again",
                        backoff(guc::queue_naptime(), 0).as_secs_f64(),
                        MAX_BACKOFF.as_secs()
                    );
                    *failure = Failure { message, rounds: 0 };
                }
                report(pg_sys::BackendState::STATE_IDLE, c"pg_dof queue worker: backing off after an error");
                let pause = backoff(guc::queue_naptime(), failure.rounds);
                failure.rounds += 1;
                if !BackgroundWorker::wait_latch(Some(pause)) {
                    break;
                }
                continue;
            }
        };
        if claimed > 0 {
            indexed_since_compaction += claimed;
            continue;
        }
        if indexed_since_compaction > 0 {
            // an error here (say, a read-only database) waits for the next round's
            if let Err(message) = guarded(compact) {
                log!("pg_dof queue worker: database \"{database}\": statistics not compacted: {message}");
            }
            indexed_since_compaction = 0;
        }
        report(pg_sys::BackendState::STATE_IDLE, c"pg_dof queue worker: waiting for queued documents");
        // a SIGTERM exits in the wait's interrupt check; false: the postmaster died
        if !BackgroundWorker::wait_latch(Some(guc::queue_naptime())) {
            break;
        }
    }
    // the postmaster never restarts a queue worker: its launcher starts it again 5 s after
    // it stops, whatever the exit (a SIGTERM's FATAL too: pg_terminate_backend or DROP
    // DATABASE ... WITH (FORCE) does not lose the worker for good; fewer workers is a
    // setting, pg_dof.queue_workers)
    // SAFETY: ends this background worker process, as the postmaster expects it to
    unsafe { pg_sys::proc_exit(0) };
}

/// Whether the launcher that started this worker still runs (a signal 0 checks, sends
/// nothing).
fn launcher_alive(launcher: libc::pid_t) -> bool {
    // SAFETY: kill with signal 0 only asks whether the process exists
    launcher > 0 && unsafe { libc::kill(launcher, 0) } == 0
}

unsafe extern "C-unwind" {
    /// PostgreSQL's SIGTERM handler for backends (`tcop/postgres.c`): sets `ProcDiePending`
    /// and `InterruptPending` and the latch. pgrx's `pg_sys::die` is a wrapper for calling
    /// it from Rust, not a signal handler.
    #[link_name = "die"]
    pub(crate) fn postgres_die(signal: std::ffi::c_int);
}

fn report(state: pg_sys::BackendState::Type, activity: &std::ffi::CStr) {
    // SAFETY: the backend's own status entry, from its main thread
    unsafe { pg_sys::pgstat_report_activity(state, activity.as_ptr()) };
}

/// The schema pg_dof is installed in, quoted; `None` when it is not installed here.
fn schema() -> Option<String> {
    Spi::get_one::<String>(
        "SELECT n.nspname::text FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'pg_dof'",
    )
    .ok()
    .flatten()
    .map(pgrx::spi::quote_identifier)
}

/// One batch; the number of documents claimed (0: nothing to do, or pg_dof not installed).
fn run_batch() -> Result<i64, SpiError> {
    let Some(schema) = schema() else { return Ok(0) };
    let query =
        format!("SELECT claimed::bigint FROM {schema}.dof_process_queue_batch({}, {})", guc::queue_batch_size(), guc::queue_max_attempts());
    Ok(Spi::get_one::<i64>(&query)?.unwrap_or(0))
}

fn compact() -> Result<i64, SpiError> {
    if let Some(schema) = schema() {
        Spi::run(&format!("ANALYZE {schema}.dof_chunks; SELECT {schema}.dof_compact_stats()"))?;
    }
    Ok(0)
}

/// An error the worker's rounds keep meeting (a read-only database, pg_dof still at an
/// older version there, a revoked privilege): logged once, then retried with back-off.
struct Failure {
    message: String,
    rounds: u32,
}

/// The longest pause between two tries while the worker's rounds fail.
const MAX_BACKOFF: Duration = Duration::from_secs(300);

/// The pause after `rounds` failed rounds in a row: the naptime, doubling each round, at
/// most [`MAX_BACKOFF`]. (Restarting after each error, the worker logged the same ERROR
/// every 5 s forever.)
fn backoff(naptime: Duration, rounds: u32) -> Duration {
    naptime.saturating_mul(1u32 << rounds.min(16)).clamp(naptime.min(MAX_BACKOFF), MAX_BACKOFF)
}

/// One batch in its own transaction; an ERROR in it rolls the transaction back and comes
/// back as its message, the worker going on. (FATAL, from a terminate, still exits.)
fn guarded(batch: fn() -> Result<i64, SpiError>) -> Result<i64, String> {
    // an ERROR PostgreSQL raises is caught below; an SpiError is pgrx's own (a result of
    // another type than asked): both become the round's logged failure
    PgTryBuilder::new(|| BackgroundWorker::transaction(batch).map_err(|error| error.to_string()))
        .catch_others(|error| {
            // SAFETY: the documented recovery of a background worker's main loop after an
            // error (as autovacuum's): abort the failed transaction, back to a clean state
            unsafe { pg_sys::AbortCurrentTransaction() };
            Err(match error {
                CaughtError::PostgresError(report) | CaughtError::ErrorReport(report) | CaughtError::RustPanic { ereport: report, .. } => {
                    report.message().to_string()
                }
            })
        })
        .execute()
}

#[cfg(any(test, feature = "pg_test"))]
#[pg_schema]
mod tests {
    use super::{backoff, MAX_BACKOFF};
    use pgrx::prelude::*;
    use std::time::Duration;

    #[pg_test]
    fn the_back_off_doubles_from_the_naptime_up_to_its_cap() {
        let naptime = Duration::from_millis(5000);
        let pauses: Vec<u64> = (0..9).map(|rounds| backoff(naptime, rounds).as_secs()).collect();
        assert_eq!(pauses, [5, 10, 20, 40, 80, 160, 300, 300, 300]);
        assert_eq!(backoff(Duration::from_secs(3600), 0), MAX_BACKOFF, "a naptime over the cap is capped too");
        assert_eq!(backoff(Duration::from_millis(10), 40), MAX_BACKOFF);
    }
}

thread_local! {
    /// A wake is already due at this transaction's commit.
    static WAKE_PENDING: Cell<bool> = const { Cell::new(false) };
}

/// Wakes this database's queue workers when the current transaction commits (not before:
/// they would look before the new rows are visible, and sleep again). Called once per
/// statement that queues documents; the workers' PIDs are read once per transaction. A
/// background worker's SIGUSR1 handler sets its latch, which ends its wait.
#[pg_extern(volatile, parallel_unsafe)]
fn dof_queue_wake_internal() {
    if WAKE_PENDING.get() {
        return;
    }
    let pids: Vec<i32> = Spi::connect(|client| {
        client
            .select(
                "SELECT pid FROM pg_stat_activity WHERE backend_type = 'pg_dof queue worker' AND datname = current_database()",
                None,
                &[],
            )
            .map(|rows| rows.filter_map(|row| row.get::<i32>(1).ok().flatten()).collect())
    })
    .unwrap_or_default();
    if pids.is_empty() {
        return;
    }
    WAKE_PENDING.set(true);
    register_xact_callback(PgXactCallbackEvent::Commit, move || {
        for pid in pids {
            // SAFETY: a signal to a server process of the same OS user; a worker that has
            // exited meanwhile makes kill fail harmlessly (ESRCH)
            unsafe { libc::kill(pid, libc::SIGUSR1) };
        }
        WAKE_PENDING.set(false);
    });
    register_xact_callback(PgXactCallbackEvent::Abort, || WAKE_PENDING.set(false));
}
