//! Sentences of Spanish legal text and English prose: Unicode sentence boundaries
//! (`unicode-segmentation`, UAX #29) with the rules that text needs on top.
//!
//! UAX #29 already keeps decimals (`3.5`), dates (`15.01.2020`), money (`$1,000.00`),
//! `¿…?` / `¡…!` and a period followed by a lower-case word (`S.A. de C.V.`) inside one
//! sentence. What it gets wrong here, and what this module adds:
//! - a line break is a boundary for UAX #29; in hard-wrapped prose it is not, so lines of
//!   one paragraph are segmented as if joined by spaces;
//! - list items and table rows are units: a table row is one sentence whatever it holds, a
//!   list item (`- `, `1. `, `a) `, `IV. `, or a line holding only `11.3.3.1.`) always
//!   starts a new sentence;
//! - a period after an abbreviation (`Art.`, `No.`, `Núm.`, `Lic.`, `Dr.`, `fracc.`, `e.g.`)
//!   or an initial (`C. Juan`) followed by a capital or a number does not end a sentence;
//! - a bare enumerator (`1.`, `IV.`, `a)`) is not a sentence of its own but the start of
//!   the one it numbers.

use std::ops::Range;

use unicode_segmentation::UnicodeSegmentation;

use crate::blank;

/// Abbreviations after which a period does not end a sentence, lower-cased, without their
/// final period. `etc.` is not here: it ends a sentence as often as not, and UAX #29
/// already keeps it inside one when a lower-case word follows.
const ABBREVIATIONS: &[&str] = &[
    // Spanish legal and administrative text
    "art", "arts", "no", "nos", "núm", "núms", "num", "nums", "lic", "licda", "licdo", "dr", "dra", "dres", "sr", "sra", "sres", "srta",
    "ing", "arq", "act", "biol", "quím", "enf", "mvz", "mtro", "mtra", "prof", "profa", "gral", "cap", "fracc", "frac", "fr", "inc",
    "párr", "pág", "págs", "p", "pp", "vol", "tel", "ej", "p.ej", "ud", "uds", "av", "col", "c.p", "cp", "exp", "of", "secc", "cía", "dir",
    "depto", "edo", "mpio", "ote", "pte", "nte", "hnos", "hno", "ma", "sta", "sto", "mex", "cd", "dto", "lib", "tít", "cfr", "op", "cit",
    "pto", // Peruvian legal citations: Decreto Supremo, Resolución Ministerial, Decreto Legislativo
    "d.s", "r.m", "r.s", "d.leg", "d.u", "r.j", "r.d", // English
    "mr", "mrs", "u.s", "u.k", "ph.d", "ms", "jr", "st", "vs", "e.g", "i.e", "fig", "figs", "approx", "dept", "est", "ltd", "co", "corp",
    "ca", "cf", "al", "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec",
];

/// The sentences of `text[span]`, as trimmed byte ranges of `text`, in order. Every
/// non-blank character of the span is in exactly one of them.
pub fn split(text: &str, span: Range<usize>) -> Vec<Range<usize>> {
    let mut sentences = Vec::new();
    for run in runs(text, span) {
        match run.kind {
            RunKind::Unit => sentences.push(run.span),
            RunKind::Prose => segment(text, run.span, &mut sentences),
        }
    }
    sentences
}

/// Whether `text` ends a sentence: a terminator (`.`, `!`, `?`, `…`) maybe followed by
/// closing quotes, brackets or emphasis, and not a period after an abbreviation.
pub fn ends_sentence(text: &str) -> bool {
    let trimmed = blank::trim_end(text).trim_end_matches(['"', '\'', '”', '’', '»', ')', ']', '*', '_']);
    trimmed.ends_with(['.', '!', '?', '…']) && !ends_with_abbreviation(trimmed)
}

#[derive(PartialEq)]
enum RunKind {
    /// A table row or a heading: one sentence.
    Unit,
    /// Lines of prose (a list item with its continuation lines is one run).
    Prose,
}

struct Run {
    span: Range<usize>,
    kind: RunKind,
}

