-- Search: a vector leg (HNSW), a full-text leg (ranked), fused by Reciprocal Rank Fusion.
-- Every function runs as its caller, so row-level security on dof_chunks applies.

-- RRF over two ranked id lists (best first): score = Σ 1/(rrf_k + rank). The Rust core's
-- dof_core::fuse::rrf is the reference; a test checks they agree on random lists.
CREATE FUNCTION dof_rrf(vector_ids bigint[], text_ids bigint[], rrf_k integer DEFAULT 60)
    RETURNS TABLE (id bigint, score double precision, vector_rank integer, text_rank integer)
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
BEGIN ATOMIC
    WITH ranked AS (
        SELECT v.id, min(v.rank)::integer AS vector_rank, NULL::integer AS text_rank
        FROM unnest(vector_ids) WITH ORDINALITY AS v(id, rank) GROUP BY v.id
        UNION ALL
        SELECT t.id, NULL, min(t.rank)::integer
        FROM unnest(text_ids) WITH ORDINALITY AS t(id, rank) GROUP BY t.id
    )
    SELECT ranked.id,
           sum(1.0::double precision / (rrf_k + coalesce(ranked.vector_rank, ranked.text_rank))) AS score,
           min(ranked.vector_rank), min(ranked.text_rank)
    FROM ranked
    GROUP BY ranked.id
    ORDER BY score DESC, ranked.id;
END;

-- The collection's settings, or the default collection's for NULL.
CREATE FUNCTION dof_collection(collection_name text DEFAULT NULL) RETURNS dof_collections
    LANGUAGE plpgsql STABLE PARALLEL SAFE SET search_path FROM CURRENT AS $$
DECLARE
    found_collection dof_collections;
BEGIN
    SELECT * INTO found_collection FROM dof_collections WHERE name = coalesce(collection_name, 'default');
    IF NOT FOUND THEN
        RAISE EXCEPTION 'collection "%" does not exist', collection_name
            USING ERRCODE = 'undefined_object', HINT = 'SELECT name FROM dof_collections lists them';
    END IF;
    RETURN found_collection;
END
$$;

-- Vector leg: chunk ids by cosine distance. hnsw.iterative_scan lets a filtered scan keep
-- going until it has k rows, so filtering does not starve the result; ef_search 100 covers
-- the default candidate pool (50) in one pass.
CREATE FUNCTION dof_vector_search(query text, k integer DEFAULT 10, collection text DEFAULT NULL,
                                  filter jsonb DEFAULT NULL, query_embedding vector DEFAULT NULL)
    RETURNS TABLE (chunk_id bigint, distance double precision, rank integer)
    LANGUAGE plpgsql STABLE SET search_path FROM CURRENT SET hnsw.iterative_scan = 'relaxed_order'
    SET hnsw.ef_search = 100 AS $$
DECLARE
    settings dof_collections := dof_collection(collection);
    query_vector vector := coalesce(query_embedding, dof_embed_query(query, settings.model));
BEGIN
    IF k < 1 THEN
        RAISE EXCEPTION 'k must be at least 1' USING ERRCODE = 'invalid_parameter_value';
    END IF;
    RETURN QUERY
    SELECT hits.id, hits.distance, (row_number() OVER (ORDER BY hits.distance, hits.id))::integer
    FROM (SELECT c.id, (c.embedding <=> query_vector)::double precision AS distance
          FROM dof_chunks c
          WHERE (dof_vector_search.collection IS NULL OR c.collection = dof_vector_search.collection)
            AND (filter IS NULL OR c.metadata @> filter)
          ORDER BY c.embedding <=> query_vector
          LIMIT k) hits
    ORDER BY hits.distance, hits.id;
END
$$;

-- Text leg: chunk ids matching the query (websearch syntax: all terms, "phrases", -not),
-- ranked by ts_rank_cd (cover density, length-normalised), in the collection's text
-- search configuration (spanish by default). All terms, not any: with OR semantics common
-- words matched a large share of 100k chunks and ranking them all took ~0.6 s.
CREATE FUNCTION dof_text_search(query text, k integer DEFAULT 10, collection text DEFAULT NULL,
                                filter jsonb DEFAULT NULL)
    RETURNS TABLE (chunk_id bigint, text_score double precision, rank integer)
    LANGUAGE plpgsql STABLE SET search_path FROM CURRENT AS $$
