//! dof_sentence_cache() and dof_sentence_cache_clear(): the semantic chunker's per-backend
//! sentence vectors (src/sentence_cache.rs), seen and reset from SQL.

use pgrx::prelude::*;

use crate::sentence_cache;

/// This backend's sentence cache: entries held, capacity, hits and misses since the
/// backend started or the last clear.
#[pg_extern(volatile, parallel_restricted)]
fn dof_sentence_cache(
) -> TableIterator<'static, (name!(entries, i64), name!(capacity, i64), name!(hits, i64), name!(misses, i64), name!(hit_rate, Option<f64>))>
{
    let (entries, capacity, hits, misses) = sentence_cache::stats();
    let to_i64 = |n: u64| i64::try_from(n).unwrap_or(i64::MAX);
    let lookups = hits + misses;
    let hit_rate = (lookups > 0).then(|| hits as f64 / lookups as f64);
    TableIterator::once((to_i64(entries as u64), to_i64(capacity as u64), to_i64(hits), to_i64(misses), hit_rate))
}

/// Empties this backend's sentence cache and zeroes its counters (a cold start for a
/// measurement).
#[pg_extern(volatile, parallel_restricted)]
fn dof_sentence_cache_clear() {
    sentence_cache::clear();
}
