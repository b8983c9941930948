//! Pattern classification (seed 000): decide a document's structure before chunking it.
//!
//! One pass over the lines, counting markers; no tokenization and no allocation. The
//! decision is cheap by design: it runs on every document, including 40 MB tax tables.

use std::fmt;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Pattern {
    Small,
    H2Compound,
    BoldHeaders,
    PlainText,
    GiantTable,
}

impl Pattern {
    pub const ALL: [Pattern; 5] = [Pattern::Small, Pattern::H2Compound, Pattern::BoldHeaders, Pattern::PlainText, Pattern::GiantTable];

    pub fn as_str(self) -> &'static str {
        match self {
            Pattern::Small => "small",
            Pattern::H2Compound => "h2_compound",
            Pattern::BoldHeaders => "bold_headers",
            Pattern::PlainText => "plain_text",
            Pattern::GiantTable => "giant_table",
        }
    }

    pub fn parse(name: &str) -> Option<Pattern> {
        Pattern::ALL.into_iter().find(|p| p.as_str() == name)
    }

    /// The names, comma-separated, for messages.
    pub fn names() -> String {
        Pattern::ALL.map(Pattern::as_str).join(", ")
    }
}

impl fmt::Display for Pattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The seed's thresholds, as parameters.
#[derive(Debug, Clone, PartialEq)]
pub struct Thresholds {
    /// Documents under this many bytes are `small`.
    pub small_bytes: usize,
    /// More than this share of non-empty lines starting with `|` makes a `giant_table`.
    pub table_line_ratio: f64,
    /// Documents over this many bytes without `min_h2_headings` H2s are `giant_table`
    /// whatever their content (a whole DOF edition, hundreds of H2 notices, is not).
    pub giant_bytes: usize,
    /// This many `## ` headings make an `h2_compound`.
    pub min_h2_headings: usize,
    /// This many lines that are entirely bold make `bold_headers`.
    pub min_bold_lines: usize,
}

impl Default for Thresholds {
    fn default() -> Self {
        Self { small_bytes: 10_000, table_line_ratio: 0.40, giant_bytes: 1_000_000, min_h2_headings: 2, min_bold_lines: 2 }
    }
}

/// What the decision looked at.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Features {
    pub bytes: usize,
    pub non_empty_lines: usize,
    pub table_lines: usize,
    pub h2_headings: usize,
    pub bold_lines: usize,
}

impl Features {
    pub fn of(text: &str) -> Features {
        let mut features = Features { bytes: text.len(), ..Features::default() };
        let mut fence: Option<Fence> = None;
        for line in text.split('\n') {
            let trimmed = line.trim();
            if trimmed.is_empty() {
                continue;
            }
            features.non_empty_lines += 1;
            // inside fenced code, `## ` and `|` are code, as the chunker's parser sees them
            match fence {
                Some(open) => {
                    if open.closed_by(trimmed) {
                        fence = None;
                    }
                    continue;
                }
                None => {
                    fence = Fence::opened_by(line);
                    if fence.is_some() {
                        continue;
                    }
                }
            }
            if trimmed.starts_with('|') {
                features.table_lines += 1;
            }
            if line.starts_with("## ") {
                features.h2_headings += 1;
            }
            if is_bold_line(trimmed) {
                features.bold_lines += 1;
            }
        }
        features
    }

    pub fn table_line_ratio(&self) -> f64 {
        if self.non_empty_lines == 0 {
            0.0
        } else {
            self.table_lines as f64 / self.non_empty_lines as f64
        }
    }

    /// The seed's decision order: size first, then tables, then H2s, then bold lines. One
    /// change from the seed, by measurement: a document over `giant_bytes` that is not mostly
    /// table lines but has H2 sections (a whole DOF edition: 586 notices, 30% table lines)
    /// is `h2_compound`, cut by its sections, not packed across notices as a table
    /// (bench/scripts/retrieval_quality.sh on the DOF set: CHANGELOG 0.3.0).
    pub fn pattern(&self, thresholds: &Thresholds) -> Pattern {
        let sections = self.h2_headings >= thresholds.min_h2_headings;
        if self.bytes < thresholds.small_bytes {
            Pattern::Small
        } else if self.table_line_ratio() > thresholds.table_line_ratio || (self.bytes > thresholds.giant_bytes && !sections) {
            Pattern::GiantTable
        } else if sections {
            Pattern::H2Compound
        } else if self.bold_lines >= thresholds.min_bold_lines {
            Pattern::BoldHeaders
        } else {
            Pattern::PlainText
        }
    }
}

/// An open fenced code block (CommonMark: three or more backticks or tildes, indented at
/// most three spaces; closed by at least as many of the same character and nothing else).
#[derive(Debug, Clone, Copy)]
struct Fence {
    marker: u8,
    length: usize,
}

