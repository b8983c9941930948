//! Fusion of the search legs' ranked lists, the reference implementation: the SQL in
//! sql/fusion.sql must give the same scores and order (`#[pg_test]`s check both on random
//! lists).
//!
//! Both fusions order by score descending, then id ascending (the deterministic tie-break
//! the SQL uses too), and a list naming an id twice counts its first (best) entry.

use std::collections::HashMap;

/// One fused result: its score and its 1-based rank in each list (None when absent).
#[derive(Debug, Clone, PartialEq)]
pub struct Fused {
    pub id: i64,
    pub score: f64,
    pub ranks: Vec<Option<usize>>,
}

/// Reciprocal Rank Fusion with equal weights: `score(id) = Σ 1 / (k + rank)`.
pub fn rrf(lists: &[&[i64]], k: usize) -> Vec<Fused> {
    let weighted: Vec<(&[i64], f64)> = lists.iter().map(|list| (*list, 1.0)).collect();
    weighted_rrf(&weighted, k)
}

/// Reciprocal Rank Fusion with a weight per list: `score(id) = Σ weight / (k + rank)`.
pub fn weighted_rrf(lists: &[(&[i64], f64)], k: usize) -> Vec<Fused> {
    fuse(
        lists.len(),
        lists.iter().enumerate().flat_map(|(list, (ids, weight))| {
            ids.iter().enumerate().map(move |(position, &id)| (list, id, position, weight / (k + position + 1) as f64))
        }),
    )
}

/// One leg's results for [`min_max`]: ids best first, their scores (higher is better), the
/// leg's weight, and the least spread its normalisation divides by (0: plain min-max).
pub struct ScoredList<'a> {
    pub ids: &'a [i64],
    pub scores: &'a [f64],
    pub weight: f64,
    pub min_spread: f64,
}

/// The least spread of the vector leg's similarities that the weighted fusion divides by:
/// candidates whose cosine similarities differ by less than this are not stretched to the
/// whole 0..1, so a leg that hardly tells its candidates apart hardly moves the fused order.
/// multilingual-e5-small's 50 candidates spread 0.01–0.09 (median 0.04 on the DOF set,
/// 0.03 on Peruvian laws), and min-max made a 0.02 difference as decisive as a whole BM25
/// range. Chosen by measurement (at alpha 0.7, before passages), MRR@10: with the legs' lists fixed
/// (`bench/sql/quality_fusion_grid.sql`) floors 0.05 / 0.1 / 0.15 / 0.2 gave DOF 0.735 /
/// 0.742 / 0.737 / 0.733; through the product (`bench/scripts/retrieval_quality.sh`) 0.1
/// took DOF 0.725 → 0.742, English 0.820 → 0.822, Peruvian laws 0.988 either way, and the
/// fusion stays near its best over alpha 0.5–0.8 instead of falling off below 0.7.
pub const VECTOR_MIN_SPREAD: f64 = 0.1;

