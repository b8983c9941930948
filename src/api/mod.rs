//! The only place with `#[pg_extern]`: parse arguments, call the core, convert the
//! result, map errors to SQLSTATEs.

mod chunk;
mod drop_guard;
mod embed;
mod errors;
mod front_matter;
mod ingest;
mod nearest;
mod search;
mod sentence_cache;
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
        embed::dof_model_cache,
        version::dof_version
    ]
);
pgrx::extension_sql_file!(
    "../../sql/chunk.sql",
    name = "chunk",
    requires = [
        "models",
        chunk::dof_classify,
        chunk::dof_classify_features,
        chunk::dof_chunk_strategy_internal,
        chunk::dof_chunk_paragraphs_internal,
        chunk::dof_chunk_strategies,
        chunk::dof_check_chunker
    ]
);
pgrx::extension_sql_file!("../../sql/tables.sql", name = "tables", requires = ["models", chunk::dof_check_chunker]);
pgrx::extension_sql_file!(
    "../../sql/ingest.sql",
    name = "ingest",
    requires = [
        "tables",
        "chunk",
        "embed",
        chunk::dof_chunker_version,
        front_matter::dof_front_matter,
        ingest::dof_chunk_embed_internal,
        queue_workers::dof_queue_wake_internal
    ]
);
pgrx::extension_sql_file!("../../sql/vector_leg.sql", name = "vector_leg", requires = ["ingest", nearest::dof_nearest_internal]);
pgrx::extension_sql_file!("../../sql/text_leg.sql", name = "text_leg", requires = ["ingest", search::dof_bm25_score_internal]);
pgrx::extension_sql_file!("../../sql/fusion.sql", name = "fusion", requires = ["vector_leg", "text_leg"]);
pgrx::extension_sql_file!("../../sql/shard.sql", name = "shard", requires = ["fusion"]);
pgrx::extension_sql_file!("../../sql/evaluate.sql", name = "evaluate", requires = ["fusion"]);
pgrx::extension_sql_file!(
    "../../sql/reports.sql",
    name = "reports",
    requires = ["ingest", sentence_cache::dof_sentence_cache, sentence_cache::dof_sentence_cache_clear]
);
pgrx::extension_sql_file!("../../sql/guard.sql", name = "guard", requires = ["tables"]);
