//! The loader's conversions on arbitrary bytes: HTML (as text) to markdown, and the bytes as
//! an EPUB (a zip archive) with a 1 MiB inflation budget. Either may refuse the input with a
//! reason; neither may panic, overflow its stack or run away with memory.
//!
//!   cargo +nightly fuzz run convert -- -max_total_time=600 -rss_limit_mb=512
#![no_main]

use dof_loader::convert;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = convert::html(&String::from_utf8_lossy(data));
    let _ = convert::epub(data, 1 << 20);
});
