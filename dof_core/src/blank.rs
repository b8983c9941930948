//! Blank characters: what chunk edges may drop and what may separate words.
//!
//! Rust's `char::is_whitespace` (Unicode White_Space) is not the tokenizer's idea of
//! whitespace: U+0085 (NEXT LINE) is White_Space, yet e5's normaliser keeps it and the
//! model gives it a token of its own ("…" in cp1252 text read as latin-1 becomes U+0085).
//! Trimming it off a line or a chunk made chunks count fewer tokens than they hold (64
//! reported, 84 real). Blank here is White_Space less U+0085; every other White_Space
//! character normalises to a space or to nothing in the tokenizers pg_dof ships, which the
//! invariant checker verifies against the tokenizer itself ([`crate::chunk::invariants`]).

/// A character chunking may treat as whitespace.
pub fn is_blank(c: char) -> bool {
    c.is_whitespace() && c != '\u{85}'
}

/// Whether `body` holds nothing to index: only blanks after its byte order mark and front
/// matter ([`crate::front_matter::span`]). Such a body gives no chunk whatever the strategy
/// (a property test holds every strategy to it): the trigger and `dof load` refuse it, as a
/// document no search could find.
pub fn blank_body(body: &str) -> bool {
    body[crate::front_matter::span(body).end..].chars().all(is_blank)
}

/// `text` without leading blanks.
pub fn trim_start(text: &str) -> &str {
    text.trim_start_matches(is_blank)
}

/// `text` without trailing blanks.
pub fn trim_end(text: &str) -> &str {
    text.trim_end_matches(is_blank)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn next_line_is_content_and_other_white_space_is_blank() {
        assert!(!is_blank('\u{85}'));
        for c in [' ', '\t', '\n', '\r', '\u{b}', '\u{c}', '\u{a0}', '\u{2028}', '\u{3000}'] {
            assert!(is_blank(c), "{c:?}");
        }
        assert_eq!(trim_start("\u{a0}\n\u{85}x "), "\u{85}x ");
        assert_eq!(trim_end("x\u{85}\u{3000} "), "x\u{85}");
    }

    #[test]
    fn a_body_is_blank_when_only_blanks_follow_its_mark_and_front_matter() {
        for body in
            ["", " \n\t", "\u{feff}", "\u{feff} \n", "\u{a0}\u{2003}", "---\ntitle: Ley 1\n---\n", "\u{feff}---\ntitle: x\n---\n\n  \n"]
        {
            assert!(blank_body(body), "{body:?}");
        }
        // a mark after the first character, U+0085, malformed front matter and a rule are text
        for body in [" \u{feff}", "\u{85}", "---\n: : [\n---\n", "---\n", "#", "x"] {
            assert!(!blank_body(body), "{body:?}");
        }
    }
}
