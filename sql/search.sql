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
-- going until it has k rows, so filtering does not starve the result. ef_search 400: on
-- 120,689 real chunk vectors of the corpora (bench/scripts/store_search.sh) recall@10
-- against exact search (ties by distance counted) was 0.905 at 200 and 0.956 at 400, for
-- 3.1 vs 5.7 ms. To trade recall for speed:
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

-- The mean of a numeric column from its pg_stats row: the most common values with their
-- frequencies, the rest spread over the equal-count histogram (bucket midpoints).
CREATE FUNCTION dof_stats_mean(common_values double precision[], common_freqs real[], bounds double precision[])
    RETURNS double precision LANGUAGE sql IMMUTABLE PARALLEL SAFE
BEGIN ATOMIC
    SELECT coalesce((SELECT sum(v * f) FROM unnest(common_values, common_freqs) AS u(v, f)), 0)
           + (1 - coalesce((SELECT sum(f) FROM unnest(common_freqs) AS f), 0))
             * coalesce((SELECT avg((bounds[i] + bounds[i + 1]) / 2) FROM generate_series(1, cardinality(bounds) - 1) AS i),
                        (SELECT sum(v * f) / nullif(sum(f), 0) FROM unnest(common_values, common_freqs) AS u(v, f)));
END;

-- BM25's inputs for a query, from the planner's statistics on dof_chunks.tsv (pg_stats,
-- kept current by autovacuum's ANALYZE, so nothing extra is maintained on insert): the
-- chunks holding a lexeme are its most_common_elems fraction of the table, or half the
-- least listed fraction when it is not listed (PostgreSQL's own tsvector selectivity
-- guess); IDF is Lucene's ln(1 + (N - n + 0.5) / (n + 0.5)); a chunk's length is its
-- token_count, whose mean comes from that column's statistics. The statistics cover the
-- whole table, not one collection. Without them (never analyzed, or hidden from a caller
-- under row-level security, as pg_stats does) every IDF is 1, the chunk estimates are
-- NULL and length is not normalised.
-- Lexemes are those of querytree(query): the ones a match needs (negated terms are not).
CREATE FUNCTION dof_bm25_terms(query tsquery)
    RETURNS TABLE (lexemes text[], idfs double precision[], chunks double precision[], average_length double precision)
    LANGUAGE sql STABLE PARALLEL SAFE
BEGIN ATOMIC
    WITH terms AS (
        SELECT coalesce(array_agg(DISTINCT replace(m[1], '''''', '''')), '{}') AS lexemes
        FROM regexp_matches(querytree(query), '''((?:[^'']|'''')*)''', 'g') AS m
    ), stats AS (
        SELECT s.attname, s.most_common_elems, s.most_common_elem_freqs, s.most_common_vals, s.most_common_freqs, s.histogram_bounds
        FROM pg_stats s
        WHERE s.schemaname = '@extschema@' AND s.tablename = 'dof_chunks' AND s.attname IN ('tsv', 'token_count')
    ), estimates AS (
        SELECT terms.lexemes,
               dof_lexeme_fractions_internal(terms.lexemes, tsv.most_common_elems, tsv.most_common_elem_freqs) AS fractions,
               (SELECT greatest(c.reltuples, 1) FROM pg_class c WHERE c.oid = '@extschema@.dof_chunks'::regclass) AS total,
               dof_stats_mean(len.most_common_vals::text::double precision[], len.most_common_freqs,
                              len.histogram_bounds::text::double precision[]) AS average_length
        FROM terms LEFT JOIN stats tsv ON tsv.attname = 'tsv' LEFT JOIN stats len ON len.attname = 'token_count'
    )
    SELECT e.lexemes,
           CASE WHEN e.fractions IS NULL THEN array_fill(1.0::double precision, ARRAY[cardinality(e.lexemes)])
                ELSE ARRAY(SELECT ln(1 + (e.total - f * e.total + 0.5) / (f * e.total + 0.5)) FROM unnest(e.fractions) WITH ORDINALITY AS u(f, i) ORDER BY i) END,
           CASE WHEN e.fractions IS NOT NULL THEN ARRAY(SELECT f * e.total FROM unnest(e.fractions) WITH ORDINALITY AS u(f, i) ORDER BY i) END,
           e.average_length
    FROM estimates e;
END;

-- match_terms => 'any' of the text leg: the query's selective lexemes (IDF of at least
-- ln 20: in at most about 5% of chunks) OR'ed, rarest first, while the chunks they are
-- estimated to match stay within `budget`: every match is scored, so this bounds the text
-- leg's work at any table size. The query itself when it uses operators (phrases,
-- negation, or) or has no selective lexeme within the budget.
CREATE FUNCTION dof_any_terms_query(query tsquery, lexemes text[], idfs double precision[], chunks double precision[],
                                    budget double precision DEFAULT 2000) RETURNS tsquery
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
BEGIN ATOMIC
    SELECT CASE WHEN query::text ~ '[!|<]' THEN query  -- querytree() would drop a negation
                ELSE coalesce((SELECT string_agg('''' || replace(replace(s.lexeme, '\', '\\'), '''', '''''') || '''', ' | ')::tsquery
                               FROM (SELECT t.lexeme, sum(t.chunks) OVER (ORDER BY t.idf DESC, t.lexeme) AS running
                                     FROM unnest(lexemes, idfs, chunks) AS t(lexeme, idf, chunks)
                                     WHERE t.idf >= ln(20)) s
                               WHERE s.running <= budget), query) END;
END;

-- Text leg: chunk ids matching the query in the collection's text search configuration
-- (spanish by default), ranked by BM25 (k1 1.2, b 0.75, a heading match counts twice;
-- see dof_bm25_terms) or, with ranking => 'ts_rank_cd', by PostgreSQL's cover density
-- (no IDF).
-- match_terms => 'all': websearch syntax as written (every term, "phrases", -not, or).
-- match_terms => 'any' (default): a chunk matches with any of the query's selective
-- lexemes (dof_any_terms_query); common lexemes only add to the score. A question in
-- plain words rarely has all its words in one chunk, so 'all' would find nothing; OR over
-- every word would select (and rank) a large share of the table. With no selective
-- lexeme (or no statistics yet), or when the query uses operators, 'any' acts as 'all'.
CREATE FUNCTION dof_text_search(query text, k integer DEFAULT 10, collection text DEFAULT NULL,
                                filter jsonb DEFAULT NULL, ranking text DEFAULT 'bm25',
                                match_terms text DEFAULT 'any')
    RETURNS TABLE (chunk_id bigint, text_score double precision, rank integer)
    LANGUAGE plpgsql STABLE SET search_path FROM CURRENT AS $$
DECLARE
    settings dof_collections := dof_collection(collection);
    query_terms tsquery := websearch_to_tsquery(settings.text_search_config, query);
    match_query tsquery := query_terms;
    lexemes text[];
    idfs double precision[];
    chunks double precision[];
    average_length double precision;
BEGIN
    IF query IS NULL THEN
        RAISE EXCEPTION 'query must not be NULL' USING ERRCODE = 'null_value_not_allowed';
    END IF;
    IF k IS NULL OR k < 1 THEN
        RAISE EXCEPTION 'k must be at least 1, got %', coalesce(k::text, 'NULL') USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF ranking IS NULL OR ranking NOT IN ('bm25', 'ts_rank_cd') THEN
        RAISE EXCEPTION 'unknown ranking "%"', ranking USING ERRCODE = 'invalid_parameter_value',
            HINT = 'use ''bm25'' or ''ts_rank_cd''';
    END IF;
    IF match_terms IS NULL OR match_terms NOT IN ('any', 'all') THEN
        RAISE EXCEPTION 'unknown match_terms "%"', match_terms USING ERRCODE = 'invalid_parameter_value',
            HINT = 'use ''any'' or ''all''';
    END IF;
    IF ranking = 'bm25' OR match_terms = 'any' THEN
        SELECT * INTO lexemes, idfs, chunks, average_length FROM dof_bm25_terms(query_terms);
    END IF;
    IF match_terms = 'any' THEN
        match_query := dof_any_terms_query(query_terms, lexemes, idfs, chunks);
    END IF;
    RETURN QUERY
    SELECT hits.id, hits.score, (row_number() OVER (ORDER BY hits.score DESC, hits.id))::integer
    FROM (SELECT c.id,
                 CASE WHEN ranking = 'bm25'
                      THEN dof_bm25_internal(c.tsv, c.token_count, lexemes, idfs, average_length, 1.2, 0.75, 2.0)
                      ELSE ts_rank_cd(c.tsv, match_query, 1)::double precision END AS score
          FROM dof_chunks c
          WHERE c.tsv @@ match_query
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
COMMENT ON FUNCTION dof_collection(text) IS 'The dof_collections row of a collection; NULL means ''default''';
COMMENT ON FUNCTION dof_vector_search(text, integer, text, jsonb, vector) IS 'Vector leg alone: the k nearest chunks by cosine distance (HNSW with iterative scan, so filters still return k rows); query_embedding skips embedding the query';
COMMENT ON FUNCTION dof_bm25_terms(tsquery) IS 'BM25 inputs for a query: its lexemes, their IDFs, the chunks estimated to hold each, and the mean chunk length in tokens, from the planner''s statistics on dof_chunks.tsv';
COMMENT ON FUNCTION dof_lexeme_fractions_internal(text[], anyarray, real[]) IS 'Internal: the fraction of chunks holding each lexeme, from pg_stats; used by dof_bm25_terms';
COMMENT ON FUNCTION dof_stats_mean(double precision[], real[], double precision[]) IS 'Internal: a column''s mean estimated from its pg_stats row';
COMMENT ON FUNCTION dof_bm25_internal(anyelement, double precision, text[], double precision[], double precision, double precision, double precision, double precision) IS 'Internal: BM25 of one tsvector; used by dof_text_search';
COMMENT ON FUNCTION dof_any_terms_query(tsquery, text[], double precision[], double precision[], double precision) IS 'The tsquery of match_terms => ''any'': the selective lexemes (IDF >= ln 20) OR''ed, rarest first within an estimated budget of matching chunks; the query itself when it has operators or no such lexeme';
COMMENT ON FUNCTION dof_text_search(text, integer, text, jsonb, text, text) IS 'Text leg alone: the k best chunks matching the query (match_terms: any selective lexeme, or all terms in websearch syntax) in the collection''s text search configuration, ranked by BM25 (default) or ts_rank_cd';
COMMENT ON FUNCTION dof_hybrid_search(text, integer, text, jsonb, integer, integer, boolean, vector, text, text) IS
    'Hybrid search: vector and full-text legs of candidate_pool chunks each, fused by RRF (rrf_k); filter is jsonb containment on document metadata; dedup_by_source keeps the best chunk per document; query_embedding (optional) is used instead of embedding the query; ranking (bm25 or ts_rank_cd) and match_terms (any or all) are the text leg''s';
