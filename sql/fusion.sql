-- Search, fusion: the vector and text legs' lists fused by Reciprocal Rank Fusion or by
-- weighted min-max scores. Runs as its caller, so row-level security on dof_chunks applies.

-- RRF over two ranked id lists (best first): score = Σ weight / (rrf_k + rank). The Rust
-- core's dof_core::fuse::weighted_rrf is the reference; a test checks they agree on random
-- lists.
CREATE FUNCTION dof_rrf(vector_ids bigint[], text_ids bigint[], rrf_k integer DEFAULT 60,
                        vector_weight double precision DEFAULT 1, text_weight double precision DEFAULT 1)
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
           sum(CASE WHEN ranked.vector_rank IS NOT NULL THEN vector_weight ELSE text_weight END
               / (rrf_k + coalesce(ranked.vector_rank, ranked.text_rank))) AS score,
           min(ranked.vector_rank), min(ranked.text_rank)
    FROM ranked
    GROUP BY ranked.id
    ORDER BY score DESC, ranked.id;
END;

-- One scored list (best first; scores higher-is-better) normalised as the weighted fusion
-- normalises each leg: (s - min) / (max - min) over the list, the spread counted as at
-- least min_spread (the vector leg's dof_fusion_vector_min_spread(), 0.1: similarities
-- that hardly differ are not stretched to 0..1); all equal: 1 when min_spread is 0, else
-- 0. An id named twice counts its first entry; entries without a score are skipped; rank
-- is the entry's place in the list (1-based). The one rule for dof_weighted_fusion and
-- dof_document_order; the Rust core's dof_core::fuse::min_max is the reference, and a
-- test checks the fusion against it on random lists.
CREATE FUNCTION dof_fusion_normalise(ids bigint[], scores double precision[], min_spread double precision)
    RETURNS TABLE (id bigint, value double precision, rank integer)
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
BEGIN ATOMIC
    WITH entries AS (
        SELECT DISTINCT ON (e.id) e.id, e.score, e.rank
        FROM unnest(ids, scores) WITH ORDINALITY AS e(id, score, rank)
        WHERE e.id IS NOT NULL AND e.score IS NOT NULL
        ORDER BY e.id, e.rank
    )
    SELECT entries.id,
           coalesce((entries.score - min(entries.score) OVER ())
                    / nullif(greatest(max(entries.score) OVER () - min(entries.score) OVER (), min_spread), 0), 1),
           entries.rank::integer
    FROM entries;
END;

