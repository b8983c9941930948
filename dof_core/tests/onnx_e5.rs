//! The real multilingual-e5-small model through ONNX Runtime, outside PostgreSQL.
//!
//! Needs the files `make setup` installs; see tests/common.

mod common;

use dof_core::embed::pool::dot;
use dof_core::embed::{EmbedError, Embedder, ModelSpec, OnnxEmbedder, OnnxOptions};
use dof_core::tokenize::ModelTokenizer;

fn load() -> Option<(OnnxEmbedder, ModelSpec)> {
    load_with(None)
}

/// The model, with windows of `max_positions` tokens (None: its spec's, 512).
fn load_with(max_positions: Option<usize>) -> Option<(OnnxEmbedder, ModelSpec)> {
    let spec = ModelSpec::e5_in_dir(&common::model_dir(), "multilingual-e5-small").unwrap();
    let runtime = common::runtime_library();
    if !common::require(&[runtime.clone(), spec.model_file.clone(), spec.tokenizer_file.clone()]) {
        return None;
    }
    let max_positions = max_positions.unwrap_or(spec.max_positions);
    let options = OnnxOptions { intra_threads: 2, max_positions, ..OnnxOptions::default() };
    let tokenizer = std::sync::Arc::new(ModelTokenizer::from_file(&spec.tokenizer_file).expect("tokenizer loads"));
    let embedder = OnnxEmbedder::load(&runtime, &spec.model_file, tokenizer, options).expect("model loads");
    Some((embedder, spec))
}

#[test]
fn a_paraphrase_is_closer_than_an_unrelated_sentence() {
    let Some((mut embedder, spec)) = load() else {
        return;
    };
    assert_eq!(embedder.dimension(), 384);
    let query = format!("{}El SAT publicó la resolución miscelánea fiscal.", spec.query_prefix);
    let paraphrase = format!("{}El Servicio de Administración Tributaria dio a conocer las reglas fiscales del año.", spec.passage_prefix);
    let unrelated = format!("{}El equipo de fútbol ganó el campeonato el domingo.", spec.passage_prefix);
    let vectors = embedder.embed(&[&query, &paraphrase, &unrelated], &mut || {}).unwrap();
    for v in &vectors {
        assert!((dot(v, v) - 1.0).abs() < 1e-4, "not unit length");
    }
    let (close, far) = (dot(&vectors[0], &vectors[1]), dot(&vectors[0], &vectors[2]));
    assert!(close > far + 0.05, "paraphrase {close} vs unrelated {far}");
}

#[test]
fn a_window_over_the_models_positions_is_named_by_check_window() {
    let Some((mut fits, _)) = load_with(Some(512)) else {
        return;
    };
    fits.check_window().expect("e5 embeds a window of 512 tokens");
    let (mut over, _) = load_with(Some(513)).unwrap();
    match over.check_window() {
        Err(EmbedError::WindowTooLong { max_positions: 513, .. }) => {}
        other => panic!("a window of 513 tokens: {other:?}"),
    }
}

#[test]
fn batching_and_padding_do_not_change_a_vector() {
    let Some((mut embedder, _)) = load() else {
        return;
    };
    let short = "passage: Aviso de licitación.";
    let long = "passage: Se convoca a licitación pública nacional para la adquisición de medicamentos y material de curación.";
    let alone = embedder.embed(&[short], &mut || {}).unwrap();
    let batched = embedder.embed(&[long, short], &mut || {}).unwrap();
    assert!(dot(&alone[0], &batched[1]) > 0.9999, "padding changed the vector");
}

#[test]
fn text_longer_than_the_window_is_truncated_not_rejected() {
    let Some((mut embedder, _)) = load() else {
        return;
    };
    let long = "El Diario Oficial de la Federación publica decretos. ".repeat(300);
    let mut batches = 0;
    let vectors = embedder.embed(&[&long, "hola"], &mut || batches += 1).unwrap();
    assert_eq!(vectors.len(), 2);
    assert!(batches >= 1);
    assert!((dot(&vectors[0], &vectors[0]) - 1.0).abs() < 1e-4);
}

fn reference() -> serde_json::Value {
    let path = common::repository_file("tests/fixtures/e5_reference.json");
    serde_json::from_str(&std::fs::read_to_string(path).expect("golden file")).expect("json")
}

fn vector(value: &serde_json::Value) -> Vec<f32> {
    value.as_array().expect("array").iter().map(|v| v.as_f64().expect("number") as f32).collect()
}

#[test]
fn embeddings_match_the_python_onnx_runtime_reference() {
    let Some((mut embedder, _)) = load() else {
        return;
    };
    let golden = reference();
    for case in golden["independent"].as_array().unwrap() {
        let text = case["text"].as_str().unwrap();
        let ours = embedder.embed(&[text], &mut || {}).unwrap().remove(0);
        let cosine = dot(&ours, &vector(&case["vector"]));
        assert!(cosine > 1.0 - 1e-4, "{text:?}: cosine {cosine} with the reference");
    }
}

#[test]
fn late_chunking_matches_the_python_reference_pooling() {
    let Some((mut embedder, _)) = load() else {
        return;
    };
    let late = &reference()["late"];
    let chunks: Vec<&str> = late["chunks"].as_array().unwrap().iter().map(|c| c.as_str().unwrap()).collect();
    let ours = embedder.embed_late(&chunks, &[], late["prefix"].as_str().unwrap(), &mut || {}).unwrap();
    for (i, expected) in late["vectors"].as_array().unwrap().iter().enumerate() {
        let cosine = dot(&ours[i], &vector(expected));
        assert!(cosine > 1.0 - 1e-4, "chunk {i}: cosine {cosine} with the reference");
    }
    // context matters: a late vector differs from the chunk embedded alone
    let alone = embedder.embed(&[&format!("passage: {}", chunks[2])], &mut || {}).unwrap().remove(0);
    assert!(dot(&ours[2], &alone) < 0.999);
}

#[test]
fn late_chunking_over_many_windows_keeps_every_chunk() {
    let Some((mut embedder, _)) = load() else {
        return;
    };
    let chunks: Vec<String> = (0..60)
        .map(|i| format!("Artículo {i}. Se reforma la fracción {i} de la Ley Federal de Derechos para el ejercicio fiscal."))
        .chain(std::iter::once("palabra ".repeat(900))) // one chunk longer than a window
        .collect();
    let refs: Vec<&str> = chunks.iter().map(String::as_str).collect();
    let front: Vec<&str> = vec!["# Decreto de reformas"; refs.len()];
    let mut batches = 0;
    let vectors = embedder.embed_late(&refs, &front, "passage: ", &mut || batches += 1).unwrap();
    assert_eq!(vectors.len(), chunks.len());
    for v in &vectors {
        assert!((dot(v, v) - 1.0).abs() < 1e-4, "not a unit vector");
    }
    assert!(batches >= 1);
}
