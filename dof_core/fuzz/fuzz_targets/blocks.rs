//! The markdown block parser on arbitrary text: blocks in order, not overlapping, on
//! character boundaries, trimmed (starting and ending at a non-blank character), and a
//! table's header and rows inside its block.
//!
//!   cargo +nightly fuzz run blocks -- -max_total_time=600
#![no_main]

use dof_core::chunk::blocks;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let mut end = 0;
    for block in blocks::parse(&text, &|| {}) {
        let span = block.span.clone();
        assert!(span.start >= end && span.start < span.end && span.end <= text.len(), "block {span:?} after {end}");
        assert!(text.is_char_boundary(span.start) && text.is_char_boundary(span.end), "block {span:?} splits a character");
        let inner = &text[span.clone()];
        assert!(!inner.starts_with(dof_core::blank::is_blank) && !inner.ends_with(dof_core::blank::is_blank), "block {span:?} not trimmed");
        if let blocks::BlockKind::Table(table) = &block.kind {
            for row in std::iter::once(&table.header).chain(&table.rows) {
                assert!(row.start >= span.start && row.end <= span.end, "table row {row:?} outside {span:?}");
            }
        }
        end = span.end;
    }
});
