//! Pooling per-token states into one vector.

use std::ops::Range;

/// Mean of the token states `tokens` (rows of `dimension` floats in `states`).
/// An empty range gives a zero vector.
pub fn mean_pool(states: &[f32], dimension: usize, tokens: Range<usize>) -> Vec<f32> {
    let mut sum = vec![0.0f32; dimension];
    let count = tokens.len();
    for row in states[tokens.start * dimension..tokens.end * dimension].chunks_exact(dimension) {
        for (acc, value) in sum.iter_mut().zip(row) {
            *acc += value;
        }
    }
    if count > 0 {
        let scale = 1.0 / count as f32;
        sum.iter_mut().for_each(|v| *v *= scale);
    }
    sum
}

/// Means of token states for several outputs, filled a token at a time in any order: a
/// text embedded as several windows, or late chunking's chunks spread over windows. Each
/// output's vector is the mean of the states added to it, L2-normalised.
pub struct MeanPools {
    sums: Vec<Vec<f32>>,
    counts: Vec<usize>,
}

impl MeanPools {
    pub fn new(outputs: usize) -> Self {
        Self { sums: vec![Vec::new(); outputs], counts: vec![0; outputs] }
    }

    /// Adds one token's state to `output`'s mean.
    pub fn add(&mut self, output: usize, state: &[f32]) {
        let sum = &mut self.sums[output];
        if sum.is_empty() {
            sum.resize(state.len(), 0.0);
        }
        sum.iter_mut().zip(state).for_each(|(acc, v)| *acc += v);
        self.counts[output] += 1;
    }

    /// Every output's mean, L2-normalised, in output order (empty for an output that got
    /// no state).
    pub fn normalized(self) -> Vec<Vec<f32>> {
        self.sums
            .into_iter()
            .zip(self.counts)
            .map(|(mut sum, count)| {
                sum.iter_mut().for_each(|v| *v /= count.max(1) as f32);
                l2_normalize(&mut sum);
                sum
            })
            .collect()
    }
}

/// Scales `vector` to unit length in place; a zero vector stays zero.
pub fn l2_normalize(vector: &mut [f32]) {
    let norm = vector.iter().map(|v| v * v).sum::<f32>().sqrt();
    if norm > 0.0 {
        vector.iter_mut().for_each(|v| *v /= norm);
    }
}

/// Dot product; the cosine similarity of two unit vectors.
pub fn dot(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mean_pool_averages_only_the_requested_rows() {
        let states = [1.0, 2.0, 3.0, 4.0, 100.0, 100.0];
        assert_eq!(mean_pool(&states, 2, 0..2), vec![2.0, 3.0]);
        assert_eq!(mean_pool(&states, 2, 2..3), vec![100.0, 100.0]);
        assert_eq!(mean_pool(&states, 2, 1..1), vec![0.0, 0.0]);
    }

    #[test]
    fn mean_pools_average_what_each_output_was_given() {
        let mut pools = MeanPools::new(3);
        pools.add(0, &[3.0, 0.0]);
        pools.add(2, &[0.0, 5.0]);
        pools.add(0, &[1.0, 4.0]);
        let vectors = pools.normalized();
        // output 0: mean (2, 2), normalised; output 1 got nothing
        assert!((vectors[0][0] - std::f32::consts::FRAC_1_SQRT_2).abs() < 1e-6 && (vectors[0][1] - vectors[0][0]).abs() < 1e-6);
        assert!(vectors[1].is_empty());
        assert_eq!(vectors[2], vec![0.0, 1.0]);
    }

    #[test]
    fn l2_normalize_gives_unit_length_and_keeps_zero() {
        let mut v = vec![3.0, 4.0];
        l2_normalize(&mut v);
        assert_eq!(v, vec![0.6, 0.8]);
        let mut zero = vec![0.0, 0.0];
        l2_normalize(&mut zero);
        assert_eq!(zero, vec![0.0, 0.0]);
        assert!((dot(&v, &v) - 1.0).abs() < 1e-6);
    }
}
