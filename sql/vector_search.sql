-- Search, vector leg: the k nearest chunks by their nearest passage's cosine distance
-- (HNSW on dof_passages). Runs as its caller, so row-level security on dof_chunks applies.

-- The models a collection's chunks were embedded by, by registry name (dof_chunk_model_name):
-- one, except while the collection is re-indexed after a change of its model (dof_requeue),
-- when its chunks not yet re-indexed still hold the old model's vectors. A skip scan of
-- dof_chunks_collection_model_idx: one index probe per model and revision, and one more.
CREATE FUNCTION dof_collection_chunk_models(collection text) RETURNS SETOF text
    LANGUAGE sql STABLE PARALLEL SAFE
BEGIN ATOMIC
    WITH RECURSIVE held(model) AS (
        SELECT min(c.model) FROM dof_chunks c WHERE c.collection = dof_collection_chunk_models.collection
        UNION ALL
        SELECT (SELECT min(c.model) FROM dof_chunks c
                WHERE c.collection = dof_collection_chunk_models.collection AND c.model > held.model)
        FROM held WHERE held.model IS NOT NULL)
    SELECT DISTINCT dof_chunk_model_name(held.model) FROM held WHERE held.model IS NOT NULL;
END;
COMMENT ON FUNCTION dof_collection_chunk_models(text) IS 'The models (dof_models.name) whose vectors a collection''s chunks hold: its model, and while it is re-indexed after a change of model, the one before';

