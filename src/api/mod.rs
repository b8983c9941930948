//! The only place with `#[pg_extern]`: parse arguments, call the core, convert the
//! result, map errors to SQLSTATEs.

mod chunk;
mod embed;
mod errors;
mod search;
mod version;

pgrx::extension_sql_file!("../../sql/models.sql", name = "models");
pgrx::extension_sql_file!(
    "../../sql/embed.sql",
    name = "embed",
    requires = [
        "models",
        embed::dof_embed_query_internal,
        embed::dof_embed_internal,
        embed::dof_embed_late_internal,
        embed::dof_probe_model_internal,
        version::dof_version
    ]
);
pgrx::extension_sql_file!(
    "../../sql/chunk.sql",
    name = "chunk",
    requires = ["models", chunk::dof_classify, chunk::dof_classify_features, chunk::dof_chunk_internal]
);
pgrx::extension_sql_file!("../../sql/store.sql", name = "store", requires = ["models", "chunk", "embed", chunk::dof_chunker_version]);
pgrx::extension_sql_file!(
    "../../sql/search.sql",
    name = "search",
    requires = ["store", search::dof_bm25_internal, search::dof_lexeme_fractions_internal]
);
pgrx::extension_sql_file!("../../sql/reports.sql", name = "reports", requires = ["store"]);
