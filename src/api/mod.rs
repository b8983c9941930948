//! The only place with `#[pg_extern]`: parse arguments, call the core, convert the
//! result, map errors to SQLSTATEs.

mod blank;
mod chunk;
mod classify;
mod contents;
mod document_order;
mod drop_guard;
mod embed;
mod errors;
mod front_matter;
mod fusion;
mod index_document;
mod paragraphs;
mod release_0_1_0;
mod release_0_2_0;
mod strategies;
mod term_stats;
mod text_search;
mod vector_search;
mod version;

pgrx::extension_sql_file!("../../sql/models.sql", name = "models");
pgrx::extension_sql_file!(
    "../../sql/embed.sql",
    name = "embed",
    requires = [
        "models",
        embed::dof_embed_query_model,
        embed::dof_embed_model,
        embed::dof_embed_late_model,
        embed::dof_embed_max_bytes,
        embed::dof_probe_model_internal,
        embed::dof_model_cache,
        version::dof_version,
        vector_search::dof_hnsw_max_dimensions
    ]
);
pgrx::extension_sql_file!(
    "../../sql/chunk.sql",
    name = "chunk",
    requires = [
        "models",
        classify::dof_classify,
        classify::dof_classify_features,
        chunk::dof_chunk_strategy_internal,
        paragraphs::dof_chunk_paragraphs_internal,
        strategies::dof_chunk_strategies,
        strategies::dof_check_chunker
    ]
);
pgrx::extension_sql_file!(
    "../../sql/tables.sql",
    name = "tables",
    requires = ["models", strategies::dof_check_chunker, vector_search::dof_hnsw_max_dimensions]
);
pgrx::extension_sql_file!(
    "../../sql/index_document.sql",
    name = "index_document",
    requires = ["tables", "chunk", "embed", chunk::dof_chunker_version, index_document::dof_chunk_passages_internal]
);
pgrx::extension_sql_file!("../../sql/restore.sql", name = "restore", requires = ["tables"]);
pgrx::extension_sql_file!(
    "../../sql/document_triggers.sql",
    name = "document_triggers",
    requires = ["index_document", "restore", front_matter::dof_front_matter, blank::dof_blank_body]
);
pgrx::extension_sql_file!("../../sql/term_stats.sql", name = "term_stats", requires = ["tables", term_stats::dof_stats_fold_every]);
pgrx::extension_sql_file!("../../sql/queue.sql", name = "queue", requires = ["index_document", queue_workers::dof_queue_wake_internal]);
pgrx::extension_sql_file!(
    "../../sql/contents.sql",
    name = "contents",
    requires = [
        contents::dof_contents_path,
        contents::dof_listing,
        contents::dof_paged_listing,
        contents::dof_outline,
        contents::dof_contents,
        contents::dof_contents_margin
    ]
);
pgrx::extension_sql_file!(
    "../../sql/vector_search.sql",
    name = "vector_search",
    requires = ["index_document", "contents", vector_search::dof_nearest_passages_internal]
);
pgrx::extension_sql_file!(
    "../../sql/text_search.sql",
    name = "text_search",
    requires = [
        "index_document",
        "term_stats",
        "contents",
        text_search::dof_bm25_score_internal,
        text_search::dof_text_score_internal,
        text_search::dof_bm25_pair_weight,
        text_search::dof_bm25_window,
        text_search::dof_bm25_idfs,
        text_search::dof_bm25_selective_idf,
        text_search::dof_bm25_parameters
    ]
);
pgrx::extension_sql_file!(
    "../../sql/fusion.sql",
    name = "fusion",
    requires = ["vector_search", "text_search", fusion::dof_fusion_vector_min_spread]
);
pgrx::extension_sql_file!(
    "../../sql/document_order.sql",
    name = "document_order",
    requires = ["text_search", "fusion", document_order::dof_lexemes_held_step, document_order::dof_document_idfs]
);
pgrx::extension_sql_file!("../../sql/shard.sql", name = "shard", requires = ["fusion", "document_order"]);
pgrx::extension_sql_file!("../../sql/evaluate.sql", name = "evaluate", requires = ["fusion"]);
pgrx::extension_sql_file!(
    "../../sql/reports.sql",
    name = "reports",
    requires = [
        "queue",
        "document_triggers",
        sentence_cache::dof_sentence_cache,
        sentence_cache::dof_sentence_cache_clear,
        query_cache::dof_query_cache,
        query_cache::dof_query_cache_clear
    ]
);
pgrx::extension_sql_file!("../../sql/drop_guard.sql", name = "drop_guard", requires = ["tables"]);