impl Fence {
    fn opened_by(line: &str) -> Option<Fence> {
        let indent = line.len() - line.trim_start_matches(' ').len();
        let rest = &line.as_bytes()[indent..];
        let marker = *rest.first()?;
        let length = rest.iter().take_while(|&&b| b == marker).count();
        let valid = indent <= 3 && (marker == b'`' || marker == b'~') && length >= 3;
        // a backtick fence's info string cannot contain a backtick
        let info_ok = marker == b'~' || !rest[length..].contains(&b'`');
        (valid && info_ok).then_some(Fence { marker, length })
    }

    fn closed_by(self, trimmed: &str) -> bool {
        let bytes = trimmed.as_bytes();
        bytes.len() >= self.length && bytes.iter().all(|&b| b == self.marker)
    }
}

/// A line that is bold from end to end: `**Licitación No. 123**`.
pub fn is_bold_line(trimmed: &str) -> bool {
    trimmed.len() > 4 && trimmed.starts_with("**") && trimmed.ends_with("**") && !trimmed[2..trimmed.len() - 2].contains("**")
}

pub fn classify(text: &str, thresholds: &Thresholds) -> Pattern {
    Features::of(text).pattern(thresholds)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pad(body: &str) -> String {
        format!("{body}\n{}", "Texto de relleno sin marcas. ".repeat(400))
    }

    #[test]
    fn each_rule_in_the_seed_order() {
        let t = Thresholds::default();
        assert_eq!(classify("# Aviso\n\nbreve", &t), Pattern::Small);
        assert_eq!(classify("", &t), Pattern::Small);
        let table = format!("{}\n{}", "| a | b |\n".repeat(2000), "texto\n".repeat(100));
        assert_eq!(classify(&table, &t), Pattern::GiantTable);
        assert_eq!(classify(&pad("## Uno\n\ntexto\n\n## Dos\n\ntexto"), &t), Pattern::H2Compound);
        assert_eq!(classify(&pad("**Licitación**\n\ntexto\n\n**Fecha**\n\ntexto"), &t), Pattern::BoldHeaders);
        assert_eq!(classify(&pad("Un edicto sin marcas."), &t), Pattern::PlainText);
        let huge = "palabra ".repeat(200_000);
        assert_eq!(classify(&huge, &t), Pattern::GiantTable);
        // over giant_bytes with H2 sections and few table lines: cut by its sections
        let edition = "## Aviso

Texto del aviso.

| a | b |
"
        .repeat(60_000);
        assert!(edition.len() > t.giant_bytes);
        assert_eq!(classify(&edition, &t), Pattern::H2Compound);
    }

    #[test]
    fn tables_win_over_h2_and_the_ratio_is_over_non_empty_lines() {
        let t = Thresholds::default();
        let doc = pad(&format!("## A\n\n## B\n\n{}", "| x | y |\n".repeat(1000)));
        let f = Features::of(&doc);
        assert_eq!(f.h2_headings, 2);
        assert!(f.table_line_ratio() > 0.4, "{f:?}");
        assert_eq!(f.pattern(&t), Pattern::GiantTable);
    }

    #[test]
    fn thresholds_are_parameters() {
        let t = Thresholds { small_bytes: 10, min_h2_headings: 1, ..Thresholds::default() };
        assert_eq!(classify("## Solo un encabezado\n\ntexto", &t), Pattern::H2Compound);
    }

    #[test]
    fn bold_lines_must_be_bold_from_end_to_end() {
        assert!(is_bold_line("**Fecha de publicación**"));
        assert!(!is_bold_line("**Fecha** de publicación"));
        assert!(!is_bold_line("**a** y **b**"));
        assert!(!is_bold_line("****"));
    }

    #[test]
    fn headings_and_tables_inside_fenced_code_do_not_count() {
        let t = Thresholds::default();
        let fenced = pad(&format!("```markdown\n{}```\n\n~~~~\n{}~~~~\n", "## no es título\n".repeat(600), "| a | b |\n".repeat(600)));
        let f = Features::of(&fenced);
        assert_eq!((f.h2_headings, f.table_lines), (0, 0), "{f:?}");
        assert_eq!(f.pattern(&t), Pattern::PlainText);
        // a shorter closing fence does not close; headings after a real close count again
        let reopened = pad("````\n## dentro\n```\n## dentro\n````\n## Fuera uno\n\n## Fuera dos\n");
        assert_eq!(Features::of(&reopened).h2_headings, 2);
    }

    #[test]
    fn names_round_trip() {
        for p in Pattern::ALL {
            assert_eq!(Pattern::parse(p.as_str()), Some(p));
        }
    }
}
