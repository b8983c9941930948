//! The shared packer: greedy packing of units into pieces under the limit, and the
//! splitting of anything too big — lines, then sentences, then words, then characters;
//! tables by rows with the header repeated, over-long rows by cells.

use std::ops::Range;

use unicode_segmentation::UnicodeSegmentation;

use super::blocks::{trim, Table};
use super::divisions;
use super::measure::{whitespace_words, Measure};
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
    /// Start of the last division a unit after the first opens (with the keep-with-next
    /// run before it), the end of what precedes it, and its heading path.
    division: Option<(usize, usize, usize)>,
}

impl Open {
    fn new(unit: &Unit) -> Self {
        let keep_with_next = unit.kind == UnitKind::KeepWithNext;
        Open {
            start: unit.span.start,
            end: unit.span.end,
            path: unit.path,
            pending: keep_with_next.then_some((unit.span.start, unit.span.start)),
            division: None,
        }
    }

    /// Takes in `unit`, which fits.
    fn extend(&mut self, unit: &Unit, opens_division: bool) {
        let (run_start, before_run) = self.pending.unwrap_or((unit.span.start, self.end));
        if opens_division && run_start > self.start {
            self.division = Some((run_start, before_run, unit.path));
        }
        if unit.kind == UnitKind::KeepWithNext {
            self.pending.get_or_insert((unit.span.start, self.end));
        } else {
            self.pending = None;
        }
        self.end = unit.span.end;
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Level {
    Lines,
    Sentences,
    Words,
    Characters,
}

impl<'m, 'a> Packer<'m, 'a> {
    pub(crate) fn count(&self, span: Range<usize>) -> Result<usize, TokenizeError> {
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
            let opens = divisions::opens_division(&self.measure.text()[unit.span.clone()]);
            if let Some(current) = open.as_mut() {
                if self.count(current.start..unit.span.end)? <= self.max_tokens {
                    current.extend(unit, opens);
                    continue;
                }
                let mut current = open.take().expect("checked above");
                // Does not fit: end the piece before the last division it opened, when
                // what precedes that holds half the limit (the division starts the next).
                if let Some((division_start, body_end, division_path)) = current.division {
                    if divisions::may_end_before(self.count(current.start..body_end)?, self.max_tokens) {
                        out.push(Piece::text(current.start..body_end, current.path));
                        current = Open {
                            start: division_start,
                            end: current.end,
                            path: division_path,
                            pending: current.pending.filter(|&(run_start, _)| run_start > division_start),
                            division: None,
                        };
                        if self.count(current.start..unit.span.end)? <= self.max_tokens {
                            current.extend(unit, opens);
                            open = Some(current);
                            continue;
                        }
                    }
                }
                // Or close it, carrying a trailing heading or bold line over to the next
                // piece when it fits there.
                if let Some((pending_start, body_end)) = current.pending {
                    if pending_start > current.start && self.count(pending_start..unit.span.end)? <= self.max_tokens {
                        out.push(Piece::text(current.start..body_end, current.path));
                        open = Some(Open {
                            start: pending_start,
                            end: unit.span.end,
                            path: unit.path,
                            pending: keep_with_next.then_some((pending_start, pending_start)),
                            division: None,
                        });
                        continue;
                    }
                }
                self.close(Some(current), out);
            }
            open = Some(Open::new(unit));
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
            return self.split_span(unit.span.clone(), self.max_tokens, Level::Lines, &mut |span| out.push(table_piece(span, None, false)));
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
    /// Each piece's last part is found by [`Packer::furthest`], so a long run of parts whose
    /// spans need fresh counts (the words of one irregular line) costs tokenization linear
    /// in its length, not one count per part of an ever longer span.
    fn pack_parts(
        &self,
        parts: &[Range<usize>],
        budget: usize,
        next: Level,
        emit: &mut dyn FnMut(Range<usize>),
    ) -> Result<(), TokenizeError> {
        let mut first = 0;
        while first < parts.len() {
            if self.count(parts[first].clone())? > budget {
                self.split_span(parts[first].clone(), budget, next, emit)?;
                first += 1;
                continue;
            }
            let start = parts[first].start;
            let end_of = |j: usize| parts[j].end;
            // the last part that ends before the proposed cut (at least the first)
            let guess = |cut: usize| parts.partition_point(|p| p.end <= cut).saturating_sub(1).max(first);
            let mut last = self.furthest(start, first, parts.len() - 1, budget, end_of, guess, |j| j, |j| j + 1)?;
            if next == Level::Sentences {
                last = self.before_division(parts, first, last, budget)?;
            }
            emit(start..parts[last].end);
            first = last + 1;
        }
        Ok(())
    }

    /// Where a piece of lines `parts[first..=last]` ends: before the last line after the
    /// first that opens a division, when the piece would end inside that division (the
    /// line after `last` opens none) and what precedes it holds half the budget.
    fn before_division(&self, parts: &[Range<usize>], first: usize, last: usize, budget: usize) -> Result<usize, TokenizeError> {
        let text = self.measure.text();
        let opens = |j: usize| divisions::opens_division(&text[parts[j].clone()]);
        if last + 1 >= parts.len() || opens(last + 1) {
            return Ok(last);
        }
        match (first + 1..=last).rev().find(|&j| opens(j)) {
            Some(j) if divisions::may_end_before(self.count(parts[first].start..parts[j - 1].end)?, budget) => Ok(j - 1),
            _ => Ok(last),
        }
    }

    /// The last resort, for one "word" over the budget: the longest prefixes (on char
    /// boundaries) that fit, each proposed and verified by [`Packer::furthest`]. Every
    /// count is of a slice about the size of the piece it finds, so the cost is linear in
    /// the word (re-counting the rest of the word for each piece was quadratic: a base64
    /// image of 176 KB took 11.6 s).
    fn split_characters(&self, span: Range<usize>, budget: usize, emit: &mut dyn FnMut(Range<usize>)) -> Result<(), TokenizeError> {
        let text = self.measure.text();
        let next_char = |at: usize| at + text[at..].chars().next().map_or(1, char::len_utf8);
        let snap = |at: usize| text.floor_char_boundary(at);
        let mut from = span.start;
        while from < span.end {
            // at least one character per piece, or no progress could be made
            let one_char = next_char(from);
            let end = self.furthest(from, one_char, span.end, budget, |at| at, |cut| cut.max(one_char), snap, next_char)?;
            emit(from..end);
            from = end;
        }
        Ok(())
    }

    /// The furthest position in `first..=last` whose span `start..end_of(position)` fits
    /// the budget, given that `first` fits. One tokenization of a window proposes the cut
    /// ([`Measure::prefix_end`]; `position_at` maps it to a position); an exact count
    /// verifies it, and only a proposal that does not fit (context changed a token at the
    /// cut) falls back to galloping and bisecting below it. Typically two counts of about
    /// one piece each, where bisection from scratch took a dozen.
    #[allow(clippy::too_many_arguments)] // the position space is described by four closures
    fn furthest(
        &self,
        start: usize,
        first: usize,
        last: usize,
        budget: usize,
        end_of: impl Fn(usize) -> usize,
        position_at: impl Fn(usize) -> usize,
        snap: impl Fn(usize) -> usize,
        next: impl Fn(usize) -> usize,
    ) -> Result<usize, TokenizeError> {
        let fits = |position: usize| Ok(self.count(start..end_of(position))? <= budget);
        if self.measure.is_clean(start..end_of(first)) && self.measure.is_clean(start..end_of(last)) {
            // counts are prefix sums here: plain galloping is cheaper than any tokenization
            return furthest_fit(first, last, 1, snap, next, fits);
        }
        let proposed = match self.measure.prefix_end(start, end_of(last), budget)? {
            Some(cut) => position_at(cut).clamp(first, last),
            None => last,
        };
        if proposed == first || fits(proposed)? {
            return Ok(proposed);
        }
        let below = snap(proposed - 1).max(first);
        furthest_fit(first, below, (below - first) / 2, snap, next, fits)
    }
}

/// The furthest position from `good` (which fits) up to `last` that fits: probes at
/// `good + step`, doubling the step while they fit, then bisects between the last fit and
/// the first miss. `snap` maps a midpoint down to a valid position and `next` gives the
/// position after one; for additive sizes (fits is monotone) this is exactly the greedy
/// answer, and every probe is at most about twice as far as the answer.
fn furthest_fit<E>(
    mut good: usize,
    last: usize,
    first_step: usize,
    snap: impl Fn(usize) -> usize,
    next: impl Fn(usize) -> usize,
    mut fits: impl FnMut(usize) -> Result<bool, E>,
) -> Result<usize, E> {
    let mut step = first_step.max(1);
    let mut miss = loop {
        if good >= last {
            return Ok(last);
        }
        let probe = snap((good + step).min(last)).max(next(good)).min(last);
        if !fits(probe)? {
            break probe;
        }
        good = probe;
        step = step.saturating_mul(2);
    };
    loop {
        let middle = snap(good + (miss - good) / 2);
        let middle = if middle > good { middle } else { next(good) };
        if middle >= miss {
            return Ok(good);
        }
        if fits(middle)? {
            good = middle;
        } else {
            miss = middle;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::furthest_fit;

    #[test]
    fn furthest_fit_is_the_greedy_answer_for_monotone_sizes() {
        for limit in 0..40usize {
            for first_step in [1, 3, 16] {
                let got = furthest_fit::<()>(0, 30, first_step, |x| x, |x| x + 1, |x| Ok(x <= limit)).unwrap();
                assert_eq!(got, limit.min(30), "limit {limit} step {first_step}");
            }
        }
    }

    #[test]
    fn furthest_fit_only_returns_positions_that_fit_and_snaps() {
        // only even positions are valid; the answer must be an even position that fits
        let got = furthest_fit::<()>(0, 100, 5, |x| x & !1, |x| x + 2, |x| Ok(x <= 37)).unwrap();
        assert_eq!(got, 36);
    }
}
