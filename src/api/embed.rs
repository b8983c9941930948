//! Embedding from SQL. The user-facing functions are SQL wrappers in sql/embed.sql that
//! read the model's dof_models row and cast to `vector`; these take that row, the one way a
//! model becomes a spec (`spec_of_row`).

use dof_core::embed::{ModelKind, ModelSpec};
use pgrx::heap_tuple::PgHeapTuple;
use pgrx::prelude::*;
use pgrx::AllocatedByRust;

use super::errors::{checked_model_file, raise_embed_error, raise_invalid_parameter, raise_null_argument, raise_too_long};
use crate::{backend_models, guc, query_cache};

/// Texts longer than this are refused by the independent embedding functions: the model
/// sees 512 tokens (~2 KB) at most, so a longer text is a document to chunk first. The one
/// copy of the number; SQL reads it through `dof_embed_max_bytes()` (a shard checks a
/// coordinator's query against it before parsing it).
const MAX_TEXT_BYTES: usize = 64 * 1024;

/// The longest text, in bytes, the embedding functions take (a search query included).
#[pg_extern(immutable, parallel_safe)]
fn dof_embed_max_bytes() -> i32 {
    MAX_TEXT_BYTES as i32
}

#[allow(clippy::too_many_arguments)]
pub(super) fn spec(
    kind: &str,
    name: &str,
    model_file: Option<&str>,
    tokenizer_file: Option<&str>,
    dimension: i32,
    max_positions: i32,
    revision: &str,
) -> ModelSpec {
    let kind = ModelKind::parse(kind).unwrap_or_else(|| raise_invalid_parameter(&format!("unknown model kind \"{kind}\"")));
    let dimension = usize::try_from(dimension).unwrap_or(0);
    let max_positions = usize::try_from(max_positions).unwrap_or(0);
    let built = ModelSpec::onnx(
        name,
        &guc::model_dir(),
        model_file.map_or("", checked_model_file),
        tokenizer_file.map_or("", checked_model_file),
        dimension,
        max_positions,
        "",
        "",
        revision,
    );
    let mut spec = built.unwrap_or_else(|e| raise_embed_error(e));
    spec.kind = kind;
    spec
}

/// A model's dimension as given to the embedding functions: at least 1 (a negative one
/// read as 0 gave a 1-dimensional vector). Only the registration probe passes 0, "unknown".
pub(super) fn checked_dimension(dimension: i32) -> i32 {
    if dimension < 1 {
        raise_invalid_parameter(&format!("dimension must be at least 1, got {dimension}"));
    }
    dimension
}

/// The spec of a `dof_models` row, passed from SQL as one value, with its prefixes.
pub(crate) fn spec_of_row(model: &PgHeapTuple<'_, AllocatedByRust>) -> ModelSpec {
    let text = |field: &str| -> Option<String> {
        model.get_by_name::<String>(field).unwrap_or_else(|e| raise_invalid_parameter(&format!("dof_models.{field}: {e}")))
    };
    let int = |field: &str| -> i32 {
        model
            .get_by_name::<i32>(field)
            .unwrap_or_else(|e| raise_invalid_parameter(&format!("dof_models.{field}: {e}")))
            .unwrap_or_else(|| raise_null_argument(&format!("dof_models.{field}")))
    };
    let required = |field: &str| text(field).unwrap_or_else(|| raise_null_argument(&format!("dof_models.{field}")));
    let mut spec = spec(
        &required("kind"),
        &required("name"),
        text("model_file").as_deref(),
        text("tokenizer_file").as_deref(),
        int("dimension"),
        int("max_positions"),
        &required("revision"),
    );
    spec.query_prefix = required("query_prefix");
    spec.passage_prefix = required("passage_prefix");
    spec
}

pub(crate) fn check_interrupts() {
    pgrx::check_for_interrupts!();
}

/// What each input element must satisfy besides not being NULL.
enum Rule {
    /// A text embedded on its own: at most this many bytes.
    AtMostBytes(usize),
    /// A chunk of a late-chunked document: some non-whitespace text (it needs tokens).
    HasText,
}

/// A non-empty array of inputs that keep `rule`, or an ERROR naming the first bad element.
fn inputs<'a>(values: &'a [Option<String>], what: &str, rule: Rule) -> Vec<&'a str> {
    if values.is_empty() {
        raise_invalid_parameter(&format!("{what} must not be empty"));
    }
    values
        .iter()
        .enumerate()
        .map(|(i, value)| {
            let Some(text) = value else { raise_invalid_parameter(&format!("{what}[{}] is NULL", i + 1)) };
            match rule {
                Rule::AtMostBytes(max) if text.len() > max => raise_too_long(
                    &format!("{what}[{}] has {} bytes, over the {max} bytes pg_dof embeds as one text", i + 1, text.len()),
                    "the model sees 512 tokens at most: split the document with dof_chunk() or embed its chunks with dof_embed_late()",
                ),
                Rule::HasText if text.trim().is_empty() => raise_invalid_parameter(&format!("{what}[{}] has no text", i + 1)),
                _ => text.as_str(),
            }
        })
        .collect()
}

