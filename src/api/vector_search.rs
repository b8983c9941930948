//! The vector leg's index query (sql/vector_search.sql's `dof_vector_search` calls it), with
//! its plan kept per embedding dimension and arguments given for the backend's life.
//!
//! The HNSW index of a dimension is a partial expression index on
//! `embedding::halfvec(N)` (`dof_vector_index`), so the query must name N as a literal and
//! cannot be one static statement of the PL/pgSQL function. Built with `EXECUTE` it was
//! parsed and planned on every search: 0.43 ms of a 6.6 ms vector leg at 120,689 chunks
//! (`EXECUTE` vs the same statement with a cached plan, one run). Here each dimension's
//! statement is prepared once (`SPI_keepplan`); PostgreSQL's plan cache still replans it
//! when the table, its indexes, the role's row-level security or the search_path change.
//!
//! A statement names only the conditions whose arguments the search gives (`Given`): with
//! `$2 IS NULL OR c.collection = $2` for each, the plan PostgreSQL keeps after five searches
//! (a generic plan, for any arguments) estimated that one chunk of 1,825 would pass, and
//! scanned every passage of the dimension in a nested loop instead of walking the index:
//! 60 ms a search instead of 6 at 3,186 chunks (bench/scripts/vector_plans.sh).

use std::cell::RefCell;
use std::collections::hash_map::Entry;
use std::collections::HashMap;

use pgrx::datum::DatumWithOid;
use pgrx::prelude::*;
use pgrx::spi::OwnedPreparedStatement;
use pgrx::{AnyElement, PgSqlErrorCode};

use dof_core::contents::SEARCH_MARGIN;

use super::errors::{raise, raise_invalid_parameter};

/// What a prepared statement is kept by: the SQL function's name, the dimension, the query
/// vector's type and the arguments given.
type PlanKey = (&'static str, i32, pg_sys::Oid, Given);

thread_local! {
    /// Prepared statements by `PlanKey`: a backend runs one thread, so this is per backend.
    static PLANS: RefCell<HashMap<PlanKey, OwnedPreparedStatement>> = RefCell::new(HashMap::new());
}

/// Which of the index query's optional arguments a search gives: collection `$2`, metadata
/// filter `$3`, model `$5`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub(super) struct Given {
    pub collection: bool,
    pub filter: bool,
    pub model: bool,
}

impl Given {
    /// The conditions on chunk `c` of the arguments given, each `AND …`: an argument not given
    /// is not named at all, so that the plan kept for these arguments estimates how many
    /// chunks pass from the table's statistics (see the module's comment).
    pub(super) fn conditions(self) -> String {
        let mut conditions = String::new();
        if self.collection {
            conditions.push_str(" AND c.collection = $2");
        }
        if self.filter {
            conditions.push_str(" AND c.metadata @> $3::jsonb");
        }
        if self.model {
            conditions.push_str(" AND dof_chunk_model_name(c.model) = $5");
        }
        conditions
    }
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

/// The order a dimension's index walks: its halfvec copy, or the float vectors where no
/// index can hold the dimension.
pub(super) fn index_order(dimension: i32) -> &'static str {
    if dimension <= MAX_INDEXED_DIMENSIONS {
        "halfvec"
    } else {
        "vector"
    }
}

/// Passages the index query reads per chunk it returns: a chunk's best passage is among
/// its first few, and 4 x 100 (the least `wanted`) is hnsw.ef_search's 400, one graph walk.
const PASSAGES_PER_CHUNK: i64 = 4;

