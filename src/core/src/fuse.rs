//! Reciprocal Rank Fusion, the reference implementation: the SQL in sql/search.sql must
//! give the same scores and order (an integration test checks it on random lists).

use std::collections::HashMap;

/// One fused result: its score and its 1-based rank in each list (None when absent).
#[derive(Debug, Clone, PartialEq)]
pub struct Fused {
    pub id: i64,
    pub score: f64,
    pub ranks: Vec<Option<usize>>,
}

/// `score(id) = Σ 1 / (k + rank)` over the lists holding `id`; ordered by score
/// descending, then id ascending (the deterministic tie-break the SQL uses too). A list
/// naming an id twice counts its first (best) rank.
pub fn rrf(lists: &[&[i64]], k: usize) -> Vec<Fused> {
    let mut fused: HashMap<i64, Fused> = HashMap::new();
    for (list_index, list) in lists.iter().enumerate() {
        for (position, &id) in list.iter().enumerate() {
            let entry = fused.entry(id).or_insert_with(|| Fused { id, score: 0.0, ranks: vec![None; lists.len()] });
            if entry.ranks[list_index].is_none() {
                entry.ranks[list_index] = Some(position + 1);
                entry.score += 1.0 / (k + position + 1) as f64;
            }
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
}
