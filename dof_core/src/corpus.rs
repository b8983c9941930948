//! Finding markdown files in a folder tree: the loader, the corpus tests and the
//! benchmarks all walk the shared corpora the same way.

use std::path::{Path, PathBuf};

/// Every `.md` file under `folder`, sorted by path; unreadable folders are skipped.
pub fn markdown_files(folder: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut stack = vec![folder.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "md") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}
