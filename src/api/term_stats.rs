//! BM25's statistics (sql/term_stats.sql): the setting that says when the triggers fold them.

use pgrx::prelude::*;

use crate::guc;

/// `pg_dof.stats_fold_every`: the statements' deltas a collection's BM25 statistics gather
/// before the next statement that writes its chunks folds them; 0 = never. A function, so
/// that the trigger reads the setting's one default even in a backend that has not loaded
/// pg_dof yet (a restore's COPY), where `current_setting` knows no `pg_dof.*` setting.
#[pg_extern(stable, parallel_safe)]
fn dof_stats_fold_every() -> i32 {
    guc::stats_fold_every()
}