/// Weighted min-max fusion: each list's scores are normalised over the list as
/// `(s - min) / max(max - min, min_spread)` (0..1 when the spread is at least `min_spread`;
/// a list whose scores are all equal gives each 1 when `min_spread` is 0, else 0), an id
/// absent from a list gets 0 from it, and `score(id) = Σ weight × normalised`. With the
/// text leg weighted `alpha` and the vector leg `1 - alpha` (its `min_spread`
/// [`VECTOR_MIN_SPREAD`]), this is `dof_weighted_fusion`.
pub fn min_max(lists: &[ScoredList<'_>]) -> Vec<Fused> {
    fuse(
        lists.len(),
        lists.iter().enumerate().flat_map(|(list, leg)| {
            let firsts = first_entries(leg.ids);
            let kept = || firsts.iter().map(|&position| leg.scores[position]);
            let low = kept().fold(f64::INFINITY, f64::min);
            let high = kept().fold(f64::NEG_INFINITY, f64::max);
            let range = (high - low).max(leg.min_spread);
            firsts.into_iter().map(move |position| {
                let score = leg.scores[position];
                let normalised = if range > 0.0 { (score - low) / range } else { 1.0 };
                (list, leg.ids[position], position, leg.weight * normalised)
            })
        }),
    )
}

/// The weighted fusion's text share for one query: `alpha` with the text leg's part scaled by
/// its coverage of the query, the best text score over the query's full-match score
/// ([`crate::bm25::full_match_score`]), capped at 1 (1 when either is unknown). Returned as
/// the share that ranks as `alpha × coverage × text + (1 - alpha) × vector` does, so scores
/// stay within 0..1. Min-max gives the text leg's best chunk 1 whether it matched the whole
/// query or two of its words; on natural questions about a Peruvian law that chunk often
/// shares words and not the answer. Measured with the legs' lists fixed
/// (`bench/sql/quality_fusion_grid.sql`, alpha 0.5), MRR@10: Peruvian natural questions
/// 0.699 → 0.743, paraphrases 0.719 → 0.728, the English set 0.845 → 0.848, the DOF set
/// 0.803 either way; keyword and identifier queries, whose best chunk matches them whole,
/// unchanged.
pub fn text_share(alpha: f64, best_text: f64, full_match: f64) -> f64 {
    let coverage = if full_match > 0.0 && best_text.is_finite() { (best_text / full_match).clamp(0.0, 1.0) } else { 1.0 };
    let text = alpha * coverage;
    let total = text + (1.0 - alpha);
    if total > 0.0 {
        text / total
    } else {
        alpha
    }
}

/// Positions of the first entry of each id in `ids`.
fn first_entries(ids: &[i64]) -> Vec<usize> {
    let mut seen = std::collections::HashSet::new();
    (0..ids.len()).filter(|&position| seen.insert(ids[position])).collect()
}

/// Sums `(list, id, position, contribution)` per id, counting an id's first entry in each
/// list only, and orders the result.
fn fuse(lists: usize, entries: impl Iterator<Item = (usize, i64, usize, f64)>) -> Vec<Fused> {
    let mut fused: HashMap<i64, Fused> = HashMap::new();
    for (list, id, position, contribution) in entries {
        let entry = fused.entry(id).or_insert_with(|| Fused { id, score: 0.0, ranks: vec![None; lists] });
        if entry.ranks[list].is_none() {
            entry.ranks[list] = Some(position + 1);
            entry.score += contribution;
        }
    }
    let mut fused: Vec<Fused> = fused.into_values().collect();
    fused.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.id.cmp(&b.id)));
    fused
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_text_share_shrinks_with_the_text_legs_coverage_of_the_query() {
        // whole coverage (or more: a term twice, a heading) keeps alpha
        assert_eq!(text_share(0.5, 8.0, 8.0), 0.5);
        assert_eq!(text_share(0.5, 12.0, 8.0), 0.5);
        // half the query matched: text part 0.25 against the vector's 0.5, so a share of 1/3
        assert!((text_share(0.5, 4.0, 8.0) - 1.0 / 3.0).abs() < 1e-12);
        // ranks as alpha x coverage x text + (1 - alpha) x vector
        let (alpha, coverage) = (0.7, 0.4);
        let share = text_share(alpha, coverage * 5.0, 5.0);
        let (text, vector) = (0.9, 0.3);
        let scaled = alpha * coverage * text + (1.0 - alpha) * vector;
        assert!((share * text + (1.0 - share) * vector - scaled / (alpha * coverage + 1.0 - alpha)).abs() < 1e-12);
        // unknown full match or best: alpha as given; the extremes stay
        assert_eq!(text_share(0.5, 4.0, 0.0), 0.5);
        assert_eq!(text_share(0.5, f64::NAN, 8.0), 0.5);
        assert_eq!(text_share(1.0, 0.0, 8.0), 1.0);
        assert_eq!(text_share(0.0, 8.0, 8.0), 0.0);
    }

    #[test]
    fn an_id_in_both_lists_beats_one_in_a_single_list() {
        let fused = rrf(&[&[1, 2, 3], &[3, 4]], 60);
        assert_eq!(fused[0].id, 3);
        assert!((fused[0].score - (1.0 / 63.0 + 1.0 / 61.0)).abs() < 1e-12);
        assert_eq!(fused[0].ranks, vec![Some(3), Some(1)]);
        assert_eq!(fused.iter().find(|f| f.id == 4).unwrap().ranks, vec![None, Some(2)]);
    }

    #[test]
    fn ties_break_on_the_smaller_id() {
        let fused = rrf(&[&[7], &[5]], 60);
        assert_eq!(fused.iter().map(|f| f.id).collect::<Vec<_>>(), vec![5, 7]);
    }

    #[test]
    fn rrf_weights_scale_each_list() {
        let fused = weighted_rrf(&[(&[1], 2.0), (&[2], 0.5)], 0);
        assert_eq!(fused[0].id, 1);
        assert!((fused[0].score - 2.0).abs() < 1e-12 && (fused[1].score - 0.5).abs() < 1e-12);
    }

    #[test]
    fn min_max_normalises_each_list_and_weights_it() {
        let vector = ScoredList { ids: &[10, 11, 12], scores: &[0.9, 0.8, 0.5], weight: 0.5, min_spread: VECTOR_MIN_SPREAD };
        let text = ScoredList { ids: &[12, 13], scores: &[20.0, 5.0], weight: 0.5, min_spread: 0.0 };
        let fused = min_max(&[vector, text]);
        let score = |id| fused.iter().find(|f| f.id == id).unwrap().score;
        assert!((score(10) - 0.5).abs() < 1e-12, "top vector, absent from text");
        assert!((score(11) - 0.5 * 0.75).abs() < 1e-12);
        assert!((score(12) - 0.5).abs() < 1e-12, "bottom vector (0) + top text (0.5)");
        assert!(score(13).abs() < 1e-12, "bottom text");
        assert_eq!(fused[0].id, 10, "ties break on the smaller id");
    }

    #[test]
    fn a_list_of_equal_scores_gives_each_full_weight_and_duplicates_count_once() {
        let fused = min_max(&[ScoredList { ids: &[4, 3, 4], scores: &[2.0, 2.0, 9.0], weight: 1.0, min_spread: 0.0 }]);
        assert_eq!(fused.iter().map(|f| (f.id, f.score)).collect::<Vec<_>>(), vec![(3, 1.0), (4, 1.0)]);
        assert_eq!(fused.iter().find(|f| f.id == 4).unwrap().ranks, vec![Some(1)]);
    }

    #[test]
    fn a_spread_under_the_minimum_is_divided_by_the_minimum() {
        // similarities 0.84..0.82: a spread of 0.02 counts as 0.02 / 0.1 of the leg, not all of it
        let vector = ScoredList { ids: &[1, 2, 3], scores: &[0.84, 0.83, 0.82], weight: 1.0, min_spread: VECTOR_MIN_SPREAD };
        let fused = min_max(&[vector]);
        let scores: Vec<f64> = fused.iter().map(|f| f.score).collect();
        assert!((scores[0] - 0.2).abs() < 1e-9 && (scores[1] - 0.1).abs() < 1e-9 && scores[2].abs() < 1e-9, "{scores:?}");
        // a spread over it is plain min-max
        let wide = min_max(&[ScoredList { ids: &[1, 2], scores: &[0.9, 0.5], weight: 1.0, min_spread: VECTOR_MIN_SPREAD }]);
        assert!((wide[0].score - 1.0).abs() < 1e-12 && wide[1].score.abs() < 1e-12);
        // equal scores with a minimum spread: each 0, the same for all
        let equal = min_max(&[ScoredList { ids: &[1, 2], scores: &[0.7, 0.7], weight: 1.0, min_spread: VECTOR_MIN_SPREAD }]);
        assert!(equal.iter().all(|f| f.score == 0.0));
    }
}