/// Vectors as rows numbered from 1, in input order.
fn numbered(vectors: Vec<Vec<f32>>) -> TableIterator<'static, (name!(ordinality, i32), name!(embedding, Vec<f32>))> {
    TableIterator::new(vectors.into_iter().enumerate().map(|(i, v)| (i as i32 + 1, v)))
}

/// The embedding spec of a `dof_models` row passed to an embedding function: its dimension
/// at least 1 (the table checks it; a row built by hand is checked here: a negative one,
/// read as 0, gave a 1-dimensional vector).
fn embedding_spec(model: Option<&PgHeapTuple<'_, AllocatedByRust>>) -> ModelSpec {
    let model = model.unwrap_or_else(|| raise_null_argument("model"));
    let dimension = model.get_by_name::<i32>("dimension").ok().flatten().unwrap_or(0);
    checked_dimension(dimension);
    spec_of_row(model)
}

/// The vector of one query text by `spec` with `prefix`: the body of both generations of
/// dof_embed_query_internal (this module's, 0.2.0's in release_0_2_0.rs).
pub(super) fn embed_query(spec: &ModelSpec, query: &str, prefix: &str) -> Option<Vec<f32>> {
    let query = [Some(query.to_string())];
    let texts = inputs(&query, "query", Rule::AtMostBytes(MAX_TEXT_BYTES));
    let mut vectors = query_cache::embed(spec, &texts, prefix, &mut check_interrupts).unwrap_or_else(|error| raise_embed_error(error));
    vectors.pop()
}

/// What a batch of texts is to the embedding: queries go through the query cache (a query is
/// often asked again), passages do not (a document's chunks are embedded once each).
pub(super) enum Texts {
    Queries,
    Passages,
}

/// The vectors of `texts` by `spec` with `prefix`, numbered: both dof_embed_internal.
pub(super) fn embed_texts(
    spec: &ModelSpec,
    texts: &[Option<String>],
    prefix: &str,
    kind: Texts,
) -> TableIterator<'static, (name!(ordinality, i32), name!(embedding, Vec<f32>))> {
    let texts = inputs(texts, "texts", Rule::AtMostBytes(MAX_TEXT_BYTES));
    let vectors = match kind {
        Texts::Queries => query_cache::embed(spec, &texts, prefix, &mut check_interrupts),
        Texts::Passages => backend_models::embed(spec, &texts, prefix, &mut check_interrupts),
    };
    numbered(vectors.unwrap_or_else(|e| raise_embed_error(e)))
}

/// Late chunking of one document's `chunks` (with their front matter) by `spec` with
/// `prefix`, numbered: both dof_embed_late_internal.
pub(super) fn embed_late_chunks(
    spec: &ModelSpec,
    chunks: &[Option<String>],
    front_matter: Option<Vec<Option<String>>>,
    prefix: &str,
) -> TableIterator<'static, (name!(ordinality, i32), name!(embedding, Vec<f32>))> {
    let chunks = inputs(chunks, "chunks", Rule::HasText);
    let front_matter = front_matter.unwrap_or_default();
    let front: Vec<&str> = front_matter.iter().map(|f| f.as_deref().unwrap_or("")).collect();
    if !front.is_empty() && front.len() != chunks.len() {
        raise_invalid_parameter(&format!("front_matter has {} elements but chunks has {}", front.len(), chunks.len()));
    }
    let vectors = backend_models::embed_late(spec, &chunks, &front, prefix, &mut check_interrupts).unwrap_or_else(|e| raise_embed_error(e));
    numbered(vectors)
}

/// The vector of `query` by the model of a `dof_models` row, with its query prefix.
#[pg_extern(stable, parallel_safe, name = "dof_embed_query_internal", requires = ["models"])]
fn dof_embed_query_model(query: Option<&str>, model: Option<pgrx::composite_type!("dof_models")>) -> Option<Vec<f32>> {
    let query = query?; // NULL in, NULL out, as a strict function
    let spec = embedding_spec(model.as_ref());
    embed_query(&spec, query, &spec.query_prefix)
}

