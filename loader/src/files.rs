//! The files a load reads: walked in name order under each path given, filtered by format,
//! each read whole and checked (size, empty, its encoding) before anything is sent. A
//! problem is a per-file failure with a reason; the run goes on.

use std::path::{Path, PathBuf};

use encoding_rs::Encoding;
use sha2::{Digest, Sha256};

use crate::convert::{self, Part};

#[derive(Clone, Copy, PartialEq, Eq, Debug, clap::ValueEnum)]
pub enum Format {
    /// By extension: .md and .markdown as markdown, .txt as text, .html and .htm as HTML,
    /// .epub as EPUB
    Auto,
    Md,
    Txt,
    Html,
    Epub,
}

/// A file found under a path given on the command line.
pub struct Found {
    pub path: PathBuf,
    /// The document's source_id: the path relative to the folder given (the file name for
    /// a file given directly), with `/` separators.
    pub source_id: String,
}

/// A file read, checked and converted: its documents (one, or an EPUB's spine items), or
/// why it cannot be loaded.
pub enum Read {
    Ok { parts: Vec<Part>, bytes: usize },
    Failed(String),
}

/// A document body's content hash as the database computes it (`dof_content_hash`: SHA-256
/// of the UTF-8 bytes, in hex), to compare with `dof_documents.content_sha256` before
/// sending it.
pub fn content_hash(body: &str) -> String {
    Sha256::digest(body.as_bytes()).iter().map(|b| format!("{b:02x}")).collect()
}

/// What a walk found: the files to read (each with its problem, if it has one), and how
/// many files of other kinds it left out of the folders, by extension.
pub struct Walk {
    pub found: Vec<(Found, Option<String>)>,
    pub left_out: std::collections::BTreeMap<String, usize>,
}

/// Every file under `roots` that `format` takes, in a stable order; unreadable folders,
/// broken links and a link back to a folder above it are reported as failures. Links are
/// followed, to folders as to files, and a file keeps the path it was found at (its source
/// id): not followed, a link to a folder inside a folder was left out as a "file of no
/// extension", and a folder given as a link failed as a file with an empty name after its
/// files loaded. A file of another kind is left out of a folder (and counted: a folder of
/// PDFs loads nothing, and the user is told why), but a file named on the command line
/// fails: it was asked for.
pub fn walk(roots: &[PathBuf], format: Format) -> Walk {
    let mut out = Vec::new();
    let mut left_out = std::collections::BTreeMap::new();
    for root in roots {
        let base = if root.is_dir() { root.clone() } else { root.parent().map(Path::to_path_buf).unwrap_or_default() };
        for entry in walkdir::WalkDir::new(root).follow_links(true).sort_by_file_name() {
            let (path, mut problem, named) = match entry {
                Ok(entry) if entry.file_type().is_dir() => continue,
                Ok(entry) => (entry.path().to_path_buf(), None, entry.depth() == 0),
                Err(error) => match error.path() {
                    Some(path) => (path.to_path_buf(), Some(format!("cannot read: {error}")), false),
                    None => continue,
                },
            };
            if problem.is_none() && !takes(&path, format) {
                let extension =
                    path.extension().map_or_else(|| "no extension".into(), |e| format!(".{}", e.to_string_lossy().to_lowercase()));
                if !named {
                    *left_out.entry(extension).or_insert(0) += 1;
                    continue;
                }
                problem = Some(format!("not a kind of file dof load reads ({extension}); {}", kinds(format)));
            }
            let relative = path.strip_prefix(&base).unwrap_or(&path);
            let source_id = relative.components().map(|c| c.as_os_str().to_string_lossy()).collect::<Vec<_>>().join("/");
            out.push((Found { path, source_id }, problem));
        }
    }
    mark_repeated_ids(&mut out);
    Walk { found: out, left_out }
}

