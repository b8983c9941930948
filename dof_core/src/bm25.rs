//! BM25 over PostgreSQL `tsvector` values, for the text leg of the search.
//!
//! PostgreSQL's `ts_rank` / `ts_rank_cd` have no inverse document frequency: a common
//! word and a rare one weigh the same. BM25 (Robertson & Zaragoza; Lucene's form of the
//! IDF) does, and saturates term frequency. This module owns BM25: its parameters
//! ([`Bm25Params`]), the IDF ([`idf`]), which lexemes count as selective
//! ([`SELECTIVE_IDF`]) and the score of one stored `tsvector` against the query's lexemes
//! ([`score`], reading its on-disk layout directly so the per-row cost is a binary search of
//! its entries per query lexeme). SQL keeps only the statistics: how many chunks hold each
//! lexeme and their lengths, exact per collection (`dof_term_stats`,
//! `dof_collection_stats`), which it passes in.
//!
//! A document's length is given by the caller (pg_dof passes the chunk's token count).
//!
//! BM25 scores each word apart, so a chunk holding "protección" in one article and "datos
//! personales" in another ranks with one that says "protección de datos personales". The
//! text leg adds, for each two neighbouring words of the query that a chunk holds as
//! neighbours at the same distance ([`query_pairs`], [`pair_score`]), [`PAIR_WEIGHT`] times
//! their mean IDF: a bigram bonus in the manner of Metzler and Croft's sequential
//! dependence model, read from the positions the stored tsvector already has. It adds too
//! [`WINDOW_WEIGHT`] times the most IDF of distinct query words that any
//! [`WINDOW_POSITIONS`] consecutive positions of the chunk hold ([`window_score`]): of two
//! chunks of one notice holding the same words, the one that has them in one paragraph is
//! the answer more often than the one that has them scattered (a best-passage score, as in
//! Callan's passage-level evidence, with the passage a sliding window).

/// BM25's free parameters and pg_dof's heading boost.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bm25Params {
    /// Term-frequency saturation (1.2 in Lucene and most BM25 implementations; 0.8 here).
    pub k1: f64,
    /// Length normalisation, 0 (none) to 1 (full); 0.75 is the usual choice, 0.4 here.
    pub b: f64,
    /// What one position of weight A (the chunk's heading path) counts as; B, C and D
    /// positions count 1.
    pub heading_weight: f64,
}

/// k1 0.8 and b 0.4 by measurement through dof_evaluate (0.3.0's CHANGELOG; a grid of k1
/// 0.4–2.0, b 0.1–0.9 and heading weights 1–4 on the three quality sets): on the DOF
/// editions (800-token chunks of long notices next to short ones) 1.2 / 0.75 gave text
/// 0.733 and hybrid 0.742 MRR@10, and 0.8 / 0.4 give 0.761 and 0.761 (the plateau is k1
/// 0.6–0.8, b 0.2–0.4); the English set moves by under 0.01 (text 0.811 → 0.805, hybrid
/// 0.822 both) and the Peruvian laws' lookups not at all. The DOF's chunks run from a page
/// header to 800 tokens; a lower b ranks a short one less far above a long one holding the
/// same words.
impl Default for Bm25Params {
    fn default() -> Self {
        Self { k1: 0.8, b: 0.4, heading_weight: 2.0 }
    }
}

/// Lucene's IDF of a lexeme held by `holding` of `total` chunks:
/// `ln(1 + (N - n + 0.5) / (n + 0.5))`, never negative (a lexeme in every chunk still adds a
/// little). One formula for one server's counts and a coordinator's sums over shards.
pub fn idf(holding: f64, total: f64) -> f64 {
    (1.0 + (total - holding + 0.5) / (holding + 0.5)).ln()
}

/// The IDF from which a lexeme is selective, ln 20 (in at most about 5% of chunks): the text
/// leg's `match_terms => 'any'` ORs these (those some chunk holds), so its matches, which
/// are all scored, stay few at any table size; common lexemes only add to the score of what
/// they match, unless no chunk holds a selective one (`dof_any_terms_query`).
pub const SELECTIVE_IDF: f64 = 2.995_732_273_553_991;