/// The vectors of `texts` by the model of a `dof_models` row, with its query prefix when
/// `as_query`, its passage prefix otherwise.
#[pg_extern(stable, parallel_safe, name = "dof_embed_internal", requires = ["models"])]
fn dof_embed_model(
    texts: Option<Vec<Option<String>>>,
    model: Option<pgrx::composite_type!("dof_models")>,
    as_query: Option<bool>,
) -> TableIterator<'static, (name!(ordinality, i32), name!(embedding, Vec<f32>))> {
    let texts = texts.unwrap_or_else(|| raise_null_argument("texts"));
    let spec = embedding_spec(model.as_ref());
    // NULL as_query is a passage, as the SQL wrapper's CASE read it before
    if as_query.unwrap_or(false) {
        embed_texts(&spec, &texts, &spec.query_prefix, Texts::Queries)
    } else {
        embed_texts(&spec, &texts, &spec.passage_prefix, Texts::Passages)
    }
}

/// Late chunking: the chunks of one document embedded in one pass of the model of a
/// `dof_models` row (passage prefix), each chunk's vector pooled from its own tokens.
#[pg_extern(stable, parallel_safe, name = "dof_embed_late_internal", requires = ["models"])]
fn dof_embed_late_model(
    chunks: Option<Vec<Option<String>>>,
    front_matter: Option<Vec<Option<String>>>,
    model: Option<pgrx::composite_type!("dof_models")>,
) -> TableIterator<'static, (name!(ordinality, i32), name!(embedding, Vec<f32>))> {
    let chunks = chunks.unwrap_or_else(|| raise_null_argument("chunks"));
    let spec = embedding_spec(model.as_ref());
    embed_late_chunks(&spec, &chunks, front_matter, &spec.passage_prefix)
}

/// Loads a model once (not cached), checks that it embeds a window of `max_positions`
/// tokens and returns its output dimension.
#[pg_extern(volatile)]
fn dof_probe_model_internal(name: &str, model_file: &str, tokenizer_file: &str, max_positions: i32) -> i32 {
    let spec = spec("onnx", name, Some(model_file), Some(tokenizer_file), 0, max_positions, "probe");
    let probed = backend_models::load(&spec, 1, crate::guc::onnx_spinning()).and_then(|mut embedder| {
        embedder.check_window()?;
        Ok(dof_core::embed::Embedder::dimension(&embedder) as i32)
    });
    probed.unwrap_or_else(|error| raise_embed_error(error))
}