-- The walks of the vector leg, as dof_nearest_passages_internal takes them: (collection,
-- model), NULL for any. A query vector lies in one model's space, and another model's
-- vectors of the same dimension are points of another space: compared with that one
-- vector, hash-384 chunks beside e5's 384 came 2nd to 5th at a cosine distance of 1.001,
-- noise; a model of another dimension's vectors are not compared at all. That happens with
-- no collection named, when collections have different models (the query is embedded by
-- the default collection's model), and in a collection whose model was changed, until
-- dof_requeue has re-indexed it (its chunks not yet re-indexed hold the old model's
-- vectors: with hash-384 set on an e5 collection, the right chunk fell to the end; with a
-- model of another dimension, they were not found at all). So when the chunks searched
-- hold a model other than the query's, each (collection, model) is walked with the query
-- embedded by that model, as a search of a collection of that model, and the walks are
-- merged by (distance, id) (e5 and its int8 variant are comparable: their vectors of one
-- text are within a small angle). DIMENSION names the only dimension to walk, for a query
-- given only as a vector (one model's, compared with its dimension's chunks); NULL walks
-- every dimension, for a query given as text, which each model embeds. A model is read
-- from the chunks held: an empty collection's model is not run (a collection whose model
-- files are missing holds none), and chunks of a model no longer registered are left out
-- of such walks. Two index probes a collection, its first model and whether it holds
-- another (only then are its models listed, dof_collection_chunk_models; listing every
-- collection's models cost 1.0 ms a search over 100 collections). Its plan is generic: as
-- a SQL function inlined into dof_vector_search's statement, or with custom plans, a table
-- not yet analyzed made PostgreSQL plan it again on every search (0.43 ms a search naming
-- a collection). It takes 0.033 ms a search over 3 collections, 0.027 ms naming one and
-- 0.26 ms over 100, against 0.010, 0.005 and 0.095 ms for one probe a collection, whether
-- it holds chunks, before models were read from them (bench/scripts/vector_walks.sh). With
-- one model in the chunks searched, the usual case, it is one walk of the collection named
-- (NULL: all), as before.
CREATE FUNCTION dof_vector_search_collections(collection text, model text, dimension integer)
    RETURNS TABLE (walk_collection text, walk_model text)
    LANGUAGE plpgsql STABLE PARALLEL SAFE SET search_path FROM CURRENT SET plan_cache_mode = force_generic_plan AS $$
DECLARE
    searched text[] := CASE WHEN collection IS NULL THEN ARRAY(SELECT o.name FROM dof_collections o) ELSE ARRAY[collection] END;
BEGIN
    RETURN QUERY
    WITH firsts AS MATERIALIZED (
             SELECT s.name, f.first_model,
                    (SELECT min(c.model) FROM dof_chunks c WHERE c.collection = s.name AND c.model > f.first_model) IS NOT NULL AS more
             FROM unnest(searched) s(name)
                  CROSS JOIN LATERAL (SELECT min(c.model) AS first_model FROM dof_chunks c WHERE c.collection = s.name) f),
         held AS (SELECT f.name, dof_chunk_model_name(f.first_model) AS model FROM firsts f
                  WHERE f.first_model IS NOT NULL AND NOT f.more
                  UNION ALL
                  SELECT f.name, h.model FROM firsts f CROSS JOIN LATERAL dof_collection_chunk_models(f.name) h(model)
                  WHERE f.more),
         walked AS (SELECT held.name, held.model FROM held JOIN dof_models m ON m.name = held.model
                    WHERE m.dimension = dof_vector_search_collections.dimension OR dof_vector_search_collections.dimension IS NULL),
         mixed AS (SELECT EXISTS (SELECT FROM walked WHERE walked.model IS DISTINCT FROM dof_vector_search_collections.model) AS models)
    SELECT dof_vector_search_collections.collection, NULL::text FROM mixed WHERE NOT mixed.models
    UNION ALL
    SELECT walked.name, walked.model FROM walked, mixed WHERE mixed.models;
END
$$;
COMMENT ON FUNCTION dof_vector_search_collections(text, text, integer) IS 'Internal: the walks of dof_vector_search, as (collection, model), NULL for any: one walk of the collection named (NULL: all), unless the chunks searched hold vectors of another model than the query''s (collections of several models, or one being re-indexed for a new model): then each (collection, model), which dof_vector_search walks with the query embedded by that model; of the dimension given, or of any when it is NULL';

-- Vector leg: chunk ids by their best passage's cosine distance, each chunk's against the
-- query embedded by the model that embedded it (a query given only as a vector: its
-- dimension's chunks). A walk that a filter starves goes
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
    -- a query given as text, which each model can embed (not only as query_embedding)
    text_given boolean := NOT coalesce(dof_blank_text(query), true);
    wanted bigint := greatest(k::bigint + least(k, 10), 100);
    ids bigint[];
    distances double precision[];
    searched text[];
    searched_models text[];
    walk_vectors vector[];
    other_models text[];
    other_vectors vector[] := '{}';
    other_model text;
    failed_state text;
    failed_message text;
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
    -- dimension as a literal, and its plan is kept per dimension and arguments given (the
    -- statement names only the conditions given: with "$2 IS NULL OR c.collection = $2",
    -- the plan kept after five searches could scan every passage, 60 ms a search instead
    -- of 6 at 3,186 chunks: bench/scripts/vector_plans.sh). Ties by id, also at the
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
    -- A named collection (or NULL: every collection, the usual case) is one walk. When the
    -- chunks searched hold vectors of another model (collections of several models, or one
    -- being re-indexed for a new model, of the same dimension or another), each
    -- (collection, model) is walked with the query embedded by that model (once per model),
    -- and the walks are merged by (distance, id) (dof_vector_search_collections). Merging
    -- every search instead cost 0.1-0.25 ms of 8 (mixed-long, 120 questions, five runs). A
    -- caller's query_embedding is the query by the collection's model (the default
    -- collection's when none is named), whose vector compared with another model's is
    -- noise: another model embeds the query's text, which a coordinator's shards and
    -- dof_evaluate pass with it; without a text it stands for every model of its dimension,
    -- and the chunks of other dimensions are not searched.
    SELECT array_agg(w.walk_collection ORDER BY w.walk_collection, w.walk_model),
           array_agg(w.walk_model ORDER BY w.walk_collection, w.walk_model)
    INTO searched, searched_models
    FROM dof_vector_search_collections(collection, settings.model,
                                       CASE WHEN NOT text_given THEN model_dimension END) w;
    -- each walk's query vector, in searched's order: embedded once per model. A model that
    -- cannot embed it (its files moved or deleted since its chunks were stored) fails the
    -- search with its own error, which named a file and no collection: a search that names
    -- none embeds the query with the model of every collection's chunks, so one collection
    -- whose model's file is gone failed every such search with no word of why. The error
    -- now says which collections need the model, and what a search that names another does
    IF searched_models[1] IS NOT NULL THEN
        other_models := ARRAY(SELECT DISTINCT w.model FROM unnest(searched_models) w(model)
                              WHERE text_given AND w.model <> settings.model ORDER BY w.model);
        FOREACH other_model IN ARRAY other_models LOOP
            BEGIN
                other_vectors := other_vectors || dof_embed_query(query, other_model);
            EXCEPTION WHEN OTHERS THEN
                GET STACKED DIAGNOSTICS failed_state = RETURNED_SQLSTATE, failed_message = MESSAGE_TEXT;
                RAISE EXCEPTION USING ERRCODE = failed_state, MESSAGE = failed_message,
                    DETAIL = (SELECT format('the chunks of %s %s were embedded by model "%s": a search compares them with the query embedded by that model',
                                            CASE WHEN count(*) > 1 THEN 'collections' ELSE 'collection' END,
                                            string_agg(format('"%s"', s.name), ', ' ORDER BY s.name), other_model)
                              FROM unnest(searched, searched_models) s(name, model) WHERE s.model = other_model),
                    HINT = format('restore the files dof_models names for "%s", or move those collections to a model that loads and re-index them (UPDATE dof_collections SET model = …; SELECT dof_requeue(collection)); a search that names another collection does not use it', other_model);
            END;
        END LOOP;
        walk_vectors := ARRAY(SELECT CASE WHEN w.model = settings.model OR NOT text_given THEN query_vector
                                          ELSE other_vectors[array_position(other_models, w.model)] END
                              FROM unnest(searched_models) WITH ORDINALITY w(model, n) ORDER BY w.n);
    END IF;
    FOR walk IN 1..2 LOOP
        IF walk_vectors IS NULL THEN
            SELECT n.ids, n.distances INTO ids, distances
            FROM dof_nearest_passages_internal(query_vector, vector_dims(query_vector), searched[1], filter::text, wanted, NULL) n;
        ELSE
            SELECT array_agg(u.id ORDER BY u.distance, u.id), array_agg(u.distance ORDER BY u.distance, u.id) INTO ids, distances
            FROM (SELECT u.id, u.distance
                  FROM unnest(searched, searched_models, walk_vectors) s(name, model, vector)
                       CROSS JOIN LATERAL dof_nearest_passages_internal(s.vector, vector_dims(s.vector), s.name, filter::text, wanted, s.model) n
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

COMMENT ON FUNCTION dof_vector_search(text, integer, text, jsonb, vector) IS 'Vector leg alone: the k nearest chunks, each by its nearest passage''s cosine distance (dof_passages; HNSW with iterative scan, so filters still return k rows); query_embedding skips embedding the query by the collection''s model; with collection NULL, every collection; chunks are compared with the query embedded by the model that embedded them (collections of several models, a collection re-indexed for a new model, of the same dimension or another); a query_embedding given without a text only with chunks of its dimension';
COMMENT ON FUNCTION dof_nearest_passages_internal(anyelement, integer, text, text, bigint, text) IS 'Internal: the vector leg''s HNSW query for one dimension (ids and distances of the nearest chunks by their best passage, ties by id; of one collection and one model when named), planned once per dimension, arguments given (collection, filter, model) and backend; used by dof_vector_search';
