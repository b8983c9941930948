//! Sentence vectors of the semantic strategy, cached per backend so that re-cutting a
//! document with another threshold, buffer or limit does not run the model again: a
//! `vector_cache` of `pg_dof.sentence_cache_size` entries (a 384-dimension vector is 1.5
//! KB). `dof_sentence_cache()` and `dof_sentence_cache_clear()` show and reset it from SQL.
//! `bench/scripts/chunkers.sh` (`bench/sql/semantic_cache.sql`) measures cold against
//! cached. The queue's workers and a session that re-cuts are the users.

use std::cell::RefCell;

use dof_core::embed::{EmbedError, ModelSpec};
use pgrx::prelude::*;

use crate::guc;
use crate::vector_cache::{self, VectorCache};

thread_local! {
    static SENTENCES: RefCell<VectorCache> = RefCell::new(VectorCache::new());
}

/// Passage vectors of `texts` by `spec`, through the cache.
pub fn embed(spec: &ModelSpec, texts: &[&str], between_batches: &mut dyn FnMut()) -> Result<Vec<Vec<f32>>, EmbedError> {
    vector_cache::embed(&SENTENCES, guc::sentence_cache_size(), spec, texts, &spec.passage_prefix, between_batches)
}

/// This backend's sentence cache: entries held, capacity, hits and misses since the
/// backend started or the last clear.
#[pg_extern(volatile, parallel_restricted)]
fn dof_sentence_cache(
) -> TableIterator<'static, (name!(entries, i64), name!(capacity, i64), name!(hits, i64), name!(misses, i64), name!(hit_rate, Option<f64>))>
{
    TableIterator::once(vector_cache::stats(&SENTENCES, guc::sentence_cache_size()).row())
}

/// Empties this backend's sentence cache and zeroes its counters (a cold start for a
/// measurement).
#[pg_extern(volatile, parallel_restricted)]
fn dof_sentence_cache_clear() {
    vector_cache::clear(&SENTENCES);
}
