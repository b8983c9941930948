//! The chunking rules of the spec, each on a small document, with the real e5 tokenizer,
//! and the invariants checked on every result.

mod common;

use dof_core::chunk::{chunk_document, invariants, CharacterSizer, Chunk, ChunkOptions};
use dof_core::classify::Pattern;
use dof_core::tokenize::ModelTokenizer;

fn chunk(text: &str, pattern: Option<Pattern>, max_tokens: usize) -> Option<(Vec<Chunk>, &'static ModelTokenizer)> {
    let tokenizer = common::tokenizer()?;
    let options = ChunkOptions { max_tokens, pattern, ..ChunkOptions::default() };
    let chunks = chunk_document(text, tokenizer, &options).expect("chunks");
    if let Err(problem) = invariants::check(text, &chunks, max_tokens, tokenizer) {
        panic!("invariant broken: {problem}");
    }
    Some((chunks, tokenizer))
}

fn paragraph(seed: usize, words: usize) -> String {
    let vocabulary = ["decreto", "reforma", "artículo", "federal", "secretaría", "publicación", "vigencia", "ley", "fiscal", "norma"];
    (0..words).map(|i| vocabulary[(seed * 7 + i * 3) % vocabulary.len()]).collect::<Vec<_>>().join(" ") + "."
}

#[test]
fn a_small_document_is_one_chunk_of_the_whole_text() {
    let doc = "# Aviso\n\nSe informa que el tipo de cambio fue de 17.05 pesos por dólar.\n";
    let Some((chunks, _)) = chunk(doc, None, 800) else {
        return;
    };
    assert_eq!(chunks.len(), 1);
    assert_eq!(chunks[0].pattern, Pattern::Small);
    assert_eq!(chunks[0].content, doc.trim());
    assert_eq!(chunks[0].heading_path, vec!["Aviso"]);
}

#[test]
fn a_small_document_over_the_limit_is_split() {
    let doc: String = (0..18).map(|i| paragraph(i, 60)).collect::<Vec<_>>().join("\n\n");
    assert!(doc.len() < 10_000);
    let Some((chunks, _)) = chunk(&doc, None, 800) else {
        return;
    };
    assert_eq!(chunks[0].pattern, Pattern::Small);
    assert!(chunks.len() > 1, "a small document over 800 tokens stays whole");
}

#[test]
fn h2_sections_are_independent_and_split_at_h3_without_injected_headings() {
    let big: String = (0..12).map(|i| paragraph(i, 50)).collect::<Vec<_>>().join("\n\n");
    let doc = format!(
        "# Edición\n\n## Decreto uno\n\n{p}\n\n## Decreto dos\n\n### Artículo 1\n\n{big}\n\n### Artículo 2\n\n{p}\n\n## Decreto tres\n\n{big}\n\n## Final sin salto",
        p = paragraph(1, 20)
    );
    let Some((chunks, _)) = chunk(&doc, Some(Pattern::H2Compound), 300) else {
        return;
    };
    for c in &chunks {
        let h2s = c.content.matches("\n## ").count() + usize::from(c.content.starts_with("## "));
        assert!(h2s <= 1, "chunk {} spans two H2 sections", c.chunk_index);
        assert!(!c.content.contains("###") || doc.contains(&c.content), "injected heading");
    }
    let paths: Vec<Vec<String>> = chunks.iter().map(|c| c.heading_path.clone()).collect();
    assert!(paths.contains(&vec!["Edición".to_string(), "Decreto dos".into(), "Artículo 1".into()]), "{paths:?}");
    assert!(paths.contains(&vec!["Edición".to_string(), "Decreto tres".into()]), "{paths:?}");
    let last = chunks.last().unwrap();
    assert_eq!(last.content, "## Final sin salto", "a heading on the last line without a newline");
    assert_eq!(last.heading_path, vec!["Edición", "Final sin salto"]);
}

#[test]
fn bold_lines_stay_with_the_paragraph_they_introduce() {
    let doc: String = (0..30).map(|i| format!("**Licitación {i}**\n\n{}", paragraph(i, 40))).collect::<Vec<_>>().join("\n\n");
    let Some((chunks, _)) = chunk(&doc, Some(Pattern::BoldHeaders), 200) else {
        return;
    };
    for c in &chunks {
        let last_line = c.content.lines().last().unwrap();
        assert!(!last_line.starts_with("**"), "chunk {} ends with a bold header line", c.chunk_index);
    }
}

