//! Chunking strategies: how a document's blocks become pieces under the limit. Each
//! strategy is one file here and one line in [`STRATEGIES`]; everything that names
//! strategies (SQL errors, `dof_chunk_strategies()`, the fuzz target, reports) reads that
//! list.

mod paragraph;
mod pattern;
mod recursive;
mod semantic;

pub use paragraph::{chunk_paragraphs, ParagraphChunk};

use std::collections::BTreeMap;

use super::pack::{Packer, Piece, Unit};
use super::ChunkError;
use crate::classify::Pattern;
use crate::embed::EmbedError;

/// Strategy-specific settings (a collection's `chunker_options`), as text: the SQL layer
/// turns a JSON object's scalars into strings, each strategy parses what it accepts.
pub type Settings = BTreeMap<String, String>;

/// What a strategy sees of the document.
pub struct Document<'d> {
    pub text: &'d str,
    /// Blocks as packing units, in order, with heading levels and paths.
    pub units: &'d [Unit],
    /// The document's structural pattern (classified or given).
    pub pattern: Pattern,
}

/// Embeds texts for the strategies that read meaning (semantic): one unit vector per text,
/// in order. The SQL layer passes the collection's model behind a sentence cache.
pub type SentenceEmbedder<'e> = dyn Fn(&[&str]) -> Result<Vec<Vec<f32>>, EmbedError> + 'e;

/// What a strategy may use besides the document: the limit lives in the packer.
pub struct Limits<'s> {
    /// Tokens of the previous piece repeated at the start of the next, for the strategies
    /// that overlap (capped with [`super::overlap::usable`]).
    pub overlap_tokens: usize,
    pub settings: &'s Settings,
    /// `None` when the caller has no model: a strategy that needs one says so.
    pub embedder: Option<&'s SentenceEmbedder<'s>>,
}

pub trait Strategy: Sync {
    /// The name a collection's `chunker` and `dof_chunk(strategy => ...)` use.
    fn name(&self) -> &'static str;
    /// One line for `dof_chunk_strategies()`.
    fn description(&self) -> &'static str;
    /// The settings it accepts, each with a one-line description.
    fn settings(&self) -> &'static [(&'static str, &'static str)];
    /// Checks `settings` (unknown keys are refused before this is called).
    fn check(&self, settings: &Settings) -> Result<(), ChunkError>;
    /// The pattern to record when the caller knows none; `None`: classify the document.
    fn forced_pattern(&self, settings: &Settings) -> Option<Pattern> {
        let _ = settings;
        None
    }
    /// The pieces of `document`, none over `packer.max_tokens`.
    fn pieces(&self, document: &Document, packer: &Packer, limits: &Limits) -> Result<Vec<Piece>, ChunkError>;
}

/// Every strategy, the default first.
pub static STRATEGIES: &[&dyn Strategy] =
    &[&pattern::PatternStrategy, &paragraph::ParagraphStrategy, &recursive::RecursiveStrategy, &semantic::SemanticStrategy];

/// The default strategy's name.
pub fn default_name() -> &'static str {
    STRATEGIES[0].name()
}

/// The names, comma-separated, for messages.
pub fn names() -> String {
    STRATEGIES.iter().map(|s| s.name()).collect::<Vec<_>>().join(", ")
}

/// The whole-number setting `key` of `strategy`, from `least` to `most` (`usize::MAX`: no
/// upper bound), or `default` when it is not set.
fn whole_number(
    settings: &Settings,
    strategy: &'static str,
    key: &str,
    default: usize,
    least: usize,
    most: usize,
) -> Result<usize, ChunkError> {
    let Some(value) = settings.get(key) else { return Ok(default) };
    match value.parse::<usize>() {
        Ok(n) if (least..=most).contains(&n) => Ok(n),
        _ => {
            let range = if most == usize::MAX { format!("of at least {least}") } else { format!("from {least} to {most}") };
            Err(ChunkError::InvalidSetting { strategy, message: format!("{key} must be a whole number {range}, got \"{value}\"") })
        }
    }
}

/// The strategy called `name`, its settings checked.
pub fn find(name: &str, settings: &Settings) -> Result<&'static dyn Strategy, ChunkError> {
    let strategy = STRATEGIES.iter().copied().find(|s| s.name() == name).ok_or_else(|| ChunkError::UnknownStrategy(name.to_string()))?;
    if let Some(key) = settings.keys().find(|key| !strategy.settings().iter().any(|(known, _)| known == key)) {
        let known = strategy.settings().iter().map(|(k, _)| *k).collect::<Vec<_>>().join(", ");
        return Err(ChunkError::InvalidSetting {
            strategy: strategy.name(),
            message: format!("unknown setting \"{key}\" (it accepts: {})", if known.is_empty() { "none" } else { &known }),
        });
    }
    strategy.check(settings)?;
    Ok(strategy)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chunk::{chunk_document, CharacterSizer, ChunkOptions};

    fn settings(pairs: &[(&str, &str)]) -> Settings {
        pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    #[test]
    fn names_are_unique_and_the_default_is_pattern() {
        let mut names: Vec<_> = STRATEGIES.iter().map(|s| s.name()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), STRATEGIES.len());
        assert_eq!(default_name(), "pattern");
    }

    #[test]
    fn an_unknown_strategy_or_setting_is_refused_with_the_choices() {
        let unknown = find("semantik", &Settings::new()).err().unwrap().to_string();
        assert!(unknown.contains("\"semantik\"") && unknown.contains(&names()), "{unknown}");
        let setting = find("pattern", &settings(&[("window", "3")])).err().unwrap().to_string();
        assert!(setting.contains("unknown setting \"window\"") && setting.contains("accepts: pattern"), "{setting}");
        let pattern = find("pattern", &settings(&[("pattern", "tables")])).err().unwrap().to_string();
        assert!(pattern.contains("unknown pattern \"tables\"") && pattern.contains("giant_table"), "{pattern}");
    }

    #[test]
    fn the_pattern_setting_overrides_the_classification() {
        let text = "# Aviso\n\nUn párrafo corto.\n\n## Primero\n\nTexto uno.\n\n## Segundo\n\nTexto dos.\n";
        let classified = chunk_document(text, &CharacterSizer, &ChunkOptions { max_tokens: 400, ..ChunkOptions::default() }).unwrap();
        assert_eq!(classified[0].pattern, Pattern::Small);
        assert_eq!(classified.len(), 1);
        let forced = ChunkOptions { max_tokens: 400, settings: settings(&[("pattern", "h2_compound")]), ..ChunkOptions::default() };
        let chunks = chunk_document(text, &CharacterSizer, &forced).unwrap();
        assert!(chunks.iter().all(|c| c.pattern == Pattern::H2Compound && c.strategy == "pattern"));
        assert_eq!(chunks.len(), 3, "one chunk per H2 section and the front matter");
    }
}
