//! HTML and EPUB to markdown. HTML: the page's text with its headings, lists and tables as
//! markdown (`htmd`), navigation, scripts and styles left out. EPUB (seed 003 ingests EPUB
//! chapters): the package document (`META-INF/container.xml` → the OPF) gives the title and
//! the spine, the reading order; each spine item becomes one document, converted like HTML,
//! with the book's title, the item's position and its first heading in the metadata. A
//! broken archive or package is an error for that file alone.
//!
//! Hostile files fail alone, with a reason, and never take the loader down: an EPUB inflates
//! to at most the file size limit in all (a 3 MB zip bomb whose entry inflates to 3 GiB
//! aborted the loader on the allocation), and HTML nested deeper than [`MAX_HTML_DEPTH`]
//! elements is refused before it is parsed (the converter walks the tree recursively:
//! 10,000 nested `<div>`s overflowed the stack).

use std::io::Read as _;

use quick_xml::events::Event;
use quick_xml::Reader;

/// The encoding an HTML file declares in its head (`<meta charset="iso-8859-1">` or
/// `<meta http-equiv="Content-Type" content="text/html; charset=windows-1252">`), as
/// html5ever's tree builder reads it in the first 1024 bytes (where the HTML standard's
/// prescan looks): the bytes are read as Windows-1252, which keeps every ASCII byte of
/// the tags as it is. None when it declares none, or names no encoding.
pub fn declared_encoding(bytes: &[u8]) -> Option<&'static encoding_rs::Encoding> {
    use html5ever::tendril::StrTendril;
    use html5ever::tokenizer::{BufferQueue, Tokenizer, TokenizerOpts};
    use html5ever::tree_builder::{TreeBuilder, TreeBuilderOpts};
    use html5ever::TokenizerResult;

    let (head, _) = encoding_rs::WINDOWS_1252.decode_without_bom_handling(&bytes[..bytes.len().min(1024)]);
    let builder = TreeBuilder::new(markup5ever_rcdom::RcDom::default(), TreeBuilderOpts::default());
    let tokenizer = Tokenizer::new(builder, TokenizerOpts::default());
    let input = BufferQueue::default();
    input.push_back(StrTendril::from_slice(&head));
    loop {
        match tokenizer.feed(&input) {
            TokenizerResult::EncodingIndicator(label) => return encoding_rs::Encoding::for_label(label.trim().as_bytes()),
            TokenizerResult::Script(_) => continue,
            TokenizerResult::Done => return None,
        }
    }
}

/// One document out of a file: an id suffix (EPUB items), its markdown and metadata.
#[derive(Debug)]
pub struct Part {
    pub suffix: Option<String>,
    pub markdown: String,
    pub metadata: Vec<(String, serde_json::Value)>,
}

/// The deepest element nesting converted (real documents stay well under 100).
pub const MAX_HTML_DEPTH: usize = 512;

/// Elements without content (never pushed on the stack of open elements) and elements whose
/// end tag may be left out (closed by their next sibling: counting them would make an
/// ordinary list of `<p>`s look deep).
const NOT_NESTING: [&str; 31] = [
    "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr", "param", "keygen", "p", "li",
    "dt", "dd", "tr", "td", "th", "option", "optgroup", "thead", "tbody", "tfoot", "colgroup", "caption", "rt", "rp",
];

