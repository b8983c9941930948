//! Property tests: generated markdown through the chunker, with the character sizer (many
//! cases, fast) and the real e5 tokenizer (fewer cases), every invariant checked.

mod common;

use dof_core::chunk::measure::ChunkSizer;
use dof_core::chunk::strategies::Settings;
use dof_core::chunk::strategies::STRATEGIES;
use dof_core::chunk::{chunk_document_using, invariants, CharacterSizer, ChunkOptions};
use dof_core::classify::Pattern;
use proptest::prelude::*;

fn word() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => "[a-záéíóúñ]{1,12}",
        1 => "[A-Z0-9.,;:¿?¡!()$%-]{1,6}",
        1 => "\\PC{1,4}",
        1 => "[a-z]{30,300}",
    ]
}

fn line(max_words: usize) -> impl Strategy<Value = String> {
    prop::collection::vec(word(), 1..max_words).prop_map(|words| words.join(" "))
}

fn block() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => prop::collection::vec(line(40), 1..6).prop_map(|lines| lines.join("\n")),
        1 => (1..4usize, line(6)).prop_map(|(level, title)| format!("{} {title}", "#".repeat(level))),
        1 => line(6).prop_map(|title| format!("**{title}**")),
        1 => (1..5usize, prop::collection::vec(line(8), 1..30), any::<bool>()).prop_map(|(columns, cells, separator)| {
            let header = format!("|{}|", vec![" h "; columns].join("|"));
            let rule = format!("|{}|", vec!["---"; columns].join("|"));
            let rows: Vec<String> = cells.iter().map(|c| format!("| {c} |")).collect();
            if separator { format!("{header}\n{rule}\n{}", rows.join("\n")) } else { rows.join("\n") }
        }),
        1 => line(10).prop_map(|code| format!("```\n{code}")),
        1 => line(10).prop_map(|text| format!("<!-- IMAGE_DESCRIPTION: {text} -->")),
    ]
}

fn document() -> impl Strategy<Value = String> {
    prop::collection::vec((block(), prop_oneof!["\n\n", "\n", " \n\n\t", "\r\n\r\n"]), 0..40)
        .prop_map(|blocks| blocks.into_iter().map(|(b, sep)| b + &sep).collect())
}

fn pattern() -> impl Strategy<Value = Option<Pattern>> {
    prop_oneof![Just(None), prop::sample::select(Pattern::ALL.to_vec()).prop_map(Some)]
}

fn strategy() -> impl Strategy<Value = &'static str> {
    prop::sample::select(STRATEGIES.iter().map(|s| s.name()).collect::<Vec<_>>())
}

fn check(doc: &str, sizer: &dyn ChunkSizer, max_tokens: usize, pattern: Option<Pattern>, strategy: &str) -> Result<(), TestCaseError> {
    let options = ChunkOptions { max_tokens, pattern, strategy: strategy.to_string(), ..ChunkOptions::default() };
    let chunks = chunk_document_using(doc, sizer, &options, &|| {}, Some(&common::hash_sentences))
        .map_err(|e| TestCaseError::fail(e.to_string()))?;
    invariants::check(doc, &chunks, max_tokens, sizer).map_err(TestCaseError::fail)
}

fn semantic_settings() -> impl Strategy<Value = Settings> {
    (prop::sample::select(vec!["percentile", "standard_deviation", "interquartile", "gradient"]), 0u32..=100, 0usize..3, 0usize..3)
        .prop_map(|(kind, amount, buffer, overlap)| {
            let amount = if matches!(kind, "standard_deviation" | "interquartile") { f64::from(amount) / 25.0 } else { f64::from(amount) };
            [
                ("threshold_type", kind.to_string()),
                ("threshold_amount", amount.to_string()),
                ("buffer_size", buffer.to_string()),
                ("overlap_sentences", overlap.to_string()),
            ]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect()
        })
}

