-- BM25's parameters, measured through dof_evaluate: on a quality database that
-- bench/scripts/retrieval_quality.sh left (pg_dof_quality_<set>, collection
-- eval-independent), the text leg is scored with k1, b and the heading weight taken from
-- session settings, and every combination of the lists given is evaluated (text leg and
-- default hybrid, MRR@10). It replaces dof_text_leg_internal in that database with a copy
-- that calls the library's parameterised BM25 (the symbol 0.1.0's SQL declared), so run it
-- on a quality database only, never on one that holds documents you keep:
--   psql -d pg_dof_quality_dof -v k1=0.6,0.8,1.2 -v b=0.3,0.4,0.75 -v hw=2 -f bench/sql/quality_bm25_grid.sql
-- The product's parameters: SELECT * FROM dof_bm25_parameters().
\set ON_ERROR_STOP on
\pset pager off
SET client_min_messages = warning;
SELECT set_config('grid.k1', :'k1', false), set_config('grid.b', :'b', false), set_config('grid.hw', :'hw', false) \gset
CREATE OR REPLACE FUNCTION grid_bm25(anyelement, float8, text[], float8[], float8, float8, float8, float8) RETURNS float8
    IMMUTABLE PARALLEL SAFE LANGUAGE c AS '$libdir/pg_dof', 'dof_bm25_internal_wrapper';
CREATE OR REPLACE FUNCTION dof_text_leg_internal(query_terms tsquery, k integer, collection text, filter jsonb, ranking text,
                                      match_terms text, lexemes text[], idfs double precision[],
                                      chunks double precision[], average_length double precision)
    RETURNS TABLE (chunk_id bigint, text_score double precision, rank integer)
    LANGUAGE plpgsql STABLE AS $$
DECLARE
    match_query tsquery := CASE WHEN match_terms = 'any' THEN dof_any_terms_query(query_terms, lexemes, idfs, chunks)
                                ELSE query_terms END;
    k1 float8 := coalesce(nullif(current_setting('grid.k1_now', true), '')::float8, (SELECT p.k1 FROM dof_bm25_parameters() p));
    b float8 := coalesce(nullif(current_setting('grid.b_now', true), '')::float8, (SELECT p.b FROM dof_bm25_parameters() p));
    hw float8 := coalesce(nullif(current_setting('grid.hw_now', true), '')::float8, (SELECT p.heading_weight FROM dof_bm25_parameters() p));
BEGIN
    RETURN QUERY
    SELECT hits.id, hits.score, (row_number() OVER (ORDER BY hits.score DESC, hits.id))::integer
    FROM (SELECT c.id,
                 CASE WHEN ranking = 'bm25'
                      THEN grid_bm25(c.tsv, c.token_count::float8, lexemes, idfs, average_length, k1, b, hw)
                      ELSE ts_rank_cd(c.tsv, match_query, 1)::double precision END AS score
          FROM dof_chunks c
          WHERE c.tsv @@ match_query
            AND (dof_text_leg_internal.collection IS NULL OR c.collection = dof_text_leg_internal.collection)
            AND (filter IS NULL OR c.metadata @> filter)
          ORDER BY score DESC, c.id
          LIMIT k) hits
    ORDER BY hits.score DESC, hits.id;
END
$$;
CREATE TEMP TABLE grid (k1 float8, b float8, hw float8, method text, mrr float8);
DO $$
DECLARE k1 float8; b float8; hw float8;
BEGIN
  FOREACH k1 IN ARRAY string_to_array(current_setting('grid.k1'), ',')::float8[] LOOP
  FOREACH b IN ARRAY string_to_array(current_setting('grid.b'), ',')::float8[] LOOP
  FOREACH hw IN ARRAY string_to_array(current_setting('grid.hw'), ',')::float8[] LOOP
    PERFORM set_config('grid.k1_now', k1::text, false); PERFORM set_config('grid.b_now', b::text, false); PERFORM set_config('grid.hw_now', hw::text, false);
    INSERT INTO grid SELECT k1, b, hw, e.method, e.mrr
    FROM dof_evaluate($q$SELECT question, corpus_id AS source_id, reference AS answer FROM eval_questions$q$, 'eval-independent',
                      methods => ARRAY['text', 'hybrid']) e;
  END LOOP; END LOOP; END LOOP;
END $$;
SELECT k1, b, hw, round(max(mrr) FILTER (WHERE method='text')::numeric,3) AS text, round(max(mrr) FILTER (WHERE method='hybrid')::numeric,3) AS hybrid
FROM grid GROUP BY 1,2,3 ORDER BY 1,2,3;