/// The extensions of the files `format` takes (lowercase, any case matches).
fn extensions(format: Format) -> &'static [&'static str] {
    match format {
        Format::Auto => &["md", "markdown", "txt", "html", "htm", "epub"],
        Format::Md => &["md", "markdown"],
        Format::Txt => &["txt"],
        Format::Html => &["html", "htm"],
        Format::Epub => &["epub"],
    }
}

/// The files `format` takes, as a user reads it.
pub fn kinds(format: Format) -> String {
    let listed = extensions(format).iter().map(|e| format!(".{e}")).collect::<Vec<_>>().join(", ");
    match format {
        Format::Auto => format!("it reads {listed} (convert a PDF to markdown first)"),
        _ => format!("--format {} reads {listed}", extensions(format)[0]),
    }
}

/// A source id is one document: a file whose id another file found earlier already has
/// (a path given twice, the same name under two folders given, two non-UTF-8 names that
/// read the same) fails, naming that file, instead of overwriting it or failing the whole
/// batch both are written in.
fn mark_repeated_ids(found: &mut [(Found, Option<String>)]) {
    let mut first: std::collections::HashMap<String, PathBuf> = std::collections::HashMap::new();
    for (file, problem) in found.iter_mut() {
        match first.get(&file.source_id) {
            Some(path) if problem.is_none() => {
                *problem = Some(format!("the same source id as {} (each document needs its own)", path.display()));
            }
            Some(_) => {}
            None => {
                first.insert(file.source_id.clone(), file.path.clone());
            }
        }
    }
}

fn takes(path: &Path, format: Format) -> bool {
    let extension = path.extension().map(|e| e.to_string_lossy().to_lowercase()).unwrap_or_default();
    extensions(format).contains(&extension.as_str())
}

/// `--encoding`'s value: an encoding by any label of the WHATWG Encoding Standard
/// (`utf-8`, `windows-1252`, `latin1`, `iso-8859-15`, `utf-16le`...).
pub fn encoding(label: &str) -> Result<&'static Encoding, String> {
    match Encoding::for_label(label.trim().as_bytes()) {
        // the labels of encodings that decode nothing (ISO-2022-KR...) name this one
        Some(encoding) if encoding != encoding_rs::REPLACEMENT => Ok(encoding),
        _ => Err(format!("unknown encoding {label:?}: utf-8, windows-1252 (latin1), iso-8859-15, utf-16le, utf-16be... (WHATWG labels)")),
    }
}

/// A file's text. A file that starts with a byte order mark is in the encoding the mark
/// names (a Windows "Unicode" file is UTF-16 with one), and the mark is no text (left in, it
/// hides the first line's heading). Else a file is UTF-8 when its bytes are, and in
/// `encoding` when they are not: a Latin-1 file almost never reads as UTF-8, so one folder
/// may hold both, and a UTF-8 file is not read as Latin-1 by mistake. An encoding that is
/// not ASCII-compatible (UTF-16 without a mark) is taken as given. Bytes that are not the
/// encoding fail the file, naming the first one: nothing is replaced.
fn decode(bytes: Vec<u8>, encoding: &'static Encoding) -> Result<String, String> {
    let marked = Encoding::for_bom(&bytes);
    // UTF-8 is tried first, once, on the bytes as read (a mark, if any, stripped after)
    let utf8_first = marked.map_or(encoding.is_ascii_compatible(), |(named, _)| named == encoding_rs::UTF_8);
    let bytes = if utf8_first {
        match String::from_utf8(bytes) {
            Ok(mut text) => {
                text.replace_range(..marked.map_or(0, |(_, mark)| mark), "");
                return Ok(text);
            }
            Err(error) if marked.is_some() || encoding == encoding_rs::UTF_8 => {
                let offset = error.utf8_error().valid_up_to();
                return Err(format!(
                    "not UTF-8 (invalid byte at offset {offset}); Spanish text saved as Latin-1 or Windows-1252 loads with --encoding windows-1252"
                ));
            }
            Err(error) => error.into_bytes(),
        }
    } else {
        bytes
    };
    let (encoding, mark) = marked.unwrap_or((encoding, 0));
    match encoding.decode_without_bom_handling_and_without_replacement(&bytes[mark..]) {
        Some(text) => Ok(text.into_owned()),
        None => Err(format!("not {} (a byte sequence it does not encode)", encoding.name())),
    }
}

