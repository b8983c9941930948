-- Search, vector leg: the k nearest chunks by their nearest passage's cosine distance
-- (HNSW on dof_passages). Runs as its caller, so row-level security on dof_chunks applies.

-- The collections the vector leg walks, as dof_nearest_passages_internal takes them (NULL:
-- every collection). A query vector lies in one model's space. With no collection named,
-- the query is embedded by the default collection's model, and another model's vectors of
-- the same dimension are points of another space: compared with that one vector, hash-384
-- chunks beside e5's 384 came 2nd to 5th at a cosine distance of 1.001, noise. So when
-- models share the query's dimension, each collection of that dimension is walked with
-- the query embedded by its own model, as a search that names it, and the walks are merged
-- by (distance, id) (e5 and its int8 variant are comparable: their vectors of one text are
-- within a small angle). Only collections that hold chunks count: an empty one's model is
-- not run (a collection whose model files are missing holds none). With one model per
-- dimension (the usual case) it is one walk of every collection, as before.
CREATE FUNCTION dof_vector_search_collections(collection text, model text, dimension integer) RETURNS text[]
    LANGUAGE sql STABLE PARALLEL SAFE
    RETURN (WITH held AS (SELECT o.name, o.model FROM dof_collections o JOIN dof_models m ON m.name = o.model
                          WHERE m.dimension = dof_vector_search_collections.dimension
                            AND EXISTS (SELECT FROM dof_chunks c WHERE c.collection = o.name))
            SELECT CASE
                WHEN collection IS NOT NULL THEN ARRAY[collection]
                WHEN NOT EXISTS (SELECT FROM held WHERE held.model IS DISTINCT FROM dof_vector_search_collections.model) THEN ARRAY[NULL::text]
                ELSE ARRAY(SELECT held.name FROM held ORDER BY held.name)
            END);
COMMENT ON FUNCTION dof_vector_search_collections(text, text, integer) IS 'Internal: the collections dof_vector_search walks (NULL: all): the one named; with none named, every collection, unless a collection holding chunks of the query''s dimension has another model than the query''s: then each collection of that dimension holding chunks, by name, which dof_vector_search walks with the query embedded by that collection''s own model';

-- Vector leg: chunk ids by their best passage's cosine distance, among the chunks whose
-- passages' vectors have the query vector's dimension. A walk that a filter starves goes
-- on with hnsw.iterative_scan, so filtering does not shorten the result. ef_search 400
-- was chosen by recall against exact search (bench/scripts/store_search.sh and
-- vector_grid.sh; docs/measurements.md has the figures). To trade recall for speed:
-- ALTER FUNCTION dof_vector_search(text, integer, text, jsonb, vector) SET hnsw.ef_search = 200.
CREATE FUNCTION dof_vector_search(query text, k integer DEFAULT 10, collection text DEFAULT NULL,
                                  filter jsonb DEFAULT NULL, query_embedding vector DEFAULT NULL)
    RETURNS TABLE (chunk_id bigint, distance double precision, rank integer)
    LANGUAGE plpgsql STABLE SET search_path FROM CURRENT SET hnsw.iterative_scan = 'off'
    SET hnsw.ef_search = 400 AS $$
DECLARE
    settings dof_collections := dof_collection(collection);
    query_vector vector;
    model_dimension integer;
    wanted bigint := greatest(k::bigint + least(k, 10), 100);
    ids bigint[];
    distances double precision[];
    searched text[];
    walk_vectors vector[];
