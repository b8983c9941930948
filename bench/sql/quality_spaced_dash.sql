-- A dash between spaces in a query (docs/measurements.md, "A dash between spaces is not
-- 'not'"). websearch_to_tsquery reads "PLANEA 2017 - 2022" as '2017' & !'2022';
-- dof_query_tsquery drops a dash followed by a space or the query's end. On a quality
-- database that bench/scripts/retrieval_quality.sh left with this tree (pg_dof_quality_<set>,
-- collection eval-independent): every question through dof_evaluate_questions (text and
-- hybrid), then, in a transaction rolled back, the same with dof_query_tsquery as it was
-- before (websearch syntax alone). Prints MRR@10 without / with, for the questions holding
-- such a dash and the others, and the questions whose rank changed:
--   psql -d pg_dof_quality_mixed -f bench/sql/quality_spaced_dash.sql
\set ON_ERROR_STOP on
\pset pager off
\pset footer off
SET client_min_messages = warning;
BEGIN;
CREATE TEMP TABLE asked AS
SELECT id, question, corpus_id, reference, question ~ '(^|[[:space:]])-+([[:space:]]|$)' AS spaced_dash FROM eval_questions;
CREATE TEMP TABLE with_rule AS
SELECT e.method, e.question_id, e.reciprocal_rank
FROM dof_evaluate_questions('SELECT id::text AS id, question, corpus_id AS source_id, reference AS answer FROM asked',
                            'eval-independent', methods => ARRAY['text', 'hybrid']) e;
-- without: websearch syntax alone, a spaced dash excluding the next word
CREATE OR REPLACE FUNCTION dof_query_tsquery(config regconfig, query text) RETURNS tsquery
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    RETURN websearch_to_tsquery(config, CASE WHEN strpos(query, '"') > 0 THEN query ELSE dof_query_words(query) END);
CREATE TEMP TABLE without_rule AS
SELECT e.method, e.question_id, e.reciprocal_rank
FROM dof_evaluate_questions('SELECT id::text AS id, question, corpus_id AS source_id, reference AS answer FROM asked',
                            'eval-independent', methods => ARRAY['text', 'hybrid']) e;
SELECT w.method, CASE WHEN a.spaced_dash THEN 'with a spaced dash' ELSE 'others' END AS questions, count(*) AS n,
       round(avg(o.reciprocal_rank)::numeric, 3) AS without_rule, round(avg(w.reciprocal_rank)::numeric, 3) AS with_rule,
       count(*) FILTER (WHERE w.reciprocal_rank > o.reciprocal_rank) AS up, count(*) FILTER (WHERE w.reciprocal_rank < o.reciprocal_rank) AS down
FROM with_rule w JOIN without_rule o USING (method, question_id) JOIN asked a ON a.id::text = w.question_id
GROUP BY 1, 2 ORDER BY 1, 2;
SELECT w.method, a.question, round(o.reciprocal_rank::numeric, 2) AS without_rule, round(w.reciprocal_rank::numeric, 2) AS with_rule
FROM with_rule w JOIN without_rule o USING (method, question_id) JOIN asked a ON a.id::text = w.question_id
WHERE w.reciprocal_rank IS DISTINCT FROM o.reciprocal_rank ORDER BY 1, 2;
ROLLBACK;
