//! The chunking strategies: their list, the check of a collection's chunker, and its
//! options as settings.

use dof_core::chunk::strategies::{Settings, STRATEGIES};
use pgrx::prelude::*;
use pgrx::JsonB;

use super::errors::{raise_chunk_error, raise_invalid_parameter};

/// Every chunking strategy, with its settings (`chunker_options` keys).
#[pg_extern(immutable, parallel_safe)]
fn dof_chunk_strategies() -> TableIterator<'static, (name!(name, &'static str), name!(description, &'static str), name!(settings, JsonB))> {
    TableIterator::new(STRATEGIES.iter().map(|s| {
        let settings = s.settings().iter().map(|(k, v)| (k.to_string(), serde_json::Value::String(v.to_string()))).collect();
        (s.name(), s.description(), JsonB(serde_json::Value::Object(settings)))
    }))
}

/// Whether `strategy` with `options` is usable; an ERROR (22023) that says why not. The
/// CHECK constraint on dof_collections calls it, so a bad chunker is refused when it is set,
/// not at the first insert.
#[pg_extern(immutable, parallel_safe, strict)]
fn dof_check_chunker(strategy: &str, options: JsonB) -> bool {
    let settings = settings(&options);
    dof_core::chunk::strategies::find(strategy, &settings).unwrap_or_else(|e| raise_chunk_error(e));
    true
}

/// A JSON object's values as settings: strings as they are, numbers and booleans as text.
pub(crate) fn settings(options: &JsonB) -> Settings {
    let serde_json::Value::Object(map) = &options.0 else {
        raise_invalid_parameter(&format!("chunker options must be a JSON object, got {}", options.0))
    };
    map.iter()
        .map(|(key, value)| {
            let text = match value {
                serde_json::Value::String(s) => s.clone(),
                serde_json::Value::Number(_) | serde_json::Value::Bool(_) => value.to_string(),
                _ => raise_invalid_parameter(&format!("chunker option \"{key}\" must be a string, number or boolean, got {value}")),
            };
            (key.clone(), text)
        })
        .collect()
}
