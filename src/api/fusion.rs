//! The fusion is SQL (sql/fusion.sql); this is the one number it takes from the core.

use pgrx::prelude::*;

/// The least spread of the vector leg's similarities that `dof_weighted_fusion` divides by
/// (`dof_core::fuse::VECTOR_MIN_SPREAD`).
#[pg_extern(immutable, parallel_safe)]
fn dof_fusion_vector_min_spread() -> f64 {
    dof_core::fuse::VECTOR_MIN_SPREAD
}
