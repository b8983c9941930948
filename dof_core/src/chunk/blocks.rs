//! A document's top-level markdown blocks with byte spans, from pulldown-cmark.
//!
//! Every non-whitespace byte of the input after its front matter ([`crate::front_matter`],
//! which is data, not text) lies in exactly one block: text that the parser does not report
//! as a block (link reference definitions, say) becomes a text block, so chunking can never
//! drop it.

use std::ops::Range;

use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};

use crate::blank;
use crate::classify::is_bold_line;

#[derive(Debug, Clone, PartialEq)]
pub enum BlockKind {
    Heading {
        level: u8,
        text: String,
    },
    /// A paragraph that is bold from end to end: header metadata in DOF notices.
    BoldLine,
    Table(Table),
    /// Everything else: paragraphs, lists, quotes, code, HTML (including
    /// `<!-- IMAGE_DESCRIPTION: … -->` comments, which are kept as text).
    Text,
}

/// A GFM table: `header` is its header row and `|---|` separator line; `rows` its body rows.
#[derive(Debug, Clone, PartialEq)]
pub struct Table {
    pub header: Range<usize>,
    pub rows: Vec<Range<usize>>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Block {
    pub kind: BlockKind,
    /// Trimmed: starts and ends at a non-whitespace character.
    pub span: Range<usize>,
}

/// Parser events between two calls of `interrupt` (a few milliseconds of parsing).
const EVENTS_PER_INTERRUPT: usize = 4096;

/// The blocks of `text` after its front matter, calling `interrupt` every few thousand
/// parser events.
pub fn parse(text: &str, interrupt: &dyn Fn()) -> Vec<Block> {
    // the markdown after the front matter, parsed alone, its offsets in `text`
    let skip = crate::front_matter::span(text).end;
    let options =
        Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_FOOTNOTES | Options::ENABLE_YAML_STYLE_METADATA_BLOCKS;
    let mut blocks: Vec<Block> = Vec::new();
    let mut depth = 0usize;
    let mut open: Option<(BlockKind, Range<usize>)> = None;
    let mut table_rows: Vec<Range<usize>> = Vec::new();
    let events = Parser::new_ext(&text[skip..], options).into_offset_iter().map(|(e, r)| (e, r.start + skip..r.end + skip));
    for (n, (event, range)) in events.enumerate() {
        if n % EVENTS_PER_INTERRUPT == 0 {
            interrupt();
        }
        match event {
            Event::Start(tag) => {
                if depth == 0 {
                    let kind = match &tag {
                        Tag::Heading { level, .. } => BlockKind::Heading { level: *level as u8, text: String::new() },
                        Tag::Table(_) => BlockKind::Table(Table { header: range.start..range.start, rows: Vec::new() }),
                        _ => BlockKind::Text,
                    };
                    open = Some((kind, range.clone()));
                    table_rows.clear();
                } else if depth == 1 && matches!(tag, Tag::TableRow) {
                    table_rows.push(range.clone());
                }
                depth += 1;
            }
            Event::End(end) => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    if let Some((kind, span)) = open.take() {
                        let kind = finish_kind(kind, end, text, &span, &mut table_rows);
                        push_trimmed(&mut blocks, text, kind, span);
                    }
                }
            }
            Event::Text(t) | Event::Code(t) => {
                if let Some((BlockKind::Heading { text: heading, .. }, _)) = open.as_mut() {
                    heading.push_str(&t);
                } else if depth == 0 {
                    push_trimmed(&mut blocks, text, BlockKind::Text, range);
                }
            }
            _ if depth == 0 => push_trimmed(&mut blocks, text, BlockKind::Text, range),
            _ => {}
        }
    }
    cover_gaps(text, blocks, skip)
}

fn finish_kind(kind: BlockKind, end: TagEnd, text: &str, span: &Range<usize>, rows: &mut Vec<Range<usize>>) -> BlockKind {
    match kind {
        BlockKind::Table(_) => {
            let rows: Vec<Range<usize>> = rows.drain(..).filter_map(|r| trim(text, r)).collect();
            // the header runs from the table's start to just before the first body row:
            // the header row and the |---| line
            let header_end = rows.first().map_or(span.end, |r| r.start);
            let header = trim(text, span.start..header_end).unwrap_or(span.start..span.start);
            BlockKind::Table(Table { header, rows })
        }
        BlockKind::Text if end == TagEnd::Paragraph => {
            let paragraph = text[span.clone()].trim();
            if !paragraph.contains('\n') && is_bold_line(paragraph) {
                BlockKind::BoldLine
            } else {
                BlockKind::Text
            }
        }
        BlockKind::Heading { level, text: heading } => BlockKind::Heading { level, text: heading.trim().to_string() },
        other => other,
    }
}

