//! A law's divisions as places to cut: a chunk that would end inside an article ends
//! before the article's label instead, when what it already holds is at least half the
//! limit, so the article starts the next chunk with its label and title.
//!
//! Why: greedy packing ends a chunk wherever the limit falls, so an article's title and
//! its first paragraphs land in one chunk and the rest in another, and neither half holds
//! the words a question shares with the whole article.

use crate::contents::names_division;

/// Whether `text` opens a division of a law: its first line, markup trimmed, starts with
/// a division's name as [`crate::contents`] reads one (`Artículo`, `CAPÍTULO`,
/// `Título`...) written with a capital, as a label is; a wrapped line that goes on with
/// "artículo 5 de la Ley" is not.
pub fn opens_division(text: &str) -> bool {
    let line = text.lines().next().unwrap_or("");
    let line = line.trim_start_matches(|c: char| c.is_whitespace() || matches!(c, '*' | '_' | '\\' | '#' | '>' | '"' | '“' | '«'));
    line.starts_with(char::is_uppercase) && names_division(line)
}

/// Whether a piece that holds `held` tokens before a division may end there: at least half
/// of `max_tokens`, so that cutting at divisions never makes many small chunks.
pub fn may_end_before(held: usize, max_tokens: usize) -> bool {
    2 * held >= max_tokens
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_open_divisions_and_wrapped_references_do_not() {
        for text in [
            "**Artículo 4.- Financiamiento**",
            "ARTÍCULO PRIMERO.- APROBAR el Protocolo",
            "“**Artículo 9.- Principios del control gubernamental**",
            "CAPÍTULO II\nDE LAS FUNCIONES",
            "Título Preliminar",
            "## Artículo 3. Definiciones",
        ] {
            assert!(opens_division(text), "{text}");
        }
        for text in [
            "artículo 134 de la Constitución Política de los Estados Unidos Mexicanos",
            "La presente ley tiene por objeto\nArtículo 2",
            "Art. 391",
            "Articulado de la ley",
            "",
        ] {
            assert!(!opens_division(text), "{text}");
        }
    }

    #[test]
    fn a_piece_ends_before_a_division_only_when_half_full() {
        assert!(may_end_before(400, 800));
        assert!(may_end_before(799, 800));
        assert!(!may_end_before(399, 800));
        assert!(!may_end_before(0, 800));
    }
}
