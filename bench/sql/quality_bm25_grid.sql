-- BM25's parameters, measured through dof_evaluate: on a quality database that
-- bench/scripts/retrieval_quality.sh left (pg_dof_quality_<set>, collection
-- eval-independent), the text leg is scored with k1, b and the heading weight taken from
-- session settings, and every combination of the lists given is evaluated (text leg and
-- default hybrid, MRR@10). The product's text leg runs as it is (the any-terms query, the
-- contents filter and its margin, the query's neighbouring words and words together); only the BM25 in its
-- score, dof_text_score_internal, is replaced in one transaction by the library's
-- parameterised BM25 (the symbol 0.1.0's SQL declared), rolled back at the end; run it on
-- a quality database, all the same:
--   psql -d pg_dof_quality_dof -v k1=0.6,0.8,1.2 -v b=0.3,0.4,0.75 -v hw=2 -f bench/sql/quality_bm25_grid.sql
-- and -v px=0,0.5,1,2 to scale what the query's neighbouring words and its words together
-- add (1, the product's, without it; 0: BM25 alone). The product's parameters:
-- SELECT * FROM dof_bm25_parameters(), dof_bm25_pair_weight(), dof_bm25_window().
\set ON_ERROR_STOP on
\if :{?px}
\else
\set px 1
\endif
\pset pager off
SET client_min_messages = warning;
BEGIN;
SELECT set_config('grid.k1', :'k1', false), set_config('grid.b', :'b', false), set_config('grid.hw', :'hw', false),
       set_config('grid.px', :'px', false) \gset
CREATE OR REPLACE FUNCTION grid_bm25(anyelement, float8, text[], float8[], float8, float8, float8, float8) RETURNS float8
    IMMUTABLE PARALLEL SAFE LANGUAGE c AS '$libdir/pg_dof', 'dof_bm25_internal_wrapper';
-- the product's score (BM25, neighbouring words, words together) under another name: the
-- words' part is its score less its BM25, scaled by grid.px_now
CREATE OR REPLACE FUNCTION grid_text_score(anyelement, float8, text[], float8[], float8, anyelement) RETURNS float8
    IMMUTABLE PARALLEL SAFE LANGUAGE c AS '$libdir/pg_dof', 'dof_text_score_internal_wrapper';
-- STABLE: it reads the session's grid.*_now settings, which the loop below changes
CREATE OR REPLACE FUNCTION dof_text_score_internal(tsv anyelement, length double precision, lexemes text[],
                                                   idfs double precision[], average_length double precision, query_vector anyelement)
    RETURNS double precision LANGUAGE sql STABLE PARALLEL SAFE AS $$
    SELECT grid_bm25(tsv, length, lexemes, idfs, average_length,
                     coalesce(nullif(current_setting('grid.k1_now', true), '')::float8, (SELECT p.k1 FROM dof_bm25_parameters() p)),
                     coalesce(nullif(current_setting('grid.b_now', true), '')::float8, (SELECT p.b FROM dof_bm25_parameters() p)),
                     coalesce(nullif(current_setting('grid.hw_now', true), '')::float8, (SELECT p.heading_weight FROM dof_bm25_parameters() p)))
           + (grid_text_score(tsv, length, lexemes, idfs, average_length, query_vector)
              - dof_bm25_score_internal(tsv, length, lexemes, idfs, average_length))
             * coalesce(nullif(current_setting('grid.px_now', true), '')::float8, 1)
$$;
CREATE TEMP TABLE grid (k1 float8, b float8, hw float8, px float8, method text, mrr float8);
DO $$
DECLARE k1 float8; b float8; hw float8; px float8;
BEGIN
  FOREACH k1 IN ARRAY string_to_array(current_setting('grid.k1'), ',')::float8[] LOOP
  FOREACH b IN ARRAY string_to_array(current_setting('grid.b'), ',')::float8[] LOOP
  FOREACH hw IN ARRAY string_to_array(current_setting('grid.hw'), ',')::float8[] LOOP
  FOREACH px IN ARRAY string_to_array(current_setting('grid.px'), ',')::float8[] LOOP
    PERFORM set_config('grid.k1_now', k1::text, false); PERFORM set_config('grid.b_now', b::text, false); PERFORM set_config('grid.hw_now', hw::text, false);
    PERFORM set_config('grid.px_now', px::text, false);
    INSERT INTO grid SELECT k1, b, hw, px, e.method, e.mrr
    FROM dof_evaluate($q$SELECT question, corpus_id AS source_id, reference AS answer FROM eval_questions$q$, 'eval-independent',
                      methods => ARRAY['text', 'hybrid']) e;
  END LOOP; END LOOP; END LOOP; END LOOP;
END $$;
SELECT k1, b, hw, px, round(max(mrr) FILTER (WHERE method='text')::numeric,3) AS text, round(max(mrr) FILTER (WHERE method='hybrid')::numeric,3) AS hybrid
FROM grid GROUP BY 1,2,3,4 ORDER BY 1,2,3,4;
ROLLBACK;