/// A law of `articles` articles, each a label line and `paragraphs` paragraphs of `words`
/// words, the paragraphs separated by `between` (a blank line: blocks; a newline: lines of
/// one block).
fn law(articles: usize, paragraphs: usize, words: usize, between: &str) -> String {
    (0..articles)
        .map(|a| {
            let body: Vec<String> = (0..paragraphs).map(|p| paragraph(a * paragraphs + p, words)).collect();
            format!("**Artículo {}.- Disposición {a}**{between}{}", a + 1, body.join(between))
        })
        .collect::<Vec<_>>()
        .join(between)
}

#[test]
fn a_chunk_ends_before_an_article_rather_than_inside_it() {
    // articles of about two fifths of the limit: greedy packing ended every chunk inside
    // the third; each chunk now holds two whole articles and the next starts with a label
    for between in ["\n\n", "\n"] {
        let doc = law(9, 2, 45, between);
        let Some((chunks, _)) = chunk(&doc, Some(Pattern::BoldHeaders), 300) else {
            return;
        };
        assert!(chunks.len() >= 4, "{between:?}: {} chunks", chunks.len());
        for c in &chunks {
            assert!(c.content.starts_with("**Artículo"), "{between:?}: chunk {} starts inside an article", c.chunk_index);
        }
    }
}

#[test]
fn an_article_larger_than_the_room_left_is_cut_only_after_half_the_limit() {
    // one article over the limit: its chunks are cut where the limit falls, and the article
    // after a short first one does not leave a chunk of a few tokens behind
    let doc = format!("**Artículo 1.- Objeto**\n\n{}\n\n{}", paragraph(0, 10), law(1, 8, 45, "\n\n"));
    let Some((chunks, _)) = chunk(&doc, Some(Pattern::BoldHeaders), 300) else {
        return;
    };
    assert!(chunks[0].content.contains("**Artículo 1.- Disposición 0**"), "the first chunk was cut before the second article");
    assert!(
        chunks.iter().all(|c| c.token_count > 30),
        "a chunk of a few tokens: {:?}",
        chunks.iter().map(|c| c.token_count).collect::<Vec<_>>()
    );
}

#[test]
fn plain_text_chunks_overlap_within_the_overlap_budget() {
    let doc: String = (0..40).map(|i| paragraph(i, 30)).collect::<Vec<_>>().join("\n\n");
    let Some((chunks, tokenizer)) = chunk(&doc, Some(Pattern::PlainText), 200) else {
        return;
    };
    assert!(chunks.len() > 2);
    for pair in chunks.windows(2) {
        assert!(pair[1].overlap, "no overlap on chunk {}", pair[1].chunk_index);
        assert!(pair[1].byte_start < pair[0].byte_end);
        let repeated = &doc[pair[1].byte_start..pair[0].byte_end];
        assert!(tokenizer.count(repeated).unwrap() <= 50, "overlap over 50 tokens");
    }
}

#[test]
fn tables_repeat_their_header_and_keep_the_text_around_them_in_order() {
    let rows: String = (0..200).map(|i| format!("| {i} | concepto {i} | {}.00 |\n", i * 37)).collect();
    let doc = format!("Texto antes de la tabla.\n\n| Clave | Concepto | Importe |\n|---|---|---|\n{rows}\nNota al pie de la tabla.\n\n| A | B |\n|---|---|\n| x | y |\n");
    let Some((chunks, _)) = chunk(&doc, Some(Pattern::GiantTable), 300) else {
        return;
    };
    assert_eq!(chunks[0].content, "Texto antes de la tabla.");
    let pieces: Vec<&Chunk> = chunks.iter().filter(|c| c.content.contains("| Concepto |")).collect();
    assert!(pieces.len() > 2, "table not split");
    for piece in &pieces {
        assert!(piece.table_piece);
        assert!(piece.content.starts_with("| Clave | Concepto | Importe |\n|---|---|---|"), "piece without header");
    }
    let note = chunks.iter().position(|c| c.content == "Nota al pie de la tabla.").expect("text between tables kept");
    assert!(chunks[note - 1].content.contains("| 199 |") && chunks[note + 1].content.contains("| x | y |"));
}

