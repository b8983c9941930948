//! The shared packer: greedy packing of units into pieces under the limit, and the
//! splitting of anything too big — lines, then sentences, then words, then characters;
//! tables by rows with the header repeated, over-long rows by cells.

use std::ops::Range;

use unicode_segmentation::UnicodeSegmentation;

use super::blocks::Table;
use super::measure::{whitespace_words, Measure};
use super::trim;
use crate::tokenize::TokenizeError;

#[derive(Debug, Clone, PartialEq)]
pub enum UnitKind {
    Text,
    /// Headings and bold header lines: never the last unit of a piece when what they
    /// introduce can follow them.
    KeepWithNext,
    Table(Table),
}

#[derive(Debug, Clone)]
pub struct Unit {
    pub span: Range<usize>,
    pub kind: UnitKind,
    /// Heading level, 0 when the unit is not a heading.
    pub heading: u8,
    /// Index of the heading path in force at this unit.
    pub path: usize,
}

/// A chunk before it gets its text: a source span, maybe a repeated table header.
#[derive(Debug, Clone, PartialEq)]
pub struct Piece {
    pub span: Range<usize>,
    /// Source span of a table header repeated in front of the span.
    pub header: Option<Range<usize>>,
    pub path: usize,
    pub table_piece: bool,
    /// Cut below block level (sentences, words, characters, table cells).
    pub split: bool,
    /// The span starts inside the previous piece.
    pub overlap: bool,
}

impl Piece {
    fn text(span: Range<usize>, path: usize) -> Self {
        Piece { span, header: None, path, table_piece: false, split: false, overlap: false }
    }
}

#[derive(Clone, Copy)]
pub struct Packer<'m, 'a> {
    pub measure: &'m Measure<'a>,
    pub max_tokens: usize,
    /// Tables become pieces of their own even when they would fit beside text
    /// (giant_table: alternate text and table buffers).
    pub tables_alone: bool,
}

/// The piece being filled.
struct Open {
    start: usize,
    end: usize,
    path: usize,
    /// Start of the trailing run of keep-with-next units, and the end of what precedes it.
    pending: Option<(usize, usize)>,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Level {
    Lines,
    Sentences,
    Words,
    Characters,
}

impl<'m, 'a> Packer<'m, 'a> {
    fn count(&self, span: Range<usize>) -> Result<usize, TokenizeError> {
        self.measure.count(span)
    }

    /// Packs `units` (one section: pieces never span two calls) into `out`.
    pub fn pack(&self, units: &[Unit], out: &mut Vec<Piece>) -> Result<(), TokenizeError> {
        let mut open: Option<Open> = None;
        for unit in units {
            if let UnitKind::Table(table) = &unit.kind {
                if self.tables_alone || self.count(unit.span.clone())? > self.max_tokens {
                    self.close(open.take(), out);
                    self.split_table(unit, table, out)?;
                    continue;
                }
            }
            let keep_with_next = unit.kind == UnitKind::KeepWithNext;
            if self.count(unit.span.clone())? > self.max_tokens {
                self.close(open.take(), out);
                self.split_span(unit.span.clone(), self.max_tokens, Level::Lines, &mut |span| {
                    out.push(Piece { split: true, ..Piece::text(span, unit.path) })
                })?;
                continue;
            }
            if let Some(current) = open.as_mut() {
                if self.count(current.start..unit.span.end)? <= self.max_tokens {
                    if keep_with_next {
                        current.pending.get_or_insert((unit.span.start, current.end));
                    } else {
                        current.pending = None;
                    }
                    current.end = unit.span.end;
                    continue;
                }
                // Does not fit: close the piece, carrying a trailing heading or bold line
                // over to the next piece when it fits there.
                let current = open.take().expect("checked above");
                if let Some((pending_start, body_end)) = current.pending {
                    if pending_start > current.start && self.count(pending_start..unit.span.end)? <= self.max_tokens {
                        out.push(Piece::text(current.start..body_end, current.path));
                        open = Some(Open {
                            start: pending_start,
                            end: unit.span.end,
                            path: unit.path,
                            pending: keep_with_next.then_some((pending_start, pending_start)),
                        });
                        continue;
                    }
                }
                self.close(Some(current), out);
            }
            open = Some(Open {
                start: unit.span.start,
                end: unit.span.end,
                path: unit.path,
                pending: keep_with_next.then_some((unit.span.start, unit.span.start)),
            });
        }
        self.close(open, out);
        Ok(())
    }

