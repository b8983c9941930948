//! The classifier on arbitrary text, with the default thresholds and with small ones (so
//! short inputs reach every pattern): it must return a pattern, never panic or hang.
//!
//!   cargo +nightly fuzz run classify -- -max_total_time=600
#![no_main]

use dof_core::classify::{classify, Thresholds};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let _ = classify(&text, &Thresholds::default());
    let _ = classify(&text, &Thresholds { small_bytes: 64, giant_bytes: 4096, ..Thresholds::default() });
});
