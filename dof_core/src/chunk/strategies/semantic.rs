//! The semantic strategy (seed 002): the document's units — its paragraphs (markdown
//! blocks; a block over the limit in sentences), or its sentences — are embedded with up to
//! `buffer_size` neighbours, and the document is cut where what comes before a gap stops
//! being similar to what comes after it ([`crate::chunk::breakpoints`], thresholds as
//! LangChain's `SemanticChunker` computes them).
//!
//! The windows are one-sided: the distance at a gap compares the `buffer_size + 1` units
//! ending at it with the `buffer_size + 1` units starting after it (as many as both sides
//! have, near the ends). LangChain centres a
//! window on each sentence, so both windows around a topic change hold sentences of both
//! topics and the largest distance lands a sentence late (measured on the seed's own
//! example with multilingual-e5-small: the centred peak cut "Python es un lenguaje…" off
//! from the Python paragraph). One-sided windows cost no more: window `[i, i + b]` is the
//! right side of one gap and the left side of another, so each is embedded once.
//!
//! Unlike LangChain and LlamaIndex, the result is bounded:
//! - `max_tokens` is a hard limit: a group over it is cut at its weakest internal
//!   similarity, recursively; a single sentence over it is cut by the shared packer
//!   (lines, words), a table over it by rows with the header repeated;
//! - a group under `min_tokens` merges into the next (or, when that would pass the limit,
//!   the previous) group; one stays small only when neither neighbour has room;
//! - `overlap_sentences` repeats the previous chunk's last units at the start of the next
//!   only as far as the limit allows.
//!
//! Headings and bold header lines never end a chunk: no cut right after them.

use std::collections::HashMap;
use std::ops::Range;

use super::{whole_number, Document, Limits, Settings, Strategy};
use crate::chunk::breakpoints::{self, ThresholdType};
use crate::chunk::pack::{Packer, Piece, Unit, UnitKind};
use crate::chunk::{sentences, ChunkError};

const BUFFER_SIZE: usize = 1;
const MIN_TOKENS: usize = 0;
const MAX_BUFFER_SIZE: usize = 16;
const MAX_OVERLAP_SENTENCES: usize = 16;

pub struct SemanticStrategy;

/// The strategy's settings, parsed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SemanticSettings {
    /// Paragraphs (markdown blocks) or sentences.
    pub by_sentence: bool,
    pub threshold_type: ThresholdType,
    pub threshold_amount: f64,
    pub buffer_size: usize,
    pub min_tokens: usize,
    pub overlap_sentences: usize,
}

impl Strategy for SemanticStrategy {
    fn name(&self) -> &'static str {
        "semantic"
    }

    fn description(&self) -> &'static str {
        "cuts where consecutive sentence embeddings stop being similar (percentile, standard_deviation, interquartile or gradient threshold), with min_tokens, a hard max_tokens and sentence overlap; needs a model"
    }

    fn settings(&self) -> &'static [(&'static str, &'static str)] {
        &[
            ("unit", "paragraph (default: markdown blocks, a block over the limit in sentences) or sentence"),
            ("threshold_type", "percentile (default), standard_deviation, interquartile or gradient"),
            ("threshold_amount", "percentile 75, standard_deviation 3, interquartile 1.5, gradient 95 by default"),
            ("buffer_size", "units embedded on each side of a gap besides the nearest one (default 1)"),
            ("min_tokens", "a smaller group merges into its neighbour (default 0)"),
            ("overlap_sentences", "units of the previous chunk repeated at the start of the next, within the limit (default 0)"),
        ]
    }

    fn check(&self, settings: &Settings) -> Result<(), ChunkError> {
        parse(settings).map(|_| ())
    }

    fn pieces(&self, document: &Document, packer: &Packer, limits: &Limits) -> Result<Vec<Piece>, ChunkError> {
        let settings = parse(limits.settings)?;
        if settings.min_tokens > packer.max_tokens {
            return Err(invalid(format!("min_tokens ({}) must not exceed max_tokens ({})", settings.min_tokens, packer.max_tokens)));
        }
        let embedder = limits.embedder.ok_or(ChunkError::NeedsModel("semantic"))?;
        let sentences = sentence_units(document, packer, settings.by_sentence)?;
        if sentences.is_empty() {
            return Ok(Vec::new());
        }
        let distances = gap_distances(document.text, &sentences, settings.buffer_size, packer, embedder)?;
        let n = sentences.len();
        let mut cut = vec![false; n.saturating_sub(1)];
        for gap in breakpoints::breakpoints(&distances, settings.threshold_type, settings.threshold_amount) {
            cut[gap] = true;
        }
        let plan = Plan { sentences: &sentences, distances: &distances, packer };
        // a table piece with a repeated header is a group of its own; no cut after a heading
        for (gap, flag) in cut.iter_mut().enumerate() {
            *flag = (*flag || sentences[gap].header.is_some() || sentences[gap + 1].header.is_some()) && !sentences[gap].keep_with_next;
        }
        let mut groups = Vec::new();
        let mut start = 0;
        for gap in cut.iter().enumerate().filter(|(_, cut)| **cut).map(|(gap, _)| gap) {
            plan.bounded(start..gap + 1, &mut groups)?;
            start = gap + 1;
        }
        plan.bounded(start..n, &mut groups)?;
        let groups = plan.merge_small(groups, settings.min_tokens)?;
        plan.pieces(&groups, settings.overlap_sentences)
    }
}

