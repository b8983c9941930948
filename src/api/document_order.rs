//! The order of a document's chunks in a hybrid search (sql/document_order.sql): the
//! per-chunk and per-document parts that read a stored tsvector or apply the core's rule.

use dof_core::bm25::TsVector;
use dof_core::document_order::{document_idfs, held};
use pgrx::prelude::*;
use pgrx::AnyElement;

use super::errors::raise_invalid_parameter;
use super::text_search::tsvector;

/// For each of `lexemes`, 1 when the stored tsvector holds it, else 0
/// (`dof_core::document_order::held`): summed over a document's chunks, the chunks holding
/// each, reading each chunk's tsvector once.
#[pg_extern(immutable, parallel_safe)]
fn dof_lexemes_held(tsv: AnyElement, lexemes: Vec<String>) -> Vec<i32> {
    let lexemes: Vec<&[u8]> = lexemes.iter().map(|l| l.as_bytes()).collect();
    TsVector::parse(tsvector(&tsv)).and_then(|chunk| held(&chunk, &lexemes)).unwrap_or_else(|e| raise_invalid_parameter(&e.to_string()))
}

/// The query's IDFs within one document of `chunks` chunks, `holding[i]` of which hold
/// lexeme i (`dof_core::document_order::document_idfs`: each IDF times its lexeme's rarity
/// within the document).
#[pg_extern(immutable, parallel_safe)]
fn dof_document_idfs(idfs: Vec<f64>, holding: Vec<f64>, chunks: f64) -> Vec<f64> {
    if idfs.len() != holding.len() {
        raise_invalid_parameter("one count of holding chunks per IDF is needed");
    }
    document_idfs(&idfs, &holding, chunks)
}
