-- Search, vector leg: the k nearest chunks by cosine distance (HNSW). Runs as its caller,
-- so row-level security on dof_chunks applies.

-- Vector leg: chunk ids by cosine distance, among the chunks whose embedding has the query
-- vector's dimension. hnsw.iterative_scan lets a filtered scan keep going until it has k
-- rows, so filtering does not starve the result. ef_search 400 was chosen by recall
-- against exact search (bench/scripts/store_search.sh; the README's "Search" section has
-- the figures). To trade recall for speed:
-- ALTER FUNCTION dof_vector_search(text, integer, text, jsonb, vector) SET hnsw.ef_search = 200.
CREATE FUNCTION dof_vector_search(query text, k integer DEFAULT 10, collection text DEFAULT NULL,
                                  filter jsonb DEFAULT NULL, query_embedding vector DEFAULT NULL)
    RETURNS TABLE (chunk_id bigint, distance double precision, rank integer)
    LANGUAGE plpgsql STABLE SET search_path FROM CURRENT SET hnsw.iterative_scan = 'relaxed_order'
    SET hnsw.ef_search = 400 AS $$
DECLARE
    settings dof_collections := dof_collection(collection);
    query_vector vector := coalesce(query_embedding, dof_embed_query(query, settings.model));
BEGIN
    IF query_vector IS NULL THEN
        RAISE EXCEPTION 'query must not be NULL' USING ERRCODE = 'null_value_not_allowed',
            HINT = 'pass the query text, or its vector as query_embedding';
    END IF;
    IF k IS NULL OR k < 1 THEN
        RAISE EXCEPTION 'k must be at least 1, got %', coalesce(k::text, 'NULL') USING ERRCODE = 'invalid_parameter_value';
    END IF;
    -- cosine distance to the zero vector is NaN: every row would tie, in no order
    -- (pgvector itself refuses NaN and infinite elements)
    IF vector_norm(query_vector) = 0 THEN
        RAISE EXCEPTION 'query_embedding has no direction (its norm is 0)'
            USING ERRCODE = 'invalid_parameter_value', HINT = 'pass a non-zero vector, e.g. dof_embed_query(query)';
    END IF;
    -- The HNSW index of this dimension is a partial expression index (dof_vector_index):
    -- the query must name the same expression and predicate, with the dimension written
    -- out, so it is built per call (EXECUTE plans it with the parameters' values, so the
    -- NULL tests on collection and filter fold away).
    RETURN QUERY EXECUTE format(
        'SELECT hits.id, hits.distance, (row_number() OVER (ORDER BY hits.distance, hits.id))::integer
         FROM (SELECT c.id, (c.embedding::vector(%1$s) <=> $1)::double precision AS distance
               FROM dof_chunks c
               WHERE vector_dims(c.embedding) = %1$s
                 AND ($2 IS NULL OR c.collection = $2)
                 AND ($3 IS NULL OR c.metadata @> $3)
               ORDER BY c.embedding::vector(%1$s) <=> $1
               LIMIT $4) hits
         ORDER BY hits.distance, hits.id', vector_dims(query_vector))
        USING query_vector, dof_vector_search.collection, filter, k;
END
$$;

COMMENT ON FUNCTION dof_vector_search(text, integer, text, jsonb, vector) IS 'Vector leg alone: the k nearest chunks by cosine distance (HNSW with iterative scan, so filters still return k rows); query_embedding skips embedding the query';