/// Lines of `span` grouped into runs: consecutive prose lines join, a blank line ends a
/// run, a list item starts one, a table row or a heading is one on its own.
fn runs(text: &str, span: Range<usize>) -> Vec<Run> {
    let mut runs: Vec<Run> = Vec::new();
    let mut open: Option<Range<usize>> = None;
    let mut position = span.start;
    for line in text[span.clone()].split_inclusive('\n') {
        let line_span = position..position + line.len();
        position += line.len();
        let content = blank::trim_start(line);
        if blank::trim_end(content).is_empty() {
            runs.extend(open.take().map(|span| Run { span, kind: RunKind::Prose }));
        } else if content.starts_with('|') || content.starts_with('#') {
            runs.extend(open.take().map(|span| Run { span, kind: RunKind::Prose }));
            runs.extend(super::blocks::trim(text, line_span).map(|span| Run { span, kind: RunKind::Unit }));
        } else if list_marker_len(content).is_some() || is_enumerator(content.trim_end()) {
            runs.extend(open.take().map(|span| Run { span, kind: RunKind::Prose }));
            open = Some(line_span);
        } else {
            open = Some(match open.take() {
                Some(run) => run.start..line_span.end,
                None => line_span,
            });
        }
    }
    runs.extend(open.take().map(|span| Run { span, kind: RunKind::Prose }));
    runs
}

/// UAX #29 sentences of a prose run, line breaks read as spaces, then the merges of the
/// module's rules.
fn segment(text: &str, span: Range<usize>, out: &mut Vec<Range<usize>>) {
    // same length in bytes: \r and \n are one byte each, as the space is
    let joined: String = text[span.clone()].chars().map(|c| if c == '\n' || c == '\r' { ' ' } else { c }).collect();
    let mut pending: Option<Range<usize>> = None;
    for (offset, piece) in joined.split_sentence_bound_indices() {
        let Some(piece) = super::blocks::trim(text, span.start + offset..span.start + offset + piece.len()) else { continue };
        let piece = match pending.take() {
            Some(open) => open.start..piece.end,
            None => piece,
        };
        let slice = &text[piece.clone()];
        if continues(slice) {
            pending = Some(piece);
        } else {
            out.push(piece);
        }
    }
    out.extend(pending);
}

/// Whether a UAX #29 segment stops too early: it is a bare enumerator, or its final period
/// belongs to an abbreviation or an initial.
fn continues(segment: &str) -> bool {
    // emphasis around a label ("**8.2.6.1.", "_5.") does not change what it is
    let trimmed = segment.trim_end().trim_start_matches(['*', '_']);
    if list_marker_len(trimmed).is_some_and(|len| len >= trimmed.len()) || is_enumerator(trimmed) || is_numbered_label(trimmed) {
        return true;
    }
    // a URL cut at its "?" ("index.php?" then "year=2023" on the next line)
    let last_word = trimmed.rsplit(blank::is_blank).next().unwrap_or("");
    if last_word.contains("://") && !last_word.ends_with('.') {
        return true;
    }
    trimmed.ends_with('.') && ends_with_abbreviation(trimmed)
}

/// Whether the last word of `text` (which ends with a period) is an abbreviation or an
/// initial (one capital letter).
fn ends_with_abbreviation(text: &str) -> bool {
    let Some(without_period) = text.strip_suffix('.') else { return false };
    let word =
        without_period.rsplit(|c: char| blank::is_blank(c) || matches!(c, '(' | '[' | '"' | '«' | '“' | '¿' | '¡')).next().unwrap_or("");
    if word.is_empty() || word.ends_with('.') {
        return false; // "..." or a lone period
    }
    let mut letters = word.chars();
    if let (Some(first), None) = (letters.next(), letters.next()) {
        return first.is_uppercase(); // an initial: "C. Juan Pérez", "J. Smith"
    }
    let lower = word.to_lowercase();
    ABBREVIATIONS.contains(&lower.as_str())
}

/// A label that numbers what follows: at most three words, the last a number ending in a
/// period: `Artículo 1.`, `ARTÍCULO 5o.`, `Regla 2.1.3.`, `Art. 12.`.
fn is_numbered_label(text: &str) -> bool {
    let Some(body) = text.strip_suffix('.') else { return false };
    let words: Vec<&str> = body.split_whitespace().collect();
    let Some(last) = words.last() else { return false };
    let number = last.trim_end_matches(['o', 'º', '°', 'a', 'ª']);
    words.len() <= 3
        && !number.is_empty()
        && number.starts_with(|c: char| c.is_ascii_digit())
        && number.chars().all(|c| c.is_ascii_digit() || c == '.')
}