BEGIN
    IF query_embedding IS NULL THEN
        PERFORM dof_check_query(query);
    END IF;
    query_vector := coalesce(query_embedding, dof_embed_query(query, settings.model));
    IF query_vector IS NULL THEN
        RAISE EXCEPTION 'query must not be NULL' USING ERRCODE = 'null_value_not_allowed',
            HINT = 'pass the query text, or its vector as query_embedding';
    END IF;
    IF k IS NULL OR k < 1 THEN
        RAISE EXCEPTION 'k must be at least 1, got %', coalesce(k::text, 'NULL') USING ERRCODE = 'invalid_parameter_value';
    END IF;
    PERFORM dof_check_filter(filter);
    -- a vector of another dimension than the collection's model's matches no chunk: the
    -- search returned nothing (and a hybrid search its text leg alone), as if nothing were near
    model_dimension := (dof_model(settings.model)).dimension;
    IF vector_dims(query_vector) <> model_dimension THEN
        RAISE EXCEPTION 'query_embedding has % dimensions; collection "%" is embedded by model "%", of % dimensions', vector_dims(query_vector),
                        settings.name, settings.model, model_dimension
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = format('embed the query with the collection''s model: dof_embed_query(query, %L)', settings.model);
    END IF;
    -- cosine distance to the zero vector is NaN: every row would tie, in no order
    -- (pgvector itself refuses NaN and infinite elements)
    IF vector_norm(query_vector) = 0 THEN
        RAISE EXCEPTION 'query_embedding has no direction (its norm is 0)'
            USING ERRCODE = 'invalid_parameter_value', HINT = 'pass a non-zero vector, e.g. dof_embed_query(query)';
    END IF;
    -- The index query is dof_nearest_passages_internal's (src/api/vector_search.rs): the HNSW index of
    -- a dimension is a partial expression index (dof_vector_index), so the query names the
    -- dimension as a literal, and its plan is kept per dimension. Ties by id, also at the
    -- k-th place: the index gives 10 more than k in its own order (near-duplicate
    -- chunks, e.g. one edition from several converters, have equal distances), and the k
    -- first by (distance, id) are kept, so the answer does not depend on which copy the
    -- graph walk met first (by ids, recall@10 against exact search rose from 0.935 to 0.959
    -- at 120,689 chunks: bench/scripts/vector_grid.sh). And at least 100: the index's own
    -- order is by its halfvec copies, in which near-duplicates differ by rounding, and the
    -- k first by float distance are taken from the first 100 it gives (ef_search 400, 100
    -- queries drawn from a fresh load: recall@10 by ids 0.929 from 20, 0.952 from 60,
    -- 0.963 from 100, 0.971 from 200; each candidate's float vector is read from TOAST,
    -- 100 instead of 20 cost 0.2-1.3 ms over runs: bench/scripts/index_kinds.sh).
    -- One graph walk of ef_search candidates first. Only when it yields fewer than k rows
    -- (a collection or filter that most of the index fails, or k over ef_search) does the
    -- walk go on with pgvector's iterative scan: having it on always cost 1 ms of 6 at
    -- 120,689 chunks (bench/scripts/vector_grid.sh). A short tie margin alone is no reason
    -- to go on: a collection smaller than k + 10 would walk the whole index every time.
    -- A named collection (or NULL: every collection, the usual case) is one walk. When models
    -- share the dimension, each collection holding chunks is walked with the query embedded
    -- by its own model (once per model), also when it is the only one, and the walks are
    -- merged by (distance, id) (dof_vector_search_collections). Merging every search instead
    -- cost 0.1-0.25 ms of 8 (mixed-long, 120 questions, five runs). A caller's
    -- query_embedding is the query by the default collection's model, whose vector compared
    -- with another model's is noise: another model embeds the query's text, which a
    -- coordinator's shards and dof_evaluate pass with it; without a text it stands for every
    -- model.
    searched := dof_vector_search_collections(collection, settings.model, model_dimension);
    -- each walked collection's query vector, in searched's order: embedded once per model
    -- (MATERIALIZED: inlined, the embedding would run once per collection)
    IF collection IS NULL AND searched[1] IS NOT NULL THEN
        WITH walked AS (SELECT s.name, s.n, c.model FROM unnest(searched) WITH ORDINALITY AS s(name, n)
                        JOIN dof_collections c ON c.name = s.name),
             embedded AS MATERIALIZED (
                 SELECT m.model, CASE WHEN m.model = settings.model OR coalesce(btrim(query), '') = ''
                                      THEN query_vector ELSE dof_embed_query(query, m.model) END AS vector
                 FROM (SELECT DISTINCT w.model FROM walked w) m)
        SELECT array_agg(e.vector ORDER BY w.n) INTO walk_vectors FROM walked w JOIN embedded e ON e.model = w.model;
    END IF;
    FOR walk IN 1..2 LOOP
        IF walk_vectors IS NULL THEN
            SELECT n.ids, n.distances INTO ids, distances
            FROM dof_nearest_passages_internal(query_vector, vector_dims(query_vector), searched[1], filter::text, wanted) n;
        ELSE
            SELECT array_agg(u.id ORDER BY u.distance, u.id), array_agg(u.distance ORDER BY u.distance, u.id) INTO ids, distances
            FROM (SELECT u.id, u.distance
                  FROM unnest(searched, walk_vectors) s(name, vector)
                       CROSS JOIN LATERAL dof_nearest_passages_internal(s.vector, vector_dims(query_vector), s.name, filter::text, wanted) n
                       CROSS JOIN LATERAL unnest(n.ids, n.distances) u(id, distance)
                  ORDER BY u.distance, u.id LIMIT wanted) u;
        END IF;
        EXIT WHEN coalesce(cardinality(ids), 0) >= k OR walk = 2;
        PERFORM set_config('hnsw.iterative_scan', 'relaxed_order', true);  -- until this function returns
    END LOOP;
    RETURN QUERY SELECT u.id, u.distance, u.rank::integer
                 FROM unnest(ids, distances) WITH ORDINALITY AS u(id, distance, rank)
                 WHERE u.rank <= k ORDER BY u.rank;
END
$$;

COMMENT ON FUNCTION dof_vector_search(text, integer, text, jsonb, vector) IS 'Vector leg alone: the k nearest chunks, each by its nearest passage''s cosine distance (dof_passages; HNSW with iterative scan, so filters still return k rows); query_embedding skips embedding the query; with collection NULL, every collection of the query''s dimension, each with the query embedded by its own model when models share the dimension';
COMMENT ON FUNCTION dof_nearest_passages_internal(anyelement, integer, text, text, bigint) IS 'Internal: the vector leg''s HNSW query for one dimension (ids and distances of the nearest chunks by their best passage, ties by id), planned once per dimension and backend; used by dof_vector_search';
