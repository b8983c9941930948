//! Where semantic chunking cuts (seed 002): the distances between consecutive sentence
//! embeddings (1 − cosine similarity) against a threshold computed from the document's own
//! distances, exactly as LangChain's `SemanticChunker` computes it with numpy:
//!
//! - `percentile`: a gap is a breakpoint when its distance is above the `amount`-th
//!   percentile of the distances (numpy's linear interpolation);
//! - `standard_deviation`: above mean + `amount` · std (population std, numpy's default);
//! - `interquartile`: above mean + `amount` · (Q3 − Q1);
//! - `gradient`: the gradient of the distances (numpy's `gradient`: one-sided at the ends,
//!   central inside) above its own `amount`-th percentile.
//!
//! Degenerate input has an answer, never a panic: no distance (one sentence) or a single
//! one for `gradient` gives no breakpoint; identical sentences (all distances 0) give none.

use std::fmt;

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ThresholdType {
    Percentile,
    StandardDeviation,
    Interquartile,
    Gradient,
}

impl ThresholdType {
    pub const ALL: [ThresholdType; 4] =
        [ThresholdType::Percentile, ThresholdType::StandardDeviation, ThresholdType::Interquartile, ThresholdType::Gradient];

    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|t| t.as_str() == name)
    }

    pub fn as_str(self) -> &'static str {
        match self {
            ThresholdType::Percentile => "percentile",
            ThresholdType::StandardDeviation => "standard_deviation",
            ThresholdType::Interquartile => "interquartile",
            ThresholdType::Gradient => "gradient",
        }
    }

    /// The default amount: the seed's 75th percentile; LangChain's 3 standard deviations,
    /// 1.5 interquartile ranges and 95th percentile of the gradient.
    pub fn default_amount(self) -> f64 {
        match self {
            ThresholdType::Percentile => 75.0,
            ThresholdType::StandardDeviation => 3.0,
            ThresholdType::Interquartile => 1.5,
            ThresholdType::Gradient => 95.0,
        }
    }

    /// Why `amount` is not acceptable for this type, if it is not.
    pub fn check_amount(self, amount: f64) -> Result<(), String> {
        let percentile = matches!(self, ThresholdType::Percentile | ThresholdType::Gradient);
        if !amount.is_finite() || amount < 0.0 || (percentile && amount > 100.0) {
            let range = if percentile { "between 0 and 100" } else { "a finite number of at least 0" };
            return Err(format!("threshold_amount for {self} must be {range}, got {amount}"));
        }
        Ok(())
    }

    /// The names, comma-separated, for messages.
    pub fn names() -> String {
        Self::ALL.iter().map(|t| t.as_str()).collect::<Vec<_>>().join(", ")
    }
}

impl fmt::Display for ThresholdType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// 1 − cosine similarity of `a` and `b`; 0 when either has no length (nothing to tell
/// them apart).
pub fn distance(a: &[f32], b: &[f32]) -> f64 {
    let dot: f64 = a.iter().zip(b).map(|(x, y)| f64::from(*x) * f64::from(*y)).sum();
    let norm = |v: &[f32]| v.iter().map(|x| f64::from(*x).powi(2)).sum::<f64>().sqrt();
    let (na, nb) = (norm(a), norm(b));
    if na == 0.0 || nb == 0.0 {
        0.0
    } else {
        1.0 - (dot / (na * nb)).clamp(-1.0, 1.0)
    }
}

/// The values compared with the threshold (the distances, or their gradient) and the
/// threshold; `None` when there is nothing to compare.
pub fn threshold(distances: &[f64], kind: ThresholdType, amount: f64) -> Option<(Vec<f64>, f64)> {
    if distances.is_empty() {
        return None;
    }
    let mean = distances.iter().sum::<f64>() / distances.len() as f64;
    match kind {
        ThresholdType::Percentile => Some((distances.to_vec(), percentile(distances, amount))),
        ThresholdType::StandardDeviation => {
            let variance = distances.iter().map(|d| (d - mean).powi(2)).sum::<f64>() / distances.len() as f64;
            Some((distances.to_vec(), mean + amount * variance.sqrt()))
        }
        ThresholdType::Interquartile => {
            let iqr = percentile(distances, 75.0) - percentile(distances, 25.0);
            Some((distances.to_vec(), mean + amount * iqr))
        }
        ThresholdType::Gradient => {
            let gradient = gradient(distances)?;
            let threshold = percentile(&gradient, amount);
            Some((gradient, threshold))
        }
    }
}

/// The gaps (gap `i` lies between sentences `i` and `i + 1`) whose value is above the
/// threshold.
pub fn breakpoints(distances: &[f64], kind: ThresholdType, amount: f64) -> Vec<usize> {
    match threshold(distances, kind, amount) {
        None => Vec::new(),
        Some((values, threshold)) => values.iter().enumerate().filter(|(_, v)| **v > threshold).map(|(i, _)| i).collect(),
    }
}