/// How deeply `html`'s elements nest, counted from its tags as written (start tags less
/// end tags, leaving out [`NOT_NESTING`] elements, comments and the text of scripts and
/// styles): what bounds the converter's recursion, found without building a tree.
pub fn nesting_depth(html: &str) -> usize {
    let (mut depth, mut deepest) = (0usize, 0usize);
    let mut rest = html;
    while let Some(open) = rest.find('<') {
        rest = &rest[open + 1..];
        if let Some(comment) = rest.strip_prefix("!--") {
            rest = comment.find("-->").map_or("", |end| &comment[end + 3..]);
            continue;
        }
        let closing = rest.starts_with('/');
        let name: String = rest[usize::from(closing)..]
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == ':')
            .map(|c| c.to_ascii_lowercase())
            .collect();
        if name.is_empty() || !name.starts_with(|c: char| c.is_ascii_alphabetic()) {
            continue; // text, a doctype or a processing instruction
        }
        let tag_end = rest.find('>').unwrap_or(rest.len());
        let self_closing = rest[..tag_end].ends_with('/');
        if !closing && matches!(name.as_str(), "script" | "style") {
            // their text is not markup: on to their end tag, in any case, without copying
            let end = format!("</{name}");
            rest = rest.as_bytes().windows(end.len()).position(|w| w.eq_ignore_ascii_case(end.as_bytes())).map_or("", |at| &rest[at..]);
            continue;
        }
        if NOT_NESTING.contains(&name.as_str()) || self_closing {
            continue;
        }
        if closing {
            depth = depth.saturating_sub(1);
        } else {
            depth += 1;
            deepest = deepest.max(depth);
        }
    }
    deepest
}

pub fn html(html: &str) -> Result<String, String> {
    let depth = nesting_depth(html);
    if depth > MAX_HTML_DEPTH {
        return Err(format!("HTML nested {depth} elements deep, over the {MAX_HTML_DEPTH} converted"));
    }
    let converter = htmd::HtmlToMarkdown::builder().skip_tags(vec!["script", "style", "nav", "head", "noscript", "template"]).build();
    converter.convert(html).map_err(|e| format!("HTML not converted: {e}"))
}

/// The first markdown heading's text.
fn first_heading(markdown: &str) -> Option<String> {
    markdown
        .lines()
        .find_map(|line| line.strip_prefix('#').map(|rest| rest.trim_start_matches('#').trim().to_string()))
        .filter(|t| !t.is_empty())
}

/// An EPUB's documents; `max_bytes` bounds what its entries inflate to, all together.
pub fn epub(bytes: &[u8], max_bytes: u64) -> Result<Vec<Part>, String> {
    let mut archive = zip::ZipArchive::new(std::io::Cursor::new(bytes)).map_err(|e| format!("not a readable EPUB (zip): {e}"))?;
    let mut budget = Inflated { left: max_bytes, limit: max_bytes };
    let mut entry = |archive: &mut zip::ZipArchive<std::io::Cursor<&[u8]>>, name: &str| budget.read(archive, name);
    let container = entry(&mut archive, "META-INF/container.xml")?;
    let opf_path = attribute_of(&container, b"rootfile", b"full-path")?.ok_or("container.xml names no package document (rootfile)")?;
    let opf = entry(&mut archive, &opf_path)?;
    let base = opf_path.rsplit_once('/').map_or(String::new(), |(dir, _)| format!("{dir}/"));
    let (title, manifest, spine) = package(&opf)?;
    let mut parts = Vec::new();
    for (position, idref) in spine.iter().enumerate() {
        let Some((href, media_type)) = manifest.iter().find(|(id, _, _)| id == idref).map(|(_, h, m)| (h, m)) else {
            return Err(format!("spine item {idref:?} is not in the manifest"));
        };
        if !media_type.contains("html") {
            continue;
        }
        let xhtml = entry(&mut archive, &entry_name(&base, &percent_decoded(href)))?;
        let markdown = html(&xhtml)?;
        if dof_core::blank::blank_body(&markdown) {
            continue; // a cover image or a blank page
        }
        let mut metadata =
            vec![("spine_index".to_string(), serde_json::Value::from(position)), ("epub_href".to_string(), href.clone().into())];
        if let Some(title) = &title {
            metadata.push(("publication".into(), title.clone().into()));
        }
        if let Some(heading) = first_heading(&markdown) {
            metadata.push(("title".into(), heading.into()));
        }
        parts.push(Part { suffix: Some(format!("{position:03}-{href}")), markdown, metadata });
    }
    if parts.is_empty() {
        return Err("the EPUB's spine holds no text".into());
    }
    Ok(parts)
}

