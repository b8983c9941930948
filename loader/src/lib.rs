//! The loader's conversions as a library, for its fuzz target (`loader/fuzz`): HTML and
//! EPUB to markdown. The command line is `src/main.rs`.

pub mod convert;
