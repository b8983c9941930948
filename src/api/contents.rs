//! A document's table of contents, which the search legs leave out (`dof_contents`,
//! sql/contents.sql): the core's rule (`dof_core::contents`) for a chunk's heading path and
//! for its text, a listing under a heading that names a table of contents, or titles led
//! to their pages or a law's outline under any.

use dof_core::contents::{is_contents, is_contents_path, is_listing, is_outline, is_paged_listing, SEARCH_MARGIN};
use pgrx::prelude::*;

/// Whether a chunk is a table of contents, which both search legs leave out: the core's
/// rule (`dof_core::contents::is_contents`) in one call, so the chunk's text is read once.
/// NULLs are none (a NULL here would make the legs' `NOT dof_contents(...)` leave a chunk out).
#[pg_extern(immutable, parallel_safe)]
fn dof_contents(heading_path: Option<Vec<Option<String>>>, content: Option<&str>) -> bool {
    let path: Vec<String> = heading_path.unwrap_or_default().into_iter().flatten().collect();
    content.is_some_and(|content| is_contents(&path, content))
}

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

/// Whether a chunk's text is a table of contents under any heading: three in four of its
/// entries titles led to their pages, by dot leaders or in a table's last column (a DOF
/// edition's index as docling and marker render it, under its ministries' headings).
#[pg_extern(immutable, strict, parallel_safe)]
fn dof_paged_listing(content: &str) -> bool {
    is_paged_listing(content)
}

/// Whether a chunk's text is a law's outline under any heading: division labels
/// (`Artículo 27. Funciones…`, `CAPÍTULO II`) with little text between them and next to no
/// prose (a Peruvian law's index under a bold `ÍNDICE`, which is no heading).
#[pg_extern(immutable, strict, parallel_safe)]
fn dof_outline(content: &str) -> bool {
    is_outline(content)
}

/// How many candidates past the `k` wanted each search leg ranks before it leaves out the
/// tables of contents among them (`dof_core::contents::SEARCH_MARGIN`).
#[pg_extern(immutable, parallel_safe)]
fn dof_contents_margin() -> i32 {
    SEARCH_MARGIN as i32
}