/// What an EPUB's entries may still inflate to. The archive's declared sizes are not
/// trusted: the bytes are counted as they inflate, and reading stops one byte past the limit.
struct Inflated {
    left: u64,
    limit: u64,
}

impl Inflated {
    fn read(&mut self, archive: &mut zip::ZipArchive<std::io::Cursor<&[u8]>>, name: &str) -> Result<String, String> {
        let file = archive.by_name(name).map_err(|e| format!("EPUB entry {name:?}: {e}"))?;
        let mut bytes = Vec::new();
        file.take(self.left + 1).read_to_end(&mut bytes).map_err(|e| format!("EPUB entry {name:?}: {e}"))?;
        if bytes.len() as u64 > self.left {
            return Err(format!("EPUB entries inflate to over {} bytes, the size limit (--max-file-mb): a zip bomb?", self.limit));
        }
        self.left -= bytes.len() as u64;
        String::from_utf8(bytes)
            .map_err(|e| format!("EPUB entry {name:?}: not UTF-8 (invalid byte at offset {})", e.utf8_error().valid_up_to()))
    }
}

/// The value of `attribute` on the first `element` (local names, any namespace).
fn attribute_of(xml: &str, element: &[u8], attribute: &[u8]) -> Result<Option<String>, String> {
    let mut reader = Reader::from_str(xml);
    loop {
        match reader.read_event().map_err(|e| format!("container.xml: {e}"))? {
            Event::Start(e) | Event::Empty(e) if e.local_name().as_ref() == element => {
                for attr in e.attributes().flatten() {
                    if attr.key.local_name().as_ref() == attribute {
                        return Ok(Some(String::from_utf8_lossy(&attr.value).into_owned()));
                    }
                }
            }
            Event::Eof => return Ok(None),
            _ => {}
        }
    }
}

type Manifest = Vec<(String, String, String)>; // id, href, media-type

/// The package document's title, manifest and spine (itemrefs in reading order).
fn package(opf: &str) -> Result<(Option<String>, Manifest, Vec<String>), String> {
    let mut reader = Reader::from_str(opf);
    let (mut title, mut manifest, mut spine) = (None, Vec::new(), Vec::new());
    // the title's text and references (quick-xml reports `&amp;` apart from the text around it)
    let mut title_text: Option<String> = None;
    loop {
        match reader.read_event().map_err(|e| format!("package document: {e}"))? {
            Event::Start(e) if e.local_name().as_ref() == b"title" && title.is_none() => title_text = Some(String::new()),
            Event::Text(t) if title_text.is_some() => {
                title_text.as_mut().expect("in the title").push_str(&t.decode().map_err(|e| format!("package document: {e}"))?);
            }
            Event::GeneralRef(r) if title_text.is_some() => {
                let name = r.decode().map_err(|e| format!("package document: {e}"))?;
                let text = match r.resolve_char_ref().map_err(|e| format!("package document: {e}"))? {
                    Some(c) => c.to_string(),
                    None => quick_xml::escape::resolve_predefined_entity(&name).map_or_else(|| format!("&{name};"), str::to_string),
                };
                title_text.as_mut().expect("in the title").push_str(&text);
            }
            Event::End(e) if e.local_name().as_ref() == b"title" => {
                if let Some(text) = title_text.take() {
                    title = Some(text.trim().to_string()).filter(|t| !t.is_empty());
                }
            }
            Event::Start(e) | Event::Empty(e) => {
                let attrs: Vec<(Vec<u8>, String)> = e
                    .attributes()
                    .flatten()
                    .map(|a| (a.key.local_name().as_ref().to_vec(), String::from_utf8_lossy(&a.value).into_owned()))
                    .collect();
                let get = |name: &[u8]| attrs.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone());
                match e.local_name().as_ref() {
                    b"item" => {
                        if let (Some(id), Some(href)) = (get(b"id"), get(b"href")) {
                            manifest.push((id, href, get(b"media-type").unwrap_or_default()));
                        }
                    }
                    b"itemref" => spine.extend(get(b"idref")),
                    _ => {}
                }
            }
            Event::Eof => break,
            _ => {}
        }
    }
    if spine.is_empty() {
        return Err("the package document has no spine".into());
    }
    Ok((title, manifest, spine))
}