/// What a pair of the query's neighbouring words found as neighbours in a chunk adds to its
/// score, times the pair's mean IDF. 0.5 by measurement (docs/measurements.md, "Neighbouring
/// words"): with the lists of every leg fixed, 0.25 / 0.5 / 1 moved the text leg's MRR@10 on
/// the DOF set from 0.769 to 0.775 / 0.786 / 0.789 and the English set's from 0.805 to 0.814 /
/// 0.819 / 0.817, and the hybrid's mean over six sets from 0.800 to 0.805 / 0.806 / 0.806.
pub const PAIR_WEIGHT: f64 = 0.5;

/// How many consecutive positions of a chunk [`window_score`] looks at together: 30 words,
/// stopwords included (a tsvector position is a word), about a short paragraph of legal
/// text.
pub const WINDOW_POSITIONS: u16 = 30;

/// What the best window's IDF adds to a chunk's score. 0.25 of 30 positions by measurement
/// (docs/measurements.md, "The query's words together"): with every leg's lists fixed, the
/// hybrid rose on each of six sets or tied (mean 0.806 to 0.809; docling's DOF editions
/// 0.743 to 0.751), weights 0.15 and 0.35 and windows of 25 and 40 positions within 0.002
/// of it.
pub const WINDOW_WEIGHT: f64 = 0.25;

/// The planner's statistics on a tsvector column: `pg_stats.most_common_elems` and
/// `most_common_elem_freqs`, which holds one fraction of rows per element and then the
/// least and greatest of them and the null fraction. 0.1.0's BM25 read them; only its
/// compatibility symbol (`dof_lexeme_fractions_internal`) still does.
pub struct LexemeStats<'a> {
    pub common: &'a [String],
    pub fractions: &'a [f32],
}

impl LexemeStats<'_> {
    /// The fraction of rows holding each lexeme. A lexeme missing from the list is rarer
    /// than all listed ones: it gets half the least listed fraction, as PostgreSQL's own
    /// selectivity estimate for tsvector matches does.
    pub fn fractions(&self, lexemes: &[&str]) -> Vec<f64> {
        let least = self.fractions.get(self.common.len()).copied().unwrap_or(0.0);
        lexemes
            .iter()
            .map(|lexeme| {
                let fraction = self.common.iter().position(|c| c == lexeme).and_then(|i| self.fractions.get(i).copied());
                f64::from(fraction.unwrap_or(least / 2.0))
            })
            .collect()
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("malformed tsvector: {0}")]
pub struct TsVectorError(&'static str);

/// A tsvector's data, the bytes after its 4-byte varlena header:
/// `int32 size`, `size` × `WordEntry` (u32: haspos 1 bit, len 11 bits, pos 20 bits, from
/// the low bit up), then the lexemes; a lexeme with positions is followed, at the next
/// even offset, by `uint16 npos` and `npos` × `uint16` (weight in the top 2 bits).
pub struct TsVector<'a> {
    size: usize,
    entries: &'a [u8],
    strings: &'a [u8],
}

/// One lexeme of a tsvector: its bytes and its positions' weights (empty when stripped).
pub struct Entry<'a> {
    pub lexeme: &'a [u8],
    positions: &'a [u8],
}

impl Entry<'_> {
    /// The lexeme's positions, ascending as PostgreSQL stores them (weights dropped).
    pub fn positions(&self) -> impl Iterator<Item = u16> + '_ {
        self.positions.chunks_exact(2).map(|p| u16::from_ne_bytes([p[0], p[1]]) & 0x3fff)
    }

    /// Weighted term frequency: `heading_weight` per A position, 1 per other position,
    /// 1 for a stripped entry (no positions).
    pub fn frequency(&self, heading_weight: f64) -> f64 {
        if self.positions.is_empty() {
            return 1.0;
        }
        self.positions.chunks_exact(2).map(|p| if u16::from_ne_bytes([p[0], p[1]]) >> 14 == 3 { heading_weight } else { 1.0 }).sum()
    }
}

