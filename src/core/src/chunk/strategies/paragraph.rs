//! The paragraph strategy (seed 003, `chunk_paragraphs`), measured in characters like the
//! seed and bounded in tokens as well: a paragraph (markdown block) over `max_chars` is cut
//! at sentence ends; short paragraphs merge forward; the chunk being built is flushed when
//! the next paragraph would take it over `max_chars`, or once it holds `min_chars` and ends
//! a sentence. Unlike the seed, no chunk exceeds the collection's `max_tokens` whatever
//! `max_chars` says: a piece over it is cut by the shared packer (lines, sentences, words).

use std::ops::Range;

use super::{Document, Limits, Settings, Strategy};
use crate::chunk::pack::{Packer, Piece, Unit, UnitKind};
use crate::chunk::{sentences, ChunkError};
use crate::tokenize::TokenizeError;

/// The seed's defaults.
const MAX_CHARS: usize = 1500;
const MIN_CHARS: usize = 80;

pub struct ParagraphStrategy;

impl Strategy for ParagraphStrategy {
    fn name(&self) -> &'static str {
        "paragraph"
    }

    fn description(&self) -> &'static str {
        "the seed's paragraph chunker: paragraphs merged forward to min_chars, cut at sentence ends over max_chars, and never over max_tokens"
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

    fn pieces(&self, document: &Document, packer: &Packer, limits: &Limits) -> Result<Vec<Piece>, TokenizeError> {
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

fn invalid(message: String) -> ChunkError {
    ChunkError::InvalidSetting { strategy: "paragraph", message }
}

/// `max_chars` and `min_chars` from the settings, or their defaults.
fn char_limits(settings: &Settings) -> Result<(usize, usize), ChunkError> {
    let read = |key: &str, default: usize| -> Result<usize, ChunkError> {
        match settings.get(key) {
            None => Ok(default),
            Some(value) => match value.parse::<usize>() {
                Ok(n) if n >= 1 => Ok(n),
                _ => Err(invalid(format!("{key} must be a whole number of at least 1, got \"{value}\""))),
            },
        }
    };
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
    fn bad_settings_are_refused() {
        for settings in [[("max_chars", "0")], [("min_chars", "abc")], [("min_chars", "5000")]] {
            let error = chunk_document("Texto.", &CharacterSizer, &options(64, &settings)).unwrap_err();
            assert!(matches!(error, ChunkError::InvalidSetting { strategy: "paragraph", .. }), "{error}");
        }
    }
}