-- Weighted min-max fusion of two scored lists (best first; scores higher-is-better): each
-- list normalised by dof_fusion_normalise (the vector leg's spread at least
-- dof_fusion_vector_min_spread(), the text leg's not floored); an id absent from a list
-- gets 0 from it, score = (1 - alpha) × vector + alpha × text. The Rust core's
-- dof_core::fuse::min_max is the reference; a test checks they agree on random lists.
CREATE FUNCTION dof_weighted_fusion(vector_ids bigint[], vector_scores double precision[],
                                    text_ids bigint[], text_scores double precision[],
                                    alpha double precision DEFAULT 0.5)
    RETURNS TABLE (id bigint, score double precision, vector_rank integer, text_rank integer)
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
BEGIN ATOMIC
    WITH normalised AS (
        SELECT 'vector' AS leg, v.id, v.value, v.rank
        FROM dof_fusion_normalise(vector_ids, vector_scores, dof_fusion_vector_min_spread()) v
        UNION ALL
        SELECT 'text', t.id, t.value, t.rank FROM dof_fusion_normalise(text_ids, text_scores, 0) t
    )
    SELECT normalised.id,
           sum(CASE WHEN normalised.leg = 'text' THEN alpha ELSE 1 - alpha END * normalised.value) AS score,
           min(normalised.rank) FILTER (WHERE normalised.leg = 'vector'),
           min(normalised.rank) FILTER (WHERE normalised.leg = 'text')
    FROM normalised
    GROUP BY normalised.id
    ORDER BY score DESC, normalised.id;
END;

-- The fusion a search asks for, by name; what dof_hybrid_search (and a coordinator's, on a
-- shard) calls with its legs' lists. Vector scores are cosine similarities (1 - distance).
-- text_full_match, the query's full-match BM25 (dof_bm25_full_match), scales the weighted
-- fusion's text share by how much of the query the text leg's best chunk matched
-- (dof_fusion_text_share); NULL (ts_rank_cd, or a caller without it): alpha as given.
CREATE FUNCTION dof_fuse(fusion text, vector_ids bigint[], vector_scores double precision[],
                         text_ids bigint[], text_scores double precision[], rrf_k integer DEFAULT 60,
                         alpha double precision DEFAULT 0.5, vector_weight double precision DEFAULT 1,
                         text_weight double precision DEFAULT 1, text_full_match double precision DEFAULT NULL)
    RETURNS TABLE (id bigint, score double precision, vector_rank integer, text_rank integer)
    LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE SET search_path FROM CURRENT AS $$
BEGIN
    -- every argument is checked, whichever fusion runs: a wrong one is a mistake either way.
    -- A weight is a finite number: NaN passed "< 0" (PostgreSQL orders NaN above every
    -- number) and made the leg's scores NaN, and Infinity tied every chunk of the leg
    IF rrf_k IS NULL OR rrf_k < 0 OR rrf_k > 1000000
       OR vector_weight IS NULL OR NOT (vector_weight >= 0 AND vector_weight < 'Infinity')
       OR text_weight IS NULL OR NOT (text_weight >= 0 AND text_weight < 'Infinity') THEN
        RAISE EXCEPTION 'rrf_k must be between 0 and 1000000 and the weights finite and at least 0 (got rrf_k %, vector_weight %, text_weight %)',
                        coalesce(rrf_k::text, 'NULL'), coalesce(vector_weight::text, 'NULL'), coalesce(text_weight::text, 'NULL')
            USING ERRCODE = 'invalid_parameter_value', HINT = 'the defaults are rrf_k 60 and weights 1';
    END IF;
    IF alpha IS NULL OR alpha < 0 OR alpha > 1 THEN
        RAISE EXCEPTION 'alpha (the text leg''s share) must be between 0 and 1, got %', coalesce(alpha::text, 'NULL')
            USING ERRCODE = 'invalid_parameter_value', HINT = 'the default is 0.5';
    END IF;
    IF fusion = 'rrf' THEN
        RETURN QUERY SELECT * FROM dof_rrf(coalesce(vector_ids, '{}'), coalesce(text_ids, '{}'), rrf_k, vector_weight, text_weight);
    ELSIF fusion = 'weighted' THEN
        RETURN QUERY SELECT * FROM dof_weighted_fusion(coalesce(vector_ids, '{}'), coalesce(vector_scores, '{}'),
                                                       coalesce(text_ids, '{}'), coalesce(text_scores, '{}'),
                                                       dof_fusion_text_share(alpha, (SELECT max(s) FROM unnest(text_scores) s),
                                                                             text_full_match));
    ELSE
        RAISE EXCEPTION 'unknown fusion "%"', fusion USING ERRCODE = 'invalid_parameter_value',
            HINT = 'use ''rrf'' (reciprocal rank fusion, per-leg weights) or ''weighted'' (min-max normalised scores, alpha = the text share)';
    END IF;
END
$$;

-- A hybrid search's own arguments, as one server and a coordinator's shards check them
-- (dof_shard_prepare; the coordinator has no pg_dof to call). NULLs are refused too: LIMIT
-- NULL would return every row.
CREATE FUNCTION dof_check_hybrid_arguments(k integer, candidate_pool integer, dedup_by_source boolean) RETURNS void
    LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE SET search_path FROM CURRENT AS $$
BEGIN
    IF k IS NULL OR k < 1 OR candidate_pool IS NULL OR candidate_pool < 1 OR candidate_pool > 100000
       OR dedup_by_source IS NULL THEN
        RAISE EXCEPTION 'k must be at least 1, candidate_pool between 1 and 100000 and dedup_by_source not NULL (got k %, candidate_pool %, dedup_by_source %)',
                        coalesce(k::text, 'NULL'), coalesce(candidate_pool::text, 'NULL'), coalesce(dedup_by_source::text, 'NULL')
            USING ERRCODE = 'invalid_parameter_value', HINT = 'the defaults are k 10, candidate_pool 50';
    END IF;
END
$$;

-- The defaults were chosen by measurement on three sets through dof_evaluate (CHANGELOG
-- 0.3.0, bench/scripts/retrieval_quality.sh): the weighted fusion with alpha 0.5 (the text
-- leg's share), with the vector leg ranking chunks by their best passage, was the best
-- alpha of 0.5-0.8 on the DOF set (0.796 against 0.7's 0.772) and the English set (0.845
-- against 0.838) and within 0.001 of it on Peruvian laws; RRF 0.772 / 0.840 / 0.920.
CREATE FUNCTION dof_hybrid_search(query text, k integer DEFAULT 10, collection text DEFAULT NULL,
                                  filter jsonb DEFAULT NULL, candidate_pool integer DEFAULT 50,
                                  rrf_k integer DEFAULT 60, dedup_by_source boolean DEFAULT false,
                                  query_embedding vector DEFAULT NULL, ranking text DEFAULT 'bm25',
                                  match_terms text DEFAULT 'any', fusion text DEFAULT 'weighted',
                                  alpha double precision DEFAULT 0.5, vector_weight double precision DEFAULT 1,
                                  text_weight double precision DEFAULT 1)
    RETURNS TABLE (chunk_id bigint, document_id bigint, source_id text, heading_path text[], content text,
                   score double precision, vector_rank integer, text_rank integer)
    LANGUAGE plpgsql STABLE SET search_path FROM CURRENT AS $$
DECLARE
    vector_ids bigint[];
    vector_scores double precision[];
    text_ids bigint[];
    text_scores double precision[];
    text_full_match double precision;
    query_terms tsquery;
    lexemes text[];
    idfs double precision[];
    chunks double precision[];
    average_length double precision;
    query_vector tsvector;
    fused_ids bigint[];
    fused_scores double precision[];
    fused_vector_ranks integer[];
    fused_text_ranks integer[];
    ordered_ids bigint[];
    ordered_scores double precision[];
BEGIN
    PERFORM dof_check_hybrid_arguments(k, candidate_pool, dedup_by_source);
    -- the fusion's own arguments are checked before any leg runs
    PERFORM dof_fuse(fusion, '{}', '{}', '{}', '{}', rrf_k, alpha, vector_weight, text_weight);
    SELECT array_agg(v.chunk_id ORDER BY v.rank), array_agg(1 - v.distance ORDER BY v.rank) INTO vector_ids, vector_scores
    FROM dof_vector_search(query, greatest(candidate_pool, k), collection, filter, query_embedding) v;
    -- the text leg as dof_text_search runs it, with its BM25 inputs looked up once: the
    -- weighted fusion's full-match score is computed from the same IDFs
    SELECT * INTO query_terms, lexemes, idfs, chunks, average_length, query_vector
    FROM dof_text_query(query, collection, ranking, match_terms);
    SELECT array_agg(t.chunk_id ORDER BY t.rank), array_agg(t.text_score ORDER BY t.rank) INTO text_ids, text_scores
    FROM dof_text_leg_internal(query_terms, greatest(candidate_pool, k), collection, filter, ranking, match_terms,
                               lexemes, idfs, chunks, average_length, query_vector) t;
    IF ranking = 'bm25' AND fusion = 'weighted' AND text_ids IS NOT NULL THEN
        text_full_match := dof_bm25_full_match(idfs);
    END IF;
    SELECT array_agg(f.id ORDER BY f.score DESC, f.id), array_agg(f.score ORDER BY f.score DESC, f.id),
           array_agg(f.vector_rank ORDER BY f.score DESC, f.id), array_agg(f.text_rank ORDER BY f.score DESC, f.id)
    INTO fused_ids, fused_scores, fused_vector_ranks, fused_text_ranks
    FROM dof_fuse(fusion, vector_ids, vector_scores, text_ids, text_scores, rrf_k, alpha, vector_weight, text_weight,
                  text_full_match) f;
    ordered_ids := fused_ids;
    ordered_scores := fused_scores;
    IF ranking = 'bm25' AND fusion = 'weighted' AND fused_ids IS NOT NULL THEN
        -- each document's chunks reordered among its ranks (document_order.sql); with
        -- dedup_by_source every document's best chunk can be returned, so every document counts
        SELECT array_agg(o.id ORDER BY o.rank), array_agg(o.score ORDER BY o.rank) INTO ordered_ids, ordered_scores
        FROM (SELECT array_agg(s.chunk_id) AS ids, array_agg(s.document_id) AS documents, array_agg(s.text_score) AS scores
              FROM dof_document_text_scores(fused_ids, CASE WHEN dedup_by_source THEN cardinality(fused_ids) ELSE k END,
                                            lexemes, idfs, average_length, query_vector,
                                            definition_term => dof_definition_term(query)) s) within,
             dof_document_order(fused_ids, fused_scores, vector_ids, vector_scores,
                                dof_fusion_text_share(alpha, (SELECT max(t) FROM unnest(text_scores) t), text_full_match),
                                within.ids, within.documents, within.scores) o;
    END IF;
    RETURN QUERY
    WITH fused AS (
        SELECT o.id, o.score, o.rank, f.vector_rank, f.text_rank
        FROM unnest(ordered_ids, ordered_scores) WITH ORDINALITY AS o(id, score, rank)
        JOIN unnest(fused_ids, fused_vector_ranks, fused_text_ranks) AS f(id, vector_rank, text_rank) ON f.id = o.id
    ), ranked AS (
        SELECT fused.* FROM fused WHERE NOT dedup_by_source
        UNION ALL
        SELECT per_document.*
        FROM (SELECT DISTINCT ON (c.document_id) fused.*
              FROM fused JOIN dof_chunks c ON c.id = fused.id
              WHERE dedup_by_source
              ORDER BY c.document_id, fused.rank) per_document
    ), best AS (
        -- the k best ids first, the content after: the fused list holds up to twice
        -- candidate_pool chunks and only k are returned (at 50 + 50 candidates, 0.77 ms ->
        -- 0.61 ms, and 0.42 ms without dedup_by_source, which needs no chunk row to rank)
        SELECT ranked.* FROM ranked ORDER BY ranked.rank LIMIT k
    )
    SELECT best.id, c.document_id, d.source_id, c.heading_path, c.content, best.score, best.vector_rank, best.text_rank
    FROM best
    JOIN dof_chunks c ON c.id = best.id
    JOIN dof_documents d ON d.id = c.document_id
    ORDER BY best.rank;
END
$$;
COMMENT ON FUNCTION dof_rrf(bigint[], bigint[], integer, double precision, double precision) IS 'Reciprocal Rank Fusion of two ranked id lists, each weighted, with each list''s rank (NULL when absent); ties break on id';
COMMENT ON FUNCTION dof_fusion_normalise(bigint[], double precision[], double precision) IS 'Internal: one scored list normalised as the weighted fusion normalises each leg: (s - min) / max(max - min, min_spread), 1 when all are equal and min_spread is 0; an id''s first entry, entries without a score skipped';
COMMENT ON FUNCTION dof_weighted_fusion(bigint[], double precision[], bigint[], double precision[], double precision) IS 'Weighted min-max fusion of two scored lists: each normalised by its spread (the vector leg''s at least dof_fusion_vector_min_spread()), score = (1 - alpha) x vector + alpha x text; ties break on id';
COMMENT ON FUNCTION dof_fusion_vector_min_spread() IS 'The least spread of the vector leg''s similarities that the weighted fusion divides by (0.1): candidates that hardly differ are not stretched to 0..1';
COMMENT ON FUNCTION dof_fuse(text, bigint[], double precision[], bigint[], double precision[], integer, double precision, double precision, double precision, double precision) IS 'The fusion named by fusion (rrf or weighted) of the vector and text legs'' lists, with its arguments checked; text_full_match (the query''s full-match BM25) scales the weighted fusion''s text share by the text leg''s coverage of the query';
COMMENT ON FUNCTION dof_hybrid_search(text, integer, text, jsonb, integer, integer, boolean, vector, text, text, text, double precision, double precision, double precision) IS
    'Hybrid search: vector and full-text legs of candidate_pool chunks each, fused by RRF (rrf_k, vector_weight, text_weight) or by weighted min-max scores (fusion => ''weighted'', alpha = the text share, scaled down when the text leg''s best chunk matches little of the query); filter is jsonb containment on document metadata; dedup_by_source keeps the best chunk per document; query_embedding (optional) is used instead of embedding the query; ranking (bm25 or ts_rank_cd) and match_terms (any or all) are the text leg''s; with the weighted fusion and bm25, a document''s chunks take the ranks the fusion gave it in the order of their text score within the document (dof_document_order)';
COMMENT ON FUNCTION dof_check_hybrid_arguments(integer, integer, boolean) IS 'Raises 22023 unless k >= 1, candidate_pool is 1 to 100000 and dedup_by_source is not NULL: dof_hybrid_search''s check, which a coordinator''s shards run too';
COMMENT ON FUNCTION dof_fusion_text_share(double precision, double precision, double precision) IS 'The weighted fusion''s text share for one query: alpha scaled by the text leg''s coverage of the query (its best BM25 over the full-match score, capped at 1), as the share that ranks as alpha x coverage x text + (1 - alpha) x vector; alpha when either score is NULL';
