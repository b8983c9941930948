//! The pattern strategy (seed 000): the document's structural pattern picks how units are
//! grouped into sections before packing: one recipe per pattern.

use super::{Document, Limits, Settings, Strategy};
use crate::chunk::overlap;
use crate::chunk::pack::{Packer, Piece, Unit};
use crate::chunk::ChunkError;
use crate::classify::Pattern;
use crate::tokenize::TokenizeError;

pub struct PatternStrategy;

impl Strategy for PatternStrategy {
    fn name(&self) -> &'static str {
        "pattern"
    }

    fn description(&self) -> &'static str {
        "the document's structural pattern (small, h2_compound, bold_headers, plain_text, giant_table) picks the recipe; overlap on plain_text only"
    }

    fn settings(&self) -> &'static [(&'static str, &'static str)] {
        &[("pattern", "use this pattern's recipe for every document instead of its classification")]
    }

    fn check(&self, settings: &Settings) -> Result<(), ChunkError> {
        match settings.get("pattern") {
            Some(name) if Pattern::parse(name).is_none() => Err(ChunkError::UnknownPattern(name.clone())),
            _ => Ok(()),
        }
    }

    fn forced_pattern(&self, settings: &Settings) -> Option<Pattern> {
        settings.get("pattern").and_then(|name| Pattern::parse(name))
    }

    fn pieces(&self, document: &Document, packer: &Packer, limits: &Limits) -> Result<Vec<Piece>, ChunkError> {
        let pattern = self.forced_pattern(limits.settings).unwrap_or(document.pattern);
        let packer = Packer { tables_alone: pattern == Pattern::GiantTable, ..*packer };
        pieces(pattern, &packer, document.units, overlap::usable(limits.overlap_tokens, packer.max_tokens))
    }
}

fn pieces(pattern: Pattern, packer: &Packer, units: &[Unit], overlap_tokens: usize) -> Result<Vec<Piece>, ChunkError> {
    let mut pieces = Vec::new();
    match pattern {
        Pattern::Small => small(packer, units, &mut pieces)?,
        Pattern::H2Compound => h2_compound(packer, units, &mut pieces)?,
        // bold lines are keep-with-next units: header metadata stays with its paragraph
        Pattern::BoldHeaders => packer.pack(units, &mut pieces)?,
        Pattern::PlainText => {
            // pack to the limit less the overlap, so the overlap always has room
            let narrower = Packer { max_tokens: packer.max_tokens - overlap_tokens, ..*packer };
            narrower.pack(units, &mut pieces)?;
            overlap::add(packer, &mut pieces, overlap_tokens)?;
        }
        // the packer keeps each table apart from the text around it (tables_alone), and no
        // chunk runs across an H2: a table-heavy DOF edition holds hundreds of notices
        Pattern::GiantTable => {
            for section in split_before(units, 2) {
                packer.pack(section, &mut pieces)?;
            }
        }
    }
    Ok(pieces)
}

/// The whole document as one chunk; a small document over the limit (the seed let those
/// through at up to 2,989 tokens) is packed by paragraphs instead.
fn small(packer: &Packer, units: &[Unit], out: &mut Vec<Piece>) -> Result<(), TokenizeError> {
    let (first, last) = (&units[0], &units[units.len() - 1]);
    let whole = first.span.start..last.span.end;
    if packer.measure.count(whole.clone())? <= packer.max_tokens {
        out.push(Piece { span: whole, header: None, path: first.path, table_piece: false, split: false, overlap: false });
        Ok(())
    } else {
        packer.pack(units, out)
    }
}

/// Each H2 section is an independent document; a section over the limit is split at its
/// H3 headings, and a section without H3s is packed directly (no empty `###` injected).
fn h2_compound(packer: &Packer, units: &[Unit], out: &mut Vec<Piece>) -> Result<(), TokenizeError> {
    for section in split_before(units, 2) {
        let span = section[0].span.start..section[section.len() - 1].span.end;
        let has_h3 = section.iter().any(|u| u.heading == 3);
        if has_h3 && packer.measure.count(span)? > packer.max_tokens {
            for subsection in split_before(section, 3) {
                packer.pack(subsection, out)?;
            }
        } else {
            packer.pack(section, out)?;
        }
    }
    Ok(())
}

/// `units` cut before every heading of `level` (or higher: an H1 also starts a section).
fn split_before(units: &[Unit], level: u8) -> Vec<&[Unit]> {
    let mut sections = Vec::new();
    let mut start = 0;
    for (i, unit) in units.iter().enumerate() {
        if i > start && unit.heading != 0 && unit.heading <= level {
            sections.push(&units[start..i]);
            start = i;
        }
    }
    sections.push(&units[start..]);
    sections
}
