//! The semantic strategy with the real multilingual-e5-small model: the seed's worked
//! example (seed 002) — a FastAPI paragraph pair and a Python paragraph pair — is cut
//! between the two topics with the default settings.

mod common;

use std::cell::RefCell;

use dof_core::chunk::{chunk_document_using, invariants, ChunkOptions};
use dof_core::embed::{EmbedError, Embedder, ModelSpec, OnnxEmbedder, OnnxOptions};
use dof_core::tokenize::ModelTokenizer;

const SEED_EXAMPLE: &str = "FastAPI es un framework web moderno para Python. Fue creado en 2018 por Sebastián Ramírez.
Se basa en Pydantic para validación y Starlette para el ASGI underlying.

Las características principales de FastAPI incluyen rendimiento comparable a Node.js,
validación automática de tipos con type hints, documentación interactiva con Swagger UI,
y soporte nativo para async/await.

Python es un lenguaje de programación de alto nivel. Fue creado por Guido van Rossum
en 1991. Es conocido por su sintaxis legible y su filosofía 'batteries included'.

La popularidad de Python creció enormemente en los 2010s gracias a su uso en data
science y machine learning.
";

#[test]
fn the_seed_example_is_cut_between_its_two_topics() {
    let spec = ModelSpec::e5_in_dir(&common::model_dir(), "multilingual-e5-small").unwrap();
    let runtime = common::runtime_library();
    if !common::require(&[runtime.clone(), spec.model_file.clone(), spec.tokenizer_file.clone()]) {
        return;
    }
    let tokenizer = std::sync::Arc::new(ModelTokenizer::from_file(&spec.tokenizer_file).expect("tokenizer loads"));
    let options = OnnxOptions { intra_threads: 2, max_positions: spec.max_positions, ..OnnxOptions::default() };
    let model = RefCell::new(OnnxEmbedder::load(&runtime, &spec.model_file, tokenizer.clone(), options).expect("model loads"));
    let embed = |texts: &[&str]| -> Result<Vec<Vec<f32>>, EmbedError> {
        let prefixed: Vec<String> = texts.iter().map(|t| format!("{}{t}", spec.passage_prefix)).collect();
        let refs: Vec<&str> = prefixed.iter().map(String::as_str).collect();
        model.borrow_mut().embed(&refs, &mut || {})
    };
    let options = ChunkOptions { strategy: "semantic".into(), ..ChunkOptions::default() };
    let chunks = chunk_document_using(SEED_EXAMPLE, tokenizer.as_ref(), &options, &|| {}, Some(&embed)).expect("chunks");
    invariants::check(SEED_EXAMPLE, &chunks, options.max_tokens, tokenizer.as_ref()).unwrap();
    let contents: Vec<&str> = chunks.iter().map(|c| c.content.as_str()).collect();
    eprintln!("{contents:#?}");
    assert!(
        contents.iter().any(|c| c.starts_with("Python es un lenguaje")),
        "a chunk starts where the text turns from FastAPI to Python: {contents:#?}"
    );
    assert!(contents.iter().all(|c| !(c.contains("FastAPI") && c.contains("Guido"))), "no chunk mixes the topics: {contents:#?}");
}
