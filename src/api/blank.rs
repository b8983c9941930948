//! dof_blank_body: whether a body holds nothing to index, for the trigger that refuses such
//! a body and the rebalance that moves one stored before 0.3.0 (dof_core::blank::blank_body).

use pgrx::prelude::*;

/// True when only blanks follow `body`'s byte order mark and front matter: a body that
/// gives no chunk.
#[pg_extern(immutable, strict, parallel_safe)]
fn dof_blank_body(body: &str) -> bool {
    dof_core::blank::blank_body(body)
}