/// The zip entry a manifest href names, relative to the package document's folder `base`:
/// `.` and `..` segments resolved (`OEBPS/` + `../Text/uno.xhtml` is `Text/uno.xhtml`), as
/// zip entry names hold none; a `..` above the archive's root is dropped.
fn entry_name(base: &str, href: &str) -> String {
    let path = format!("{base}{href}");
    let mut parts: Vec<&str> = Vec::new();
    for segment in path.split('/') {
        match segment {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            name => parts.push(name),
        }
    }
    parts.join("/")
}

/// `%20` and friends in a manifest href, as zip entry names hold them decoded.
fn percent_decoded(href: &str) -> String {
    let bytes = href.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            if let Ok(byte) = u8::from_str_radix(&href[i + 1..i + 3], 16) {
                out.push(byte);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;

    fn epub_bytes(chapters: &[(&str, &str)]) -> Vec<u8> {
        epub_titled("Ley de Prueba", chapters)
    }

    fn epub_titled(title: &str, chapters: &[(&str, &str)]) -> Vec<u8> {
        let mut buffer = std::io::Cursor::new(Vec::new());
        let mut zip = zip::ZipWriter::new(&mut buffer);
        let options = zip::write::SimpleFileOptions::default();
        zip.start_file("mimetype", options).unwrap();
        zip.write_all(b"application/epub+zip").unwrap();
        zip.start_file("META-INF/container.xml", options).unwrap();
        zip.write_all(br#"<?xml version="1.0"?><container xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/></rootfiles></container>"#).unwrap();
        let items: String = chapters
            .iter()
            .enumerate()
            .map(|(i, (href, _))| format!(r#"<item id="c{i}" href="{href}" media-type="application/xhtml+xml"/>"#))
            .collect();
        // the spine reverses the manifest: reading order is the spine's
        let spine: String = (0..chapters.len()).rev().map(|i| format!(r#"<itemref idref="c{i}"/>"#)).collect();
        zip.start_file("OEBPS/content.opf", options).unwrap();
        write!(zip, r#"<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" xmlns:dc="http://purl.org/dc/elements/1.1/"><metadata><dc:title>{title}</dc:title></metadata><manifest>{items}</manifest><spine>{spine}</spine></package>"#).unwrap();
        for (href, body) in chapters {
            zip.start_file(format!("OEBPS/{href}"), options).unwrap();
            zip.write_all(body.as_bytes()).unwrap();
        }
        zip.finish().unwrap();
        buffer.into_inner()
    }

    #[test]
    fn epub_items_in_spine_order_with_their_titles() {
        let bytes = epub_bytes(&[
            ("uno.xhtml", "<html><body><h1>Capítulo I</h1><p>Primer artículo.</p></body></html>"),
            ("dos.xhtml", "<html><body><h2>Capítulo II</h2><p>Segundo <b>artículo</b>.</p><ul><li>a</li></ul></body></html>"),
        ]);
        let parts = epub(&bytes, 1 << 20).unwrap();
        assert_eq!(parts.len(), 2);
        assert!(parts[0].markdown.starts_with("## Capítulo II"), "{}", parts[0].markdown);
        assert!(parts[0].markdown.contains("**artículo**"));
        assert_eq!(parts[0].suffix.as_deref(), Some("000-dos.xhtml"));
        let meta: Vec<(&str, String)> = parts[1].metadata.iter().map(|(k, v)| (k.as_str(), v.to_string())).collect();
        assert!(
            meta.contains(&("publication", "\"Ley de Prueba\"".into())) && meta.contains(&("title", "\"Capítulo I\"".into())),
            "{meta:?}"
        );
    }

    #[test]
    fn a_broken_archive_is_an_error() {
        assert!(epub(b"PK\x03\x04 not really", 1 << 20).unwrap_err().contains("not a readable EPUB"));
        let truncated = &epub_bytes(&[("uno.xhtml", "<p>x</p>")])[..100];
        assert!(epub(truncated, 1 << 20).is_err());
    }

    #[test]
    fn html_keeps_headings_and_drops_scripts() {
        let markdown =
            html("<html><head><title>t</title><script>x()</script></head><body><nav>menú</nav><h1>Aviso</h1><p>Texto.</p></body></html>")
                .unwrap();
        assert!(
            markdown.starts_with("# Aviso") && markdown.contains("Texto.") && !markdown.contains("x()") && !markdown.contains("menú"),
            "{markdown}"
        );
        assert_eq!(percent_decoded("cap%C3%ADtulo%201.xhtml"), "capítulo 1.xhtml");
        assert_eq!(entry_name("OEBPS/", "../Text/uno.xhtml"), "Text/uno.xhtml");
        assert_eq!(entry_name("OEBPS/", "./dos.xhtml"), "OEBPS/dos.xhtml");
        assert_eq!(entry_name("", "../../tres.xhtml"), "tres.xhtml");
    }

    #[test]
    fn a_zip_bomb_fails_at_the_size_limit() {
        // 64 MiB of one byte deflate to ~64 KB: inflating is stopped one byte past the limit
        let bomb = "<p>".to_string() + &"a".repeat(64 << 20) + "</p>";
        let bytes = epub_bytes(&[("uno.xhtml", &bomb)]);
        assert!(bytes.len() < 1 << 20, "the archive is {} bytes", bytes.len());
        let error = epub(&bytes, 1 << 20).unwrap_err();
        assert!(error.contains("inflate to over 1048576 bytes"), "{error}");
        assert!(epub(&bytes, 65 << 20).is_ok(), "under the limit it is read");
    }

    #[test]
    fn html_nested_deeper_than_the_limit_is_refused_unparsed() {
        for (open, close) in [("<div>", "</div>"), ("<ul><li>", ""), ("<b>", "")] {
            let deep = open.repeat(MAX_HTML_DEPTH + 1) + "x" + &close.repeat(MAX_HTML_DEPTH + 1);
            assert!(html(&deep).unwrap_err().contains("nested"), "{open}");
            let huge = open.repeat(100_000) + "x";
            let started = std::time::Instant::now();
            assert!(html(&huge).is_err());
            assert!(started.elapsed().as_secs() < 5, "{open}: refused without parsing");
            let fine = open.repeat(MAX_HTML_DEPTH - 1) + "x" + &close.repeat(MAX_HTML_DEPTH - 1);
            assert!(html(&fine).is_ok(), "{open} at {} levels converts", MAX_HTML_DEPTH - 1);
        }
        // optional end tags, void elements, comments and scripts do not count as depth
        let flat = "<p>a".repeat(5000) + &"<br><img src=x>".repeat(5000) + &"<!-- <div> -->".repeat(5000) + "<script>if (a<b) {}</script>";
        assert!(nesting_depth(&flat) <= 1, "{}", nesting_depth(&flat));
        assert_eq!(nesting_depth("<html><body><div><span>x</span></div></body></html>"), 4);
    }

    #[test]
    fn a_title_with_entities_is_whole() {
        let bytes = epub_titled("Ley &amp; Reglamento &#191;vigente?", &[("uno.xhtml", "<p>Texto.</p>")]);
        let parts = epub(&bytes, 1 << 20).unwrap();
        assert!(parts[0].metadata.contains(&("publication".into(), "Ley & Reglamento ¿vigente?".into())), "{:?}", parts[0].metadata);
    }
}
