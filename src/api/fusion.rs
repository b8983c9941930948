//! The fusion is SQL (sql/fusion.sql); these are the numbers it takes from the core, and
//! the tests that hold the SQL fusion to the core's reference (`dof_core::fuse`).

use pgrx::prelude::*;

/// The least spread of the vector leg's similarities that `dof_weighted_fusion` divides by
/// (`dof_core::fuse::VECTOR_MIN_SPREAD`).
#[pg_extern(immutable, parallel_safe)]
fn dof_fusion_vector_min_spread() -> f64 {
    dof_core::fuse::VECTOR_MIN_SPREAD
}

/// The weighted fusion's text share for one query, `alpha` scaled by the text leg's coverage
/// of the query (`dof_core::fuse::text_share`); NULL best or full-match score: `alpha`.
#[pg_extern(immutable, parallel_safe)]
fn dof_fusion_text_share(alpha: f64, best_text_score: Option<f64>, full_match_score: Option<f64>) -> f64 {
    dof_core::fuse::text_share(alpha, best_text_score.unwrap_or(f64::NAN), full_match_score.unwrap_or(0.0))
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
