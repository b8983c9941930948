//! Embedding from SQL. The `vector`-typed wrappers are in sql/embed.sql: they are SQL
//! functions over these `real[]` ones, so the `vector` type is bound by OID when the
//! extension is created, whatever schema pgvector lives in.

use dof_core::embed::Embedder;
use pgrx::prelude::*;

use super::errors::raise_embed_error;
use crate::backend_models;

/// The query's embedding (with the model's query prefix), L2-normalised.
#[pg_extern(stable, parallel_safe)]
fn dof_embed_query_real(query: &str, model: default!(Option<&str>, "NULL")) -> Vec<f32> {
    let embedded = backend_models::resolve(model).and_then(|spec| {
        let text = format!("{}{query}", spec.query_prefix);
        backend_models::with_embedder(&spec, |embedder| {
            embedder.embed(&[text.as_str()], &mut || {
                pgrx::check_for_interrupts!();
            })
        })
    });
    match embedded {
        Ok(mut vectors) => vectors.pop().unwrap_or_default(),
        Err(error) => raise_embed_error(error),
    }
}

#[cfg(any(test, feature = "pg_test"))]
#[pg_schema]
mod tests {
    use pgrx::prelude::*;

    fn cosine(a: &str, b: &str) -> f64 {
        Spi::get_one_with_args::<f64>(
            "SELECT 1 - (dof_embed_query($1) <=> dof_embed_query($2))",
            &[a.into(), b.into()],
        )
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

    #[pg_test(error = "model file \"/nonexistent/multilingual-e5-small/model.onnx\" does not exist")]
    fn a_missing_model_file_is_an_error() {
        Spi::run("SET pg_dof.model_dir = '/nonexistent'").unwrap();
        Spi::run("SELECT dof_embed_query('hola')").unwrap();
    }
}