impl<'a> TsVector<'a> {
    pub fn parse(data: &'a [u8]) -> Result<Self, TsVectorError> {
        let size = data.get(..4).ok_or(TsVectorError("shorter than its header"))?;
        let size = i32::from_ne_bytes(size.try_into().expect("4 bytes"));
        let size = usize::try_from(size).map_err(|_| TsVectorError("negative size"))?;
        let strings_at = size.checked_mul(4).and_then(|n| n.checked_add(4)).ok_or(TsVectorError("size overflows"))?;
        let entries = data.get(4..strings_at).ok_or(TsVectorError("entries past the end"))?;
        Ok(Self { size, entries, strings: &data[strings_at..] })
    }

    /// Distinct lexemes.
    pub fn len(&self) -> usize {
        self.size
    }

    pub fn is_empty(&self) -> bool {
        self.size == 0
    }

    pub fn entry(&self, index: usize) -> Result<Entry<'a>, TsVectorError> {
        let word = self.entries.get(index * 4..index * 4 + 4).ok_or(TsVectorError("entry index out of range"))?;
        let word = u32::from_ne_bytes(word.try_into().expect("4 bytes"));
        let (haspos, len, pos) = (word & 1 == 1, ((word >> 1) & 0x7ff) as usize, (word >> 12) as usize);
        let lexeme = self.strings.get(pos..pos + len).ok_or(TsVectorError("lexeme past the end"))?;
        let positions = if haspos {
            let at = (pos + len + 1) & !1; // SHORTALIGN
            let count = self.strings.get(at..at + 2).ok_or(TsVectorError("position count past the end"))?;
            let count = u16::from_ne_bytes([count[0], count[1]]) as usize;
            self.strings.get(at + 2..at + 2 + 2 * count).ok_or(TsVectorError("positions past the end"))?
        } else {
            &[]
        };
        Ok(Entry { lexeme, positions })
    }

    /// The entry holding `lexeme`, by binary search (entries are sorted by length-aware
    /// byte comparison: bytes first, then the shorter one first).
    pub fn find(&self, lexeme: &[u8]) -> Result<Option<Entry<'a>>, TsVectorError> {
        let (mut low, mut high) = (0, self.size);
        while low < high {
            let middle = (low + high) / 2;
            let entry = self.entry(middle)?;
            match entry.lexeme.cmp(lexeme) {
                std::cmp::Ordering::Equal => return Ok(Some(entry)),
                std::cmp::Ordering::Less => low = middle + 1,
                std::cmp::Ordering::Greater => high = middle,
            }
        }
        Ok(None)
    }
}

/// BM25 score of one document (its tsvector data, its `length`) for the query lexemes
/// with their IDFs. An `average_length` of None turns length normalisation off.
pub fn score(
    document: &TsVector<'_>,
    length: f64,
    lexemes: &[&[u8]],
    idfs: &[f64],
    average_length: Option<f64>,
    params: &Bm25Params,
) -> Result<f64, TsVectorError> {
    Ok(found_score(&lookup(document, lexemes)?, length, idfs, average_length, params))
}

/// The document's entry for each query lexeme (None: not in it), looked up once for the
/// three parts of the text score.
fn lookup<'a>(document: &TsVector<'a>, lexemes: &[&[u8]]) -> Result<Vec<Option<Entry<'a>>>, TsVectorError> {
    lexemes.iter().map(|lexeme| document.find(lexeme)).collect()
}

/// [`score`] of the entries [`lookup`] found.
fn found_score(found: &[Option<Entry<'_>>], length: f64, idfs: &[f64], average_length: Option<f64>, params: &Bm25Params) -> f64 {
    let norm = match average_length {
        Some(average) if average > 0.0 => 1.0 - params.b + params.b * length.max(0.0) / average,
        _ => 1.0,
    };
    let mut total = 0.0;
    for (entry, idf) in found.iter().zip(idfs) {
        if let Some(entry) = entry {
            let tf = entry.frequency(params.heading_weight);
            total += idf * tf * (params.k1 + 1.0) / (tf + params.k1 * norm);
        }
    }
    total
}

/// Two neighbouring words of a query: indices into the query's lexemes and how many
/// positions apart the query has them (2 for "ley de aduanas", its stopword between).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QueryPair {
    pub first: usize,
    pub second: usize,
    pub gap: u16,
}