/// The index query of one dimension: ids and cosine distances of the `$4` nearest chunks of
/// collection `$2` whose metadata contains `$3` (jsonb as text) and which model `$5`
/// embedded (its registry name), each where `given`, ordered by (distance, id). A
/// chunk's distance is its nearest passage's (dof_passages): the index walks its halfvec
/// copy of the passages' vectors, the passages it yields are re-ranked by their stored
/// float vectors' distance (a 16-bit copy would order near-equal chunks by rounding), and
/// each chunk keeps its best. A dimension no index can hold is scanned in float order:
/// exact. The join to dof_chunks applies the caller's row-level security and the filters;
/// of the best `$4` + `SEARCH_MARGIN` chunks, tables of contents are then left out (the
/// chunk's `contents`; for a chunk stored before 0.3.0, `dof_contents`, which reads its text:
/// not for every passage the index yields). The query vector's casts are subqueries, which
/// PostgreSQL runs once a search: in the plan kept after five searches a cast of the
/// parameter itself ran for every passage the walk yields (an index query of the mixed set's
/// documents, 5.6 ms against 5.2: bench/scripts/search_reads.sh).
fn statement(dimension: i32, given: Given) -> String {
    let order = index_order(dimension);
    let conditions = given.conditions();
    format!(
        "SELECT array_agg(best.id ORDER BY best.distance, best.id), array_agg(best.distance ORDER BY best.distance, best.id)
         FROM (SELECT near.id, near.distance
               FROM (SELECT hits.chunk_id AS id, min(hits.distance) AS distance
                     FROM (SELECT p.chunk_id, (p.embedding::vector({dimension}) <=> (SELECT $1::vector({dimension})))::double precision AS distance
                           FROM dof_passages p JOIN dof_chunks c ON c.id = p.chunk_id
                           WHERE vector_dims(p.embedding) = {dimension}{conditions}
                           ORDER BY p.embedding::{order}({dimension}) <=> (SELECT $1::{order}({dimension}))
                           LIMIT ($4 + {SEARCH_MARGIN}) * {PASSAGES_PER_CHUNK}) hits
                     GROUP BY hits.chunk_id
                     ORDER BY 2, 1
                     LIMIT $4 + {SEARCH_MARGIN}) near
               JOIN dof_chunks c ON c.id = near.id
               WHERE NOT coalesce(c.contents, dof_contents(c.heading_path, c.content))
               ORDER BY near.distance, near.id
               LIMIT $4) best"
    )
}

/// The index query of one dimension, named by the SQL function that runs it.
pub(super) struct Statement {
    pub function: &'static str,
    pub text: fn(i32, Given) -> String,
}

/// Internal: the `wanted` nearest chunks to `query` (a vector of `dimension` elements) in
/// `collection` (NULL: all) with metadata containing `filter` (jsonb's text, NULL: any:
/// pgrx's JsonB goes through serde_json's numbers, which would round 0.1000…01) embedded by
/// `model` (NULL: any; a collection holds two while it is re-indexed for a new one), each by
/// its nearest passage, through the dimension's HNSW index on dof_passages with the
/// caller's `hnsw.*` settings; one row of ids and distances in (distance, id) order (NULL
/// arrays when none). `dof_vector_search` checks the arguments.
#[pg_extern(stable)]
#[allow(clippy::type_complexity)] // pgrx reads the columns' names from the signature
fn dof_nearest_passages_internal(
    query: AnyElement,
    dimension: i32,
    collection: Option<String>,
    filter: Option<String>,
    wanted: i64,
    model: Option<String>,
) -> TableIterator<'static, (name!(ids, Option<Vec<i64>>), name!(distances, Option<Vec<f64>>))> {
    let passages = Statement { function: "dof_nearest_passages_internal", text: statement };
    TableIterator::once(nearest(&passages, query, dimension, collection, filter, wanted, model))
}

