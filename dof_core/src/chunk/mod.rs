//! Pattern-first chunking (seed 000) under a hard token limit, losing nothing.
//!
//! 1. [`classify`](crate::classify) picks the pattern (unless the caller knows it).
//! 2. [`blocks`] parses the markdown once (pulldown-cmark, with offsets).
//! 3. A [`strategies`] entry (by default `pattern`: the pattern picks the recipe) groups
//!    blocks into sections and [`pack`] packs them into pieces of at most `max_tokens`,
//!    ending a piece before a law's article rather than inside it ([`divisions`]) and
//!    splitting what is too big; strategies that want [`overlap`] add it.
//! 4. Each piece becomes a [`Chunk`] whose text is its source span (plus a repeated table
//!    header), with exact token counts from one measuring pass ([`measure`]).

pub mod blocks;
pub mod breakpoints;
pub mod divisions;
pub mod invariants;
pub mod measure;
pub mod overlap;
pub mod pack;
pub mod passages;
pub mod sentences;
pub mod strategies;

use crate::classify::{Features, Pattern, Thresholds};
use crate::tokenize::TokenizeError;
use blocks::BlockKind;
use measure::{ChunkSizer, Measure};
use pack::{Packer, Piece, Unit, UnitKind};
use strategies::{Document, Limits, SentenceEmbedder, Settings};

pub use measure::CharacterSizer;

/// Bump when chunk boundaries change for the same input and options: stored chunks
/// record it, so re-chunking can be targeted.
pub const CHUNKER_VERSION: &str = "3";

#[derive(Debug, Clone, PartialEq)]
pub struct ChunkOptions {
    pub max_tokens: usize,
    /// Tokens of the previous chunk repeated at the start of the next, for the strategies
    /// that overlap (pattern: plain_text only); at most a quarter of `max_tokens` is used,
    /// so chunks keep room for new text.
    pub overlap_tokens: usize,
    pub thresholds: Thresholds,
    /// The document's pattern when the caller knows it (stored, or forced): no classifying.
    pub pattern: Option<Pattern>,
    /// A name from [`strategies::STRATEGIES`].
    pub strategy: String,
    /// The strategy's own settings.
    pub settings: Settings,
}

impl Default for ChunkOptions {
    fn default() -> Self {
        Self {
            max_tokens: 800,
            overlap_tokens: 50,
            thresholds: Thresholds::default(),
            pattern: None,
            strategy: strategies::default_name().to_string(),
            settings: Settings::new(),
        }
    }
}

/// The smallest limit accepted: one character can take a few tokens, and a table piece
/// needs room for a repeated header.
pub const MIN_MAX_TOKENS: usize = 16;

