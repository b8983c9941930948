-- Search, vector leg: the k nearest chunks by cosine distance (HNSW). Runs as its caller,
-- so row-level security on dof_chunks applies.

-- Vector leg: chunk ids by cosine distance, among the chunks whose embedding has the query
-- vector's dimension. A walk that a filter starves goes on with hnsw.iterative_scan, so
-- filtering does not shorten the result. ef_search 400 was chosen by recall against exact
-- search (bench/scripts/store_search.sh and vector_grid.sh; the README's "Measured"
-- section has the figures). To trade recall for speed:
-- ALTER FUNCTION dof_vector_search(text, integer, text, jsonb, vector) SET hnsw.ef_search = 200.
CREATE FUNCTION dof_vector_search(query text, k integer DEFAULT 10, collection text DEFAULT NULL,
                                  filter jsonb DEFAULT NULL, query_embedding vector DEFAULT NULL)
    RETURNS TABLE (chunk_id bigint, distance double precision, rank integer)
    LANGUAGE plpgsql STABLE SET search_path FROM CURRENT SET hnsw.iterative_scan = 'off'
    SET hnsw.ef_search = 400 AS $$
DECLARE
    settings dof_collections := dof_collection(collection);
    query_vector vector := coalesce(query_embedding, dof_embed_query(query, settings.model));
    wanted bigint := k::bigint + least(k, 10);
    nearest text;
    ids bigint[];
    distances double precision[];
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
    -- NULL tests on collection and filter fold away). Ties by id, also at the k-th place:
    -- the index gives up to 10 more than k in its own order (near-duplicate chunks, e.g.
    -- one edition from several converters, have equal distances), and the k first by
    -- (distance, id) are kept, so the answer does not depend on which copy the graph
    -- walk met first (by ids, recall@10 against exact search rose from 0.935 to 0.959 at
    -- 120,689 chunks: bench/scripts/vector_grid.sh).
    nearest := format(
        'SELECT array_agg(hits.id ORDER BY hits.distance, hits.id), array_agg(hits.distance ORDER BY hits.distance, hits.id)
         FROM (SELECT c.id, (c.embedding::vector(%1$s) <=> $1)::double precision AS distance
               FROM dof_chunks c
               WHERE vector_dims(c.embedding) = %1$s
                 AND ($2 IS NULL OR c.collection = $2)
                 AND ($3 IS NULL OR c.metadata @> $3)
               ORDER BY c.embedding::vector(%1$s) <=> $1
               LIMIT $4) hits', vector_dims(query_vector));
    -- One graph walk of ef_search candidates first. Only when it yields fewer than k rows
    -- (a collection or filter that most of the index fails, or k over ef_search) does the
    -- walk go on with pgvector's iterative scan: having it on always cost 1 ms of 6 at
    -- 120,689 chunks (bench/scripts/vector_grid.sh). A short tie margin alone is no reason
    -- to go on: a collection smaller than k + 10 would walk the whole index every time.
    EXECUTE nearest INTO ids, distances USING query_vector, dof_vector_search.collection, filter, wanted;
    IF coalesce(cardinality(ids), 0) < k THEN
        PERFORM set_config('hnsw.iterative_scan', 'relaxed_order', true);  -- until this function returns
        EXECUTE nearest INTO ids, distances USING query_vector, dof_vector_search.collection, filter, wanted;
    END IF;
    RETURN QUERY SELECT u.id, u.distance, u.rank::integer
                 FROM unnest(ids, distances) WITH ORDINALITY AS u(id, distance, rank)
                 WHERE u.rank <= k ORDER BY u.rank;
END
$$;

COMMENT ON FUNCTION dof_vector_search(text, integer, text, jsonb, vector) IS 'Vector leg alone: the k nearest chunks by cosine distance (HNSW with iterative scan, so filters still return k rows); query_embedding skips embedding the query';
