//! The deterministic hash embedder: the same text gives the same unit vector, in any
//! dimension, with no files. For unit tests and offline use, never for quality.
//!
//! Feature hashing of lower-cased words and word bigrams: texts sharing words get
//! positive cosine, which keeps search tests meaningful.

use std::hash::{Hash, Hasher};

use rustc_hash::FxHasher;

use super::pool::l2_normalize;
use super::{EmbedError, Embedder};

#[derive(Debug, Clone)]
pub struct HashEmbedder {
    dimension: usize,
}

impl HashEmbedder {
    pub fn new(dimension: usize) -> Self {
        Self { dimension: dimension.max(1) }
    }

    pub fn embed_one(&self, text: &str) -> Vec<f32> {
        let mut vector = vec![0.0f32; self.dimension];
        let words: Vec<String> = text.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(str::to_lowercase).collect();
        let mut add = |feature: &str, weight: f32| {
            // rustc-hash is pinned, so the same feature hashes the same way on every build
            let mut hasher = FxHasher::default();
            feature.hash(&mut hasher);
            let h = hasher.finish();
            let sign = if h >> 63 == 0 { 1.0 } else { -1.0 };
            vector[(h % self.dimension as u64) as usize] += sign * weight;
        };
        for word in &words {
            add(word, 1.0);
        }
        for pair in words.windows(2) {
            add(&format!("{} {}", pair[0], pair[1]), 0.5);
        }
        if words.is_empty() {
            add(text, 1.0); // still a unit vector, and still one per text
        }
        l2_normalize(&mut vector);
        vector
    }
}

impl Embedder for HashEmbedder {
    fn dimension(&self) -> usize {
        self.dimension
    }

    fn embed(&mut self, texts: &[&str], between_batches: &mut dyn FnMut()) -> Result<Vec<Vec<f32>>, EmbedError> {
        let vectors = texts.iter().map(|t| self.embed_one(t)).collect();
        between_batches();
        Ok(vectors)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::embed::pool::dot;

    #[test]
    fn same_text_same_unit_vector_in_any_dimension() {
        for dimension in [1, 7, 384, 1536] {
            let e = HashEmbedder::new(dimension);
            let a = e.embed_one("Diario Oficial de la Federación");
            assert_eq!(a, e.embed_one("Diario Oficial de la Federación"));
            assert_eq!(a.len(), dimension);
            assert!((dot(&a, &a) - 1.0).abs() < 1e-5);
        }
        let empty = HashEmbedder::new(16).embed_one("");
        assert!((dot(&empty, &empty) - 1.0).abs() < 1e-5);
    }

    #[test]
    fn shared_words_mean_closer_vectors() {
        let e = HashEmbedder::new(384);
        let q = e.embed_one("licitación de medicamentos");
        let near = e.embed_one("convocatoria a licitación pública de medicamentos");
        let far = e.embed_one("tipo de cambio del dólar");
        assert!(dot(&q, &near) > dot(&q, &far));
    }
}
