//! The queue workers' launcher: one background worker, registered when pg_dof is in
//! `shared_preload_libraries` and `pg_dof.queue_workers` > 0, connected to no database
//! (the shared catalogs only). It starts the `pg_dof.queue_workers` queue workers
//! (`queue_workers.rs`) as dynamic background workers in `pg_dof.queue_database` once that
//! database exists, starts a worker again 5 s after it stops (a terminate, an error), and on
//! a reload that names another database stops them and starts them there.
//!
//! Why a launcher: a background worker asked to connect to a database that does not exist
//! dies (FATAL), and a static worker is restarted by the postmaster: with a missing
//! `pg_dof.queue_database` written into postgresql.conf by hand (ALTER SYSTEM refuses one),
//! every worker logged a FATAL every 5 s forever. The launcher asks the catalog first, says
//! once that the database is missing, and starts the workers when it appears.

use std::ffi::CString;
use std::time::{Duration, Instant};

use pgrx::bgworkers::{BackgroundWorker, BackgroundWorkerBuilder, DynamicBackgroundWorker, SignalWakeFlags};
use pgrx::prelude::*;

use crate::guc;

/// How long a stopped worker waits before the launcher starts it again (the restart time the
/// postmaster gave the static workers before the launcher).
const RESTART_DELAY: Duration = Duration::from_secs(5);

/// How often the launcher looks at the catalog and its workers when nothing signals it (a
/// worker starting or stopping signals it at once: it is their `bgw_notify_pid`).
const CHECK_EVERY: Duration = Duration::from_secs(1);

/// Registers the launcher; called from `_PG_init` while shared_preload_libraries loads.
pub fn register() {
    // SAFETY: a plain read of a postmaster global, in the postmaster's main thread
    if !unsafe { pg_sys::process_shared_preload_libraries_in_progress } {
        return;
    }
    let workers = guc::queue_workers();
    if workers == 0 {
        return;
    }
    if usize::try_from(guc::queue_workers_setting()).is_ok_and(|wanted| wanted > workers) {
        // SAFETY: a plain read of a server setting fixed at postmaster start
        let slots = unsafe { pg_sys::max_worker_processes };
        warning!(
            "pg_dof.queue_workers = {} is over half of max_worker_processes ({slots}): starting {workers} queue workers",
            guc::queue_workers_setting()
        );
    }
    BackgroundWorkerBuilder::new("pg_dof queue launcher")
        .set_type("pg_dof queue launcher")
        .set_library("pg_dof")
        .set_function("dof_queue_launcher_main")
        .enable_spi_access()
        .set_restart_time(Some(RESTART_DELAY))
        .load();
}

/// One queue worker's place: running, or stopped since (never started: `None`).
enum Slot {
    Running(DynamicBackgroundWorker),
    Stopped(Option<Instant>),
}

#[pg_guard]
#[no_mangle]
pub extern "C-unwind" fn dof_queue_launcher_main(_argument: pg_sys::Datum) {
    BackgroundWorker::attach_signal_handlers(SignalWakeFlags::SIGHUP);
    // SAFETY: installing PostgreSQL's own SIGTERM handler, as its background workers do
    unsafe { crate::server_version::set_signal_handler(libc::SIGTERM, Some(crate::queue_workers::postgres_die)) };
    BackgroundWorker::connect_worker_to_spi(None, None);
    let mut slots: Vec<Slot> = (0..guc::queue_workers()).map(|_| Slot::Stopped(None)).collect();
    let mut serving: Option<String> = None;
    let mut said_missing: Option<String> = None;
    let mut said_no_slot = false;
    loop {
        if BackgroundWorker::sighup_received() {
            // SAFETY: the documented way for a background worker to re-read its settings
            unsafe { pg_sys::ProcessConfigFile(pg_sys::GucContext::PGC_SIGHUP) };
        }
        let database = guc::queue_database();
        let exists = database_exists(&database);
        if serving.as_ref().is_some_and(|serving| !exists || *serving != database) {
            log!("pg_dof queue launcher: stopping the queue workers of database \"{}\"", serving.as_deref().unwrap_or_default());
            stop_all(&mut slots);
            serving = None;
        }
        if !exists {
            if said_missing.as_ref() != Some(&database) {
                warning!(
                    "pg_dof queue launcher: pg_dof.queue_database = '{database}' names no database: no queue worker started; the workers start when it is created (CREATE DATABASE), or set pg_dof.queue_database to another and reload (SELECT pg_reload_conf())"
                );
                said_missing = Some(database.clone());
            }
        } else {
            if said_missing.take().is_some() {
                log!("pg_dof queue launcher: database \"{database}\" exists now: starting its queue workers");
            }
            serving = Some(database.clone());
            for (index, slot) in slots.iter_mut().enumerate() {
                if let Slot::Running(worker) = slot {
                    if worker.pid().is_err_and(|status| matches!(status, pgrx::bgworkers::BackgroundWorkerStatus::Stopped)) {
                        *slot = Slot::Stopped(Some(Instant::now()));
                    }
                }
                if let Slot::Stopped(since) = slot {
                    if since.is_some_and(|since| since.elapsed() < RESTART_DELAY) {
                        continue;
                    }
                    match start(index, &database) {
                        Some(worker) => {
                            *slot = Slot::Running(worker);
                            said_no_slot = false;
                        }
                        None => {
                            if !said_no_slot {
                                warning!("pg_dof queue launcher: no free background worker slot for queue worker {index} (max_worker_processes); trying again every {} s", RESTART_DELAY.as_secs());
                                said_no_slot = true;
                            }
                            *slot = Slot::Stopped(Some(Instant::now()));
                        }
                    }
                }
            }
        }
        // a SIGTERM exits in the wait's interrupt check; false: the postmaster died
        if !BackgroundWorker::wait_latch(Some(CHECK_EVERY)) {
            break;
        }
    }
    // SAFETY: ends this background worker process, as the postmaster expects it to
    unsafe { pg_sys::proc_exit(1) };
}