DECLARE
    settings dof_collections := dof_collection(collection);
    query_terms tsquery := websearch_to_tsquery(settings.text_search_config, query);
BEGIN
    IF k < 1 THEN
        RAISE EXCEPTION 'k must be at least 1' USING ERRCODE = 'invalid_parameter_value';
    END IF;
    RETURN QUERY
    SELECT hits.id, hits.score, (row_number() OVER (ORDER BY hits.score DESC, hits.id))::integer
    FROM (SELECT c.id, ts_rank_cd(c.tsv, query_terms, 1)::double precision AS score
          FROM dof_chunks c
          WHERE c.tsv @@ query_terms
            AND (dof_text_search.collection IS NULL OR c.collection = dof_text_search.collection)
            AND (filter IS NULL OR c.metadata @> filter)
          ORDER BY score DESC, c.id
          LIMIT k) hits
    ORDER BY hits.score DESC, hits.id;
END
$$;

CREATE FUNCTION dof_hybrid_search(query text, k integer DEFAULT 10, collection text DEFAULT NULL,
                                  filter jsonb DEFAULT NULL, candidate_pool integer DEFAULT 50,
                                  rrf_k integer DEFAULT 60, dedup_by_source boolean DEFAULT false,
                                  query_embedding vector DEFAULT NULL)
    RETURNS TABLE (chunk_id bigint, document_id bigint, source_id text, heading_path text[], content text,
                   score double precision, vector_rank integer, text_rank integer)
    LANGUAGE plpgsql STABLE SET search_path FROM CURRENT AS $$
DECLARE
    vector_ids bigint[];
    text_ids bigint[];
BEGIN
    IF k < 1 OR candidate_pool < 1 OR rrf_k < 0 THEN
        RAISE EXCEPTION 'k and candidate_pool must be at least 1 and rrf_k not negative'
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    SELECT array_agg(v.chunk_id ORDER BY v.rank) INTO vector_ids
    FROM dof_vector_search(query, greatest(candidate_pool, k), collection, filter, query_embedding) v;
    SELECT array_agg(t.chunk_id ORDER BY t.rank) INTO text_ids
    FROM dof_text_search(query, greatest(candidate_pool, k), collection, filter) t;
    RETURN QUERY
    SELECT best.id, best.document_id, best.source_id, best.heading_path, best.content,
           best.score, best.vector_rank, best.text_rank
    FROM (SELECT DISTINCT ON (CASE WHEN dedup_by_source THEN c.document_id ELSE c.id END)
                 c.id, c.document_id, d.source_id, c.heading_path, c.content, f.score, f.vector_rank, f.text_rank
          FROM dof_rrf(coalesce(vector_ids, '{}'), coalesce(text_ids, '{}'), rrf_k) f
          JOIN dof_chunks c ON c.id = f.id
          JOIN dof_documents d ON d.id = c.document_id
          ORDER BY CASE WHEN dedup_by_source THEN c.document_id ELSE c.id END, f.score DESC, c.id) best
    ORDER BY best.score DESC, best.id
    LIMIT k;
END
$$;

COMMENT ON FUNCTION dof_rrf(bigint[], bigint[], integer) IS 'Reciprocal Rank Fusion of two ranked id lists, with each list''s rank (NULL when absent); ties break on id';
COMMENT ON FUNCTION dof_collection(text) IS 'The dof_collections row of a collection; NULL means ''default''';
COMMENT ON FUNCTION dof_vector_search(text, integer, text, jsonb, vector) IS 'Vector leg alone: the k nearest chunks by cosine distance (HNSW with iterative scan, so filters still return k rows); query_embedding skips embedding the query';
COMMENT ON FUNCTION dof_text_search(text, integer, text, jsonb) IS 'Text leg alone: the k best chunks by ts_rank_cd in the collection''s text search configuration';
COMMENT ON FUNCTION dof_hybrid_search(text, integer, text, jsonb, integer, integer, boolean, vector) IS
    'Hybrid search: vector and full-text legs of candidate_pool chunks each, fused by RRF (rrf_k); filter is jsonb containment on document metadata; dedup_by_source keeps the best chunk per document; query_embedding (optional) is used instead of embedding the query';
