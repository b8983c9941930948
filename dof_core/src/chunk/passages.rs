//! Passages: what the vector leg searches. A chunk is what the text leg ranks and what a
//! search returns; its vector, one mean over hundreds of tokens, matches a question about
//! one sentence of it badly. So each chunk is cut again into passages of at most
//! `passage_tokens` tokens, each passage is embedded, and the vector leg scores a chunk by its
//! best passage (`dof_passages`, sql/tables.sql). On the shared sets a chunk scored by
//! its best 200-token passage instead of its one vector took the vector leg from 0.517 to
//! 0.691 MRR@10 on the DOF questions and from 0.748 to 0.816 on the English set
//! (bench/sql/quality_piece_vectors.sql; docs/measurements.md has the table).

use super::measure::ChunkSizer;
use super::{chunk_document_using, Chunk, ChunkError, ChunkOptions};
use crate::embed::pool::l2_normalize;

/// One passage of a chunk: its span in the chunk's content, in characters (0-based, end
/// exclusive), its tokens and the text the model embeds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Passage {
    pub char_start: usize,
    pub char_end: usize,
    pub token_count: usize,
    pub content: String,
}

/// The passages of `chunk`: the chunk itself when it holds at most `passage_tokens` tokens
/// (its vector is then its one passage's), otherwise the pattern chunker's cut of its content
/// at `passage_tokens` with no overlap, so every character of the chunk is in a passage and
/// no passage is over the limit.
pub fn passages(chunk: &Chunk, passage_tokens: usize, sizer: &dyn ChunkSizer, interrupt: &dyn Fn()) -> Result<Vec<Passage>, ChunkError> {
    let whole = || Passage {
        char_start: 0,
        char_end: chunk.content.chars().count(),
        token_count: chunk.token_count,
        content: chunk.content.clone(),
    };
    if chunk.token_count <= passage_tokens {
        return Ok(vec![whole()]);
    }
    let options = ChunkOptions { max_tokens: passage_tokens, overlap_tokens: 0, ..ChunkOptions::default() };
    let cut = chunk_document_using(&chunk.content, sizer, &options, interrupt, None)?;
    if cut.is_empty() {
        // nothing the chunker keeps (a chunk of blanks): the chunk is still embedded
        return Ok(vec![whole()]);
    }
    Ok(cut
        .into_iter()
        .map(|p| Passage { char_start: p.char_start, char_end: p.char_end, token_count: p.token_count, content: p.content })
        .collect())
}

/// A chunk's own vector from its passages' (unit) vectors: their mean, L2-normalised. One
/// passage's vector is its chunk's. The chunk's vector is not what the vector leg ranks by;
/// it is the chunk's summary for whoever reads `dof_chunks.embedding`.
pub fn chunk_vector(passage_vectors: &[Vec<f32>]) -> Vec<f32> {
    let Some(first) = passage_vectors.first() else { return Vec::new() };
    if passage_vectors.len() == 1 {
        return first.clone();
    }
    let mut sum = vec![0.0f32; first.len()];
    for vector in passage_vectors {
        sum.iter_mut().zip(vector).for_each(|(acc, v)| *acc += v);
    }
    l2_normalize(&mut sum);
    sum
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chunk::{chunk_document_with, CharacterSizer};

    fn one_chunk(text: &str) -> Chunk {
        let options = ChunkOptions { max_tokens: 100_000, ..ChunkOptions::default() };
        let mut chunks = chunk_document_with(text, &CharacterSizer, &options, &|| {}).unwrap();
        assert_eq!(chunks.len(), 1);
        chunks.remove(0)
    }

    #[test]
    fn a_chunk_within_the_limit_is_its_one_passage() {
        let chunk = one_chunk("Artículo 1. Esta ley es de orden público.");
        let passages = passages(&chunk, 1000, &CharacterSizer, &|| {}).unwrap();
        assert_eq!(passages.len(), 1);
        assert_eq!(passages[0].content, chunk.content);
        assert_eq!((passages[0].char_start, passages[0].char_end), (0, chunk.content.chars().count()));
    }

    #[test]
    fn a_long_chunk_is_cut_under_the_limit_and_its_passages_cover_it() {
        let text: String = (1..=40).map(|i| format!("Artículo {i}. La autoridad resolverá en un plazo de {i} días hábiles.\n\n")).collect();
        let chunk = one_chunk(&text);
        let limit = 200;
        let passages = passages(&chunk, limit, &CharacterSizer, &|| {}).unwrap();
        assert!(passages.len() > 1);
        let chars: Vec<char> = chunk.content.chars().collect();
        let mut covered = vec![false; chars.len()];
        for passage in &passages {
            assert!(passage.token_count <= limit, "a passage of {} over {limit}", passage.token_count);
            let span: String = chars[passage.char_start..passage.char_end].iter().collect();
            assert_eq!(span, passage.content, "a passage's span is its text");
            covered[passage.char_start..passage.char_end].iter_mut().for_each(|c| *c = true);
        }
        // what no passage holds is blank: the separators between paragraphs
        assert!(chars.iter().zip(&covered).all(|(c, covered)| *covered || c.is_whitespace()));
    }

    #[test]
    fn a_chunk_vector_is_the_normalised_mean_of_its_passages() {
        assert_eq!(chunk_vector(&[vec![0.6, 0.8]]), vec![0.6, 0.8]);
        let mean = chunk_vector(&[vec![1.0, 0.0], vec![0.0, 1.0]]);
        let expected = std::f32::consts::FRAC_1_SQRT_2;
        assert!((mean[0] - expected).abs() < 1e-6 && (mean[1] - expected).abs() < 1e-6);
        assert!(chunk_vector(&[]).is_empty());
    }
}
