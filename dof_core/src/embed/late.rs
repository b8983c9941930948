//! Late chunking, the planning half (no model): where each chunk's tokens are in the
//! concatenated document, and how a document longer than the model's window is cut into
//! windows.
//!
//! Choices, documented because they change vectors:
//! - chunks are joined with a blank line; a token belongs to the chunk whose byte range
//!   holds its end (a leading "▁" may start in the separator); separator-only tokens
//!   belong to no chunk;
//! - a document that fits the window is one pass, with no front matter (it has its own);
//! - otherwise windows hold whole chunks while they fit; each window after the first
//!   starts with the front matter of its first chunk (H1 + current H2 in pg_dof);
//! - a chunk longer than a window is cut across consecutive windows and pooled over all
//!   its tokens, i.e. both halves weighted by their token counts.

use std::ops::Range;

/// Byte ranges of `chunks` in the text `prefix + chunks.join(SEPARATOR)`, and that text.
pub const SEPARATOR: &str = "\n\n";

pub fn concatenate(prefix: &str, chunks: &[&str]) -> (String, Vec<Range<usize>>) {
    let mut text = String::with_capacity(prefix.len() + chunks.iter().map(|c| c.len() + 2).sum::<usize>());
    text.push_str(prefix);
    let mut ranges = Vec::with_capacity(chunks.len());
    for (i, chunk) in chunks.iter().enumerate() {
        if i > 0 {
            text.push_str(SEPARATOR);
        }
        let start = text.len();
        text.push_str(chunk);
        ranges.push(start..text.len());
    }
    (text, ranges)
}

/// For each chunk, the range of token indices whose byte end falls in the chunk.
pub fn token_spans(token_offsets: &[(usize, usize)], chunk_ranges: &[Range<usize>]) -> Vec<Range<usize>> {
    chunk_ranges
        .iter()
        .map(|range| {
            let first = token_offsets.partition_point(|&(_, end)| end <= range.start);
            let past = token_offsets.partition_point(|&(_, end)| end <= range.end);
            first..past.max(first)
        })
        .collect()
}

/// One model pass: `tokens` of the document, after the front matter of chunk `front_of`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Window {
    pub tokens: Range<usize>,
    pub front_of: Option<usize>,
}

/// Cuts `0..total_tokens` into windows of at most `capacity` document tokens (less the
/// front matter's `front_len(chunk)` tokens after the first window).
pub fn plan_windows(spans: &[Range<usize>], total_tokens: usize, capacity: usize, front_len: &dyn Fn(usize) -> usize) -> Vec<Window> {
    if total_tokens <= capacity {
        return vec![Window { tokens: 0..total_tokens, front_of: None }];
    }
    let owner = |token: usize| spans.partition_point(|s| s.end <= token).min(spans.len().saturating_sub(1));
    let mut windows = Vec::new();
    let mut start = 0;
    while start < total_tokens {
        let front_of = (start > 0).then(|| owner(start));
        let room = capacity.saturating_sub(front_of.map_or(0, front_len)).max(1);
        let mut end = (start + room).min(total_tokens);
        if end < total_tokens {
            // end on the last chunk boundary that fits, when one does
            let boundary = spans.iter().map(|s| s.start).filter(|&b| b > start && b <= end).max();
            if let Some(boundary) = boundary {
                end = boundary;
            }
        }
        windows.push(Window { tokens: start..end, front_of });
        start = end;
    }
    windows
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn concatenation_records_each_chunk_range() {
        let (text, ranges) = concatenate("passage: ", &["uno dos", "tres"]);
        assert_eq!(text, "passage: uno dos\n\ntres");
        assert_eq!(&text[ranges[0].clone()], "uno dos");
        assert_eq!(&text[ranges[1].clone()], "tres");
    }

    #[test]
    fn tokens_belong_to_the_chunk_that_holds_their_end() {
        // "passage: uno dos\n\ntres" tokenised as ▁passage : ▁uno ▁dos ▁tres (leading ▁ in the space)
        let offsets = [(0, 7), (7, 8), (8, 12), (12, 16), (16, 22)];
        let spans = token_spans(&offsets, &[9..16, 18..22]);
        assert_eq!(spans, vec![2..4, 4..5]);
    }

    #[test]
    fn a_document_that_fits_is_one_window_without_front_matter() {
        let windows = plan_windows(&[0..10, 10..20], 20, 510, &|_| 5);
        assert_eq!(windows, vec![Window { tokens: 0..20, front_of: None }]);
    }

    #[test]
    fn windows_hold_whole_chunks_and_carry_front_matter() {
        let spans = [0..40, 40..80, 80..120, 120..160];
        let windows = plan_windows(&spans, 160, 100, &|_| 10);
        assert_eq!(windows[0], Window { tokens: 0..80, front_of: None });
        assert_eq!(windows[1], Window { tokens: 80..160, front_of: Some(2) });
        for window in &windows {
            for span in &spans {
                let inside = window.tokens.start <= span.start && span.end <= window.tokens.end;
                let outside = span.end <= window.tokens.start || window.tokens.end <= span.start;
                assert!(inside || outside, "chunk {span:?} cut by window {window:?}");
            }
        }
    }

    #[test]
    fn a_chunk_longer_than_a_window_straddles_consecutive_windows() {
        let spans = [0..10, 10..260, 260..270];
        let windows = plan_windows(&spans, 270, 100, &|_| 10);
        let covered: usize = windows.iter().map(|w| w.tokens.len()).sum();
        assert_eq!(covered, 270, "every token in exactly one window");
        assert!(windows.iter().all(|w| w.tokens.len() + if w.front_of.is_some() { 10 } else { 0 } <= 100));
        assert!(windows.windows(2).all(|p| p[0].tokens.end == p[1].tokens.start));
    }
}
