//! Overlap between consecutive pieces, for the strategies that want it: each piece after
//! the first starts up to `overlap_tokens` earlier, at a word of the previous piece, if the
//! result still fits. The packer knows nothing of it; a strategy that adds overlap packs to
//! `max_tokens - overlap_tokens` first, so the overlap always has room.

use super::pack::{Packer, Piece};
use crate::tokenize::TokenizeError;

/// The overlap a strategy may use under `max_tokens`: at most a quarter of the limit, so
/// chunks keep room for new text.
pub fn usable(overlap_tokens: usize, max_tokens: usize) -> usize {
    overlap_tokens.min(max_tokens / 4)
}

/// Extends the start of every piece after the first back into its predecessor. Table
/// pieces and pieces that already overlap are left alone.
pub fn add(packer: &Packer, pieces: &mut [Piece], overlap_tokens: usize) -> Result<(), TokenizeError> {
    if overlap_tokens == 0 {
        return Ok(());
    }
    for i in 1..pieces.len() {
        let (before, after) = pieces.split_at_mut(i);
        let (previous, piece) = (&before[i - 1], &mut after[0]);
        if previous.table_piece || piece.table_piece || previous.span.end > piece.span.start {
            continue;
        }
        let words = packer.measure.words_in(previous.span.clone());
        let mut start = piece.span.start;
        let mut taken = 0usize;
        for index in words.rev() {
            let word = packer.measure.word(index);
            taken += word.tokens as usize;
            if taken > overlap_tokens || packer.count(word.start..piece.span.end)? > packer.max_tokens {
                break;
            }
            start = word.start;
        }
        if start < piece.span.start {
            piece.span.start = start;
            piece.overlap = true;
        }
    }
    Ok(())
}
