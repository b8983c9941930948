//! YAML front matter: a block between `---` lines at the very start of a document (the
//! legalize-pe laws, static-site markdown), which says what the document is (`title`,
//! `identifier`, `publication_date`, `status`…). It is data, not text: its fields become
//! the document's title and metadata (`dof_documents_before`, through
//! `dof_front_matter`), and the chunker leaves it out of every chunk, so a search
//! does not match the YAML and the model does not embed it. A block that does not parse as
//! a YAML mapping is not front matter: it stays text and is chunked like the rest.
//! Front matter scraped from web pages holds HTML character references (the legalize-pe
//! titles: `Pol&iacute;tica`, `N&ordm;`): its text values are decoded, so a title reads as
//! it is written; the body is not (offsets point into it as stored).
//! A byte order mark before it (U+FEFF: Windows editors write one at the start of a UTF-8
//! file, and `pg_read_file` or COPY keeps it) is not text either: the block after it is
//! front matter, and the chunker leaves the mark out as it leaves the block out.

use std::ops::Range;

use serde_json::{Map, Value};

/// The largest block read as front matter; a longer one is text (a document that opens
/// with a thematic break `---` and has another one far below is not front matter).
pub const MAX_BYTES: usize = 64 * 1024;

/// The byte order mark: what [`span`] leaves out when a document starts with it.
const BYTE_ORDER_MARK: char = '\u{feff}';

/// A document's front matter.
#[derive(Debug, Clone, PartialEq)]
pub struct FrontMatter {
    /// Bytes of the block, its fences and the line break after the closing one included
    /// (and a byte order mark before it).
    pub span: Range<usize>,
    /// Its fields, as JSON (dates and numbers as YAML reads them; keys as strings).
    pub fields: Map<String, Value>,
}

/// What the start of a document holds.
#[derive(Debug, Clone, PartialEq)]
pub enum Parsed {
    /// No block between `---` fences at the start.
    None,
    FrontMatter(FrontMatter),
    /// A fenced block that is not a YAML mapping: why (it stays text).
    Malformed(String),
}

/// The bytes of a byte order mark at the start of `text`: 0 or 3.
fn mark_len(text: &str) -> usize {
    if text.starts_with(BYTE_ORDER_MARK) {
        BYTE_ORDER_MARK.len_utf8()
    } else {
        0
    }
}

/// The fenced block at the start of `text`, unparsed: the bytes of the whole block and of
/// the YAML inside. The opening fence is the first line (after a byte order mark), exactly
/// `---`; the closing one the next line that is `---` or `...` (trailing blanks allowed),
/// within [`MAX_BYTES`].
fn fenced(text: &str) -> Option<(Range<usize>, Range<usize>)> {
    let first_end = text.find('\n')?;
    if text[mark_len(text)..first_end].trim_end() != "---" {
        return None;
    }
    let yaml_start = first_end + 1;
    let mut line_start = yaml_start;
    while line_start < text.len() && line_start - yaml_start <= MAX_BYTES {
        let line_end = text[line_start..].find('\n').map_or(text.len(), |i| line_start + i);
        let line = text[line_start..line_end].trim_end();
        if line == "---" || line == "..." {
            let block_end = (line_end + 1).min(text.len());
            return Some((0..block_end, yaml_start..line_start));
        }
        line_start = line_end + 1;
    }
    None
}

/// Reads the front matter at the start of `text`, if there is one.
pub fn parse(text: &str) -> Parsed {
    let Some((span, yaml)) = fenced(text) else { return Parsed::None };
    match serde_yaml_ng::from_str::<Value>(&text[yaml]) {
        Ok(Value::Object(mut fields)) => {
            fields.values_mut().for_each(decode_references);
            Parsed::FrontMatter(FrontMatter { span, fields })
        }
        // an empty block (`---` `---`): front matter with no fields
        Ok(Value::Null) => Parsed::FrontMatter(FrontMatter { span, fields: Map::new() }),
        Ok(other) => Parsed::Malformed(format!("front matter is not a mapping of fields (a YAML {})", kind(&other))),
        Err(error) => Parsed::Malformed(format!("front matter is not valid YAML: {error}")),
    }
}

/// The bytes at the start of `text` that are not its markdown: a byte order mark and the
/// front matter (only the mark when there is none, or it is malformed; none without
/// either): what the chunker leaves out and the invariant checker counts as accounted for.
pub fn span(text: &str) -> Range<usize> {
    match parse(text) {
        Parsed::FrontMatter(front) => front.span,
        _ => 0..mark_len(text),
    }
}