fn push_trimmed(blocks: &mut Vec<Block>, text: &str, kind: BlockKind, span: Range<usize>) {
    if let Some(span) = trim(text, span) {
        blocks.push(Block { kind, span });
    }
}

/// Sorts blocks, drops overlaps, and turns any non-whitespace text between blocks into
/// text blocks, so the blocks cover every visible character from `start` on exactly once.
fn cover_gaps(text: &str, mut blocks: Vec<Block>, start: usize) -> Vec<Block> {
    blocks.sort_by_key(|b| b.span.start);
    let mut covered: Vec<Block> = Vec::with_capacity(blocks.len() + 1);
    let mut position = start;
    for block in blocks {
        if block.span.start < position {
            if block.span.end <= position {
                continue; // inside an earlier block
            }
            // overlaps the previous block's end: keep only the new part, as text
            push_trimmed(&mut covered, text, BlockKind::Text, position..block.span.end);
            position = block.span.end;
            continue;
        }
        if let Some(gap) = trim(text, position..block.span.start) {
            push_gap(&mut covered, text, gap);
        }
        position = block.span.end;
        covered.push(block);
    }
    if let Some(gap) = trim(text, position..text.len()) {
        push_gap(&mut covered, text, gap);
    }
    covered
}

/// Uncovered text, one text block per paragraph (blank-line separated).
fn push_gap(blocks: &mut Vec<Block>, text: &str, gap: Range<usize>) {
    let mut start = gap.start;
    for (offset, _) in text[gap.clone()].match_indices("\n\n") {
        let end = gap.start + offset;
        push_trimmed(blocks, text, BlockKind::Text, start..end);
        start = end;
    }
    push_trimmed(blocks, text, BlockKind::Text, start..gap.end);
}

/// `span` without leading and trailing blanks ([`crate::blank`]), or `None` when nothing is left.
pub(crate) fn trim(text: &str, span: Range<usize>) -> Option<Range<usize>> {
    let slice = &text[span.clone()];
    let start = span.start + (slice.len() - blank::trim_start(slice).len());
    let end = span.end - (slice.len() - blank::trim_end(slice).len());
    (start < end).then_some(start..end)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(text: &str) -> Vec<(String, &str)> {
        parse(text, &|| {})
            .into_iter()
            .map(|b| {
                let kind = match &b.kind {
                    BlockKind::Heading { level, text } => format!("h{level}:{text}"),
                    BlockKind::BoldLine => "bold".into(),
                    BlockKind::Table(t) => format!("table:{}rows", t.rows.len()),
                    BlockKind::Text => "text".into(),
                };
                (kind, &text[b.span.clone()])
            })
            .collect()
    }

    #[test]
    fn headings_paragraphs_bold_lines_and_tables() {
        let doc = "# Título\n\n**Licitación 1**\n\nUn párrafo\nde dos líneas.\n\n| a | b |\n|---|---|\n| 1 | 2 |\n| 3 | 4 |\n\n## Sección";
        let got = kinds(doc);
        assert_eq!(got[0], ("h1:Título".to_string(), "# Título"));
        assert_eq!(got[1], ("bold".to_string(), "**Licitación 1**"));
        assert_eq!(got[2], ("text".to_string(), "Un párrafo\nde dos líneas."));
        assert_eq!(got[3].0, "table:2rows");
        assert_eq!(got[4], ("h2:Sección".to_string(), "## Sección"));
        let BlockKind::Table(table) = &parse(doc, &|| {})[3].kind else { panic!() };
        assert_eq!(&doc[table.header.clone()], "| a | b |\n|---|---|");
        assert_eq!(&doc[table.rows[1].clone()], "| 3 | 4 |");
    }

    #[test]
    fn link_definitions_and_comments_are_kept_as_text() {
        let doc = "Texto.\n\n[ref]: http://example.com\n\n<!-- IMAGE_DESCRIPTION: un sello oficial -->\n";
        let got = kinds(doc);
        let all: String = got.iter().map(|(_, t)| *t).collect::<Vec<_>>().join("|");
        assert!(all.contains("[ref]: http://example.com"), "{got:?}");
        assert!(all.contains("IMAGE_DESCRIPTION: un sello oficial"), "{got:?}");
    }

    #[test]
    fn blocks_cover_every_visible_character_once() {
        let doc = "- uno\n- dos\n\n> cita\n\n```\ncódigo\n```\n\n| sin | separador |\n| x | y |\n\n<div>\nhtml\n</div>\n";
        let blocks = parse(doc, &|| {});
        let mut covered = vec![false; doc.len()];
        for b in &blocks {
            for i in b.span.clone() {
                assert!(!covered[i], "byte {i} in two blocks");
                covered[i] = true;
            }
        }
        for (i, c) in doc.char_indices() {
            assert!(crate::blank::is_blank(c) || covered[i], "byte {i} ({c:?}) not covered");
        }
    }
}
