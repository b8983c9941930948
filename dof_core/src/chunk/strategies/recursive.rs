//! The recursive baseline: what most libraries do by default (LangChain's
//! RecursiveCharacterTextSplitter, text-splitter's TextSplitter): paragraphs packed
//! greedily, a paragraph too big cut at lines, then sentences, then words — here with
//! exact token counts — and no attention to structure: a heading neither starts a chunk nor
//! stays with its text, and a table is cut like text, without its header. Kept so that
//! every comparison includes the baseline users would otherwise get.

use super::{Document, Limits, Settings, Strategy};
use crate::chunk::overlap;
use crate::chunk::pack::{Packer, Piece, Unit, UnitKind};
use crate::chunk::ChunkError;

pub struct RecursiveStrategy;

impl Strategy for RecursiveStrategy {
    fn name(&self) -> &'static str {
        "recursive"
    }

    fn description(&self) -> &'static str {
        "the libraries' common default, as a baseline: paragraphs, then lines, sentences and words, packed to the limit; structure ignored; overlap_tokens applies"
    }

    fn settings(&self) -> &'static [(&'static str, &'static str)] {
        &[]
    }

    fn check(&self, _settings: &Settings) -> Result<(), ChunkError> {
        Ok(())
    }

    fn pieces(&self, document: &Document, packer: &Packer, limits: &Limits) -> Result<Vec<Piece>, ChunkError> {
        // every block is plain text: no keep-with-next headings, no table rows with headers
        let units: Vec<Unit> = document.units.iter().map(|unit| Unit { kind: UnitKind::Text, heading: 0, ..unit.clone() }).collect();
        let overlap_tokens = overlap::usable(limits.overlap_tokens, packer.max_tokens);
        // pack to the limit less the overlap, so the overlap always has room
        let narrower = Packer { max_tokens: packer.max_tokens - overlap_tokens, tables_alone: false, ..*packer };
        let mut pieces = Vec::new();
        narrower.pack(&units, &mut pieces)?;
        overlap::add(packer, &mut pieces, overlap_tokens)?;
        Ok(pieces)
    }
}

#[cfg(test)]
mod tests {
    use crate::chunk::{chunk_document, CharacterSizer, ChunkOptions};

    fn options(max_tokens: usize) -> ChunkOptions {
        ChunkOptions { max_tokens, overlap_tokens: 0, strategy: "recursive".into(), ..ChunkOptions::default() }
    }

    #[test]
    fn a_heading_is_packed_like_text_and_a_table_loses_its_header() {
        let rows: String = (1..=6).map(|i| format!("| {i} | {i}{i} |\n")).collect();
        let text = format!("# Título\n\nUno dos tres.\n\n| a | b |\n|---|---|\n{rows}");
        let chunks = chunk_document(&text, &CharacterSizer, &options(40)).unwrap();
        assert!(chunks.iter().all(|c| c.strategy == "recursive" && !c.header_repeated && !c.table_piece), "{chunks:#?}");
        assert!(chunks.iter().all(|c| c.token_count <= 40));
        // the pattern strategy repeats the table header in each table piece instead
        let pattern = chunk_document(&text, &CharacterSizer, &ChunkOptions { strategy: "pattern".into(), ..options(40) }).unwrap();
        assert!(pattern.iter().any(|c| c.header_repeated), "{pattern:#?}");
    }

    #[test]
    fn a_long_paragraph_is_cut_at_sentences_before_words() {
        let text = "Primera oración bastante larga. Segunda oración también larga. Tercera.";
        let chunks = chunk_document(text, &CharacterSizer, &options(40)).unwrap();
        assert_eq!(chunks[0].content, "Primera oración bastante larga.");
        assert!(chunks.iter().all(|c| c.split));
    }
}