    fn close(&self, open: Option<Open>, out: &mut Vec<Piece>) {
        if let Some(open) = open {
            out.push(Piece::text(open.start..open.end, open.path));
        }
    }

    /// A table: rows packed under the limit; every piece after the first repeats the header
    /// (unless the header alone takes more than half the limit, when repeating it would
    /// leave no room for rows); a row too long even alone is split by cells.
    fn split_table(&self, unit: &Unit, table: &Table, out: &mut Vec<Piece>) -> Result<(), TokenizeError> {
        let table_piece = |span: Range<usize>, header: Option<Range<usize>>, split: bool| Piece {
            span,
            header,
            path: unit.path,
            table_piece: true,
            split,
            overlap: false,
        };
        if table.rows.is_empty() || table.header.is_empty() {
            // no separate header (or no body): split like any text, by lines first
            return self.split_span(unit.span.clone(), self.max_tokens, Level::Lines, &mut |span| {
                out.push(table_piece(span, None, false))
            });
        }
        let header_cost = self.count(table.header.clone())?;
        let repeated = (header_cost <= self.max_tokens / 2).then(|| table.header.clone());
        let prefix_cost = if repeated.is_some() { header_cost } else { 0 };
        // The first piece starts with the table's own header (so its text is in a span);
        // a header over the limit by itself is split like text and not repeated.
        let mut open: Option<Range<usize>> = None;
        let mut first = header_cost <= self.max_tokens;
        if first {
            open = Some(unit.span.start..table.header.end);
        } else {
            self.split_span(unit.span.start..table.header.end, self.max_tokens, Level::Lines, &mut |span| {
                out.push(table_piece(span, None, true))
            })?;
        }
        for row in &table.rows {
            if let Some(span) = open.as_mut() {
                let extra = if first { 0 } else { prefix_cost };
                if self.count(span.start..row.end)? + extra <= self.max_tokens {
                    span.end = row.end;
                    continue;
                }
                out.push(table_piece(span.clone(), if first { None } else { repeated.clone() }, false));
                open = None;
                first = false;
            }
            if self.count(row.clone())? + prefix_cost <= self.max_tokens {
                open = Some(row.clone());
                continue;
            }
            // one row too long: cells, then words, then characters, each piece with the header
            let budget = self.max_tokens - prefix_cost;
            let mut pieces = Vec::new();
            self.split_row(row.clone(), budget, &mut |span| pieces.push(span))?;
            out.extend(pieces.into_iter().map(|span| table_piece(span, repeated.clone(), true)));
        }
        if let Some(span) = open {
            out.push(table_piece(span, if first { None } else { repeated }, false));
        }
        Ok(())
    }

    fn split_row(&self, row: Range<usize>, budget: usize, emit: &mut dyn FnMut(Range<usize>)) -> Result<(), TokenizeError> {
        let text = self.measure.text();
        let mut cells: Vec<Range<usize>> = Vec::new();
        let mut start = row.start;
        for (offset, _) in text[row.clone()].match_indices('|') {
            let pipe = row.start + offset;
            if pipe > start {
                cells.push(start..pipe);
                start = pipe;
            }
        }
        cells.push(start..row.end);
        let cells: Vec<Range<usize>> = cells.into_iter().filter_map(|c| trim(text, c)).collect();
        self.pack_parts(&cells, budget, Level::Words, emit)
    }