/// Whether a database of that name exists: a scan of the shared catalog `pg_database`, in a
/// transaction of its own. A process connected to no database has no relcache entries for
/// indexes (`get_database_oid` scans by index and fails: "cannot read pg_class without
/// having selected a database"), so this scans the heap with the name as its key, as the
/// autovacuum launcher reads `pg_database`.
fn database_exists(name: &str) -> bool {
    let Ok(name) = CString::new(name) else { return false };
    BackgroundWorker::transaction(|| {
        // SAFETY: the catalog scan of dbcommands.c's get_db_info with indexOK = false: the
        // relation is opened and closed here, the key and the name outlive the scan
        unsafe {
            let relation = pg_sys::table_open(pg_sys::DatabaseRelationId, pg_sys::AccessShareLock as pg_sys::LOCKMODE);
            let mut key = pg_sys::ScanKeyData::default();
            pg_sys::ScanKeyInit(
                &mut key,
                pg_sys::Anum_pg_database_datname as pg_sys::AttrNumber,
                pg_sys::BTEqualStrategyNumber as pg_sys::StrategyNumber,
                pg_sys::F_NAMEEQ.into(),
                pg_sys::Datum::from(name.as_ptr()),
            );
            let scan = pg_sys::systable_beginscan(
                relation,
                pg_sys::Oid::from(pg_sys::DatabaseNameIndexId),
                false,
                std::ptr::null_mut(),
                1,
                &mut key,
            );
            let found = !pg_sys::systable_getnext(scan).is_null();
            pg_sys::systable_endscan(scan);
            pg_sys::table_close(relation, pg_sys::AccessShareLock as pg_sys::LOCKMODE);
            found
        }
    })
}

/// Starts queue worker `index` in `database`: a dynamic background worker that the
/// postmaster never restarts (the launcher does; after a crash the postmaster forgets it and
/// the launcher, started again, starts a fresh one). `None`: no free slot.
fn start(index: usize, database: &str) -> Option<DynamicBackgroundWorker> {
    // SAFETY: a plain read of this process's PID
    let launcher = unsafe { pg_sys::MyProcPid };
    BackgroundWorkerBuilder::new(&format!("pg_dof queue worker {index}"))
        .set_type("pg_dof queue worker")
        .set_library("pg_dof")
        .set_function("dof_queue_worker_main")
        .enable_spi_access()
        .set_restart_time(None)
        .set_argument(Some(pg_sys::Datum::from(launcher)))
        .set_extra(database)
        .set_notify_pid(launcher)
        .load_dynamic()
        .ok()
}

/// Stops every running worker and waits for each to exit (within a second: a worker's
/// SIGTERM ends even a model run at once).
fn stop_all(slots: &mut [Slot]) {
    for slot in slots.iter_mut() {
        if let Slot::Running(worker) = std::mem::replace(slot, Slot::Stopped(None)) {
            let _ = worker.terminate().wait_for_shutdown();
        }
    }
}