/// What this backend keeps loaded: ONNX sessions and tokenizers, most recently used first.
#[pg_extern(volatile, parallel_restricted)]
#[allow(clippy::type_complexity)] // pgrx reads the column names from this tuple
fn dof_model_cache() -> TableIterator<
    'static,
    (
        name!(cache, &'static str),
        name!(model, Option<String>),
        name!(revision, Option<String>),
        name!(file, String),
        name!(intra_op_threads, Option<i32>),
    ),
> {
    let to_i32 = |n: usize| i32::try_from(n).unwrap_or(i32::MAX);
    TableIterator::new(
        backend_models::entries().into_iter().map(move |e| (e.cache, e.model, e.revision, e.file, e.intra_op_threads.map(to_i32))),
    )
}

#[cfg(any(test, feature = "pg_test"))]
#[pg_schema]
mod tests {
    use pgrx::prelude::*;

    fn cosine(a: &str, b: &str) -> f64 {
        Spi::get_one_with_args::<f64>("SELECT 1 - (dof_embed_query($1) <=> dof_embed_query($2))", &[a.into(), b.into()])
            .expect("query runs")
            .expect("not null")
    }

    #[pg_test]
    fn a_paraphrase_is_closer_than_an_unrelated_sentence() {
        let query = "¿Qué reglas fiscales publicó el SAT este año?";
        let paraphrase = cosine(query, "El Servicio de Administración Tributaria dio a conocer la resolución miscelánea fiscal.");
        let unrelated = cosine(query, "El equipo de fútbol ganó el campeonato el domingo.");
        assert!(paraphrase > unrelated + 0.05, "paraphrase {paraphrase} vs unrelated {unrelated}");
    }

    #[pg_test]
    fn the_embedding_is_a_unit_vector_of_the_model_dimension() {
        let dims = Spi::get_one::<i32>("SELECT vector_dims(dof_embed_query('hola'))").unwrap();
        assert_eq!(dims, Some(384));
        let norm = Spi::get_one::<f64>("SELECT vector_norm(dof_embed_query('hola'))").unwrap().unwrap();
        assert!((norm - 1.0).abs() < 1e-4, "norm {norm}");
    }

    #[pg_test(error = "dimension must be at least 1, got -5")]
    fn a_negative_dimension_is_refused() {
        let _ = Spi::get_one::<i64>(
            "SELECT count(*) FROM dof_models m, dof_embed_internal(ARRAY['x'], jsonb_populate_record(m, '{\"dimension\": -5}'), false)
             WHERE m.name = 'hash-384'",
        );
    }

    #[pg_test]
    fn a_null_as_query_embeds_a_passage() {
        let same = Spi::get_one::<bool>(
            "SELECT (SELECT embedding FROM dof_embed(ARRAY['uno'], NULL, NULL)) = (SELECT embedding FROM dof_embed(ARRAY['uno']))
                AND (SELECT embedding FROM dof_embed(ARRAY['uno'], as_query => true)) <> (SELECT embedding FROM dof_embed(ARRAY['uno']))",
        );
        assert_eq!(same, Ok(Some(true)));
    }

    #[pg_test]
    fn batch_embeddings_come_back_in_input_order() {
        let same = Spi::get_one::<bool>(
            "SELECT bool_and(e.embedding = d.embedding) FROM dof_embed(ARRAY['uno', 'dos dos', 'tres tres tres']) e
             JOIN LATERAL dof_embed(ARRAY[(ARRAY['uno', 'dos dos', 'tres tres tres'])[e.ordinality]]) d ON true",
        );
        assert_eq!(same, Ok(Some(true)));
    }

    /// The built-in registry rows (sql/models.sql) and the core's model layout (used outside
    /// PostgreSQL by the tests and benchmarks) describe the same models; the default is q4.
    #[pg_test]
    fn the_builtin_rows_are_the_core_models() {
        for (name, default) in [(dof_core::install::DEFAULT_MODEL, true), (dof_core::install::INT8_MODEL, false)] {
            let e5 = dof_core::embed::ModelSpec::e5_in_dir(&crate::guc::model_dir(), name).unwrap();
            let row = Spi::get_one_with_args::<String>(
                "SELECT concat_ws('|', name, dimension, max_positions, query_prefix, passage_prefix, model_file, tokenizer_file, is_default)
                 FROM dof_models WHERE builtin AND kind = 'onnx' AND name = $1",
                &[name.into()],
            );
            let core = [
                e5.name.clone(),
                e5.dimension.to_string(),
                e5.max_positions.to_string(),
                e5.query_prefix.clone(),
                e5.passage_prefix.clone(),
                format!("{}/model.onnx", e5.name),
                format!("{}/tokenizer.json", e5.name),
                if default { "t" } else { "f" }.to_string(),
            ]
            .join("|");
            assert_eq!(row, Ok(Some(core)), "{name}");
        }
        let onnx_rows = Spi::get_one::<i64>("SELECT count(*) FROM dof_models WHERE builtin AND kind = 'onnx'");
        assert_eq!(onnx_rows, Ok(Some(2)));
        // A new collection's model (sql/tables.sql's column default) is the registry's
        // default row, and both are the core's DEFAULT_MODEL: the name is written in SQL
        // twice because a column default cannot read a row, and this keeps them one.
        let collection_default =
            Spi::get_one::<String>("INSERT INTO dof_collections (name) VALUES ('model-default-check') RETURNING model");
        assert_eq!(collection_default, Ok(Some(dof_core::install::DEFAULT_MODEL.to_string())));
        let registry_default = Spi::get_one::<String>("SELECT name FROM dof_models WHERE is_default");
        assert_eq!(registry_default, Ok(Some(dof_core::install::DEFAULT_MODEL.to_string())));
    }

    #[pg_test]
    fn a_thread_count_change_replaces_the_session_instead_of_adding_one() {
        Spi::run("SET pg_dof.query_cache_size = 0").unwrap(); // each call runs the model
        Spi::run("SET pg_dof.intra_op_threads = 1").unwrap();
        Spi::run("SELECT dof_embed_query('hola')").unwrap();
        Spi::run("SET pg_dof.intra_op_threads = 2").unwrap();
        Spi::run("SELECT dof_embed_query('hola')").unwrap();
        let sessions = Spi::get_one::<String>(
            "SELECT string_agg(model || ':' || intra_op_threads, ',') FROM dof_model_cache() WHERE cache = 'session'",
        );
        assert_eq!(sessions, Ok(Some("multilingual-e5-small:2".to_string())));
    }

    #[pg_test]
    fn the_cache_keeps_at_most_model_cache_size_sessions() {
        Spi::run(
            "INSERT INTO dof_models (name, kind, model_file, tokenizer_file, dimension, query_prefix, passage_prefix)
             SELECT 'e5-copy', kind, model_file, tokenizer_file, dimension, query_prefix, passage_prefix
             FROM dof_models WHERE name = 'multilingual-e5-small'",
        )
        .unwrap();
        Spi::run("SET pg_dof.model_cache_size = 1").unwrap();
        Spi::run("SELECT dof_embed_query('hola')").unwrap();
        Spi::run("SELECT dof_embed_query('hola', 'e5-copy')").unwrap();
        let sessions = Spi::get_one::<String>("SELECT string_agg(model, ',') FROM dof_model_cache() WHERE cache = 'session'");
        assert_eq!(sessions, Ok(Some("e5-copy".to_string())));
    }

    #[pg_test]
    fn a_tokenizer_file_changed_in_place_is_read_again() {
        let dir = std::env::temp_dir().join(format!("pg_dof_tokenizer_{}", std::process::id()));
        std::fs::create_dir_all(dir.join("m")).unwrap();
        let file = dir.join("m/tokenizer.json");
        std::fs::copy(crate::guc::model_dir().join("multilingual-e5-small/tokenizer.json"), &file).unwrap();
        Spi::run(&format!("SET pg_dof.model_dir = '{}'", dir.display())).unwrap();
        Spi::run(
            "INSERT INTO dof_models (name, kind, model_file, tokenizer_file, dimension)
             VALUES ('tokenizer-test', 'onnx', 'm/model.onnx', 'm/tokenizer.json', 384)",
        )
        .unwrap();
        let count = || Spi::get_one::<i32>("SELECT token_count FROM dof_chunk('zzqxzzqx', model => 'tokenizer-test')").unwrap().unwrap();
        let before = count();
        // the same file, now with "zzqxzzqx" as one added token
        let mut json: serde_json::Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
        json["added_tokens"].as_array_mut().unwrap().push(serde_json::json!({
            "id": 5, "content": "zzqxzzqx", "single_word": false, "lstrip": false, "rstrip": false,
            "normalized": false, "special": false
        }));
        std::fs::write(&file, serde_json::to_vec(&json).unwrap()).unwrap();
        let after = count();
        std::fs::remove_dir_all(&dir).unwrap();
        assert!(before > 1, "zzqxzzqx is several tokens in e5's vocabulary ({before})");
        assert_eq!(after, 1, "the changed file was read again");
    }

    #[pg_test]
    fn a_query_is_embedded_again_when_its_model_files_change() {
        // the query cache keys by the files as they are on disk: a tokenizer rewritten in
        // place (as a_tokenizer_file_changed_in_place_is_read_again) is a miss
        let dir = std::env::temp_dir().join(format!("pg_dof_query_cache_{}", std::process::id()));
        std::fs::create_dir_all(dir.join("m")).unwrap();
        let models = crate::guc::model_dir().join("multilingual-e5-small");
        std::os::unix::fs::symlink(models.join("model.onnx"), dir.join("m/model.onnx")).unwrap();
        let file = dir.join("m/tokenizer.json");
        std::fs::copy(models.join("tokenizer.json"), &file).unwrap();
        Spi::run(&format!("SET pg_dof.model_dir = '{}'", dir.display())).unwrap();
        Spi::run(
            "INSERT INTO dof_models (name, kind, model_file, tokenizer_file, dimension, query_prefix, passage_prefix)
             VALUES ('query-cache-test', 'onnx', 'm/model.onnx', 'm/tokenizer.json', 384, 'query: ', 'passage: ')",
        )
        .unwrap();
        Spi::run("SELECT dof_query_cache_clear()").unwrap();
        let embed_and_count = || {
            Spi::run("SELECT dof_embed_query('licitación de medicamentos', 'query-cache-test')").unwrap();
            Spi::get_one::<String>("SELECT hits || '/' || misses FROM dof_query_cache()").unwrap().unwrap()
        };
        let (first, again) = (embed_and_count(), embed_and_count());
        std::thread::sleep(std::time::Duration::from_millis(20)); // a later modification time
        std::fs::write(&file, std::fs::read(&file).unwrap()).unwrap();
        let rewritten = embed_and_count();
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!((first.as_str(), again.as_str(), rewritten.as_str()), ("0/1", "1/1", "1/2"));
    }

    #[pg_test(error = "model file \"/nonexistent/multilingual-e5-small/model.onnx\" does not exist")]
    fn a_missing_model_file_is_an_error() {
        Spi::run("SET pg_dof.model_dir = '/nonexistent'").unwrap();
        Spi::run("SELECT dof_embed_query('hola')").unwrap();
    }
}