/// A bare enumerator: `1.`, `12)`, `a)`, `(b)`, `IV.`, `1.2.`.
fn is_enumerator(text: &str) -> bool {
    let inner = text.trim_start_matches('(');
    let Some(body) = inner.strip_suffix(['.', ')']) else { return false };
    if body.is_empty() || body.chars().count() > 8 {
        return false;
    }
    let numeric = body.chars().all(|c| c.is_ascii_digit() || c == '.');
    let letter = body.chars().count() == 1 && body.chars().all(|c| c.is_alphabetic());
    // "IV", and "IV.7" as DOF clauses number them
    let roman = body.starts_with(['I', 'V', 'X', 'L', 'C', 'D', 'M'])
        && body.chars().all(|c| matches!(c, 'I' | 'V' | 'X' | 'L' | 'C' | 'D' | 'M' | '.') || c.is_ascii_digit());
    numeric && body.starts_with(|c: char| c.is_ascii_digit()) || letter || roman
}

/// The length of a list marker and the blank after it at the start of `line`: `- `, `* `,
/// `+ `, `• `, `1. `, `1) `, `a) `, `IV. `.
fn list_marker_len(line: &str) -> Option<usize> {
    if let Some(rest) = line.strip_prefix(['-', '*', '+', '•']) {
        return rest.starts_with(' ').then_some(line.len() - rest.len() + 1);
    }
    let end = line.find(' ')?;
    let (marker, _) = line.split_at(end);
    // "a." is as often an initial as a marker: only "a)" counts for a single letter
    let letter_with_period = marker.chars().count() == 2 && marker.ends_with('.') && !marker.starts_with(|c: char| c.is_ascii_digit());
    (is_enumerator(marker)
        && !letter_with_period
        && !(marker.len() == 2 && marker.ends_with('.') && marker.starts_with(char::is_uppercase)))
    .then_some(end + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sentences(text: &str) -> Vec<&str> {
        split(text, 0..text.len()).into_iter().map(|r| &text[r]).collect()
    }

    #[test]
    fn spanish_punctuation_abbreviations_and_numbers() {
        let text = "¿Qué dispone el Art. 5 de la Ley? ¡Nada nuevo! El Lic. Juan Pérez firmó el oficio No. 123. \
                    La tasa es de 3.5% y el monto de $1,250.50 pesos. La empresa XYZ, S.A. de C.V., cumplió.";
        assert_eq!(
            sentences(text),
            vec![
                "¿Qué dispone el Art. 5 de la Ley?",
                "¡Nada nuevo!",
                "El Lic. Juan Pérez firmó el oficio No. 123.",
                "La tasa es de 3.5% y el monto de $1,250.50 pesos.",
                "La empresa XYZ, S.A. de C.V., cumplió."
            ]
        );
    }

    #[test]
    fn wrapped_lines_join_list_items_and_table_rows_are_units() {
        let text = "Fue creado por Guido van Rossum\nen 1991. Es legible.\n- primer punto\n- segundo. Con dos oraciones.\n| a | b. C |\n| 1 | 2 |\nI. La fracción primera.\na) El inciso.";
        assert_eq!(
            sentences(text),
            vec![
                "Fue creado por Guido van Rossum\nen 1991.",
                "Es legible.",
                "- primer punto",
                "- segundo.",
                "Con dos oraciones.",
                "| a | b. C |",
                "| 1 | 2 |",
                "I. La fracción primera.",
                "a) El inciso."
            ]
        );
    }

    #[test]
    fn enumerators_and_initials_do_not_stand_alone() {
        assert_eq!(
            sentences("Artículo 1. Esta Ley es de orden público. 2. Se deroga."),
            vec!["Artículo 1. Esta Ley es de orden público.", "2. Se deroga."]
        );
        assert_eq!(sentences("Presente el C. Juan López. Fin."), vec!["Presente el C. Juan López.", "Fin."]);
    }

    #[test]
    fn ends_sentence_reads_abbreviations() {
        assert!(ends_sentence("Fin del párrafo.\n"));
        assert!(ends_sentence("¿Verdad?»"));
        assert!(!ends_sentence("según el Art."));
        assert!(!ends_sentence("sin punto"));
    }

    #[test]
    fn a_line_of_next_line_characters_is_content() {
        // U+0085 is whitespace to Rust's trim but a token for e5 (crate::blank): a line
        // holding only it was dropped as blank (found by the sentences fuzz target)
        let text = "Sesión 93.\n\u{85}\n\nAcuerdo.";
        let joined: String = sentences(text).concat();
        assert_eq!(joined.matches('\u{85}').count(), 1, "{joined:?}");
    }

    #[test]
    fn every_character_is_kept_in_order() {
        let text = "  Uno. Dos?\n\n| t |\n\n1.\n\n¡Tres! … Sr. X.  ";
        let joined: String = sentences(text).concat().chars().filter(|c| !c.is_whitespace()).collect();
        let expected: String = text.chars().filter(|c| !c.is_whitespace()).collect();
        assert_eq!(joined, expected);
    }
}
