-- Search, text leg: chunks matching the query's lexemes, ranked by BM25 (or ts_rank_cd).
-- Runs as its caller, so row-level security on dof_chunks applies.

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
-- (spanish by default), ranked by BM25 (dof_core::bm25's parameters; IDFs and lengths from
-- dof_bm25_terms) or, with ranking => 'ts_rank_cd', by PostgreSQL's cover density
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
                      THEN dof_bm25_score_internal(c.tsv, c.token_count, lexemes, idfs, average_length)
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

COMMENT ON FUNCTION dof_bm25_terms(tsquery) IS 'BM25 inputs for a query: its lexemes, their IDFs, the chunks estimated to hold each, and the mean chunk length in tokens, from the planner''s statistics on dof_chunks.tsv';
COMMENT ON FUNCTION dof_lexeme_fractions_internal(text[], anyarray, real[]) IS 'Internal: the fraction of chunks holding each lexeme, from pg_stats; used by dof_bm25_terms';
COMMENT ON FUNCTION dof_stats_mean(double precision[], real[], double precision[]) IS 'Internal: a column''s mean estimated from its pg_stats row';
COMMENT ON FUNCTION dof_bm25_score_internal(anyelement, double precision, text[], double precision[], double precision) IS 'Internal: BM25 of one tsvector (k1 1.2, b 0.75, heading matches twice); used by dof_text_search';
COMMENT ON FUNCTION dof_any_terms_query(tsquery, text[], double precision[], double precision[], double precision) IS 'The tsquery of match_terms => ''any'': the selective lexemes (IDF >= ln 20) OR''ed, rarest first within an estimated budget of matching chunks; the query itself when it has operators or no such lexeme';
COMMENT ON FUNCTION dof_text_search(text, integer, text, jsonb, text, text) IS 'Text leg alone: the k best chunks matching the query (match_terms: any selective lexeme, or all terms in websearch syntax) in the collection''s text search configuration, ranked by BM25 (default) or ts_rank_cd';
