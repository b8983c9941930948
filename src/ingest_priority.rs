//! Indexing yields the CPU to searches: a backend that embeds documents to store them (an
//! inline trigger, `dof_index_document`, a queue worker) lowers its own CPU priority to
//! `pg_dof.ingest_nice` the first time it does.
//!
//! Why the autogroup: every PostgreSQL backend calls `setsid()` when the postmaster forks
//! it, and Linux (with `kernel.sched_autogroup_enabled`, the default of most distributions)
//! schedules each session as its own group with equal shares whatever its threads' nice
//! values. Renicing a writer's threads therefore changed nothing for a search in another
//! backend (measured on 2 cores: query embedding 48 ms with two embedding writers, 49 ms
//! with them at thread nice 19, 7.5 ms with their autogroups at nice 19, 7.4 ms idle).
//! So the group's nice is set (`/proc/self/autogroup`), and every thread's too, for kernels
//! without autogroups; threads started later (the model's pool) inherit the thread nice.

use std::cell::Cell;

/// Low enough that two writers leave a search on two cores near its idle latency.
pub const DEFAULT_NICE: i32 = 19;

thread_local! {
    /// The nice value this backend has taken (0: none yet).
    static APPLIED: Cell<i32> = const { Cell::new(0) };
}

/// Lowers this backend's CPU priority to `pg_dof.ingest_nice`, once; never raises it (an
/// unprivileged process cannot). A kernel that refuses is logged at DEBUG1 and ignored: the
/// documents are indexed all the same.
pub fn yield_to_searches() {
    let nice = crate::guc::ingest_nice();
    if nice <= APPLIED.get() {
        return;
    }
    APPLIED.set(nice);
    if let Err(e) = set_autogroup_nice(nice) {
        pgrx::debug1!("pg_dof: could not set this session's scheduling group to nice {nice}: {e}");
    }
    for tid in threads() {
        // SAFETY: setpriority reads its three integer arguments only
        if unsafe { libc::setpriority(libc::PRIO_PROCESS, tid, nice) } != 0 {
            pgrx::debug1!("pg_dof: could not set thread {tid} to nice {nice}: {}", std::io::Error::last_os_error());
        }
    }
}

/// Writes `nice` to `/proc/self/autogroup`; the kernel accepts one such write per 100 ms from
/// an unprivileged process (EAGAIN otherwise), so a busy moment is retried a few times.
fn set_autogroup_nice(nice: i32) -> std::io::Result<()> {
    let mut attempt = 0;
    loop {
        match std::fs::write("/proc/self/autogroup", nice.to_string()) {
            Err(e) if e.raw_os_error() == Some(libc::EAGAIN) && attempt < 3 => {
                attempt += 1;
                std::thread::sleep(std::time::Duration::from_millis(110));
            }
            result => return result,
        }
    }
}

/// This process's thread ids (just the process when /proc cannot be read).
fn threads() -> Vec<libc::id_t> {
    let listed = std::fs::read_dir("/proc/self/task")
        .map(|dir| dir.filter_map(|entry| entry.ok()?.file_name().to_str()?.parse::<libc::id_t>().ok()).collect::<Vec<_>>());
    match listed {
        Ok(tids) if !tids.is_empty() => tids,
        // SAFETY: getpid has no arguments and cannot fail
        _ => vec![unsafe { libc::getpid() } as libc::id_t],
    }
}

#[cfg(any(test, feature = "pg_test"))]
#[pgrx::pg_schema]
mod tests {
    use pgrx::prelude::*;

    /// The nice value of this process's scheduling group, or None without autogroups.
    fn autogroup_nice() -> Option<i32> {
        let text = std::fs::read_to_string("/proc/self/autogroup").ok()?;
        text.split_whitespace().last()?.parse().ok()
    }

    fn thread_nice() -> i32 {
        // SAFETY: getpriority reads its two integer arguments only
        unsafe { libc::getpriority(libc::PRIO_PROCESS, 0) }
    }

    #[pg_test]
    fn storing_a_document_lowers_the_backends_priority_and_a_search_does_not() {
        Spi::run("SET pg_dof.ingest_nice = 7").unwrap();
        Spi::run("INSERT INTO dof_collections (name, model) VALUES ('nice', 'hash-384')").unwrap();
        let before = (thread_nice(), autogroup_nice());
        Spi::run("SELECT count(*) FROM dof_hybrid_search('ley', collection => 'nice')").unwrap();
        assert_eq!((thread_nice(), autogroup_nice()), before, "a search leaves the priority alone");
        Spi::run("INSERT INTO dof_documents (collection, source_id, body) VALUES ('nice', 'a', '# Ley\n\nArtículo 1. Texto.')").unwrap();
        assert_eq!(thread_nice(), 7);
        if let Some(group) = autogroup_nice() {
            assert_eq!(group, 7, "the scheduling group is what counts across backends");
        }
        // a lower setting later never raises the priority back (it cannot)
        Spi::run("SET pg_dof.ingest_nice = 3").unwrap();
        Spi::run("INSERT INTO dof_documents (collection, source_id, body) VALUES ('nice', 'b', 'Otro texto.')").unwrap();
        assert_eq!(thread_nice(), 7);
    }
}