#[test]
fn a_table_document_is_never_packed_across_its_h2_notices() {
    let notice = |n: usize| format!("## AVISO {n}\n\nTexto breve del aviso {n}.\n\n| Clave | Tasa |\n|---|---|\n| {n} | 1.{n} |\n");
    let doc: String = (0..30).map(notice).collect();
    let Some((chunks, _)) = chunk(&doc, Some(Pattern::GiantTable), 400) else {
        return;
    };
    assert!(chunks.len() >= 30, "{} chunks for 30 notices", chunks.len());
    for c in &chunks {
        assert!(c.content.matches("## AVISO").count() <= 1, "a chunk spans two notices: {:?}", c.content);
        let heading = &c.heading_path[0];
        assert!(c.content.contains(&heading.replace("AVISO ", "")), "{heading} over {:?}", c.content);
    }
}

#[test]
fn a_table_row_longer_than_the_limit_is_split_by_cells_with_the_header() {
    let long_cell = paragraph(3, 400);
    let doc =
        format!("| Regla | Texto | Nota |\n|---|---|---|\n| 1 | corto | a |\n| 2.1.1 | {long_cell} | {long_cell} |\n| 3 | corto | c |\n");
    let Some((chunks, _)) = chunk(&doc, Some(Pattern::GiantTable), 200) else {
        return;
    };
    let split: Vec<&Chunk> = chunks.iter().filter(|c| c.split).collect();
    assert!(split.len() >= 4, "long row not split");
    assert!(split.iter().all(|c| c.content.starts_with("| Regla | Texto | Nota |\n|---|---|---|\n")));
}

#[test]
fn a_100_kb_line_and_a_50_000_character_word_respect_the_limit() {
    let line = paragraph(5, 15_000).replace('.', ",");
    assert!(line.len() > 100_000);
    let Some((chunks, _)) = chunk(&line, None, 800) else {
        return;
    };
    assert!(chunks.len() > 10);
    let word: String = "abcdefghijklmnopqrstuvwxyzáéíóú".chars().cycle().take(50_000).collect();
    let Some((chunks, _)) = chunk(&word, None, 800) else {
        return;
    };
    assert!(chunks.len() > 1 && chunks.iter().all(|c| c.split));
}

#[test]
fn malformed_markdown_is_chunked_without_losing_anything() {
    let cases = [
        "```rust\nfn sin_cierre() {\n".repeat(500),
        "| a | b |\n| 1 | 2 |\n| 3 |\n| 4 | 5 | 6 | 7 |\n".repeat(300),
        "<div>\n<table><tr><td>celda</td></tr></table>\n</div>\n\n".repeat(300),
        "\u{1}\u{2}\u{7f}\u{fffd}ÿþ\u{3}garbage\u{10ffff}".repeat(2_000),
        String::new(),
        " \n\t\n  \r\n".repeat(100),
        "<!-- IMAGE_DESCRIPTION: Escudo nacional con el águila -->\n\nTexto.".to_string(),
        "# \n## \n### \n**\n****\n| |\n|-|\n".repeat(50),
    ];
    for doc in &cases {
        let Some((chunks, _)) = chunk(doc, None, 128) else {
            return;
        };
        if doc.trim().is_empty() {
            assert!(chunks.is_empty());
        }
    }
    let Some((chunks, _)) = chunk(&cases[6], None, 800) else {
        return;
    };
    assert!(chunks[0].content.contains("IMAGE_DESCRIPTION: Escudo nacional"), "image description dropped");
}

#[test]
fn a_40_mb_document_is_chunked_under_the_limit() {
    let rows: String = (0..480_000).map(|i| format!("| {i} | partida arancelaria {i} | {}.5 |\n", i % 977)).collect();
    let doc = format!("| Clave | Descripción | Tasa |\n|---|---|---|\n{rows}");
    assert!(doc.len() > 20_000_000, "{}", doc.len());
    let doc = format!("{doc}\n\nNota final.\n\n{doc}");
    assert!(doc.len() > 40_000_000);
    let Some((chunks, _)) = chunk(&doc, None, 800) else {
        return;
    };
    assert_eq!(chunks[0].pattern, Pattern::GiantTable);
    assert!(chunks.iter().any(|c| c.content == "Nota final."));
}

