//! The paragraph strategy (seed 003, `chunk_paragraphs`), measured in characters like the
//! seed and bounded in tokens as well: a paragraph (markdown block) over `max_chars` is cut
//! at sentence ends; short paragraphs merge forward; the chunk being built is flushed when
//! the next paragraph would take it over `max_chars`, or once it holds `min_chars` and ends
//! a sentence. Unlike the seed, no chunk exceeds the collection's `max_tokens` whatever
//! `max_chars` says: a piece over it is cut by the shared packer (lines, sentences, words).

use std::ops::Range;

use super::{whole_number, Document, Limits, Settings, Strategy};
use crate::chunk::blocks::trim;
use crate::chunk::measure::{ChunkSizer, Measure};
use crate::chunk::pack::{Packer, Piece, Unit, UnitKind};
use crate::chunk::{sentences, ChunkError, MIN_MAX_TOKENS};
use crate::classify::Pattern;

/// The seed's defaults.
const MAX_CHARS: usize = 1500;
const MIN_CHARS: usize = 80;

pub struct ParagraphStrategy;

impl Strategy for ParagraphStrategy {
    fn name(&self) -> &'static str {
        "paragraph"
    }

    fn description(&self) -> &'static str {
        "paragraphs merged forward to min_chars, cut at sentence ends over max_chars, and never over max_tokens"
    }

    fn settings(&self) -> &'static [(&'static str, &'static str)] {
        &[
            ("max_chars", "a chunk's size in characters before the token limit applies (default 1500)"),
            ("min_chars", "short paragraphs merge forward until the chunk holds this many characters (default 80)"),
        ]
    }

    fn check(&self, settings: &Settings) -> Result<(), ChunkError> {
        let (max_chars, min_chars) = char_limits(settings)?;
        if min_chars > max_chars {
            return Err(invalid(format!("min_chars ({min_chars}) must not exceed max_chars ({max_chars})")));
        }
        Ok(())
    }

    fn pieces(&self, document: &Document, packer: &Packer, limits: &Limits) -> Result<Vec<Piece>, ChunkError> {
        // checked when the strategy was looked up
        let (max_chars, min_chars) = char_limits(limits.settings).unwrap_or((MAX_CHARS, MIN_CHARS));
        let text = document.text;
        let mut spans: Vec<(Range<usize>, usize, bool)> = Vec::new(); // span, path, split
        let mut open: Option<(Range<usize>, usize)> = None;
        let chars = |span: &Range<usize>| text[span.clone()].chars().count();
        for unit in document.units {
            let paragraph = unit.span.clone();
            if chars(&paragraph) > max_chars {
                spans.extend(open.take().map(|(span, path)| (span, path, false)));
                for sentence_group in sentence_groups(text, paragraph, max_chars) {
                    spans.push((sentence_group, unit.path, true));
                }
                continue;
            }
            if let Some((span, path)) = open.take() {
                let merged = span.start..paragraph.end;
                if chars(&merged) > max_chars {
                    spans.push((span, path, false));
                    open = Some((paragraph, unit.path));
                } else {
                    open = Some((merged, path));
                }
            } else {
                open = Some((paragraph, unit.path));
            }
            let (span, _) = open.as_ref().expect("set above");
            if chars(span) >= min_chars && sentences::ends_sentence(&text[span.clone()]) {
                spans.extend(open.take().map(|(span, path)| (span, path, false)));
            }
        }
        spans.extend(open.take().map(|(span, path)| (span, path, false)));
        let mut pieces = Vec::with_capacity(spans.len());
        for (span, path, split) in spans {
            if packer.count(span.clone())? <= packer.max_tokens {
                pieces.push(Piece { span, header: None, path, table_piece: false, split, overlap: false });
            } else {
                // over the token limit: the packer cuts it (lines, sentences, words)
                packer.pack(&[Unit { span, kind: UnitKind::Text, heading: 0, path }], &mut pieces)?;
            }
        }
        Ok(pieces)
    }
}

