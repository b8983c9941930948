-- Embedding functions returning pgvector's `vector`. SQL-standard bodies are parsed here,
-- during CREATE EXTENSION, when pgvector's schema is on the search_path: the casts bind to
-- the `vector` type by OID, wherever pgvector lives, and dof_models is bound by OID too.

CREATE FUNCTION dof_embed_query(query text, model text DEFAULT NULL) RETURNS vector
    LANGUAGE sql STABLE PARALLEL SAFE
    RETURN (SELECT dof_embed_query_internal(query, m)::vector FROM dof_model(model) m);

CREATE FUNCTION dof_embed(texts text[], model text DEFAULT NULL, as_query boolean DEFAULT false)
    RETURNS TABLE (ordinality integer, embedding vector)
    LANGUAGE sql STABLE PARALLEL SAFE
BEGIN ATOMIC
    SELECT e.ordinality, e.embedding::vector
    FROM dof_model(model) m,
         dof_embed_internal(texts, m, as_query) e;
END;

CREATE FUNCTION dof_embed_late(chunks text[], front_matter text[] DEFAULT NULL, model text DEFAULT NULL)
    RETURNS TABLE (ordinality integer, embedding vector)
    LANGUAGE sql STABLE PARALLEL SAFE
BEGIN ATOMIC
    SELECT e.ordinality, e.embedding::vector
    FROM dof_model(model) m,
         dof_embed_late_internal(chunks, front_matter, m) e;
END;

-- Registers a model after loading it once: the files must exist and the output must be
-- per-token states of the declared (or discovered) dimension.
CREATE FUNCTION dof_register_model(name text, model_file text, tokenizer_file text,
                                   query_prefix text DEFAULT '', passage_prefix text DEFAULT '',
                                   max_positions integer DEFAULT 512, make_default boolean DEFAULT false)
    RETURNS dof_models
    LANGUAGE plpgsql VOLATILE SET search_path FROM CURRENT AS $$
DECLARE
    probed integer;
    registered dof_models;
BEGIN
    -- the permission check before any file is opened
    IF NOT has_table_privilege('dof_models', 'INSERT, UPDATE') THEN
        RAISE EXCEPTION 'permission denied to register models' USING ERRCODE = 'insufficient_privilege',
            HINT = 'registering a model needs INSERT and UPDATE on dof_models';
    END IF;
    probed := dof_probe_model_internal(name, model_file, tokenizer_file, max_positions);
    IF probed > dof_hnsw_max_dimensions() THEN
        RAISE EXCEPTION 'model "%" has % dimensions, over the % that an HNSW index (on halfvec) supports', name, probed,
                        dof_hnsw_max_dimensions()
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = format('pick a model of at most %s dimensions', dof_hnsw_max_dimensions());
    END IF;
    IF make_default THEN
        UPDATE dof_models SET is_default = false WHERE is_default;
    END IF;
    INSERT INTO dof_models AS m (name, kind, model_file, tokenizer_file, dimension, max_positions,
                                 query_prefix, passage_prefix, revision, is_default)
    VALUES (name, 'onnx', model_file, tokenizer_file, probed, max_positions, query_prefix, passage_prefix,
            to_char(clock_timestamp(), 'YYYYMMDD"T"HH24MISS.US'), make_default)
    ON CONFLICT ON CONSTRAINT dof_models_pkey DO UPDATE
        SET model_file = excluded.model_file, tokenizer_file = excluded.tokenizer_file,
            dimension = excluded.dimension, max_positions = excluded.max_positions,
            query_prefix = excluded.query_prefix, passage_prefix = excluded.passage_prefix,
            revision = excluded.revision, is_default = excluded.is_default OR m.is_default
    RETURNING * INTO registered;
    RETURN registered;
END
$$;

COMMENT ON FUNCTION dof_embed_query(text, text) IS
    'Embeds a search query in the backend with the model''s query prefix (e5: "query: "), mean-pooled and L2-normalised';
COMMENT ON FUNCTION dof_embed(text[], text, boolean) IS
    'Embeds passages (or queries with as_query) in length-sorted batches; one row per input, in input order; texts over the model window are truncated to it';
COMMENT ON FUNCTION dof_embed_late(text[], text[], text) IS
    'Late chunking: the chunks of one document embedded in one model pass per window, each mean-pooled over its own tokens; front_matter[i] (H1 + H2) starts windows that start at chunk i';
COMMENT ON FUNCTION dof_register_model(text, text, text, text, text, integer, boolean) IS
    'Registers (or updates) an ONNX embedding model after loading it and probing its output dimension';
COMMENT ON FUNCTION dof_embed_query_internal(text, dof_models) IS 'Internal: use dof_embed_query';
COMMENT ON FUNCTION dof_embed_internal(text[], dof_models, boolean) IS 'Internal: use dof_embed';
COMMENT ON FUNCTION dof_embed_late_internal(text[], text[], dof_models) IS 'Internal: use dof_embed_late';
COMMENT ON FUNCTION dof_probe_model_internal(text, text, text, integer) IS 'Internal: used by dof_register_model';
COMMENT ON FUNCTION dof_version() IS 'Version of the pg_dof shared library';
COMMENT ON FUNCTION dof_model_cache() IS
    'What this backend keeps loaded (ONNX sessions and tokenizers, most recently used first; at most pg_dof.model_cache_size of each)';
COMMENT ON FUNCTION dof_embed_max_bytes() IS 'The longest text, in bytes, the embedding functions take (a search query included)';
