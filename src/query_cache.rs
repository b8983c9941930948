//! Query vectors, cached per backend so that a query searched again (the next page, another
//! collection or filter, a pooled connection's users asking alike) is not embedded again:
//! the model's run is most of a hybrid search (`bench/scripts/query_cache.sh`). A
//! `vector_cache` of `pg_dof.query_cache_size` entries; `dof_query_cache()` and
//! `dof_query_cache_clear()` show and reset it from SQL.

use std::cell::RefCell;

use dof_core::embed::{EmbedError, ModelSpec};
use pgrx::prelude::*;

use crate::guc;
use crate::vector_cache::{self, VectorCache};

thread_local! {
    static QUERIES: RefCell<VectorCache> = RefCell::new(VectorCache::new());
}

/// The vectors of `queries` by `spec` with `prefix` (the model's query prefix), through the
/// cache: `dof_embed_query` (every search given a query's text) and `dof_embed` with
/// `as_query`.
pub fn embed(spec: &ModelSpec, queries: &[&str], prefix: &str, between_batches: &mut dyn FnMut()) -> Result<Vec<Vec<f32>>, EmbedError> {
    vector_cache::embed(&QUERIES, guc::query_cache_size(), spec, queries, prefix, between_batches)
}

/// This backend's query cache: entries held, capacity, hits and misses since the backend
/// started or the last clear.
#[pg_extern(volatile, parallel_restricted)]
fn dof_query_cache(
) -> TableIterator<'static, (name!(entries, i64), name!(capacity, i64), name!(hits, i64), name!(misses, i64), name!(hit_rate, Option<f64>))>
{
    TableIterator::once(vector_cache::stats(&QUERIES, guc::query_cache_size()).row())
}

/// Empties this backend's query cache and zeroes its counters (a cold start for a
/// measurement).
#[pg_extern(volatile, parallel_restricted)]
fn dof_query_cache_clear() {
    vector_cache::clear(&QUERIES);
}