/// A chunk of [`chunk_paragraphs`]: the seed's `Chunk`, with where it came from.
#[derive(Debug, Clone, PartialEq)]
pub struct ParagraphChunk {
    pub index: usize,
    pub content: String,
    /// Indices (0-based) of the first and last input paragraph it holds text of.
    pub first_paragraph: usize,
    pub last_paragraph: usize,
    /// Paragraphs merged into it; `split` when it is part of a paragraph cut at sentences.
    pub para_count: usize,
    pub split: bool,
    pub token_count: usize,
}

/// The seed's `chunk_paragraphs` over a list of paragraphs (joined by blank lines): the
/// paragraph strategy with `max_chars` and `min_chars`, and when `max_tokens` is given no
/// chunk over it by `sizer`. Blank paragraphs are skipped, the others trimmed.
pub fn chunk_paragraphs(
    paragraphs: &[&str],
    max_chars: usize,
    min_chars: usize,
    sizer: &dyn ChunkSizer,
    max_tokens: Option<usize>,
    interrupt: &dyn Fn(),
) -> Result<Vec<ParagraphChunk>, ChunkError> {
    let settings: Settings =
        [("max_chars", max_chars), ("min_chars", min_chars)].into_iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    ParagraphStrategy.check(&settings)?;
    if let Some(limit) = max_tokens.filter(|&limit| limit < MIN_MAX_TOKENS) {
        return Err(ChunkError::MaxTokensTooSmall(limit as i64));
    }
    let mut text = String::new();
    let mut units = Vec::new();
    let mut sources = Vec::new(); // input index of each unit
    for (index, paragraph) in paragraphs.iter().enumerate() {
        let Some(trimmed) = trim(paragraph, 0..paragraph.len()) else { continue };
        if !text.is_empty() {
            text.push_str("\n\n");
        }
        let start = text.len();
        text.push_str(&paragraph[trimmed]);
        units.push(Unit { span: start..text.len(), kind: UnitKind::Text, heading: 0, path: 0 });
        sources.push(index);
    }
    if units.is_empty() {
        return Ok(Vec::new());
    }
    let measure = Measure::new(&text, sizer, interrupt)?;
    let packer = Packer { measure: &measure, max_tokens: max_tokens.unwrap_or(usize::MAX), tables_alone: false };
    let document = Document { text: &text, units: &units, pattern: Pattern::PlainText };
    let pieces = ParagraphStrategy.pieces(&document, &packer, &Limits { overlap_tokens: 0, settings: &settings, embedder: None })?;
    pieces
        .into_iter()
        .enumerate()
        .map(|(index, piece)| {
            // the units the piece overlaps: units are in order and do not overlap
            let first = units.partition_point(|u| u.span.end <= piece.span.start);
            let end = units.partition_point(|u| u.span.start < piece.span.end);
            Ok(ParagraphChunk {
                index,
                content: text[piece.span.clone()].to_string(),
                first_paragraph: sources[first],
                last_paragraph: sources[end - 1],
                para_count: end - first,
                split: piece.split,
                token_count: measure.count(piece.span)?,
            })
        })
        .collect()
}

fn invalid(message: String) -> ChunkError {
    ChunkError::InvalidSetting { strategy: "paragraph", message }
}

/// `max_chars` and `min_chars` from the settings, or their defaults.
fn char_limits(settings: &Settings) -> Result<(usize, usize), ChunkError> {
    let read = |key: &str, default: usize| whole_number(settings, "paragraph", key, default, 1, usize::MAX);
    Ok((read("max_chars", MAX_CHARS)?, read("min_chars", MIN_CHARS)?))
}

/// `paragraph` cut into runs of whole sentences of at most `max_chars` characters (a
/// sentence longer than that is a run of its own: the token limit cuts it further).
fn sentence_groups(text: &str, paragraph: Range<usize>, max_chars: usize) -> Vec<Range<usize>> {
    let mut groups: Vec<Range<usize>> = Vec::new();
    for sentence in sentences::split(text, paragraph) {
        match groups.last_mut() {
            Some(group) if text[group.start..sentence.end].chars().count() <= max_chars => group.end = sentence.end,
            _ => groups.push(sentence),
        }
    }
    groups
}