/// The query's neighbouring words as [`QueryPair`]s, from the query's own tsvector (its
/// words' positions) and the lexemes BM25 scores: each two successive positions whose
/// lexemes are both scored and differ, once each.
pub fn query_pairs(query: &TsVector<'_>, lexemes: &[&[u8]]) -> Result<Vec<QueryPair>, TsVectorError> {
    let mut positions = Vec::new();
    for index in 0..query.len() {
        let entry = query.entry(index)?;
        let scored = lexemes.iter().position(|l| *l == entry.lexeme);
        positions.extend(entry.positions().map(|p| (p, scored)));
    }
    positions.sort_unstable();
    let mut pairs: Vec<QueryPair> = Vec::new();
    for window in positions.windows(2) {
        if let [(at, Some(first)), (next, Some(second))] = *window {
            let pair = QueryPair { first, second, gap: next - at };
            if first != second && pair.gap > 0 && !pairs.contains(&pair) {
                pairs.push(pair);
            }
        }
    }
    Ok(pairs)
}

/// What the query's pairs add to a document's score: [`PAIR_WEIGHT`] times the mean IDF of
/// each pair whose second word stands `gap` positions after its first somewhere in the
/// document. A document without positions (stripped) gets nothing.
pub fn pair_score(document: &TsVector<'_>, lexemes: &[&[u8]], idfs: &[f64], pairs: &[QueryPair]) -> Result<f64, TsVectorError> {
    Ok(found_pair_score(&lookup(document, lexemes)?, idfs, pairs))
}