#[derive(Debug, thiserror::Error)]
pub enum ChunkError {
    #[error("max_tokens must be at least {MIN_MAX_TOKENS}, got {0}")]
    MaxTokensTooSmall(i64),
    #[error("unknown chunking strategy \"{0}\": use {names}", names = strategies::names())]
    UnknownStrategy(String),
    #[error("unknown pattern \"{0}\": use {names}", names = Pattern::names())]
    UnknownPattern(String),
    #[error("chunking strategy {strategy}: {message}")]
    InvalidSetting { strategy: &'static str, message: String },
    #[error("chunking strategy {0} embeds sentences: it needs a model (a collection's model, or dof_chunk's model => a registered model, not '')")]
    NeedsModel(&'static str),
    #[error(transparent)]
    Tokenize(#[from] TokenizeError),
    #[error(transparent)]
    Embed(#[from] crate::embed::EmbedError),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Chunk {
    pub chunk_index: usize,
    pub pattern: Pattern,
    /// The strategy that cut it.
    pub strategy: &'static str,
    /// H1 > H2 > H3 in force where the chunk starts.
    pub heading_path: Vec<String>,
    pub content: String,
    pub token_count: usize,
    /// Byte span in the input of the chunk's own text (a repeated header is not in it).
    pub byte_start: usize,
    pub byte_end: usize,
    /// The same span in characters, 0-based, end exclusive:
    /// `substr(doc, char_start + 1, char_end - char_start)` in SQL.
    pub char_start: usize,
    pub char_end: usize,
    pub table_piece: bool,
    pub header_repeated: bool,
    pub overlap: bool,
    pub split: bool,
    /// `"tokenizer"` or `"characters"` (the fallback when no tokenizer is configured).
    pub sizer: &'static str,
}

pub fn chunk_document(text: &str, sizer: &dyn ChunkSizer, options: &ChunkOptions) -> Result<Vec<Chunk>, ChunkError> {
    chunk_document_with(text, sizer, options, &|| {})
}

/// [`chunk_document`] with a hook that runs often (every 64 KB of the measuring pass, every
/// block parsed, every count while packing): the SQL layer checks for query cancellation
/// there, so chunking any input stops within a fraction of a second of a cancel.
pub fn chunk_document_with(
    text: &str,
    sizer: &dyn ChunkSizer,
    options: &ChunkOptions,
    interrupt: &dyn Fn(),
) -> Result<Vec<Chunk>, ChunkError> {
    chunk_document_using(text, sizer, options, interrupt, None)
}

/// [`chunk_document_with`] with a sentence embedder, for the strategies that need one.
pub fn chunk_document_using(
    text: &str,
    sizer: &dyn ChunkSizer,
    options: &ChunkOptions,
    interrupt: &dyn Fn(),
    embedder: Option<&SentenceEmbedder>,
) -> Result<Vec<Chunk>, ChunkError> {
    if options.max_tokens < MIN_MAX_TOKENS {
        return Err(ChunkError::MaxTokensTooSmall(options.max_tokens as i64));
    }
    let strategy = strategies::find(&options.strategy, &options.settings)?;
    let pattern =
        strategy.forced_pattern(&options.settings).or(options.pattern).unwrap_or_else(|| Features::of(text).pattern(&options.thresholds));
    let (units, paths) = units(text, interrupt);
    if units.is_empty() {
        return Ok(Vec::new());
    }
    let measure = Measure::new(text, sizer, interrupt)?;
    let packer = Packer { measure: &measure, max_tokens: options.max_tokens, tables_alone: false };
    let document = Document { text, units: &units, pattern };
    let pieces =
        strategy.pieces(&document, &packer, &Limits { overlap_tokens: options.overlap_tokens, settings: &options.settings, embedder })?;
    assemble(text, &measure, pattern, strategy.name(), pieces, &paths)
}

/// Blocks as packing units, with the heading path in force at each.
fn units(text: &str, interrupt: &dyn Fn()) -> (Vec<Unit>, Vec<Vec<String>>) {
    let mut paths: Vec<Vec<String>> = vec![Vec::new()];
    let mut levels: [Option<String>; 3] = [None, None, None];
    let mut units = Vec::new();
    for block in blocks::parse(text, interrupt) {
        let (kind, heading) = match block.kind {
            BlockKind::Heading { level, text: title } => {
                if (1..=3).contains(&level) {
                    let level = level as usize;
                    levels[level - 1] = Some(title);
                    levels[level..].iter_mut().for_each(|l| *l = None);
                    paths.push(levels.iter().flatten().cloned().collect());
                }
                (UnitKind::KeepWithNext, level)
            }
            BlockKind::BoldLine => (UnitKind::KeepWithNext, 0),
            BlockKind::Table(table) => (UnitKind::Table(table), 0),
            BlockKind::Text => (UnitKind::Text, 0),
        };
        units.push(Unit { span: block.span, kind, heading, path: paths.len() - 1 });
    }
    (units, paths)
}

fn assemble(
    text: &str,
    measure: &Measure,
    pattern: Pattern,
    strategy: &'static str,
    pieces: Vec<Piece>,
    paths: &[Vec<String>],
) -> Result<Vec<Chunk>, ChunkError> {
    let char_offsets = CharOffsets::new(text, pieces.iter().flat_map(|p| [p.span.start, p.span.end]));
    pieces
        .into_iter()
        .enumerate()
        .map(|(chunk_index, piece)| {
            let body = &text[piece.span.clone()];
            let (content, token_count) = match &piece.header {
                Some(header) => {
                    (format!("{}\n{body}", &text[header.clone()]), measure.count(header.clone())? + measure.count(piece.span.clone())?)
                }
                None => (body.to_string(), measure.count(piece.span.clone())?),
            };
            Ok(Chunk {
                chunk_index,
                pattern,
                strategy,
                heading_path: paths[piece.path].clone(),
                content,
                token_count,
                byte_start: piece.span.start,
                byte_end: piece.span.end,
                char_start: char_offsets.get(piece.span.start),
                char_end: char_offsets.get(piece.span.end),
                table_piece: piece.table_piece,
                header_repeated: piece.header.is_some(),
                overlap: piece.overlap,
                split: piece.split,
                sizer: measure.sizer().name(),
            })
        })
        .collect()
}

/// Character offsets of a set of byte offsets, in one pass over the text.
struct CharOffsets {
    bytes: Vec<usize>,
    chars: Vec<usize>,
}

impl CharOffsets {
    fn new(text: &str, offsets: impl Iterator<Item = usize>) -> Self {
        let mut bytes: Vec<usize> = offsets.collect();
        bytes.sort_unstable();
        bytes.dedup();
        let mut chars = Vec::with_capacity(bytes.len());
        let (mut byte, mut count) = (0usize, 0usize);
        for &target in &bytes {
            count += text[byte..target].chars().count();
            byte = target;
            chars.push(count);
        }
        Self { bytes, chars }
    }

    fn get(&self, byte: usize) -> usize {
        self.chars[self.bytes.binary_search(&byte).expect("offset registered in new")]
    }
}