fn invalid(message: String) -> ChunkError {
    ChunkError::InvalidSetting { strategy: "semantic", message }
}

/// The distance at each gap between the `buffer + 1` units ending there and the `buffer + 1`
/// units starting after it (fewer, on both sides, near the ends or where that many would
/// pass the limit); each distinct window embedded once.
fn gap_distances(
    text: &str,
    units: &[Sentence],
    buffer: usize,
    packer: &Packer,
    embedder: &super::SentenceEmbedder,
) -> Result<Vec<f64>, ChunkError> {
    let n = units.len();
    if n < 2 {
        return Ok(Vec::new());
    }
    // both sides the same size: near the ends of the document a window is shorter, and a
    // short window against a long one reads as a change; and within the limit, which keeps
    // them inside the model's window (a model cuts a long input at its end, which for the
    // left side is the part next to the gap)
    let tokens = |first: usize, last: usize| packer.count(units[first].span.start..units[last].span.end);
    let mut sides: Vec<((usize, usize), (usize, usize))> = Vec::with_capacity(n - 1);
    for gap in 0..n - 1 {
        let mut width = buffer.min(gap).min(n - 2 - gap);
        while width > 0 && (tokens(gap - width, gap)? > packer.max_tokens || tokens(gap + 1, gap + 1 + width)? > packer.max_tokens) {
            width -= 1;
        }
        sides.push(((gap - width, gap), (gap + 1, gap + 1 + width)));
    }
    let mut index: HashMap<(usize, usize), usize> = HashMap::new();
    let mut windows: Vec<&str> = Vec::new();
    for &(left, right) in &sides {
        for (first, last) in [left, right] {
            index.entry((first, last)).or_insert_with(|| {
                windows.push(&text[units[first].span.start..units[last].span.end]);
                windows.len() - 1
            });
        }
    }
    let vectors = embedder(&windows)?;
    Ok(sides.iter().map(|(left, right)| breakpoints::distance(&vectors[index[left]], &vectors[index[right]])).collect())
}

/// The settings with their defaults, or why they are wrong.
pub fn parse(settings: &Settings) -> Result<SemanticSettings, ChunkError> {
    let by_sentence = match settings.get("unit").map(String::as_str) {
        None | Some("paragraph") => false,
        Some("sentence") => true,
        Some(other) => return Err(invalid(format!("unknown unit \"{other}\": use paragraph or sentence"))),
    };
    let threshold_type = match settings.get("threshold_type") {
        None => ThresholdType::Percentile,
        Some(name) => ThresholdType::parse(name)
            .ok_or_else(|| invalid(format!("unknown threshold_type \"{name}\": use {}", ThresholdType::names())))?,
    };
    let threshold_amount = match settings.get("threshold_amount") {
        None => threshold_type.default_amount(),
        Some(value) => value.parse::<f64>().map_err(|_| invalid(format!("threshold_amount must be a number, got \"{value}\"")))?,
    };
    threshold_type.check_amount(threshold_amount).map_err(invalid)?;
    let whole = |key: &str, default: usize, most: usize| whole_number(settings, "semantic", key, default, 0, most);
    Ok(SemanticSettings {
        by_sentence,
        threshold_type,
        threshold_amount,
        buffer_size: whole("buffer_size", BUFFER_SIZE, MAX_BUFFER_SIZE)?,
        min_tokens: whole("min_tokens", MIN_TOKENS, usize::MAX)?,
        overlap_sentences: whole("overlap_sentences", 0, MAX_OVERLAP_SENTENCES)?,
    })
}

