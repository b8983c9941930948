//! The symbols only 0.1.0's SQL calls. A database still at 0.1.0 loads the current library
//! (one `pg_dof.so` per server) and calls these by name until `ALTER EXTENSION pg_dof
//! UPDATE`; the current install script declares none of them (`sql = false`). The upgrade
//! test (tests/integration/upgrade.sh) fails when a released script names a symbol the
//! library lacks. The embedding functions both 0.1.0 and 0.2.0 declare are in release_0_2_0.rs.

use dof_core::bm25::{Bm25Params, LexemeStats};
use dof_core::chunk::strategies::Settings;
use pgrx::prelude::*;
use pgrx::{AnyArray, AnyElement, FromDatum};

use super::chunk::{chunk_options, chunk_row, chunk_with, document_and_limits};
use super::errors::checked_model_file;
use super::text_search::bm25;
use crate::guc;

/// dof_chunk_internal as 0.1.0's SQL declares it (five arguments, the pattern strategy):
/// a database still at 0.1.0 calls this symbol with the new library until `ALTER EXTENSION
/// pg_dof UPDATE`. Not in the current install script.
#[pg_extern(stable, parallel_safe, sql = false)]
#[allow(clippy::type_complexity)]
fn dof_chunk_internal(
    doc: Option<&str>,
    max_tokens: Option<i32>,
    overlap_tokens: Option<i32>,
    pattern: Option<&str>,
    tokenizer_file: Option<&str>,
) -> TableIterator<
    'static,
    (
        name!(chunk_index, i32),
        name!(pattern, &'static str),
        name!(heading_path, Vec<String>),
        name!(content, String),
        name!(token_count, i32),
        name!(char_start, i32),
        name!(char_end, i32),
        name!(table_piece, bool),
        name!(header_repeated, bool),
        name!(overlap, bool),
        name!(split, bool),
        name!(sizer, &'static str),
    ),
> {
    let Some((doc, max_tokens, overlap_tokens)) = document_and_limits(doc, max_tokens, overlap_tokens) else {
        return TableIterator::new(Vec::new());
    };
    let options = chunk_options(max_tokens, overlap_tokens, pattern, dof_core::chunk::strategies::default_name(), Settings::new());
    let tokenizer_path = tokenizer_file.map(|file| guc::model_dir().join(checked_model_file(file)));
    TableIterator::new(chunk_with(doc, &options, tokenizer_path.as_deref(), None).into_iter().map(chunk_row))
}

/// The fraction of chunks holding each lexeme, from the planner's statistics on
/// `dof_chunks.tsv` (`pg_stats.most_common_elems`, an anyarray of text, and its
/// fractions); NULL when there are none (never analyzed, or hidden from the caller).
/// 0.1.0's BM25 read these; a database still at 0.1.0 calls this symbol with the new
/// library until `ALTER EXTENSION pg_dof UPDATE`. Not in the current install script (BM25
/// reads exact per-collection statistics now).
#[pg_extern(immutable, parallel_safe, sql = false)]
fn dof_lexeme_fractions_internal(lexemes: Vec<String>, common: Option<AnyArray>, fractions: Option<Vec<f32>>) -> Option<Vec<f64>> {
    // The argument's declared type is anyarray (pg_stats' column type), so the element
    // type is read from the array header itself.
    // SAFETY: an anyarray datum is an ArrayType varlena; detoasting gives its header, and
    // Vec<String> reads it only once its elements are known to be text.
    let common = common.and_then(|a| unsafe {
        let array = pg_sys::pg_detoast_datum(a.datum().cast_mut_ptr::<pg_sys::varlena>()).cast::<pg_sys::ArrayType>();
        ((*array).elemtype == pg_sys::TEXTOID)
            .then(|| Vec::<String>::from_polymorphic_datum(pg_sys::Datum::from(array), false, pg_sys::TEXTARRAYOID))
            .flatten()
    })?;
    let lexemes: Vec<&str> = lexemes.iter().map(String::as_str).collect();
    Some(LexemeStats { common: &common, fractions: &fractions? }.fractions(&lexemes))
}

/// dof_bm25_internal as 0.1.0's SQL declares it (the parameters passed in): a database
/// still at 0.1.0 calls this symbol with the new library until `ALTER EXTENSION pg_dof
/// UPDATE`. Not in the current install script.
#[pg_extern(immutable, parallel_safe, sql = false)]
#[allow(clippy::too_many_arguments)]
fn dof_bm25_internal(
    tsv: AnyElement,
    length: f64,
    lexemes: Vec<String>,
    idfs: Vec<f64>,
    average_length: Option<f64>,
    k1: f64,
    b: f64,
    heading_weight: f64,
) -> f64 {
    bm25(&tsv, None, length, &lexemes, &idfs, average_length, &Bm25Params { k1, b, heading_weight })
}