/// Decodes the HTML character references (`&oacute;`, `&#8230;`, `&amp;`) in every text
/// value, at any depth; an `&` that starts no reference stays as it is.
fn decode_references(value: &mut Value) {
    match value {
        Value::String(text) => {
            if let std::borrow::Cow::Owned(decoded) = html_escape::decode_html_entities(text) {
                *text = decoded;
            }
        }
        Value::Array(items) => items.iter_mut().for_each(decode_references),
        Value::Object(fields) => fields.values_mut().for_each(decode_references),
        _ => {}
    }
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "list",
        Value::Object(_) => "mapping",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LAW: &str = "---\ntitle: >-\n  Aprueban “Convenio de Conversi&oacute;n de Deuda”\nidentifier: DS-092-2002-EF\npublication_date: '2002-06-08'\nrank: decreto_supremo\n---\n# Aprueban\n\nTexto.\n";

    #[test]
    fn fields_and_the_span_of_the_block() {
        let Parsed::FrontMatter(front) = parse(LAW) else { panic!("{:?}", parse(LAW)) };
        assert_eq!(front.fields["identifier"], "DS-092-2002-EF");
        assert_eq!(front.fields["publication_date"], "2002-06-08");
        assert_eq!(front.fields["title"], "Aprueban “Convenio de Conversión de Deuda”");
        assert_eq!(&LAW[front.span.end..], "# Aprueban\n\nTexto.\n");
        assert_eq!(span(LAW), front.span);
    }

    #[test]
    fn html_character_references_in_values_are_decoded() {
        let text = "---\ntitle: Ley N&ordm; 1 &iquest;y&#63; &amp; R&eacute;gimen\ntags: [Educaci&oacute;n, {a: P&uacute;blico}]\nnote: AT&T & co &bogus;\nn: 3\n---\nCuerpo con &oacute;\n";
        let Parsed::FrontMatter(front) = parse(text) else { panic!() };
        assert_eq!(front.fields["title"], "Ley Nº 1 ¿y? & Régimen");
        assert_eq!(front.fields["tags"], serde_json::json!(["Educación", {"a": "Público"}]));
        assert_eq!(front.fields["note"], "AT&T & co &bogus;");
        assert_eq!(front.fields["n"], 3);
        // the body is not front matter: it stays as stored
        assert_eq!(&text[front.span.end..], "Cuerpo con &oacute;\n");
    }

    #[test]
    fn only_a_block_at_the_very_start_with_both_fences() {
        assert_eq!(parse("# Título\n---\na: 1\n---\n"), Parsed::None);
        assert_eq!(parse("---\na: 1\nsin cierre\n"), Parsed::None);
        assert_eq!(parse(" ---\na: 1\n---\n"), Parsed::None);
        assert!(matches!(parse("---\na: 1\n...\nTexto"), Parsed::FrontMatter(f) if f.span == (0..13)));
        assert!(matches!(parse("---\n---\nTexto"), Parsed::FrontMatter(f) if f.fields.is_empty() && f.span == (0..8)));
        assert!(matches!(parse("---\r\na: 1\r\n---\r\nTexto"), Parsed::FrontMatter(f) if f.fields["a"] == 1));
        // a closing fence at the end of the text, without a line break
        assert!(matches!(parse("---\na: 1\n---"), Parsed::FrontMatter(f) if f.span == (0..12)));
    }

    #[test]
    fn a_byte_order_mark_is_not_text() {
        let marked = format!("\u{feff}{LAW}");
        let Parsed::FrontMatter(front) = parse(&marked) else { panic!("{:?}", parse(&marked)) };
        assert_eq!(front.fields["identifier"], "DS-092-2002-EF");
        assert_eq!(front.span.start, 0);
        assert_eq!(&marked[span(&marked).end..], "# Aprueban\n\nTexto.\n");
        // without front matter, or with a malformed block, only the mark is left out
        assert_eq!(span("\u{feff}# Título\n\nTexto."), 0..3);
        assert_eq!(span("\u{feff}---\ntitle: [sin cerrar\n---\n"), 0..3);
        assert!(matches!(parse("\u{feff}---\ntitle: [sin cerrar\n---\n"), Parsed::Malformed(_)));
        // a mark anywhere else is the text's
        assert_eq!(parse("\n\u{feff}---\na: 1\n---\n"), Parsed::None);
        assert_eq!(span("# T\u{feff}"), 0..0);
    }

    #[test]
    fn a_block_that_is_not_a_mapping_stays_text() {
        // thematic breaks around a paragraph: YAML reads a string, not fields
        assert!(matches!(parse("---\nUn párrafo entre dos líneas.\n---\nMás texto."), Parsed::Malformed(m) if m.contains("string")));
        assert!(matches!(parse("---\ntitle: [sin cerrar\n---\n"), Parsed::Malformed(m) if m.contains("not valid YAML")));
        assert_eq!(span("---\ntitle: [sin cerrar\n---\n"), 0..0);
        let long = format!("---\n{}---\n", "a: b\n".repeat(MAX_BYTES / 5 + 10));
        assert_eq!(parse(&long), Parsed::None);
    }
}
