//! The vector leg's index query (sql/vector_search.sql's `dof_vector_search` calls it), with
//! its plan kept per embedding dimension for the backend's life.
//!
//! The HNSW index of a dimension is a partial expression index on
//! `embedding::halfvec(N)` (`dof_vector_index`), so the query must name N as a literal and
//! cannot be one static statement of the PL/pgSQL function. Built with `EXECUTE` it was
//! parsed and planned on every search: 0.43 ms of a 6.6 ms vector leg at 120,689 chunks
//! (`EXECUTE` vs the same statement with a cached plan, one run). Here each dimension's
//! statement is prepared once (`SPI_keepplan`); PostgreSQL's plan cache still replans it
//! when the table, its indexes, the role's row-level security or the search_path change.

use std::cell::RefCell;
use std::collections::hash_map::Entry;
use std::collections::HashMap;

use pgrx::datum::DatumWithOid;
use pgrx::prelude::*;
use pgrx::spi::OwnedPreparedStatement;
use pgrx::{AnyElement, PgSqlErrorCode};

use super::errors::{raise, raise_invalid_parameter};

thread_local! {
    /// Prepared statements by (dimension, the query vector's type): a backend runs one
    /// thread, so this is per backend.
    static PLANS: RefCell<HashMap<(i32, pg_sys::Oid), OwnedPreparedStatement>> = RefCell::new(HashMap::new());
}

/// HNSW indexes halfvec up to this many dimensions (pgvector's limit for halfvec): the one
/// copy of the number; SQL reads it through `dof_hnsw_max_dimensions()`.
const MAX_INDEXED_DIMENSIONS: i32 = 4000;

/// The most dimensions an HNSW index takes (on halfvec): models over it are registered, and
/// their searches scan every chunk of that dimension.
#[pg_extern(immutable, parallel_safe)]
fn dof_hnsw_max_dimensions() -> i32 {
    MAX_INDEXED_DIMENSIONS
}

/// The index query of one dimension: ids and cosine distances of the `$4` nearest chunks
/// of collection `$2` (NULL: any) whose metadata contains `$3` (jsonb as text, NULL: any),
/// ordered by (distance, id). The index walks its halfvec copy of the vectors; the `$4`
/// chunks it yields are re-ranked by their stored float vectors' distance, which is also
/// the distance returned (a 16-bit copy would order near-equal chunks by rounding). A
/// dimension no index can hold is scanned in float order: exact.
fn statement(dimension: i32) -> String {
    let order = if dimension <= MAX_INDEXED_DIMENSIONS { "halfvec" } else { "vector" };
    format!(
        "SELECT array_agg(hits.id ORDER BY hits.distance, hits.id), array_agg(hits.distance ORDER BY hits.distance, hits.id)
         FROM (SELECT c.id, (c.embedding::vector({dimension}) <=> $1::vector({dimension}))::double precision AS distance
               FROM dof_chunks c
               WHERE vector_dims(c.embedding) = {dimension}
                 AND ($2 IS NULL OR c.collection = $2)
                 AND ($3 IS NULL OR c.metadata @> $3::jsonb)
               ORDER BY c.embedding::{order}({dimension}) <=> $1::{order}({dimension})
               LIMIT $4) hits"
    )
}

/// Internal: the `wanted` nearest chunks to `query` (a vector of `dimension` elements) in
/// `collection` (NULL: all) with metadata containing `filter` (jsonb's text, NULL: any:
/// pgrx's JsonB goes through serde_json's numbers, which would round 0.1000…01), through the
/// dimension's HNSW index with the caller's `hnsw.*` settings; one row of ids and distances
/// in (distance, id) order (NULL arrays when none). `dof_vector_search` checks the
/// arguments.
#[pg_extern(stable)]
#[allow(clippy::type_complexity)] // pgrx reads the columns' names from the signature
fn dof_nearest_internal(
    query: AnyElement,
    dimension: i32,
    collection: Option<String>,
    filter: Option<String>,
    wanted: i64,
) -> TableIterator<'static, (name!(ids, Option<Vec<i64>>), name!(distances, Option<Vec<f64>>))> {
    if !(1..=16000).contains(&dimension) {
        raise_invalid_parameter("a vector has 1 to 16000 dimensions");
    }
    let vector_type = query.oid();
    let row = Spi::connect(|client| {
        PLANS.with(|plans| {
            let mut plans = plans.borrow_mut();
            let prepared = match plans.entry((dimension, vector_type)) {
                Entry::Occupied(kept) => kept.into_mut(),
                Entry::Vacant(slot) => {
                    let types = [vector_type.into(), pg_sys::TEXTOID.into(), pg_sys::TEXTOID.into(), pg_sys::INT8OID.into()];
                    slot.insert(client.prepare(&statement(dimension), &types)?.keep())
                }
            };
            // SAFETY: the datum is the caller's argument of type vector_type, alive for this call
            let args = [unsafe { DatumWithOid::new(query, vector_type) }, collection.into(), filter.into(), wanted.into()];
            let table = client.select(&*prepared, Some(1), &args)?;
            let row = table.first();
            Ok::<_, pgrx::spi::SpiError>((row.get::<Vec<i64>>(1)?, row.get::<Vec<f64>>(2)?))
        })
    })
    // an ERROR in the index scan is PostgreSQL's own, with its SQLSTATE; an SpiError is
    // pgrx's (preparing the plan, a column of another type): a fault here, not the caller's
    .unwrap_or_else(|e| raise(PgSqlErrorCode::ERRCODE_INTERNAL_ERROR, format!("dof_nearest_internal: the index query failed: {e}"), None));
    TableIterator::once(row)
}
