//! Search is SQL (sql/search.sql); this module holds its boundary tests.

#[cfg(any(test, feature = "pg_test"))]
use pgrx::prelude::*;

#[cfg(any(test, feature = "pg_test"))]
#[pg_schema]
mod tests {
    use dof_core::fuse::rrf;
    use pgrx::prelude::*;

    /// A small deterministic generator: the test must fail the same way every run.
    struct Lcg(u64);
    impl Lcg {
        fn next(&mut self, bound: u64) -> u64 {
            self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (self.0 >> 33) % bound
        }
    }

    #[pg_test]
    fn sql_rrf_equals_the_core_reference_on_random_lists() {
        let mut random = Lcg(42);
        for case in 0..200 {
            let lengths = (random.next(60) as usize, random.next(60) as usize);
            let pool = 1 + random.next(80) as i64;
            let vector_ids: Vec<i64> = (0..lengths.0).map(|_| 1 + random.next(pool as u64) as i64).collect();
            let text_ids: Vec<i64> = (0..lengths.1).map(|_| 1 + random.next(pool as u64) as i64).collect();
            let rrf_k = random.next(100) as i32;
            let expected = rrf(&[&vector_ids, &text_ids], rrf_k as usize);
            let rows: Vec<(i64, f64, Option<i32>, Option<i32>)> = Spi::connect(|client| {
                client
                    .select(
                        "SELECT id, score, vector_rank, text_rank FROM dof_rrf($1, $2, $3)",
                        None,
                        &[vector_ids.clone().into(), text_ids.clone().into(), rrf_k.into()],
                    )?
                    .map(|row| Ok((row.get(1)?.unwrap(), row.get(2)?.unwrap(), row.get(3)?, row.get(4)?)))
                    .collect::<Result<Vec<_>, pgrx::spi::Error>>()
            })
            .expect("dof_rrf runs");
            assert_eq!(rows.len(), expected.len(), "case {case}: row count");
            for (row, want) in rows.iter().zip(&expected) {
                assert_eq!(row.0, want.id, "case {case}: order");
                assert!((row.1 - want.score).abs() < 1e-12, "case {case}: score {} vs {}", row.1, want.score);
                assert_eq!(row.2.map(|r| r as usize), want.ranks[0], "case {case}: vector rank");
                assert_eq!(row.3.map(|r| r as usize), want.ranks[1], "case {case}: text rank");
            }
        }
    }
}
