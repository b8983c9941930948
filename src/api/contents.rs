//! A document's table of contents, which the search legs leave out (`dof_contents`,
//! sql/contents.sql): the core's rule (`dof_core::contents`) for a chunk's heading path and
//! for its text, two functions so that the text is read only when the path says so.

use dof_core::contents::{is_contents_path, is_listing};
use pgrx::prelude::*;

/// Whether a chunk's heading path puts it in a table of contents (`ÍNDICE`, `Contenido`,
/// `Sumario`, `Table of contents`...: the heading it sits under, its last).
#[pg_extern(immutable, strict, parallel_safe)]
fn dof_contents_path(heading_path: Vec<Option<String>>) -> bool {
    let path: Vec<String> = heading_path.into_iter().flatten().collect();
    is_contents_path(&path)
}

/// Whether a chunk's text is a listing (list items, headings, page numbers, short lines),
/// as a table of contents is and prose is not.
#[pg_extern(immutable, strict, parallel_safe)]
fn dof_listing(content: &str) -> bool {
    is_listing(content)
}