    /// Emits `span` in pieces of at most `budget`, cutting at the coarsest level that works.
    fn split_span(&self, span: Range<usize>, budget: usize, level: Level, emit: &mut dyn FnMut(Range<usize>)) -> Result<(), TokenizeError> {
        if self.count(span.clone())? <= budget {
            emit(span);
            return Ok(());
        }
        let text = self.measure.text();
        let slice = &text[span.clone()];
        let parts: Vec<Range<usize>> = match level {
            Level::Lines => slice
                .split_inclusive('\n')
                .scan(span.start, |position, line| {
                    let start = *position;
                    *position += line.len();
                    Some(start..start + line.len())
                })
                .filter_map(|r| trim(text, r))
                .collect(),
            Level::Sentences => slice
                .split_sentence_bound_indices()
                .filter_map(|(offset, sentence)| trim(text, span.start + offset..span.start + offset + sentence.len()))
                .collect(),
            Level::Words => whitespace_words(slice).map(|w| span.start + w.start..span.start + w.end).collect(),
            Level::Characters => return self.split_characters(span, budget, emit),
        };
        let next = match level {
            Level::Lines => Level::Sentences,
            Level::Sentences => Level::Words,
            _ => Level::Characters,
        };
        if parts.len() <= 1 {
            return self.split_span(span, budget, next, emit);
        }
        self.pack_parts(&parts, budget, next, emit)
    }

    /// Greedy packing of consecutive parts; a part over the budget is split at `next`.
    fn pack_parts(&self, parts: &[Range<usize>], budget: usize, next: Level, emit: &mut dyn FnMut(Range<usize>)) -> Result<(), TokenizeError> {
        let mut open: Option<Range<usize>> = None;
        for part in parts {
            if self.count(part.clone())? > budget {
                if let Some(span) = open.take() {
                    emit(span);
                }
                self.split_span(part.clone(), budget, next, emit)?;
                continue;
            }
            if let Some(span) = open.as_mut() {
                if self.count(span.start..part.end)? <= budget {
                    span.end = part.end;
                    continue;
                }
                emit(span.clone());
            }
            open = Some(part.clone());
        }
        if let Some(span) = open {
            emit(span);
        }
        Ok(())
    }

    /// The last resort, for one "word" over the budget: the longest prefixes (on char
    /// boundaries) that fit, found by binary search with exact counts.
    fn split_characters(&self, span: Range<usize>, budget: usize, emit: &mut dyn FnMut(Range<usize>)) -> Result<(), TokenizeError> {
        let text = self.measure.text();
        let boundaries: Vec<usize> =
            text[span.clone()].char_indices().map(|(i, _)| span.start + i).chain(std::iter::once(span.end)).collect();
        let mut from = 0; // index into boundaries
        while from + 1 < boundaries.len() {
            // at least one character per piece, or no progress could be made
            let (mut fits, mut too_long) = (from + 1, boundaries.len());
            if self.count(boundaries[from]..span.end)? <= budget {
                fits = boundaries.len() - 1;
            } else {
                while fits + 1 < too_long {
                    let middle = (fits + too_long) / 2;
                    if self.count(boundaries[from]..boundaries[middle])? <= budget {
                        fits = middle;
                    } else {
                        too_long = middle;
                    }
                }
            }
            emit(boundaries[from]..boundaries[fits]);
            from = fits;
        }
        Ok(())
    }

    /// Plain text's overlap: each piece after the first of a section starts up to
    /// `overlap_tokens` earlier, at a word of the previous piece, if the result still fits.
    pub fn add_overlap(&self, pieces: &mut [Piece], overlap_tokens: usize) -> Result<(), TokenizeError> {
        if overlap_tokens == 0 {
            return Ok(());
        }
        for i in 1..pieces.len() {
            let (before, after) = pieces.split_at_mut(i);
            let (previous, piece) = (&before[i - 1], &mut after[0]);
            if previous.table_piece || piece.table_piece || previous.span.end > piece.span.start {
                continue;
            }
            let words = self.measure.words_in(previous.span.clone());
            let mut start = piece.span.start;
            let mut taken = 0usize;
            for index in words.rev() {
                let word = self.measure.word(index);
                taken += word.tokens as usize;
                if taken > overlap_tokens || self.count(word.start..piece.span.end)? > self.max_tokens {
                    break;
                }
                start = word.start;
            }
            if start < piece.span.start {
                piece.span.start = start;
                piece.overlap = true;
            }
        }
        Ok(())
    }
}
