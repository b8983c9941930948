//! The order of a document's chunks in a hybrid search (sql/document_order.sql): the
//! per-chunk and per-document parts that read a stored tsvector or apply the core's rule.

use dof_core::bm25::TsVector;
use dof_core::document_order::{document_idfs, held};
use pgrx::prelude::*;
use pgrx::AnyElement;

use super::errors::raise_invalid_parameter;
use super::text_search::tsvector;

/// The step of the aggregate `dof_lexemes_held(tsv, lexemes)` (sql/document_order.sql):
/// `counts` (one per lexeme; empty, its initial value, counts as zeros) plus, for each of
/// `lexemes`, 1 when the stored tsvector holds it (`dof_core::document_order::held`). Over
/// a document's chunks: how many hold each lexeme, each chunk's tsvector read once.
#[pg_extern(immutable, parallel_safe)]
fn dof_lexemes_held_step(counts: Vec<i32>, tsv: AnyElement, lexemes: Array<'_, &str>) -> Vec<i32> {
    // borrowed from the array, not copied: the step runs once per chunk of the document
    let lexemes: Vec<&[u8]> = lexemes.iter().map(|l| l.unwrap_or_default().as_bytes()).collect();
    let held = TsVector::parse(tsvector(&tsv))
        .and_then(|chunk| held(&chunk, &lexemes))
        .unwrap_or_else(|e| raise_invalid_parameter(&e.to_string()));
    if counts.is_empty() {
        return held;
    }
    if counts.len() != held.len() {
        raise_invalid_parameter("one count per lexeme is needed: the lexemes changed between rows");
    }
    counts.iter().zip(held).map(|(count, held)| count + held).collect()
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