/// Runs the prepared `statement` of `dimension` and the arguments given (prepared on its
/// first use in this backend), with its five parameters (a statement does not read those
/// not given, and 0.2.0's never reads `$5`).
pub(super) fn nearest(
    statement: &Statement,
    query: AnyElement,
    dimension: i32,
    collection: Option<String>,
    filter: Option<String>,
    wanted: i64,
    model: Option<String>,
) -> (Option<Vec<i64>>, Option<Vec<f64>>) {
    if !(1..=16000).contains(&dimension) {
        raise_invalid_parameter("a vector has 1 to 16000 dimensions");
    }
    let vector_type = query.oid();
    let given = Given { collection: collection.is_some(), filter: filter.is_some(), model: model.is_some() };
    Spi::connect(|client| {
        PLANS.with(|plans| {
            let mut plans = plans.borrow_mut();
            let prepared = match plans.entry((statement.function, dimension, vector_type, given)) {
                Entry::Occupied(kept) => kept.into_mut(),
                Entry::Vacant(slot) => {
                    let types = [
                        vector_type.into(),
                        pg_sys::TEXTOID.into(),
                        pg_sys::TEXTOID.into(),
                        pg_sys::INT8OID.into(),
                        pg_sys::TEXTOID.into(),
                    ];
                    slot.insert(client.prepare(&(statement.text)(dimension, given), &types)?.keep())
                }
            };
            // SAFETY: the datum is the caller's argument of type vector_type, alive for this call
            let args = [unsafe { DatumWithOid::new(query, vector_type) }, collection.into(), filter.into(), wanted.into(), model.into()];
            let table = client.select(&*prepared, Some(1), &args)?;
            let row = table.first();
            Ok::<_, pgrx::spi::SpiError>((row.get::<Vec<i64>>(1)?, row.get::<Vec<f64>>(2)?))
        })
    })
    // an ERROR in the index scan is PostgreSQL's own, with its SQLSTATE; an SpiError is
    // pgrx's (preparing the plan, a column of another type): a fault here, not the caller's
    .unwrap_or_else(|e| raise(PgSqlErrorCode::ERRCODE_INTERNAL_ERROR, format!("{}: the index query failed: {e}", statement.function), None))
}

#[cfg(any(test, feature = "pg_test"))]
#[pg_schema]
mod tests {
    use pgrx::prelude::*;

    /// Each combination of the arguments given runs its own statement (`Given::conditions`),
    /// and each finds the chunks that pass those conditions, nearest first, as exact search
    /// over them orders them.
    #[pg_test]
    fn each_combination_of_arguments_given_finds_what_passes() {
        Spi::run(
            "SET LOCAL hnsw.ef_search = 400;
             INSERT INTO dof_collections (name, model) VALUES ('given-a', 'hash-384'), ('given-b', 'hash-384');
             INSERT INTO dof_documents (collection, source_id, body, metadata)
             SELECT CASE WHEN i % 3 = 0 THEN 'given-b' ELSE 'given-a' END, 'd' || i,
                    format('Aviso %s sobre la licitación número %s', i, i * 7), jsonb_build_object('even', i % 2 = 0)
             FROM generate_series(1, 24) i",
        )
        .expect("documents stored");
        let combinations = Spi::get_one::<i64>(
            "WITH q AS (SELECT dof_embed_query('licitación número 14', 'hash-384') AS v),
                  asked AS (SELECT c.collection, f.filter, m.model
                            FROM (VALUES (NULL::text), ('given-a')) c(collection), (VALUES (NULL::text), ('{\"even\": true}')) f(filter),
                                 (VALUES (NULL::text), ('hash-384')) m(model))
             SELECT count(*) FILTER (WHERE found.ids = exact.ids AND cardinality(found.ids) > 0)
             FROM asked a, q,
                  LATERAL dof_nearest_passages_internal(q.v, 384, a.collection, a.filter, 100, a.model) found,
                  LATERAL (SELECT array_agg(e.id ORDER BY e.d, e.id) AS ids
                           FROM (SELECT c.id, min(p.embedding <=> q.v) AS d
                                 FROM dof_chunks c JOIN dof_passages p ON p.chunk_id = c.id
                                 WHERE vector_dims(p.embedding) = 384
                                   AND (a.collection IS NULL OR c.collection = a.collection)
                                   AND (a.filter IS NULL OR c.metadata @> a.filter::jsonb)
                                   AND (a.model IS NULL OR dof_chunk_model_name(c.model) = a.model)
                                 GROUP BY c.id ORDER BY 2, 1 LIMIT 100) e) exact",
        );
        assert_eq!(combinations, Ok(Some(8)));
    }
}
