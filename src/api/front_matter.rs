//! dof_front_matter: a document's YAML front matter as jsonb, for the trigger that makes it
//! the document's title and metadata (the chunker leaves the block out of every chunk).

use dof_core::front_matter::{self, Parsed};
use pgrx::pg_sys::panic::ErrorReport;
use pgrx::prelude::*;
use pgrx::{JsonB, PgLogLevel, PgSqlErrorCode};

/// The fields of the YAML front matter at the start of `body`; NULL when it has none. A
/// fenced block that is not a YAML mapping is no front matter: a WARNING says why, and the
/// block is indexed as text.
#[pg_extern(immutable, strict, parallel_safe)]
fn dof_front_matter(body: &str) -> Option<JsonB> {
    match front_matter::parse(body) {
        Parsed::None => None,
        Parsed::FrontMatter(front) => Some(JsonB(serde_json::Value::Object(front.fields))),
        Parsed::Malformed(reason) => {
            ErrorReport::new(
                PgSqlErrorCode::ERRCODE_INVALID_TEXT_REPRESENTATION,
                format!("{reason}; the block is indexed as text"),
                "pg_dof",
            )
            .set_hint("front matter is a block between --- lines at the start holding YAML fields (title: ..., publication_date: ...)")
            .report(PgLogLevel::WARNING);
            None
        }
    }
}
