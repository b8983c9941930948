//! Sentence vectors of the semantic strategy, cached per backend so that re-cutting a
//! document with another threshold, buffer or limit does not run the model again. Keyed by
//! the model's name and registry revision (re-registering a model changes it) and a 128-bit
//! hash of the text the model saw; bounded LRU of `pg_dof.sentence_cache_size` entries (a
//! 384-dimension vector is 1.5 KB). `dof_sentence_cache()` and `dof_sentence_cache_clear()`
//! show and reset it from SQL.
//!
//! Per backend rather than a table: a hit costs a hash and a copy here, while a table costs
//! a query per document and index pages per vector; `bench/scripts/chunkers.sh`
//! (`bench/sql/semantic_cache.sql`) measures cold against cached. The queue's workers and a
//! session that re-cuts are the users; what one backend embedded another embeds again.

use std::cell::{Cell, RefCell};
use std::collections::{HashMap, HashSet};
use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::Arc;

use dof_core::embed::{EmbedError, ModelSpec};
use lru::LruCache;
use pgrx::prelude::*;

use crate::{backend_models, guc};

#[derive(Clone, PartialEq, Eq, Hash)]
struct SentenceKey {
    model: Arc<str>,
    revision: Arc<str>,
    text: (u64, u64),
}

thread_local! {
    static VECTORS: RefCell<LruCache<SentenceKey, Arc<[f32]>>> = RefCell::new(LruCache::unbounded());
    static HITS: Cell<u64> = const { Cell::new(0) };
    static MISSES: Cell<u64> = const { Cell::new(0) };
}

/// Two independent 64-bit hashes of `text` (SipHash with fixed keys: the same in every
/// backend and release of the standard library that keeps `DefaultHasher::new`).
fn text_hash(text: &str) -> (u64, u64) {
    let half = |salt: u8| {
        let mut hasher = DefaultHasher::new();
        salt.hash(&mut hasher);
        text.hash(&mut hasher);
        hasher.finish()
    };
    (half(0), half(1))
}

/// Passage vectors of `texts` by `spec`: cached ones copied, the rest embedded in one batch
/// (each distinct text once) and remembered.
pub fn embed(spec: &ModelSpec, texts: &[&str], between_batches: &mut dyn FnMut()) -> Result<Vec<Vec<f32>>, EmbedError> {
    let capacity = guc::sentence_cache_size();
    let (model, revision): (Arc<str>, Arc<str>) = (spec.name.as_str().into(), spec.revision.as_str().into());
    let keys: Vec<SentenceKey> =
        texts.iter().map(|t| SentenceKey { model: model.clone(), revision: revision.clone(), text: text_hash(t) }).collect();
    let mut found: Vec<Option<Arc<[f32]>>> = VECTORS.with(|cell| {
        let mut cache = cell.borrow_mut();
        keys.iter().map(|key| cache.get(key).cloned()).collect()
    });
    let mut missing: Vec<usize> = Vec::new(); // first index of each distinct missing text
    let mut seen: HashSet<&SentenceKey> = HashSet::new();
    for (i, key) in keys.iter().enumerate() {
        if found[i].is_none() && seen.insert(key) {
            missing.push(i);
        }
    }
    HITS.set(HITS.get() + (texts.len() - missing.len()) as u64);
    MISSES.set(MISSES.get() + missing.len() as u64);
    if !missing.is_empty() {
        let batch: Vec<&str> = missing.iter().map(|&i| texts[i]).collect();
        let vectors = backend_models::embed(spec, &batch, &spec.passage_prefix, between_batches)?;
        let fresh: HashMap<&SentenceKey, Arc<[f32]>> = missing.iter().zip(vectors).map(|(&i, vector)| (&keys[i], vector.into())).collect();
        VECTORS.with(|cell| {
            let mut cache = cell.borrow_mut();
            match capacity {
                Some(capacity) => {
                    cache.resize(capacity);
                    for (key, vector) in &fresh {
                        cache.put((*key).clone(), vector.clone());
                    }
                }
                None => cache.clear(), // the cache is off
            }
        });
        for (slot, key) in found.iter_mut().zip(&keys) {
            if slot.is_none() {
                *slot = fresh.get(key).cloned();
            }
        }
    }
    Ok(found.into_iter().map(|v| v.expect("every text found or embedded").to_vec()).collect())
}

/// Entries, capacity, hits and misses since the backend started (or the last clear).
pub fn stats() -> (usize, usize, u64, u64) {
    let entries = VECTORS.with(|cell| cell.borrow().len());
    (entries, guc::sentence_cache_size().map_or(0, |n| n.get()), HITS.get(), MISSES.get())
}

/// Forgets every vector and zeroes the counters.
pub fn clear() {
    VECTORS.with(|cell| cell.borrow_mut().clear());
    HITS.set(0);
    MISSES.set(0);
}

/// This backend's sentence cache: entries held, capacity, hits and misses since the
/// backend started or the last clear.
#[pg_extern(volatile, parallel_restricted)]
fn dof_sentence_cache(
) -> TableIterator<'static, (name!(entries, i64), name!(capacity, i64), name!(hits, i64), name!(misses, i64), name!(hit_rate, Option<f64>))>
{
    let (entries, capacity, hits, misses) = stats();
    let to_i64 = |n: u64| i64::try_from(n).unwrap_or(i64::MAX);
    let lookups = hits + misses;
    let hit_rate = (lookups > 0).then(|| hits as f64 / lookups as f64);
    TableIterator::once((to_i64(entries as u64), to_i64(capacity as u64), to_i64(hits), to_i64(misses), hit_rate))
}

/// Empties this backend's sentence cache and zeroes its counters (a cold start for a
/// measurement).
#[pg_extern(volatile, parallel_restricted)]
fn dof_sentence_cache_clear() {
    clear();
}