#[test]
fn whitespace_before_a_special_token_counts_like_a_full_encode() {
    // found by the fuzzer: "3 : <unk> Chronicles" has a lone "▁" token before "<unk>"
    let doc = "= Valkyria Chronicles III =\nSenjō no Valkyria 3 : <unk> Chronicles (Japanese: 戦場のヴァルキュリア3), lit.\n<mask> at a line start, <s>twice</s> <pad> and\n\n<unk>";
    for max_tokens in [16, 24, 800] {
        for pattern in [None, Some(Pattern::PlainText)] {
            let Some(_) = chunk(doc, pattern, max_tokens) else {
                return;
            };
        }
    }
}

#[test]
fn characters_the_normaliser_deletes_do_not_shift_counts() {
    // found by the fuzzer: a vertical tab (deleted by the normaliser) before an irregular
    // line (no-break spaces) shifted the exact path's offsets by one
    let doc = "\u{b}Primera línea\u{b}\n\nVISTOS: el oficio y,\u{b}\n\u{a0} \u{a0} \u{a0}CONSIDERANDO:\n\n\u{a0}\u{b}Que, se aprobó la resolución;\u{b}\n\nLey N° \u{b}\u{b}\u{b}32123, Ley de";
    for max_tokens in [16, 20, 44, 800] {
        for pattern in [None, Some(Pattern::BoldHeaders), Some(Pattern::PlainText)] {
            let Some(_) = chunk(doc, pattern, max_tokens) else {
                return;
            };
        }
    }
}

/// Issue 9, row 3: U+0085 is a token for e5; lines that start with it used to be counted
/// without it (64 reported, 84 real).
#[test]
fn next_line_characters_are_counted_and_kept() {
    let doc: String = (1..=1500).map(|i| format!("\u{85}\u{94}{i}\n")).collect();
    for max_tokens in [64, 800] {
        let Some((chunks, tokenizer)) = chunk(&doc, Some(Pattern::PlainText), max_tokens) else {
            return;
        };
        assert!(chunks.len() > 1);
        // the checker recounts every chunk; also no U+0085 falls between chunks
        let covered: usize = chunks.iter().map(|c| c.content.matches('\u{85}').count()).sum();
        assert!(covered >= 1500, "{covered} of 1500 NEL characters in chunks");
        assert!(!tokenizer.normalizes_to_blank('\u{85}'));
        assert!(tokenizer.normalizes_to_blank('\u{a0}'));
    }
}

/// Issue 9, rows 1-2: a long word and a long line of emoji split under the limit with
/// nothing lost (the cost is measured by `cargo run -p dof_bench --bin hostile`).
#[test]
fn long_words_and_emoji_lines_split_exactly() {
    let word = "QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo".repeat(3000);
    let emoji = "👩‍👩‍👧‍👦🏳️‍🌈👍🏽🇲🇽".repeat(2000);
    for (text, max_tokens) in [(word.as_str(), 64), (word.as_str(), 800), (emoji.as_str(), 16), (emoji.as_str(), 200)] {
        let Some((chunks, _)) = chunk(text, None, max_tokens) else {
            return;
        };
        let joined: String = chunks.iter().map(|c| c.content.as_str()).collect();
        assert_eq!(joined, text, "pieces of a word concatenate back to it");
    }
}

/// Issue 9: a word too long to tokenize in one uninterruptible call is counted on a helper
/// thread with the same result, and an interrupt (a cancel) stops the wait at once.
#[test]
fn long_texts_are_counted_off_thread_and_interruptibly() {
    let Some(tokenizer) = common::tokenizer() else {
        return;
    };
    // ~4 MB, one word: tokenizing it in one call takes over a second on this project's machines
    let word = "QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo".repeat(120_000);
    assert_eq!(tokenizer.count_interruptibly(&word, &|| {}).unwrap(), tokenizer.count(&word).unwrap());
    let words = tokenizer.words(&word, &|| {}).unwrap();
    assert_eq!(words.len(), 1);
    assert_eq!(words[0].tokens as usize, tokenizer.count(&word).unwrap());
    // no panic message while timing: printing the first backtrace of a process takes seconds
    let report = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let start = std::time::Instant::now();
    let cancelled = std::panic::catch_unwind(|| tokenizer.words(&word, &|| panic!("cancel")));
    let stopped_after = start.elapsed();
    std::panic::set_hook(report);
    assert!(cancelled.is_err(), "the interrupt hook's unwinding reaches the caller");
    // within a third of the time one tokenizer call takes
    let one_call = {
        let t = std::time::Instant::now();
        tokenizer.count(&word).unwrap();
        t.elapsed()
    };
    assert!(stopped_after < one_call / 3, "stopped after {stopped_after:?}; one tokenizer call takes {one_call:?}");
}