/// The semantic strategy's bounds: every invariant, and no chunk under `min_tokens` but the
/// last, a table piece, or one whose neighbours had no room for it.
fn check_semantic(
    doc: &str,
    sizer: &dyn ChunkSizer,
    max_tokens: usize,
    min_tokens: usize,
    mut settings: Settings,
) -> Result<(), TestCaseError> {
    settings.insert("min_tokens".into(), min_tokens.to_string());
    let overlap = settings.get("overlap_sentences").is_some_and(|n| n != "0");
    let options = ChunkOptions { max_tokens, strategy: "semantic".into(), settings, ..ChunkOptions::default() };
    let chunks = chunk_document_using(doc, sizer, &options, &|| {}, Some(&common::hash_sentences))
        .map_err(|e| TestCaseError::fail(e.to_string()))?;
    invariants::check(doc, &chunks, max_tokens, sizer).map_err(TestCaseError::fail)?;
    let count = |start: usize, end: usize| sizer.count(&doc[start..end]).map_err(|e| TestCaseError::fail(e.to_string()));
    for (i, chunk) in chunks.iter().enumerate() {
        if chunk.token_count >= min_tokens || i + 1 == chunks.len() || chunk.table_piece || overlap {
            continue;
        }
        let fits_before = i > 0 && !chunks[i - 1].header_repeated && count(chunks[i - 1].byte_start, chunk.byte_end)? <= max_tokens;
        let next = &chunks[i + 1];
        let fits_after = !next.header_repeated && !next.table_piece && count(chunk.byte_start, next.byte_end)? <= max_tokens;
        prop_assert!(
            !fits_before && !fits_after,
            "chunk {i} has {} tokens < min {min_tokens} though a neighbour had room",
            chunk.token_count
        );
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]
    #[test]
    fn invariants_hold_with_the_character_sizer(doc in document(), max_tokens in 16usize..400, pattern in pattern(), strategy in strategy()) {
        check(&doc, &CharacterSizer, max_tokens, pattern, strategy)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]
    #[test]
    fn semantic_bounds_hold(doc in document(), max_tokens in 16usize..400, min_share in 0usize..=50, settings in semantic_settings()) {
        check_semantic(&doc, &CharacterSizer, max_tokens, max_tokens * min_share / 100, settings)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]
    #[test]
    fn invariants_hold_with_the_e5_tokenizer(doc in document(), max_tokens in 16usize..300, pattern in pattern(), strategy in strategy()) {
        if let Some(tokenizer) = common::tokenizer() {
            check(&doc, tokenizer, max_tokens, pattern, strategy)?;
        }
    }
}

/// Bodies near blank: an optional byte order mark and front matter (well formed or not),
/// then mostly blanks, with now and then a character that is text.
fn near_blank() -> impl Strategy<Value = String> {
    let opening =
        prop_oneof![Just(""), Just("\u{feff}"), Just("---\ntitle: Ley\n---\n"), Just("\u{feff}---\n---\n"), Just("---\n: [\n---\n")];
    let character = prop_oneof![
        8 => prop::sample::select(vec![' ', '\n', '\t', '\r', '\u{b}', '\u{c}', '\u{a0}', '\u{2003}', '\u{2028}', '\u{3000}']),
        1 => prop::sample::select(vec!['\u{85}', '\u{feff}', '\u{200b}', 'x', '#', '-', '|', '*', '>']),
    ];
    (opening, prop::collection::vec(character, 0..12))
        .prop_map(|(opening, rest)| opening.to_string() + &rest.into_iter().collect::<String>())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]
    /// dof_core::blank::blank_body, the rule the trigger and `dof load` refuse a body by,
    /// is exactly "no strategy gives it a chunk".
    #[test]
    fn a_body_is_blank_exactly_when_it_gives_no_chunk(doc in near_blank(), pattern in pattern(), strategy in strategy()) {
        let options = ChunkOptions { max_tokens: 64, pattern, strategy: strategy.to_string(), ..ChunkOptions::default() };
        let chunks = chunk_document_using(&doc, &CharacterSizer, &options, &|| {}, Some(&common::hash_sentences))
            .map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(dof_core::blank::blank_body(&doc), chunks.is_empty(), "{:?}: {} chunks", doc, chunks.len());
    }
}
