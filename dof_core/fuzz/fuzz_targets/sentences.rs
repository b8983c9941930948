//! The sentence splitter on arbitrary text: its sentences hold every non-blank character
//! once, in order, none empty, none overlapping.
//!
//!   cargo +nightly fuzz run sentences -- -max_total_time=600
#![no_main]

use dof_core::chunk::sentences;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let mut position = 0;
    for sentence in sentences::split(&text, 0..text.len()) {
        assert!(sentence.start >= position && sentence.start < sentence.end, "sentences overlap or are empty");
        assert!(text[position..sentence.start].chars().all(dof_core::blank::is_blank), "a character between sentences");
        position = sentence.end;
    }
    assert!(text[position..].chars().all(dof_core::blank::is_blank), "a character after the last sentence");
});
