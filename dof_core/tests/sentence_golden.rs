//! The sentence splitter on real text: 222 sentences of 55 paragraphs picked from the shared
//! corpora (DOF editions, Peruvian legal texts, the English chunking-evaluation set) for the
//! cases the rules exist for — abbreviations (`Art.`, `No.`, `Lic.`, `Dr.`, `Act.`, `D.S.`,
//! `et al.`, `U.S.`), numbered clauses (`**8.2.2.`, `41.4.`, `IV.7.`), money and decimals,
//! `¿…?`, initials (`C. Rubén`, `P. falciparum`), signature lines and hard-wrapped lines.
//! Each boundary was read and judged by hand. The file holds byte offsets into the corpora,
//! not their text (the corpora are read from ../shared, never copied here); when the
//! corpora are absent the test says SKIPPED.

mod common;

use dof_core::chunk::sentences;

#[derive(serde::Deserialize)]
struct Case {
    source: String,
    start: usize,
    end: usize,
    sentences: Vec<(usize, usize)>,
}

#[test]
fn the_golden_sentences_of_the_shared_corpora() {
    let root = common::corpora();
    if !root.is_dir() {
        eprintln!("SKIPPED: corpora folder {} is absent", root.display());
        return;
    }
    let golden = std::fs::read_to_string(common::repository_file("dof_core/tests/golden/sentences.json")).expect("golden file");
    let cases: Vec<Case> = serde_json::from_str(&golden).expect("golden JSON");
    let (mut total, mut wrong) = (0usize, Vec::new());
    for case in &cases {
        let file = std::fs::read_to_string(root.join(&case.source)).unwrap_or_else(|e| panic!("{}: {e}", case.source));
        let paragraph = &file[case.start..case.end];
        let expected: Vec<&str> = case.sentences.iter().map(|&(s, e)| &paragraph[s..e]).collect();
        let actual: Vec<&str> = sentences::split(paragraph, 0..paragraph.len()).into_iter().map(|r| &paragraph[r]).collect();
        total += expected.len();
        if actual != expected {
            wrong.push(format!("{} @{}:\n  expected {expected:#?}\n  actual {actual:#?}", case.source, case.start));
        }
    }
    assert!(total >= 200, "the golden list has {total} sentences");
    assert!(wrong.is_empty(), "{} of {} paragraphs split differently:\n{}", wrong.len(), cases.len(), wrong.join("\n"));
}
