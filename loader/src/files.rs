//! The files a load reads: walked in name order under each path given, filtered by format,
//! each read whole and checked (size, empty, UTF-8) before anything is sent. A problem is a
//! per-file failure with a reason; the run goes on.

use std::path::{Path, PathBuf};

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

/// A file read, checked and converted: its documents (one, or an EPUB's spine items) and
/// the file's content hash, or why it cannot be loaded.
pub enum Read {
    Ok { parts: Vec<Part>, sha256: String, bytes: usize },
    Failed(String),
}

/// Every file under `roots` that `format` takes, in a stable order; unreadable folders and
/// broken links are reported as failures.
pub fn walk(roots: &[PathBuf], format: Format) -> Vec<(Found, Option<String>)> {
    let mut out = Vec::new();
    for root in roots {
        let base = if root.is_dir() { root.clone() } else { root.parent().map(Path::to_path_buf).unwrap_or_default() };
        for entry in walkdir::WalkDir::new(root).sort_by_file_name() {
            let (path, problem) = match entry {
                Ok(entry) if entry.file_type().is_dir() => continue,
                Ok(entry) => (entry.path().to_path_buf(), None),
                Err(error) => match error.path() {
                    Some(path) => (path.to_path_buf(), Some(format!("cannot read: {error}"))),
                    None => continue,
                },
            };
            if problem.is_none() && !takes(&path, format) {
                continue;
            }
            let relative = path.strip_prefix(&base).unwrap_or(&path);
            let source_id = relative.components().map(|c| c.as_os_str().to_string_lossy()).collect::<Vec<_>>().join("/");
            out.push((Found { path, source_id }, problem));
        }
    }
    out
}

fn takes(path: &Path, format: Format) -> bool {
    let extension = path.extension().map(|e| e.to_string_lossy().to_lowercase()).unwrap_or_default();
    match format {
        Format::Auto => matches!(extension.as_str(), "md" | "markdown" | "txt" | "html" | "htm" | "epub"),
        Format::Md => matches!(extension.as_str(), "md" | "markdown"),
        Format::Txt => extension == "txt",
        Format::Html => matches!(extension.as_str(), "html" | "htm"),
        Format::Epub => extension == "epub",
    }
}

/// Reads, checks and converts one file.
pub fn read(path: &Path, max_bytes: u64, format: Format) -> Read {
    match std::fs::metadata(path) {
        Err(error) => return Read::Failed(format!("cannot read: {error}")),
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
    let sha256 = Sha256::digest(&bytes).iter().map(|b| format!("{b:02x}")).collect();
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
        return match convert::epub(&bytes) {
            Ok(parts) => Read::Ok { parts, sha256, bytes: size },
            Err(reason) => Read::Failed(reason),
        };
    }
    let text = match String::from_utf8(bytes) {
        Ok(text) => text,
        Err(error) => return Read::Failed(format!("not UTF-8 (invalid byte at offset {})", error.utf8_error().valid_up_to())),
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
    if markdown.trim().is_empty() {
        return Read::Failed("empty file".into());
    }
    Read::Ok { parts: vec![Part { suffix: None, markdown, metadata: Vec::new() }], sha256, bytes: size }
}
