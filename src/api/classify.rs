//! dof_classify: a document's structural pattern, and the features behind it.

use dof_core::classify::{Features, Thresholds};
use pgrx::prelude::*;

use super::errors::raise_invalid_parameter;

fn thresholds(small_bytes: i32, table_line_ratio: f64, giant_bytes: i32, min_h2_headings: i32, min_bold_lines: i32) -> Thresholds {
    let non_negative = |name: &str, value: i32| -> usize {
        usize::try_from(value).unwrap_or_else(|_| raise_invalid_parameter(&format!("{name} must not be negative")))
    };
    if !(0.0..=1.0).contains(&table_line_ratio) {
        raise_invalid_parameter("table_line_ratio must be between 0 and 1");
    }
    Thresholds {
        small_bytes: non_negative("small_bytes", small_bytes),
        table_line_ratio,
        giant_bytes: non_negative("giant_bytes", giant_bytes),
        min_h2_headings: non_negative("min_h2_headings", min_h2_headings),
        min_bold_lines: non_negative("min_bold_lines", min_bold_lines),
    }
}

/// The document's structural pattern (the classifier's rules; its thresholds are parameters).
#[pg_extern(immutable, strict, parallel_safe)]
fn dof_classify(
    doc: &str,
    small_bytes: default!(i32, 10000),
    table_line_ratio: default!(f64, 0.40),
    giant_bytes: default!(i32, 1000000),
    min_h2_headings: default!(i32, 2),
    min_bold_lines: default!(i32, 2),
) -> &'static str {
    let thresholds = thresholds(small_bytes, table_line_ratio, giant_bytes, min_h2_headings, min_bold_lines);
    Features::of(doc).pattern(&thresholds).as_str()
}

/// The features behind dof_classify's decision, with the decision.
#[pg_extern(immutable, strict, parallel_safe)]
fn dof_classify_features(
    doc: &str,
) -> TableIterator<
    'static,
    (
        name!(pattern, &'static str),
        name!(bytes, i64),
        name!(non_empty_lines, i64),
        name!(table_lines, i64),
        name!(table_line_ratio, f64),
        name!(h2_headings, i64),
        name!(bold_lines, i64),
    ),
> {
    let f = Features::of(doc);
    TableIterator::once((
        f.pattern(&Thresholds::default()).as_str(),
        f.bytes as i64,
        f.non_empty_lines as i64,
        f.table_lines as i64,
        f.table_line_ratio(),
        f.h2_headings as i64,
        f.bold_lines as i64,
    ))
}
