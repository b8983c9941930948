//! Search is SQL (sql/vector_search.sql, text_search.sql, fusion.sql) but for BM25's per-row
//! score, which reads the stored tsvector directly, and the BM25 formula and parameters it
//! takes from the core.

use dof_core::bm25::{
    full_match_score, idf, text_score, Bm25Params, TsVector, PAIR_WEIGHT, SELECTIVE_IDF, WINDOW_POSITIONS, WINDOW_WEIGHT,
};
use pgrx::prelude::*;
use pgrx::AnyElement;

use super::errors::raise_invalid_parameter;

/// Lucene's IDF of each count of chunks holding a lexeme among `total` chunks
/// (`dof_core::bm25::idf`, the one copy of the formula): what `dof_bm25_terms` computes for
/// one server and a coordinator's `dof_shard_legs` for its sums over shards. A NULL count
/// or total gives a NULL IDF, as the SQL formula it replaces did.
#[pg_extern(immutable, parallel_safe)]
fn dof_bm25_idfs(chunks: Option<Vec<Option<f64>>>, total: Option<f64>) -> Vec<Option<f64>> {
    chunks.unwrap_or_default().into_iter().map(|holding| Some(idf(holding?, total?))).collect()
}

/// A query's full-match score from its lexemes' IDFs (`dof_core::bm25::full_match_score`):
/// the BM25 of a chunk of average length holding each once. What the weighted fusion
/// measures the text leg's best against; NULL IDFs are left out.
#[pg_extern(immutable, parallel_safe)]
fn dof_bm25_full_match(idfs: Option<Vec<Option<f64>>>) -> f64 {
    full_match_score(&idfs.unwrap_or_default().into_iter().flatten().collect::<Vec<_>>())
}

/// The IDF from which a lexeme is selective (`dof_core::bm25::SELECTIVE_IDF`, ln 20):
/// `dof_any_terms_query` ORs those that some chunk holds (every lexeme a chunk holds when
/// none).
#[pg_extern(immutable, parallel_safe)]
fn dof_bm25_selective_idf() -> f64 {
    SELECTIVE_IDF
}

/// What two neighbouring words of the query found as neighbours in a chunk add to its score,
/// times their mean IDF (`dof_core::bm25::PAIR_WEIGHT`).
#[pg_extern(immutable, parallel_safe)]
fn dof_bm25_pair_weight() -> f64 {
    PAIR_WEIGHT
}

/// How many consecutive positions of a chunk the text leg looks at for the query's words
/// together, and what the best such window's IDF adds to its score, times it
/// (`dof_core::bm25::{WINDOW_POSITIONS, WINDOW_WEIGHT}`).
#[pg_extern(immutable, parallel_safe)]
fn dof_bm25_window() -> TableIterator<'static, (name!(positions, i32), name!(weight, f64))> {
    TableIterator::once((i32::from(WINDOW_POSITIONS), WINDOW_WEIGHT))
}

/// BM25's parameters as the text leg scores with them (`Bm25Params::default()`).
#[pg_extern(immutable, parallel_safe)]
fn dof_bm25_parameters() -> TableIterator<'static, (name!(k1, f64), name!(b, f64), name!(heading_weight, f64))> {
    let params = Bm25Params::default();
    TableIterator::once((params.k1, params.b, params.heading_weight))
}

/// BM25 of one stored tsvector (of a chunk `length` tokens long) for the query's lexemes
/// and their IDFs (`dof_text_search` calls it with what `dof_bm25_terms` returns), with
/// the core's parameters (`Bm25Params::default()`: defined there only). `tsv` is
/// `anyelement` because pgrx has no tsvector type; any other type is refused.
#[pg_extern(immutable, parallel_safe)]
fn dof_bm25_score_internal(tsv: AnyElement, length: f64, lexemes: Vec<String>, idfs: Vec<f64>, average_length: Option<f64>) -> f64 {
    bm25(&tsv, None, length, &lexemes, &idfs, average_length, &Bm25Params::default())
}

/// The text leg's score of one stored tsvector (`dof_core::bm25::text_score`): its BM25
/// (as `dof_bm25_score_internal`) plus, for the query's neighbouring words found as
/// neighbours, `dof_bm25_pair_weight` times their mean IDF, plus the best window's share
/// (`dof_bm25_window`). `query_vector` is the query's own tsvector (`dof_query_vector`),
/// which gives its words' order; NULL scores BM25 alone.
#[pg_extern(immutable, parallel_safe)]
fn dof_text_score_internal(
    tsv: AnyElement,
    length: f64,
    lexemes: Vec<String>,
    idfs: Vec<f64>,
    average_length: Option<f64>,
    query_vector: Option<AnyElement>,
) -> f64 {
    bm25(&tsv, query_vector.as_ref(), length, &lexemes, &idfs, average_length, &Bm25Params::default())
}

/// The text score (`dof_core::bm25::text_score`) of a stored tsvector: BM25 with `params`,
/// plus the query's neighbouring words and its words together when its own tsvector is given.
pub(super) fn bm25(
    tsv: &AnyElement,
    query_vector: Option<&AnyElement>,
    length: f64,
    lexemes: &[String],
    idfs: &[f64],
    average_length: Option<f64>,
    params: &Bm25Params,
) -> f64 {
    if lexemes.len() != idfs.len() {
        raise_invalid_parameter("BM25 needs one IDF per lexeme");
    }
    let lexemes: Vec<&[u8]> = lexemes.iter().map(|l| l.as_bytes()).collect();
    let query = query_vector.map(tsvector);
    TsVector::parse(tsvector(tsv))
        .and_then(|document| {
            let query = query.map(TsVector::parse).transpose()?;
            text_score(&document, query.as_ref(), length, &lexemes, idfs, average_length, params)
        })
        .unwrap_or_else(|e| raise_invalid_parameter(&e.to_string()))
}

/// A tsvector argument's data, detoasted; any other type is refused.
pub(super) fn tsvector(value: &AnyElement) -> &[u8] {
    if value.oid() != pg_sys::TSVECTOROID {
        raise_invalid_parameter("BM25 scores a tsvector");
    }
    // SAFETY: the datum is a tsvector (checked above), a varlena; detoasting returns it
    // or a palloc'd copy in the current memory context, alive for this call.
    unsafe {
        let value = pg_sys::pg_detoast_datum_packed(value.datum().cast_mut_ptr::<pg_sys::varlena>());
        let length = pgrx::varlena::varsize_any_exhdr(value);
        std::slice::from_raw_parts(pgrx::varlena::vardata_any(value).cast::<u8>(), length)
    }
}
