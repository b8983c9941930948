//! `dof_core`: the parts of pg_dof that do not need PostgreSQL.
//!
//! Everything here is plain Rust, tested with `cargo test -p dof_core`. The pgrx crate at
//! the workspace root is a thin layer that converts SQL arguments, calls into this crate,
//! and maps [`embed::EmbedError`] and friends to SQLSTATEs.
//!
//! Threads started here (ONNX Runtime's, the model-run watcher, the long-text tokenizer
//! helper) only ever see plain Rust data, with PostgreSQL's signals blocked.

pub mod blank;
pub mod bm25;
pub mod chunk;
pub mod classify;
pub mod contents;
pub mod corpus;
pub mod document_order;
pub mod embed;
pub mod front_matter;
pub mod fuse;
pub mod install;
mod signals;
pub mod tokenize;