/// Reads, checks and converts one file. Only regular files are read (a link is followed):
/// a device (`/dev/zero`) or a FIFO would be read forever or block the load. An EPUB's
/// entries are UTF-8, as the format requires; every other file is read in `encoding`.
pub fn read(path: &Path, max_bytes: u64, format: Format, encoding: &'static Encoding) -> Read {
    match std::fs::metadata(path) {
        Err(error) => return Read::Failed(format!("cannot read: {error}")),
        Ok(meta) if !meta.is_file() => return Read::Failed("not a regular file (a device, FIFO or socket): skipped".into()),
        Ok(meta) if meta.len() > max_bytes => {
            return Read::Failed(format!("{} bytes, over the size limit of {max_bytes} (--max-file-mb)", meta.len()))
        }
        Ok(_) => {}
    }
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(error) => return Read::Failed(format!("cannot read: {error}")),
    };
    let size = bytes.len();
    let extension = path.extension().map(|e| e.to_string_lossy().to_lowercase()).unwrap_or_default();
    let kind = match format {
        Format::Auto => match extension.as_str() {
            "html" | "htm" => Format::Html,
            "epub" => Format::Epub,
            _ => Format::Md,
        },
        other => other,
    };
    if kind == Format::Epub {
        return match convert::epub(&bytes, max_bytes) {
            Ok(parts) => Read::Ok { parts, bytes: size },
            Err(reason) => Read::Failed(reason),
        };
    }
    // an HTML file that is not UTF-8 is read in the encoding its head declares, as a
    // browser reads it (decode uses `encoding` only for such a file). A declared UTF-8 is
    // wrong for it, and a declared UTF-16 cannot be (the tags were read as ASCII): both
    // are left aside, as the HTML standard leaves a declared UTF-16
    let encoding = match kind {
        Format::Html => convert::declared_encoding(&bytes)
            .filter(|declared| declared.is_ascii_compatible() && *declared != encoding_rs::UTF_8 && *declared != encoding_rs::REPLACEMENT)
            .unwrap_or(encoding),
        _ => encoding,
    };
    let text = match decode(bytes, encoding) {
        Ok(text) => text,
        Err(reason) => return Read::Failed(reason),
    };
    if text.contains('\0') {
        return Read::Failed("holds NUL bytes (a binary file?)".into());
    }
    let markdown = match kind {
        Format::Html => match convert::html(&text) {
            Ok(markdown) => markdown,
            Err(reason) => return Read::Failed(reason),
        },
        _ => text,
    };
    // the database refuses a body with nothing to index by the same rule
    if dof_core::blank::blank_body(&markdown) {
        let what = if markdown.trim().is_empty() { "empty file" } else { "no text to index after its front matter" };
        return Read::Failed(what.into());
    }
    Read::Ok { parts: vec![Part { suffix: None, markdown, metadata: Vec::new() }], bytes: size }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_repeated_source_id_fails_the_later_file_only() {
        let dir = std::env::temp_dir().join(format!("dof-files-{}", std::process::id()));
        for sub in ["a", "b"] {
            std::fs::create_dir_all(dir.join(sub)).unwrap();
            std::fs::write(dir.join(sub).join("x.md"), "# X").unwrap();
        }
        let found = walk(&[dir.join("a"), dir.join("b"), dir.join("a").join("x.md")], Format::Auto).found;
        let problems: Vec<(&str, bool)> = found.iter().map(|(f, p)| (f.source_id.as_str(), p.is_some())).collect();
        assert_eq!(problems, [("x.md", false), ("x.md", true), ("x.md", true)]);
        assert!(found[1].1.as_deref().unwrap().contains("a/x.md"), "{:?}", found[1].1);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn an_html_file_that_is_not_utf8_is_read_in_the_encoding_its_head_declares() {
        let dir = std::env::temp_dir().join(format!("dof-charset-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let body = b"<h1>Resoluci\xf3n</h1><p>El art\xedculo 5o. se\xf1ala \x93reglas\x94.</p></body></html>";
        let heads: [&[u8]; 5] = [
            b"<html><head><meta charset=\"iso-8859-1\"></head><body>",
            b"<html><head><meta http-equiv=\"Content-Type\" content=\"text/html; charset=windows-1252\"></head><body>",
            // a declared UTF-8 or UTF-16 is wrong for these bytes: --encoding, here UTF-8's
            // default, decides
            b"<html><head><meta charset=\"utf-8\"></head><body>",
            b"<html><head><meta charset=\"utf-16\"></head><body>",
            b"<html><head><title>sin declarar</title></head><body>",
        ];
        let mut read_as = Vec::new();
        for (i, head) in heads.iter().enumerate() {
            let path = dir.join(format!("{i}.html"));
            std::fs::write(&path, [*head, body.as_slice()].concat()).unwrap();
            read_as.push(match read(&path, 1 << 20, Format::Auto, encoding_rs::UTF_8) {
                Read::Ok { parts, .. } => parts[0].markdown.clone(),
                Read::Failed(reason) => reason,
            });
        }
        assert!(read_as[0].contains("# Resolución") && read_as[0].contains("señala “reglas”"), "{}", read_as[0]);
        assert_eq!(read_as[0], read_as[1]);
        assert!(read_as[2..].iter().all(|r| r.starts_with("not UTF-8")), "{read_as:?}");
        // no declaration: --encoding reads it
        match read(&dir.join("4.html"), 1 << 20, Format::Auto, encoding_rs::WINDOWS_1252) {
            Read::Ok { parts, .. } => assert_eq!(parts[0].markdown, read_as[0]),
            Read::Failed(reason) => panic!("{reason}"),
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_file_of_another_kind_is_counted_in_a_folder_and_fails_when_named() {
        let dir = std::env::temp_dir().join(format!("dof-kinds-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        for name in ["ley.md", "ley.pdf", "anexo.PDF", "LICENSE"] {
            std::fs::write(dir.join(name), "# X").unwrap();
        }
        let walked = walk(std::slice::from_ref(&dir), Format::Auto);
        let ids: Vec<&str> = walked.found.iter().map(|(f, _)| f.source_id.as_str()).collect();
        assert_eq!(ids, ["ley.md"]);
        assert_eq!(walked.left_out.into_iter().collect::<Vec<_>>(), [(".pdf".to_string(), 2), ("no extension".to_string(), 1)]);
        let named = walk(&[dir.join("ley.pdf")], Format::Auto);
        assert!(named.left_out.is_empty());
        assert_eq!(named.found.len(), 1);
        assert!(named.found[0].1.as_deref().unwrap().starts_with("not a kind of file dof load reads (.pdf)"), "{:?}", named.found[0].1);
        // a format given reads its own kinds: a .md file named with --format txt fails too
        assert!(walk(&[dir.join("ley.md")], Format::Txt).found[0].1.as_deref().unwrap().contains("--format txt reads .txt"));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn links_to_folders_are_walked_and_a_loop_fails_alone() {
        let dir = std::env::temp_dir().join(format!("dof-links-{}", std::process::id()));
        let corpus = dir.join("corpus");
        std::fs::create_dir_all(corpus.join("sub")).unwrap();
        std::fs::create_dir_all(dir.join("given")).unwrap();
        std::fs::write(corpus.join("b.md"), "# B").unwrap();
        std::fs::write(corpus.join("sub/a.md"), "# A").unwrap();
        std::os::unix::fs::symlink(&corpus, dir.join("given/linked")).unwrap();
        std::os::unix::fs::symlink(corpus.join("b.md"), dir.join("given/link.md")).unwrap();
        let found = |walked: &Walk| walked.found.iter().map(|(f, problem)| (f.source_id.clone(), problem.clone())).collect::<Vec<_>>();
        // a link to a folder inside the folder given is walked, its files named by the link
        let walked = walk(&[dir.join("given")], Format::Auto);
        assert_eq!(
            found(&walked),
            [("link.md".to_string(), None), ("linked/b.md".to_string(), None), ("linked/sub/a.md".to_string(), None)]
        );
        assert!(walked.left_out.is_empty(), "{:?}", walked.left_out);
        // a folder given as a link: its files, and no failure of the link itself
        assert_eq!(found(&walk(&[dir.join("given/linked")], Format::Auto)), [("b.md".to_string(), None), ("sub/a.md".to_string(), None)]);
        // a link back to a folder above it fails, alone
        std::os::unix::fs::symlink(&corpus, corpus.join("sub/loop")).unwrap();
        let looped = found(&walk(std::slice::from_ref(&corpus), Format::Auto));
        assert_eq!(looped.iter().filter(|(_, problem)| problem.is_none()).count(), 2, "{looped:?}");
        assert_eq!(looped.len(), 3, "{looped:?}");
        assert!(looped.iter().any(|(id, problem)| id == "sub/loop" && problem.as_deref().unwrap().contains("loop")), "{looped:?}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn special_files_are_skipped_and_a_bom_is_dropped() {
        let dir = std::env::temp_dir().join(format!("dof-special-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::os::unix::fs::symlink("/dev/zero", dir.join("zero.md")).unwrap();
        assert!(
            matches!(read(&dir.join("zero.md"), 1 << 20, Format::Auto, encoding_rs::UTF_8), Read::Failed(r) if r.contains("not a regular file"))
        );
        std::fs::write(dir.join("bom.md"), "\u{feff}# Título\n\nTexto.").unwrap();
        match read(&dir.join("bom.md"), 1 << 20, Format::Auto, encoding_rs::UTF_8) {
            Read::Ok { parts, .. } => assert!(parts[0].markdown.starts_with("# Título"), "{:?}", parts[0].markdown),
            Read::Failed(reason) => panic!("{reason}"),
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_file_is_read_in_the_encoding_given_or_its_mark_names() {
        let windows = encoding("latin1").unwrap();
        assert_eq!(windows, encoding_rs::WINDOWS_1252);
        let latin1 = b"# Resoluci\xf3n\n\nEl art\xedculo 5o. se\xf1ala \x93reglas\x94.";
        // UTF-8 by default: the file fails, naming the byte and the option
        let refused = decode(latin1.to_vec(), encoding_rs::UTF_8).unwrap_err();
        assert!(refused.contains("offset 10") && refused.contains("--encoding windows-1252"), "{refused}");
        assert_eq!(decode(latin1.to_vec(), windows).unwrap(), "# Resolución\n\nEl artículo 5o. señala “reglas”.");
        // a UTF-8 file beside it is still UTF-8, not read as Windows-1252 ("ResoluciÃ³n")
        assert_eq!(decode("# Resolución".into(), windows).unwrap(), "# Resolución");
        // a byte order mark names the encoding whatever was given, and is no text
        let utf16: Vec<u8> = [0xFF, 0xFE].into_iter().chain("# Título\n".encode_utf16().flat_map(u16::to_le_bytes)).collect();
        assert_eq!(decode(utf16, encoding_rs::UTF_8).unwrap(), "# Título\n");
        assert_eq!(decode("\u{feff}# Título".into(), windows).unwrap(), "# Título");
        // the offset counts the mark; an unpaired surrogate is no UTF-16
        assert!(decode(b"\xef\xbb\xbfab\xff".to_vec(), encoding_rs::UTF_8).unwrap_err().contains("offset 5"));
        assert!(decode(vec![0xFF, 0xFE, 0x00, 0xD8, 0x41, 0x00], windows).unwrap_err().starts_with("not UTF-16LE"));
        assert!(encoding("klingon").unwrap_err().contains("unknown encoding"));
        assert!(encoding("iso-2022-kr").is_err(), "a label of the replacement encoding decodes nothing");
    }
}