/// A unit: a block, a sentence, a piece of one too long for the limit, or a table (piece).
struct Sentence {
    span: Range<usize>,
    /// A table piece's repeated header row and separator.
    header: Option<Range<usize>>,
    path: usize,
    /// Cut below sentence level (words, characters, table rows).
    split: bool,
    table_piece: bool,
    /// A heading or bold header line: no cut right after it.
    keep_with_next: bool,
}

/// The document's units in order (blocks, or sentences: a block over the limit is always
/// cut into its sentences), each within the limit.
fn sentence_units(document: &Document, packer: &Packer, by_sentence: bool) -> Result<Vec<Sentence>, ChunkError> {
    let mut out = Vec::new();
    let mut pieces = Vec::new();
    for unit in document.units {
        let keep_with_next = unit.kind == UnitKind::KeepWithNext;
        let spans = match unit.kind {
            // a table is one unit while it fits; otherwise the packer's table pieces
            UnitKind::Table(_) => vec![unit.span.clone()],
            _ if !by_sentence && packer.count(unit.span.clone())? <= packer.max_tokens => vec![unit.span.clone()],
            _ => sentences::split(document.text, unit.span.clone()),
        };
        for span in spans {
            if packer.count(span.clone())? <= packer.max_tokens {
                out.push(Sentence { span, header: None, path: unit.path, split: false, table_piece: false, keep_with_next });
                continue;
            }
            pieces.clear();
            let kind = if matches!(unit.kind, UnitKind::Table(_)) { unit.kind.clone() } else { UnitKind::Text };
            packer.pack(&[Unit { span, kind, heading: 0, path: unit.path }], &mut pieces)?;
            out.extend(pieces.drain(..).map(|piece| Sentence {
                span: piece.span,
                header: piece.header,
                path: unit.path,
                split: piece.split || piece.table_piece,
                table_piece: piece.table_piece,
                keep_with_next,
            }));
        }
    }
    Ok(out)
}

struct Plan<'p, 'm, 'a> {
    sentences: &'p [Sentence],
    /// `distances[i]`: between sentences `i` and `i + 1`.
    distances: &'p [f64],
    packer: &'p Packer<'m, 'a>,
}