#[cfg(test)]
mod tests {
    use crate::chunk::strategies::Settings;
    use crate::chunk::{chunk_document, CharacterSizer, ChunkError, ChunkOptions};

    fn options(max_tokens: usize, settings: &[(&str, &str)]) -> ChunkOptions {
        let settings: Settings = settings.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        ChunkOptions { max_tokens, overlap_tokens: 0, strategy: "paragraph".into(), settings, ..ChunkOptions::default() }
    }

    #[test]
    fn short_paragraphs_merge_forward_until_min_chars_and_a_sentence_end() {
        let text = "Uno.\n\nDos dos.\n\nTres tres tres.\n\nCuatro cuatro cuatro cuatro.\n\nCinco.";
        let chunks = chunk_document(text, &CharacterSizer, &options(400, &[("min_chars", "20")])).unwrap();
        let contents: Vec<&str> = chunks.iter().map(|c| c.content.as_str()).collect();
        assert_eq!(contents, vec!["Uno.\n\nDos dos.\n\nTres tres tres.", "Cuatro cuatro cuatro cuatro.", "Cinco."]);
    }

    #[test]
    fn a_paragraph_over_max_chars_is_cut_at_sentence_ends() {
        let text = "Primera oración del párrafo. Segunda oración del párrafo. Tercera oración del párrafo.";
        let chunks = chunk_document(text, &CharacterSizer, &options(400, &[("max_chars", "60"), ("min_chars", "10")])).unwrap();
        let contents: Vec<&str> = chunks.iter().map(|c| c.content.as_str()).collect();
        assert_eq!(contents, vec!["Primera oración del párrafo. Segunda oración del párrafo.", "Tercera oración del párrafo."]);
        assert!(chunks.iter().all(|c| c.split));
    }

    #[test]
    fn the_token_limit_wins_over_max_chars() {
        let text = "palabra ".repeat(200);
        let chunks = chunk_document(&text, &CharacterSizer, &options(64, &[])).unwrap();
        assert!(chunks.len() > 1 && chunks.iter().all(|c| c.token_count <= 64), "{chunks:#?}");
    }

    #[test]
    fn chunk_paragraphs_keeps_the_seeds_contract() {
        let paragraphs = ["Uno.", "", "Dos dos.", "Tres tres tres.", "Una oración larga aquí. Otra oración larga allá."];
        let chunks = super::chunk_paragraphs(&paragraphs, 30, 12, &CharacterSizer, None, &|| {}).unwrap();
        let seen: Vec<(&str, usize, usize, usize, bool)> =
            chunks.iter().map(|c| (c.content.as_str(), c.first_paragraph, c.last_paragraph, c.para_count, c.split)).collect();
        assert_eq!(
            seen,
            vec![
                ("Uno.\n\nDos dos.", 0, 2, 2, false),
                ("Tres tres tres.", 3, 3, 1, false),
                ("Una oración larga aquí.", 4, 4, 1, true),
                ("Otra oración larga allá.", 4, 4, 1, true)
            ]
        );
        let bounded = super::chunk_paragraphs(&["palabra ".repeat(100).as_str()], 1500, 80, &CharacterSizer, Some(64), &|| {}).unwrap();
        assert!(bounded.len() > 1 && bounded.iter().all(|c| c.token_count <= 64));
        assert!(super::chunk_paragraphs(&["a"], 10, 20, &CharacterSizer, None, &|| {}).is_err(), "min_chars over max_chars");
    }

    #[test]
    fn bad_settings_are_refused() {
        for settings in [[("max_chars", "0")], [("min_chars", "abc")], [("min_chars", "5000")]] {
            let error = chunk_document("Texto.", &CharacterSizer, &options(64, &settings)).unwrap_err();
            assert!(matches!(error, ChunkError::InvalidSetting { strategy: "paragraph", .. }), "{error}");
        }
    }
}