/// numpy's `percentile` with its default linear interpolation; `values` must not be empty.
pub fn percentile(values: &[f64], p: f64) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let rank = (sorted.len() - 1) as f64 * p / 100.0;
    let low = rank.floor() as usize;
    let high = (low + 1).min(sorted.len() - 1);
    sorted[low] + (rank - low as f64) * (sorted[high] - sorted[low])
}

/// numpy's `gradient` with unit spacing; `None` for fewer than two values (numpy raises).
pub fn gradient(values: &[f64]) -> Option<Vec<f64>> {
    let n = values.len();
    if n < 2 {
        return None;
    }
    Some(
        (0..n)
            .map(|i| match i {
                0 => values[1] - values[0],
                i if i == n - 1 => values[n - 1] - values[n - 2],
                i => (values[i + 1] - values[i - 1]) / 2.0,
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    // Reference values from numpy 2.3.5 (bench/reference/semantic_thresholds.py prints them):
    // d = [0.1, 0.5, 0.2, 0.9, 0.3, 0.05, 0.6]
    const D: [f64; 7] = [0.1, 0.5, 0.2, 0.9, 0.3, 0.05, 0.6];

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-12
    }

    #[test]
    fn thresholds_equal_numpy() {
        let (_, p75) = threshold(&D, ThresholdType::Percentile, 75.0).unwrap();
        assert!(close(p75, 0.55), "np.percentile(d, 75) = 0.55, got {p75}");
        let (_, sd) = threshold(&D, ThresholdType::StandardDeviation, 1.0).unwrap();
        assert!(close(sd, 0.661_233_699_105_848_3), "mean + 1·np.std(d), got {sd}");
        let (_, iqr) = threshold(&D, ThresholdType::Interquartile, 1.5).unwrap();
        assert!(close(iqr, 0.978_571_428_571_428_6), "mean + 1.5·IQR, got {iqr}");
        let (gradient, g) = threshold(&D, ThresholdType::Gradient, 95.0).unwrap();
        let expected = [0.4, 0.05, 0.2, 0.05, -0.425, 0.15, 0.55];
        assert!(gradient.iter().zip(expected).all(|(a, b)| close(*a, b)), "np.gradient(d) = {expected:?}, got {gradient:?}");
        assert!(close(g, 0.505), "np.percentile(np.gradient(d), 95) = 0.505, got {g}");
    }

    #[test]
    fn breakpoints_are_the_gaps_above_the_threshold() {
        assert_eq!(breakpoints(&D, ThresholdType::Percentile, 75.0), vec![3, 6]);
        assert_eq!(breakpoints(&D, ThresholdType::StandardDeviation, 1.0), vec![3]);
        assert_eq!(breakpoints(&D, ThresholdType::Interquartile, 1.5), Vec::<usize>::new());
        assert_eq!(breakpoints(&D, ThresholdType::Interquartile, 1.0), vec![3]);
        assert_eq!(breakpoints(&D, ThresholdType::Gradient, 95.0), vec![6]);
    }

    #[test]
    fn degenerate_inputs_have_answers() {
        for kind in ThresholdType::ALL {
            assert!(breakpoints(&[], kind, kind.default_amount()).is_empty(), "{kind}: one sentence");
            assert!(breakpoints(&[0.0; 50], kind, kind.default_amount()).is_empty(), "{kind}: identical sentences");
        }
        assert!(breakpoints(&[0.4], ThresholdType::Gradient, 95.0).is_empty());
        assert_eq!(breakpoints(&[0.4], ThresholdType::Percentile, 50.0), Vec::<usize>::new());
        let many: Vec<f64> = (0..10_000u32).map(|i| f64::from((i * 7919) % 10_007) / 10_007.0).collect();
        assert_eq!(
            breakpoints(&many, ThresholdType::Percentile, 99.0).len(),
            100,
            "10,000 distinct distances: 1% above the 99th percentile"
        );
        assert_eq!(distance(&[0.0, 0.0], &[1.0, 0.0]), 0.0, "a zero vector is no evidence of a change");
    }

    #[test]
    fn bad_amounts_are_refused() {
        assert!(ThresholdType::Percentile.check_amount(101.0).is_err());
        assert!(ThresholdType::Gradient.check_amount(-1.0).is_err());
        assert!(ThresholdType::StandardDeviation.check_amount(f64::NAN).is_err());
        assert!(ThresholdType::Interquartile.check_amount(250.0).is_ok());
        assert_eq!(ThresholdType::parse("interquartile"), Some(ThresholdType::Interquartile));
        assert_eq!(ThresholdType::parse("iqr"), None);
    }
}