impl Plan<'_, '_, '_> {
    /// Tokens of the sentences `group` as one chunk (with a table piece's header).
    fn tokens(&self, group: &Range<usize>) -> Result<usize, ChunkError> {
        let first = &self.sentences[group.start];
        let span = first.span.start..self.sentences[group.end - 1].span.end;
        let header = match &first.header {
            Some(header) => self.packer.count(header.clone())?,
            None => 0,
        };
        Ok(header + self.packer.count(span)?)
    }

    /// `group`, cut at its weakest internal similarity until every part fits.
    fn bounded(&self, group: Range<usize>, out: &mut Vec<Range<usize>>) -> Result<(), ChunkError> {
        if group.len() <= 1 || self.tokens(&group)? <= self.packer.max_tokens {
            out.push(group);
            return Ok(());
        }
        // the gap after sentence g, for g in group.start..group.end - 1; after a heading
        // only when there is no other gap
        let gaps = group.start..group.end - 1;
        let allowed = |g: &usize| !self.sentences[*g].keep_with_next;
        // ties go to the gap nearest the middle: equal distances (identical sentences, a
        // model that cannot tell) then halve the group, and the recursion stays n log n
        let middle = (group.start + group.end) / 2;
        let weakest = |candidates: &mut dyn Iterator<Item = usize>| {
            candidates.max_by(|a, b| self.distance(*a).total_cmp(&self.distance(*b)).then(b.abs_diff(middle).cmp(&a.abs_diff(middle))))
        };
        let gap = weakest(&mut gaps.clone().filter(allowed)).or_else(|| weakest(&mut gaps.clone())).expect("a group of two or more");
        self.bounded(group.start..gap + 1, out)?;
        self.bounded(gap + 1..group.end, out)
    }

    fn distance(&self, gap: usize) -> f64 {
        self.distances.get(gap).copied().unwrap_or(0.0)
    }

    /// Groups under `min_tokens` merged into the next group, or the previous one when the
    /// next has no room; a table piece with a repeated header stays alone.
    fn merge_small(&self, groups: Vec<Range<usize>>, min_tokens: usize) -> Result<Vec<Range<usize>>, ChunkError> {
        if min_tokens == 0 {
            return Ok(groups);
        }
        let alone = |group: &Range<usize>| self.sentences[group.start].header.is_some();
        let mut out: Vec<Range<usize>> = Vec::with_capacity(groups.len());
        let mut carry: Option<Range<usize>> = None;
        for group in groups {
            let mut current = group;
            if let Some(small) = carry.take() {
                let merged = small.start..current.end;
                if !alone(&current) && self.tokens(&merged)? <= self.packer.max_tokens {
                    current = merged;
                } else if let Some(gap) = self.rebalance(&small, &current, min_tokens, alone(&current))? {
                    // no room for all of it: the small group takes the head of the next one
                    out.push(small.start..gap + 1);
                    current = gap + 1..current.end;
                } else {
                    self.merge_back(&mut out, small)?;
                }
            }
            if !alone(&current) && self.tokens(&current)? < min_tokens {
                carry = Some(current);
            } else {
                out.push(current);
            }
        }
        if let Some(small) = carry {
            self.merge_back(&mut out, small)?;
        }
        Ok(out)
    }

    /// A gap inside `next` where `small` plus the head of `next` and the rest of `next` both
    /// hold `min_tokens` within the limit: the weakest such similarity. `None` when there is
    /// none (or `next` must stay whole).
    fn rebalance(
        &self,
        small: &Range<usize>,
        next: &Range<usize>,
        min_tokens: usize,
        next_alone: bool,
    ) -> Result<Option<usize>, ChunkError> {
        if next_alone {
            return Ok(None);
        }
        let mut best: Option<usize> = None;
        for gap in next.start..next.end - 1 {
            let (head, rest) = (small.start..gap + 1, gap + 1..next.end);
            let head_tokens = self.tokens(&head)?;
            if head_tokens > self.packer.max_tokens {
                break; // later gaps only make the head longer
            }
            if head_tokens >= min_tokens && self.tokens(&rest)? >= min_tokens && best.is_none_or(|b| self.distance(gap) > self.distance(b))
            {
                best = Some(gap);
            }
        }
        Ok(best)
    }

    /// `small` appended to the last group when it fits there, or kept on its own.
    fn merge_back(&self, out: &mut Vec<Range<usize>>, small: Range<usize>) -> Result<(), ChunkError> {
        if let Some(last) = out.last_mut() {
            if self.sentences[last.start].header.is_none() && self.tokens(&(last.start..small.end))? <= self.packer.max_tokens {
                last.end = small.end;
                return Ok(());
            }
        }
        out.push(small);
        Ok(())
    }

    /// The groups as pieces, each starting up to `overlap` sentences early when that fits.
    fn pieces(&self, groups: &[Range<usize>], overlap: usize) -> Result<Vec<Piece>, ChunkError> {
        let mut pieces = Vec::with_capacity(groups.len());
        for (index, group) in groups.iter().enumerate() {
            let first = &self.sentences[group.start];
            let mut start = group.start;
            if index > 0 && first.header.is_none() {
                let previous = &groups[index - 1];
                let earliest = group.start.saturating_sub(overlap).max(previous.start);
                for candidate in earliest..group.start {
                    let usable = self.sentences[candidate..group.start].iter().all(|s| s.header.is_none());
                    if usable && self.tokens(&(candidate..group.end))? <= self.packer.max_tokens {
                        start = candidate;
                        break;
                    }
                }
            }
            let members = &self.sentences[group.clone()];
            pieces.push(Piece {
                span: self.sentences[start].span.start..self.sentences[group.end - 1].span.end,
                header: if start == group.start { first.header.clone() } else { None },
                path: first.path,
                table_piece: members.iter().any(|s| s.table_piece),
                split: members.iter().any(|s| s.split),
                overlap: start < group.start,
            });
        }
        Ok(pieces)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chunk::{chunk_document_using, CharacterSizer, ChunkOptions};
    use crate::embed::hash::HashEmbedder;
    use crate::embed::EmbedError;

    fn options(max_tokens: usize, settings: &[(&str, &str)]) -> ChunkOptions {
        // one-paragraph texts: cut by sentence unless a test says otherwise
        let mut settings: Settings = settings.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        settings.entry("unit".into()).or_insert_with(|| "sentence".into());
        ChunkOptions { max_tokens, overlap_tokens: 0, strategy: "semantic".into(), settings, ..ChunkOptions::default() }
    }

    fn hash(texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        let embedder = HashEmbedder::new(256);
        Ok(texts.iter().map(|t| embedder.embed_one(t)).collect())
    }

    fn chunk(text: &str, max_tokens: usize, settings: &[(&str, &str)]) -> Vec<String> {
        chunk_document_using(text, &CharacterSizer, &options(max_tokens, settings), &|| {}, Some(&hash))
            .unwrap()
            .into_iter()
            .map(|c| c.content)
            .collect()
    }

    #[test]
    fn a_topic_change_is_a_cut() {
        // two topics sharing no words: the hash embedder sees the change between them
        let text = "Gato negro duerme. Gato negro come. Gato negro juega. \
                    Impuesto federal anual. Impuesto federal mensual. Impuesto federal diario.";
        let chunks = chunk(text, 400, &[("buffer_size", "0"), ("threshold_type", "percentile"), ("threshold_amount", "75")]);
        assert_eq!(
            chunks,
            vec![
                "Gato negro duerme. Gato negro come. Gato negro juega.",
                "Impuesto federal anual. Impuesto federal mensual. Impuesto federal diario."
            ]
        );
    }

    #[test]
    fn max_tokens_cuts_at_the_weakest_similarity_and_min_tokens_merges() {
        let text = "Uno dos tres. Uno dos cuatro. Cinco seis siete. Cinco seis ocho.";
        // no breakpoint (amount 100), limit 40 characters: cut once, between the topics
        let chunks = chunk(text, 40, &[("threshold_amount", "100"), ("buffer_size", "0")]);
        assert_eq!(chunks, vec!["Uno dos tres. Uno dos cuatro.", "Cinco seis siete. Cinco seis ocho."]);
        // every gap a breakpoint (amount 0 of identical-ish distances), min 20: pairs merge
        let merged = chunk(
            text,
            40,
            &[("threshold_type", "standard_deviation"), ("threshold_amount", "0"), ("min_tokens", "20"), ("buffer_size", "0")],
        );
        assert!(merged.iter().all(|c| c.chars().count() >= 20), "{merged:?}");
    }

    #[test]
    fn overlap_repeats_sentences_within_the_limit() {
        let text = "Gato negro duerme. Gato negro come. Impuesto federal anual. Impuesto federal mensual.";
        let chunks = chunk(text, 400, &[("buffer_size", "0"), ("threshold_amount", "50"), ("overlap_sentences", "1")]);
        assert!(chunks.len() >= 2, "{chunks:?}");
        assert!(chunks[1].starts_with("Gato negro come."), "{chunks:?}");
        let tight = chunk(text, 40, &[("buffer_size", "0"), ("threshold_amount", "50"), ("overlap_sentences", "3")]);
        assert!(tight.iter().all(|c| c.chars().count() <= 40), "{tight:?}");
    }

    #[test]
    fn degenerate_documents_are_cut_within_the_limit() {
        let check = |text: &str, settings: &[(&str, &str)]| {
            let options = options(200, settings);
            let chunks = chunk_document_using(text, &CharacterSizer, &options, &|| {}, Some(&hash)).unwrap();
            crate::chunk::invariants::check(text, &chunks, 200, &CharacterSizer).unwrap();
            chunks.len()
        };
        // one sentence; identical sentences (every distance 0); 10,000 sentences
        assert_eq!(check("Una sola oración.", &[]), 1);
        assert!(check(&"El mismo texto. ".repeat(500), &[("min_tokens", "50")]) > 1);
        let many: String = (0..10_000).map(|i| format!("Oración número {i} del aviso. ")).collect();
        for kind in ["percentile", "standard_deviation", "interquartile", "gradient"] {
            assert!(check(&many, &[("threshold_type", kind)]) > 1, "{kind}");
        }
        // no punctuation at all, and a 5 MB line without a space
        assert!(check(&"palabra sin puntuación ".repeat(2_000), &[]) > 1);
        assert!(check(&"x".repeat(5 << 20), &[("unit", "paragraph")]) > 1);
    }

    #[test]
    fn without_a_model_or_with_bad_settings_it_says_why() {
        let no_model = chunk_document_using("Texto.", &CharacterSizer, &options(64, &[]), &|| {}, None).unwrap_err();
        assert!(matches!(no_model, ChunkError::NeedsModel("semantic")), "{no_model}");
        for settings in [
            &[("threshold_type", "iqr")][..],
            &[("threshold_amount", "-1")],
            &[("threshold_type", "percentile"), ("threshold_amount", "150")],
            &[("buffer_size", "x")],
            &[("min_tokens", "100")],
            &[("unit", "word")],
        ] {
            let error = chunk_document_using("Texto.", &CharacterSizer, &options(64, settings), &|| {}, Some(&hash)).unwrap_err();
            assert!(matches!(error, ChunkError::InvalidSetting { strategy: "semantic", .. }), "{settings:?}: {error}");
        }
    }
}
