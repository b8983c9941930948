//! The order of one document's chunks in a hybrid search's list (sql/document_order.sql).
//!
//! The legs rank a collection's chunks, and the words that find the right document are
//! often in every chunk of it: a question about a regional governor's age finds the
//! elections law by "gobernador regional", which most of its chunks hold, and BM25 then
//! prefers the chunk holding them most often. Within one document such a word tells the
//! chunks apart no better than a stopword; the rarer words do. So a document keeps the
//! ranks the fusion gave it, and its chunks take them in the order of the same fusion with
//! each query lexeme's IDF weighted by its rarity within the document.

use crate::bm25::{TsVector, TsVectorError};

/// The weight of a query lexeme's IDF within a document of `chunks` chunks of which
/// `holding` hold it: that document's own IDF of the lexeme over the IDF of one none of its
/// chunks holds, `ln(1 + (n - h + 0.5) / (h + 0.5)) / ln(1 + (n + 0.5) / 0.5)`: 1 for a
/// lexeme in no chunk, falling as more chunks hold it, above 0 for one every chunk holds.
pub fn within_document_weight(holding: f64, chunks: f64) -> f64 {
    let idf = |holding: f64| (1.0 + (chunks - holding + 0.5) / (holding + 0.5)).ln();
    idf(holding) / idf(0.0)
}

/// The query's IDFs within one document: each collection IDF times
/// [`within_document_weight`] of the chunks holding its lexeme (`holding[i]`, the same order).
pub fn document_idfs(idfs: &[f64], holding: &[f64], chunks: f64) -> Vec<f64> {
    idfs.iter().zip(holding).map(|(idf, &holding)| idf * within_document_weight(holding, chunks)).collect()
}

/// For each lexeme, 1 when the tsvector holds it, else 0: summed over a document's chunks,
/// the chunks holding each (one detoasted tsvector per chunk, however many lexemes).
pub fn held(document: &TsVector<'_>, lexemes: &[&[u8]]) -> Result<Vec<i32>, TsVectorError> {
    lexemes.iter().map(|lexeme| Ok(i32::from(document.find(lexeme)?.is_some()))).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lexeme_in_no_chunk_keeps_its_idf_and_one_in_every_chunk_keeps_little() {
        for chunks in [2.0, 10.0, 400.0] {
            assert!((within_document_weight(0.0, chunks) - 1.0).abs() < 1e-12);
            let mut previous = 1.0;
            for holding in 1..=chunks as usize {
                let weight = within_document_weight(holding as f64, chunks);
                assert!(weight > 0.0 && weight < previous, "{holding} of {chunks}: {weight} after {previous}");
                previous = weight;
            }
            assert!(previous < 0.11, "every chunk of {chunks}: {previous}");
        }
        // the doc comment's formula, at one point
        let expected = (1.0f64 + 1.5 / 1.5).ln() / (1.0f64 + 2.5 / 0.5).ln();
        assert!((within_document_weight(1.0, 2.0) - expected).abs() < 1e-12);
    }

    #[test]
    fn held_marks_the_lexemes_a_chunk_holds() {
        let data = crate::bm25::tests::tsvector(&[("gobern", &[(1, 0)]), ("regional", &[(2, 0), (9, 3)])]);
        let chunk = TsVector::parse(&data).expect("a valid tsvector");
        let lexemes: [&[u8]; 4] = [b"edad", b"gobern", b"regional", b"regiona"];
        assert_eq!(held(&chunk, &lexemes).unwrap(), vec![0, 1, 1, 0]);
        assert_eq!(held(&chunk, &[]).unwrap(), Vec::<i32>::new());
    }

    #[test]
    fn document_idfs_weight_each_lexeme_by_its_own_count() {
        let idfs = document_idfs(&[2.0, 3.0], &[0.0, 10.0], 10.0);
        assert!((idfs[0] - 2.0).abs() < 1e-12);
        assert!((idfs[1] - 3.0 * within_document_weight(10.0, 10.0)).abs() < 1e-12);
    }
}
