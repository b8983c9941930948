//! A per-backend, bounded LRU of vectors the model made, keyed by what made them: the model
//! (its registry row, and its files as they are on disk: `backend_models::SessionKey`),
//! the prefix and the text, as one 128-bit hash. The semantic chunker's sentences
//! (`sentence_cache`) and the searches' queries (`query_cache`) each keep one; a hit costs a
//! hash and a copy instead of a run of the model.
//!
//! Per backend rather than a table: a table costs a query per lookup and index pages per
//! vector, and what one backend embedded another embeds again.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::hash::{DefaultHasher, Hash, Hasher};
use std::num::NonZeroUsize;
use std::sync::Arc;
use std::thread::LocalKey;

use dof_core::embed::{EmbedError, ModelSpec};
use lru::LruCache;

use crate::backend_models;

/// 128 bits of what the model saw (see the module's comment).
type Key = (u64, u64);

pub struct VectorCache {
    vectors: LruCache<Key, Arc<[f32]>>,
    hits: u64,
    misses: u64,
}

impl VectorCache {
    pub fn new() -> Self {
        Self { vectors: LruCache::unbounded(), hits: 0, misses: 0 }
    }
}

/// Entries held, capacity, hits and misses since the backend started (or the last clear).
pub struct Stats {
    pub entries: usize,
    pub capacity: usize,
    pub hits: u64,
    pub misses: u64,
}

impl Stats {
    /// The row `dof_sentence_cache()` and `dof_query_cache()` return: entries, capacity,
    /// hits, misses and the hit rate (NULL before the first lookup).
    pub fn row(&self) -> (i64, i64, i64, i64, Option<f64>) {
        let to_i64 = |n: u64| i64::try_from(n).unwrap_or(i64::MAX);
        let lookups = self.hits + self.misses;
        let hit_rate = (lookups > 0).then(|| self.hits as f64 / lookups as f64);
        (to_i64(self.entries as u64), to_i64(self.capacity as u64), to_i64(self.hits), to_i64(self.misses), hit_rate)
    }
}

/// Two independent 64-bit hashes (SipHash with fixed keys: the same in every backend and
/// release of the standard library that keeps `DefaultHasher::new`) of `model`, `prefix`
/// and `text`.
fn key(model: &impl Hash, prefix: &str, text: &str) -> Key {
    let half = |salt: u8| {
        let mut hasher = DefaultHasher::new();
        (salt, model, prefix, text).hash(&mut hasher);
        hasher.finish()
    };
    (half(0), half(1))
}

/// The vectors of `texts` by `spec` with `prefix`: cached ones copied, the rest embedded in
/// one batch (each distinct text once) and remembered, in a cache of `capacity` entries
/// (`None`: off, and emptied, so that what it held before is not served). The cache is not
/// borrowed while the model runs, which may raise an ERROR.
pub fn embed(
    cache: &'static LocalKey<RefCell<VectorCache>>,
    capacity: Option<NonZeroUsize>,
    spec: &ModelSpec,
    texts: &[&str],
    prefix: &str,
    between_batches: &mut dyn FnMut(),
) -> Result<Vec<Vec<f32>>, EmbedError> {
    let model = backend_models::SessionKey::of(spec);
    let keys: Vec<Key> = texts.iter().map(|text| key(&model, prefix, text)).collect();
    let mut missing: Vec<usize> = Vec::new(); // first index of each distinct missing text
    let mut found: Vec<Option<Arc<[f32]>>> = cache.with(|cell| {
        let mut cache = cell.borrow_mut();
        match capacity {
            Some(capacity) => cache.vectors.resize(capacity),
            None => cache.vectors.clear(), // off: what it held is not served
        }
        let found: Vec<Option<Arc<[f32]>>> = keys.iter().map(|key| cache.vectors.get(key).cloned()).collect();
        let mut seen: HashSet<&Key> = HashSet::new();
        for (i, key) in keys.iter().enumerate() {
            if found[i].is_none() && seen.insert(key) {
                missing.push(i);
            }
        }
        cache.hits += (texts.len() - missing.len()) as u64;
        cache.misses += missing.len() as u64;
        found
    });
    if !missing.is_empty() {
        let batch: Vec<&str> = missing.iter().map(|&i| texts[i]).collect();
        let vectors = backend_models::embed(spec, &batch, prefix, between_batches)?;
        let fresh: HashMap<&Key, Arc<[f32]>> = missing.iter().zip(vectors).map(|(&i, vector)| (&keys[i], vector.into())).collect();
        if capacity.is_some() {
            cache.with(|cell| {
                let mut cache = cell.borrow_mut();
                for (key, vector) in &fresh {
                    cache.vectors.put(**key, vector.clone());
                }
            });
        }
        for (slot, key) in found.iter_mut().zip(&keys) {
            if slot.is_none() {
                *slot = fresh.get(key).cloned();
            }
        }
    }
    Ok(found.into_iter().map(|v| v.expect("every text found or embedded").to_vec()).collect())
}

/// What `cache` holds, of `capacity`.
pub fn stats(cache: &'static LocalKey<RefCell<VectorCache>>, capacity: Option<NonZeroUsize>) -> Stats {
    cache.with(|cell| {
        let cache = cell.borrow();
        Stats { entries: cache.vectors.len(), capacity: capacity.map_or(0, NonZeroUsize::get), hits: cache.hits, misses: cache.misses }
    })
}

/// Forgets every vector and zeroes the counters.
pub fn clear(cache: &'static LocalKey<RefCell<VectorCache>>) {
    cache.with(|cell| *cell.borrow_mut() = VectorCache::new());
}