/// [`pair_score`] of the entries [`lookup`] found.
fn found_pair_score(found: &[Option<Entry<'_>>], idfs: &[f64], pairs: &[QueryPair]) -> f64 {
    let mut total = 0.0;
    for pair in pairs {
        let (Some(Some(first)), Some(Some(second)), Some(first_idf), Some(second_idf)) =
            (found.get(pair.first), found.get(pair.second), idfs.get(pair.first), idfs.get(pair.second))
        else {
            continue; // pairs of other lexemes than these, or not both in the document: nothing to add
        };
        let mut seconds = second.positions().peekable();
        let neighbours = first.positions().any(|at| {
            let wanted = at.saturating_add(pair.gap);
            while seconds.next_if(|p| *p < wanted).is_some() {}
            seconds.peek() == Some(&wanted)
        });
        if neighbours {
            total += PAIR_WEIGHT * (first_idf + second_idf) / 2.0;
        }
    }
    total
}

/// What the query's words together add to a document's score: [`WINDOW_WEIGHT`] times the
/// most IDF that the distinct query lexemes found within some [`WINDOW_POSITIONS`]
/// consecutive positions of the document sum to. A lexeme counts once however often it
/// stands there; a document without positions (stripped) gets nothing.
pub fn window_score(document: &TsVector<'_>, lexemes: &[&[u8]], idfs: &[f64]) -> Result<f64, TsVectorError> {
    Ok(found_window_score(&lookup(document, lexemes)?, idfs))
}

/// [`window_score`] of the entries [`lookup`] found.
fn found_window_score(entries: &[Option<Entry<'_>>], idfs: &[f64]) -> f64 {
    let mut found = Vec::new();
    for (index, (entry, idf)) in entries.iter().zip(idfs).enumerate() {
        if let (Some(entry), true) = (entry, idf.is_finite()) {
            found.extend(entry.positions().map(|at| (at, index)));
        }
    }
    found.sort_unstable();
    // a sliding window over the positions, ending at each in turn: `inside` counts each
    // lexeme's positions in it, `sum` the IDF of those it holds at least once
    let mut inside = vec![0usize; entries.len()];
    let (mut sum, mut best, mut start) = (0.0f64, 0.0f64, 0);
    for &(at, index) in &found {
        if inside[index] == 0 {
            sum += idfs[index];
        }
        inside[index] += 1;
        while found[start].0 + WINDOW_POSITIONS <= at {
            let left = found[start].1;
            inside[left] -= 1;
            if inside[left] == 0 {
                sum -= idfs[left];
            }
            start += 1;
        }
        best = best.max(sum);
    }
    WINDOW_WEIGHT * best
}

/// The text leg's score of one document: its BM25 ([`score`]) plus, given the query's own
/// tsvector, what the query's neighbouring words add ([`query_pairs`], [`pair_score`]) and
/// what its words together in one stretch add ([`window_score`]). Without the query's
/// tsvector (`dof_bm25_score_internal`, 0.1.0's symbol) it is BM25 alone.
pub fn text_score(
    document: &TsVector<'_>,
    query: Option<&TsVector<'_>>,
    length: f64,
    lexemes: &[&[u8]],
    idfs: &[f64],
    average_length: Option<f64>,
    params: &Bm25Params,
) -> Result<f64, TsVectorError> {
    let found = lookup(document, lexemes)?;
    let bm25 = found_score(&found, length, idfs, average_length, params);
    let Some(query) = query else { return Ok(bm25) };
    let pairs = found_pair_score(&found, idfs, &query_pairs(query, lexemes)?);
    Ok(bm25 + pairs + found_window_score(&found, idfs))
}

/// A query's full-match score: what [`score`] gives a chunk of average length that holds
/// each of the query's lexemes once (tf 1 and norm 1 make each term's part its IDF), so
/// the sum of the IDFs. The weighted fusion measures the text leg's best chunk against it
/// ([`crate::fuse::text_share`]): a best chunk far under it matched little of the query.
pub fn full_match_score(idfs: &[f64]) -> f64 {
    idfs.iter().filter(|idf| idf.is_finite()).sum()
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    #[test]
    fn the_full_match_score_is_what_an_average_chunk_holding_each_lexeme_once_scores() {
        // two lexemes, one position each (weight D), in a chunk of the average length
        let data = tsvector(&[("ley", &[(1, 0)]), ("plazo", &[(2, 0)])]);
        let lexemes: [&[u8]; 2] = [b"ley", b"plazo"];
        let document = TsVector::parse(&data).expect("a valid tsvector");
        let idfs = [0.7, 3.2];
        let params = Bm25Params::default();
        let scored = score(&document, 40.0, &lexemes, &idfs, Some(40.0), &params).unwrap();
        assert!((scored - full_match_score(&idfs)).abs() < 1e-12, "{scored}");
        assert_eq!(full_match_score(&[]), 0.0);
    }

    #[test]
    fn the_idf_is_lucenes_and_the_selective_one_is_ln_20() {
        // Lucene's BM25Similarity: log(1 + (docCount - docFreq + 0.5) / (docFreq + 0.5))
        assert!((idf(1.0, 100.0) - (1.0f64 + 99.5 / 1.5).ln()).abs() < 1e-12);
        assert!((idf(100.0, 100.0) - (1.0f64 + 0.5 / 100.5).ln()).abs() < 1e-12);
        assert!(idf(100.0, 100.0) > 0.0, "a lexeme in every chunk is not negative");
        assert!(idf(1.0, 1000.0) > idf(10.0, 1000.0), "rarer weighs more");
        assert_eq!(SELECTIVE_IDF, 20f64.ln());
        // ln 20: a lexeme in 5% of a large collection is just under it
        assert!(idf(4_000.0, 100_000.0) > SELECTIVE_IDF && idf(6_000.0, 100_000.0) < SELECTIVE_IDF);
    }

    /// Builds tsvector data the way PostgreSQL lays it out: (lexeme, [(position, weight)]),
    /// lexemes given in sorted order; weight 3 = A … 0 = D.
    pub(crate) fn tsvector(words: &[(&str, &[(u16, u16)])]) -> Vec<u8> {
        let mut strings = Vec::new();
        let mut entries = Vec::new();
        for (lexeme, positions) in words {
            let pos = strings.len() as u32;
            strings.extend_from_slice(lexeme.as_bytes());
            let haspos = u32::from(!positions.is_empty());
            entries.push(haspos | ((lexeme.len() as u32) << 1) | (pos << 12));
            if !positions.is_empty() {
                if strings.len() % 2 == 1 {
                    strings.push(0);
                }
                strings.extend_from_slice(&(positions.len() as u16).to_ne_bytes());
                for (position, weight) in positions.iter() {
                    strings.extend_from_slice(&((weight << 14) | position).to_ne_bytes());
                }
            }
        }
        let mut data = (words.len() as i32).to_ne_bytes().to_vec();
        entries.iter().for_each(|e| data.extend_from_slice(&e.to_ne_bytes()));
        data.extend_from_slice(&strings);
        data
    }

    #[test]
    fn neighbouring_query_words_add_their_mean_idf_where_a_chunk_has_them_as_neighbours() {
        // the query "ley de aduanas plazo": ley 1, aduan 3, plazo 4 (and a word BM25 does
        // not score, at 6, which makes no pair)
        let query = tsvector(&[("aduan", &[(3, 0)]), ("ley", &[(1, 0)]), ("otro", &[(6, 0)]), ("plazo", &[(4, 0)])]);
        let lexemes: [&[u8]; 3] = [b"aduan", b"ley", b"plazo"];
        let idfs = [3.0, 1.0, 2.0];
        let pairs = query_pairs(&TsVector::parse(&query).unwrap(), &lexemes).unwrap();
        assert_eq!(pairs, vec![QueryPair { first: 1, second: 0, gap: 2 }, QueryPair { first: 0, second: 2, gap: 1 }]);
        // "ley ... aduanas" two apart (heading weight A on ley: weights do not matter), and
        // "plazo" before "aduanas", not after: only the first pair counts
        let together = tsvector(&[("aduan", &[(9, 0), (30, 0)]), ("ley", &[(7, 3), (20, 0)]), ("plazo", &[(29, 0)])]);
        let together = TsVector::parse(&together).unwrap();
        let bonus = pair_score(&together, &lexemes, &idfs, &pairs).unwrap();
        assert!((bonus - PAIR_WEIGHT * (1.0 + 3.0) / 2.0).abs() < 1e-12, "{bonus}");
        // the same words apart score no pair, and BM25 is the same for both
        let apart = tsvector(&[("aduan", &[(12, 0), (30, 0)]), ("ley", &[(7, 3), (20, 0)]), ("plazo", &[(29, 0)])]);
        let apart = TsVector::parse(&apart).unwrap();
        assert_eq!(pair_score(&apart, &lexemes, &idfs, &pairs).unwrap(), 0.0);
        let p = Bm25Params::default();
        assert_eq!(score(&together, 9.0, &lexemes, &idfs, None, &p), score(&apart, 9.0, &lexemes, &idfs, None, &p));
        // a stripped tsvector has no positions, so no pairs; a repeated pair counts once
        let stripped = tsvector(&[("aduan", &[]), ("ley", &[])]);
        let stripped = TsVector::parse(&stripped).unwrap();
        assert_eq!(pair_score(&stripped, &lexemes, &idfs, &pairs).unwrap(), 0.0);
        let twice = tsvector(&[("aduan", &[(3, 0), (7, 0)]), ("ley", &[(1, 0), (5, 0)])]);
        assert_eq!(query_pairs(&TsVector::parse(&twice).unwrap(), &lexemes).unwrap().len(), 2, "ley-aduan gap 2 once, aduan-ley gap 2");
    }

    proptest::proptest! {
        /// The sliding window finds what its definition says: the most IDF of distinct
        /// lexemes that some WINDOW_POSITIONS consecutive positions hold, every start tried.
        #[test]
        fn the_window_is_the_best_of_every_stretch_of_window_positions(
            a in proptest::collection::btree_set(1u16..300, 0..20),
            b in proptest::collection::btree_set(1u16..300, 0..20),
            c in proptest::collection::btree_set(1u16..300, 0..20),
        ) {
            let sets = [&a, &b, &c];
            let positions = |set: &std::collections::BTreeSet<u16>| set.iter().map(|p| (*p, 0)).collect::<Vec<_>>();
            let words: Vec<(&str, Vec<(u16, u16)>)> =
                ["a", "b", "c"].iter().zip(sets).filter(|(_, set)| !set.is_empty()).map(|(w, set)| (*w, positions(set))).collect();
            let words: Vec<(&str, &[(u16, u16)])> = words.iter().map(|(w, p)| (*w, p.as_slice())).collect();
            let data = tsvector(&words);
            let lexemes: [&[u8]; 3] = [b"a", b"b", b"c"];
            let idfs = [1.0, 2.0, 4.0];
            let found = window_score(&TsVector::parse(&data).unwrap(), &lexemes, &idfs).unwrap();
            let expected = (1u16..300)
                .map(|start| {
                    sets.iter().zip(idfs).filter(|(set, _)| set.range(start..start + WINDOW_POSITIONS).next().is_some()).map(|(_, idf)| idf).sum::<f64>()
                })
                .fold(0.0, f64::max);
            proptest::prop_assert_eq!(found, WINDOW_WEIGHT * expected);
        }

        /// The merge of the two position lists finds a pair exactly when some position of
        /// its second word stands `gap` after one of its first's (what PostgreSQL's
        /// `a <gap> b` matches; regress 08 checks the two on stored chunks).
        #[test]
        fn a_pair_counts_exactly_when_its_second_word_stands_gap_after_its_first(
            firsts in proptest::collection::btree_set(1u16..400, 1..30),
            seconds in proptest::collection::btree_set(1u16..400, 1..30),
            gap in 1u16..6,
        ) {
            let positions = |set: &std::collections::BTreeSet<u16>| set.iter().map(|p| (*p, 0)).collect::<Vec<_>>();
            let data = tsvector(&[("a", &positions(&firsts)), ("b", &positions(&seconds))]);
            let document = TsVector::parse(&data).unwrap();
            let lexemes: [&[u8]; 2] = [b"a", b"b"];
            let pairs = [QueryPair { first: 0, second: 1, gap }];
            let found = pair_score(&document, &lexemes, &[2.0, 4.0], &pairs).unwrap();
            let expected = firsts.iter().any(|p| seconds.contains(&(p + gap)));
            proptest::prop_assert_eq!(found, if expected { PAIR_WEIGHT * 3.0 } else { 0.0 });
        }
    }

    #[test]
    fn the_query_words_in_one_stretch_add_the_best_windows_idf() {
        let lexemes: [&[u8]; 3] = [b"aduan", b"ley", b"plazo"];
        let idfs = [3.0, 1.0, 2.0];
        let w = usize::from(WINDOW_POSITIONS);
        // all three within one window at 100..=100 + w - 1, scattered elsewhere
        let at = |p: usize| u16::try_from(p).unwrap();
        let together = tsvector(&[("aduan", &[(5, 0), (at(100 + w - 1), 0)]), ("ley", &[(100, 3)]), ("plazo", &[(110, 0), (400, 0)])]);
        let together = TsVector::parse(&together).unwrap();
        let best = window_score(&together, &lexemes, &idfs).unwrap();
        assert!((best - WINDOW_WEIGHT * 6.0).abs() < 1e-12, "{best}");
        // one position further apart, the window holds two of them at most: ley and plazo
        // (1 + 2) or plazo and aduan (2 + 3)
        let apart = tsvector(&[("aduan", &[(5, 0), (at(100 + w), 0)]), ("ley", &[(100, 3)]), ("plazo", &[(110, 0), (400, 0)])]);
        let apart = TsVector::parse(&apart).unwrap();
        assert!((window_score(&apart, &lexemes, &idfs).unwrap() - WINDOW_WEIGHT * 5.0).abs() < 1e-12);
        // a lexeme counts once in a window; a lexeme whose IDF is not finite counts nothing;
        // no positions, nothing
        let repeated = tsvector(&[("ley", &[(1, 0), (2, 0), (3, 0)])]);
        let repeated = TsVector::parse(&repeated).unwrap();
        assert!((window_score(&repeated, &lexemes, &idfs).unwrap() - WINDOW_WEIGHT).abs() < 1e-12);
        assert_eq!(window_score(&together, &lexemes, &[f64::NAN, 1.0, 2.0]).unwrap(), WINDOW_WEIGHT * 3.0);
        let stripped = tsvector(&[("aduan", &[]), ("ley", &[])]);
        assert_eq!(window_score(&TsVector::parse(&stripped).unwrap(), &lexemes, &idfs).unwrap(), 0.0);
        // the text score is BM25 plus the pairs plus the window, and BM25 alone without the
        // query's tsvector
        let query = tsvector(&[("aduan", &[(3, 0)]), ("ley", &[(1, 0)])]);
        let query = TsVector::parse(&query).unwrap();
        let p = Bm25Params::default();
        let pairs = pair_score(&together, &lexemes, &idfs, &query_pairs(&query, &lexemes).unwrap()).unwrap();
        let bm25 = score(&together, 9.0, &lexemes, &idfs, None, &p).unwrap();
        let text = text_score(&together, Some(&query), 9.0, &lexemes, &idfs, None, &p).unwrap();
        assert!((text - (bm25 + pairs + best)).abs() < 1e-12);
        assert_eq!(text_score(&together, None, 9.0, &lexemes, &idfs, None, &p).unwrap(), bm25);
    }

    #[test]
    fn reads_lexemes_positions_and_weights() {
        let data = tsvector(&[("imp", &[(1, 3), (7, 2)]), ("ley", &[(2, 2)]), ("renta", &[])]);
        let v = TsVector::parse(&data).unwrap();
        assert_eq!(v.len(), 3);
        assert_eq!(v.find(b"imp").unwrap().unwrap().frequency(2.0), 3.0); // A counts 2, B 1
        assert_eq!(v.find(b"ley").unwrap().unwrap().frequency(2.0), 1.0);
        assert_eq!(v.find(b"renta").unwrap().unwrap().frequency(2.0), 1.0); // stripped
        assert!(v.find(b"lex").unwrap().is_none());
        assert!(v.find(b"zz").unwrap().is_none());
    }

    #[test]
    fn listed_fractions_and_half_the_least_for_unlisted_lexemes() {
        let common = vec!["ley".to_string(), "articul".to_string()];
        let stats = LexemeStats { common: &common, fractions: &[0.4, 0.1, 0.1, 0.4, 0.0] };
        let fractions = stats.fractions(&["ley", "articul", "aduan"]);
        assert_eq!(fractions, vec![f64::from(0.4f32), f64::from(0.1f32), f64::from(0.1f32 / 2.0)]);
    }

    #[test]
    fn frequency_saturates() {
        let p = Bm25Params::default();
        let once = tsvector(&[("ley", &[(1, 2)])]);
        let many = tsvector(&[("ley", &[(1, 2), (2, 2), (3, 2), (4, 2), (5, 2), (6, 2), (7, 2), (8, 2)])]);
        let s1 = score(&TsVector::parse(&once).unwrap(), 1.0, &[b"ley"], &[1.0], None, &p).unwrap();
        let s8 = score(&TsVector::parse(&many).unwrap(), 8.0, &[b"ley"], &[1.0], None, &p).unwrap();
        assert!((s1 - 1.0).abs() < 1e-12, "tf 1, no length norm: (k1+1)/(1+k1) = 1");
        assert!(s8 > s1 && s8 < p.k1 + 1.0, "saturates below k1 + 1: {s8}");
    }

    #[test]
    fn longer_documents_score_lower_for_the_same_frequency() {
        let p = Bm25Params::default();
        let doc = tsvector(&[("ley", &[(1, 2)])]);
        let s = score(&TsVector::parse(&doc).unwrap(), 10.0, &[b"ley"], &[1.0], Some(20.0), &p).unwrap();
        let l = score(&TsVector::parse(&doc).unwrap(), 40.0, &[b"ley"], &[1.0], Some(20.0), &p).unwrap();
        assert!(s > l);
    }

    #[test]
    fn malformed_data_is_an_error_not_a_panic() {
        assert!(TsVector::parse(&[1, 0]).is_err());
        assert!(TsVector::parse(&(-1i32).to_ne_bytes()).is_err());
        let mut data = tsvector(&[("ley", &[(1, 2)])]);
        data.truncate(data.len() - 1);
        let v = TsVector::parse(&data).unwrap();
        assert!(v.entry(0).is_err());
        let huge = 5i32.to_ne_bytes();
        assert!(TsVector::parse(&huge).is_err());
    }
}
