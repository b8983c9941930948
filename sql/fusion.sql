-- Search, fusion: the vector and text legs' ranked lists fused by Reciprocal Rank Fusion.
-- Runs as its caller, so row-level security on dof_chunks applies.

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

CREATE FUNCTION dof_hybrid_search(query text, k integer DEFAULT 10, collection text DEFAULT NULL,
                                  filter jsonb DEFAULT NULL, candidate_pool integer DEFAULT 50,
                                  rrf_k integer DEFAULT 60, dedup_by_source boolean DEFAULT false,
                                  query_embedding vector DEFAULT NULL, ranking text DEFAULT 'bm25',
                                  match_terms text DEFAULT 'any')
    RETURNS TABLE (chunk_id bigint, document_id bigint, source_id text, heading_path text[], content text,
                   score double precision, vector_rank integer, text_rank integer)
    LANGUAGE plpgsql STABLE SET search_path FROM CURRENT AS $$
DECLARE
    vector_ids bigint[];
    text_ids bigint[];
BEGIN
    -- NULLs are refused too: LIMIT NULL would return every row, rrf_k NULL NULL scores
    IF k IS NULL OR k < 1 OR candidate_pool IS NULL OR candidate_pool < 1 OR candidate_pool > 100000
       OR rrf_k IS NULL OR rrf_k < 0 OR rrf_k > 1000000 OR dedup_by_source IS NULL THEN
        RAISE EXCEPTION 'k must be at least 1, candidate_pool between 1 and 100000, rrf_k between 0 and 1000000 and dedup_by_source not NULL (got k %, candidate_pool %, rrf_k %, dedup_by_source %)',
                        coalesce(k::text, 'NULL'), coalesce(candidate_pool::text, 'NULL'), coalesce(rrf_k::text, 'NULL'),
                        coalesce(dedup_by_source::text, 'NULL')
            USING ERRCODE = 'invalid_parameter_value', HINT = 'the defaults are k 10, candidate_pool 50, rrf_k 60';
    END IF;
    SELECT array_agg(v.chunk_id ORDER BY v.rank) INTO vector_ids
    FROM dof_vector_search(query, greatest(candidate_pool, k), collection, filter, query_embedding) v;
    SELECT array_agg(t.chunk_id ORDER BY t.rank) INTO text_ids
    FROM dof_text_search(query, greatest(candidate_pool, k), collection, filter, ranking, match_terms) t;
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
COMMENT ON FUNCTION dof_hybrid_search(text, integer, text, jsonb, integer, integer, boolean, vector, text, text) IS
    'Hybrid search: vector and full-text legs of candidate_pool chunks each, fused by RRF (rrf_k); filter is jsonb containment on document metadata; dedup_by_source keeps the best chunk per document; query_embedding (optional) is used instead of embedding the query; ranking (bm25 or ts_rank_cd) and match_terms (any or all) are the text leg''s';
