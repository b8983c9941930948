//! Search is SQL (sql/vector_search.sql, text_search.sql, fusion.sql) but for BM25's per-row
//! score, which reads the stored tsvector directly; this module also holds the search's
//! boundary tests.

use dof_core::bm25::{idf, score, Bm25Params, TsVector, SELECTIVE_IDF};
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

/// The IDF from which a lexeme is selective (`dof_core::bm25::SELECTIVE_IDF`, ln 20):
/// `dof_any_terms_query` ORs only those.
#[pg_extern(immutable, parallel_safe)]
fn dof_bm25_selective_idf() -> f64 {
    SELECTIVE_IDF
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
    bm25(&tsv, length, &lexemes, &idfs, average_length, &Bm25Params::default())
}

pub(super) fn bm25(
    tsv: &AnyElement,
    length: f64,
    lexemes: &[String],
    idfs: &[f64],
    average_length: Option<f64>,
    params: &Bm25Params,
) -> f64 {
    if tsv.oid() != pg_sys::TSVECTOROID {
        raise_invalid_parameter("BM25 scores a tsvector");
    }
    if lexemes.len() != idfs.len() {
        raise_invalid_parameter("BM25 needs one IDF per lexeme");
    }
    // SAFETY: the datum is a tsvector (checked above), a varlena; detoasting returns it
    // or a palloc'd copy in the current memory context, alive for this call.
    let data = unsafe {
        let value = pg_sys::pg_detoast_datum_packed(tsv.datum().cast_mut_ptr::<pg_sys::varlena>());
        let length = pgrx::varlena::varsize_any_exhdr(value);
        std::slice::from_raw_parts(pgrx::varlena::vardata_any(value).cast::<u8>(), length)
    };
    let lexemes: Vec<&[u8]> = lexemes.iter().map(|l| l.as_bytes()).collect();
    TsVector::parse(data)
        .and_then(|document| score(&document, length, &lexemes, idfs, average_length, params))
        .unwrap_or_else(|e| raise_invalid_parameter(&e.to_string()))
}

#[cfg(any(test, feature = "pg_test"))]
#[pg_schema]
mod tests {
    use dof_core::fuse::{min_max, weighted_rrf, Fused, ScoredList, VECTOR_MIN_SPREAD};
    use pgrx::prelude::*;

    /// A small deterministic generator: the test must fail the same way every run.
    struct Lcg(u64);
    impl Lcg {
        fn next(&mut self, bound: u64) -> u64 {
            self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (self.0 >> 33) % bound
        }
    }

    fn random_ids(random: &mut Lcg, pool: i64) -> Vec<i64> {
        let length = random.next(60) as usize;
        (0..length).map(|_| 1 + random.next(pool as u64) as i64).collect()
    }

    /// Rows of a fusion function: (id, score, vector rank, text rank).
    fn fused_rows(sql: &str, args: &[pgrx::datum::DatumWithOid]) -> Vec<(i64, f64, Option<i32>, Option<i32>)> {
        Spi::connect(|client| {
            client
                .select(sql, None, args)?
                .map(|row| Ok((row.get(1)?.unwrap(), row.get(2)?.unwrap(), row.get(3)?, row.get(4)?)))
                .collect::<Result<Vec<_>, pgrx::spi::Error>>()
        })
        .expect("the fusion runs")
    }

    fn assert_same(case: usize, rows: &[(i64, f64, Option<i32>, Option<i32>)], expected: &[Fused]) {
        assert_eq!(rows.len(), expected.len(), "case {case}: row count");
        for (row, want) in rows.iter().zip(expected) {
            assert_eq!(row.0, want.id, "case {case}: order");
            assert!((row.1 - want.score).abs() < 1e-9, "case {case}: score {} vs {}", row.1, want.score);
            assert_eq!(row.2.map(|r| r as usize), want.ranks[0], "case {case}: vector rank");
            assert_eq!(row.3.map(|r| r as usize), want.ranks[1], "case {case}: text rank");
        }
    }

    #[pg_test]
    fn sql_rrf_equals_the_core_reference_on_random_lists() {
        let mut random = Lcg(42);
        for case in 0..200 {
            let pool = 1 + random.next(80) as i64;
            let (vector_ids, text_ids) = (random_ids(&mut random, pool), random_ids(&mut random, pool));
            let rrf_k = random.next(100) as i32;
            let weights = (random.next(5) as f64 / 2.0, random.next(5) as f64 / 2.0);
            let expected = weighted_rrf(&[(&vector_ids, weights.0), (&text_ids, weights.1)], rrf_k as usize);
            let rows = fused_rows(
                "SELECT id, score, vector_rank, text_rank FROM dof_rrf($1, $2, $3, $4, $5)",
                &[vector_ids.clone().into(), text_ids.clone().into(), rrf_k.into(), weights.0.into(), weights.1.into()],
            );
            assert_same(case, &rows, &expected);
        }
    }

    #[pg_test]
    fn sql_weighted_fusion_equals_the_core_reference_on_random_lists() {
        let mut random = Lcg(7);
        for case in 0..200 {
            let pool = 1 + random.next(80) as i64;
            let (vector_ids, text_ids) = (random_ids(&mut random, pool), random_ids(&mut random, pool));
            // few distinct values, so that equal scores (and equal minimum and maximum) occur;
            // every other case on a scale where the vector leg's minimum spread applies
            let scale = if case % 2 == 0 { 4.0 } else { 100.0 };
            let mut scores = |n: usize| (0..n).map(|_| random.next(6) as f64 / scale).collect::<Vec<f64>>();
            let (vector_scores, text_scores) = (scores(vector_ids.len()), scores(text_ids.len()));
            let alpha = random.next(11) as f64 / 10.0;
            let expected = min_max(&[
                ScoredList { ids: &vector_ids, scores: &vector_scores, weight: 1.0 - alpha, min_spread: VECTOR_MIN_SPREAD },
                ScoredList { ids: &text_ids, scores: &text_scores, weight: alpha, min_spread: 0.0 },
            ]);
            let rows = fused_rows(
                "SELECT id, score, vector_rank, text_rank FROM dof_fuse('weighted', $1, $2, $3, $4, alpha => $5)",
                &[
                    vector_ids.clone().into(),
                    vector_scores.clone().into(),
                    text_ids.clone().into(),
                    text_scores.clone().into(),
                    alpha.into(),
                ],
            );
            assert_same(case, &rows, &expected);
        }
    }
}
