-- Embedding functions returning pgvector's `vector`. SQL-standard bodies are parsed
-- here, during CREATE EXTENSION, when pgvector's schema is on the search_path: the cast
-- is bound to the `vector` type by OID, wherever pgvector was installed.

CREATE FUNCTION dof_embed_query(query text, model text DEFAULT NULL) RETURNS vector
    LANGUAGE sql STABLE PARALLEL SAFE
    RETURN dof_embed_query_real(query, model)::vector;

COMMENT ON FUNCTION dof_embed_query(text, text) IS
    'Embeds a search query with the model''s query prefix (e5: "query: "), mean-pooled and L2-normalised; model NULL means pg_dof.default_model';
COMMENT ON FUNCTION dof_embed_query_real(text, text) IS
    'dof_embed_query as real[]; the vector-typed dof_embed_query is the one to use';
COMMENT ON FUNCTION dof_version() IS 'Version of the pg_dof shared library';