/// Found by fuzzing: the word splitter still split at U+0085, so with the
/// character sizer a NEL at the end of a sentence fell between two chunks.
#[test]
fn next_line_characters_survive_word_splitting_with_either_sizer() {
    // a sentence longer than the limit that ends in U+0085 (a sentence boundary for
    // Unicode), so it is split into words
    let doc = format!("{}\u{85}\u{94}141\n", "procedimiento ".repeat(20)).repeat(10);
    for pattern in Pattern::ALL {
        let options = ChunkOptions { max_tokens: 144, overlap_tokens: 8, pattern: Some(pattern), ..ChunkOptions::default() };
        let chunks = chunk_document(&doc, &CharacterSizer, &options).expect("chunks");
        if let Err(problem) = invariants::check(&doc, &chunks, 144, &CharacterSizer) {
            panic!("{pattern}: {problem}");
        }
        // and the e5 tokenizer (chunk() checks the invariants; None without the model)
        let _ = chunk(&doc, Some(pattern), 144);
    }
}

#[test]
fn front_matter_is_in_no_chunk_and_a_malformed_one_stays_text() {
    let law =
        "---\ntitle: Aprueban Convenio\nidentifier: DS-092-2002-EF\n---\n# Aprueban Convenio\n\nEl presidente de la república decreta.\n";
    let Some((chunks, _)) = chunk(law, None, 800) else {
        return;
    };
    assert_eq!(chunks.len(), 1);
    assert_eq!(chunks[0].content, "# Aprueban Convenio\n\nEl presidente de la república decreta.");
    assert_eq!(chunks[0].char_start, law.find("# Aprueban").unwrap(), "offsets stay those of the stored body");
    let broken = "---\ntitle: [sin cerrar\n---\n# Texto\n\nUn párrafo.\n";
    let (chunks, _) = chunk(broken, None, 800).unwrap();
    assert!(chunks[0].content.starts_with("---\ntitle: [sin cerrar"), "{:?}", chunks[0].content);
    // the checker does not excuse a chunker that drops a valid block's text: a chunk list
    // without the body is reported
    let (tokenizer, options) = (common::tokenizer().unwrap(), ChunkOptions::default());
    let mut missing = chunk_document(law, tokenizer, &options).unwrap();
    missing.clear();
    assert!(invariants::check(law, &missing, 800, tokenizer).unwrap_err().contains("is in no chunk"));
}

#[test]
fn a_byte_order_mark_is_in_no_chunk_and_hides_no_heading() {
    // a UTF-8 file saved on Windows, read with pg_read_file: the mark, then the front matter
    let law = "\u{feff}---\ntitle: Aprueban Convenio\n---\n# Aprueban Convenio\n\nEl presidente decreta.\n";
    let Some((chunks, _)) = chunk(law, None, 800) else {
        return;
    };
    assert_eq!(chunks.len(), 1);
    assert_eq!(chunks[0].content, "# Aprueban Convenio\n\nEl presidente decreta.");
    assert_eq!(chunks[0].heading_path, vec!["Aprueban Convenio".to_string()]);
    assert_eq!(chunks[0].char_start, law.chars().position(|c| c == '#').unwrap(), "offsets count the mark");
    // without front matter the first line is still a heading
    let notice = "\u{feff}# Aviso\n\nTexto del aviso.\n";
    let (chunks, _) = chunk(notice, None, 800).unwrap();
    assert_eq!((chunks[0].char_start, chunks[0].heading_path.clone()), (1, vec!["Aviso".to_string()]));
}
