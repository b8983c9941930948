-- The words a Spanish question frames itself with that PostgreSQL's Spanish stop list lacks
-- once unaccented (docs/measurements.md, "A question's framing words"): según, tras, hacia,
-- mediante, cuánto, cuáles and adónde, which dof_query_stopwords blanks from a search's
-- unquoted words. On a quality database that bench/scripts/retrieval_quality.sh left with
-- this tree (pg_dof_quality_<set>, collection eval-independent): the set's own questions
-- through dof_evaluate_questions (text and hybrid), by kind, with the rule and, in a
-- transaction rolled back, without it (the query side only: no chunk is indexed again); then
-- the rule with the modal verbs too (debe, deben, puede, pueden), measured and not kept.
-- Prints MRR@10 without / with, the questions whose hybrid rank moved, and the modal
-- variant's MRR@10:
--   psql -d pg_dof_quality_dof -f bench/sql/quality_query_stopwords.sql
\set ON_ERROR_STOP on
\pset pager off
\pset footer off
SET client_min_messages = warning;
BEGIN;
CREATE TEMP TABLE asked AS
SELECT 'q' || id AS question_id, coalesce(kind, 'the set''s questions') AS kind, question, corpus_id AS source_id,
       reference AS answer
FROM eval_questions;
\set scores with_rule
\ir rule_scores.sql
CREATE OR REPLACE FUNCTION dof_query_stopwords(query text) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    RETURN query;
\set scores without_rule
\ir rule_scores.sql
CREATE OR REPLACE FUNCTION dof_query_stopwords(query text) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    RETURN regexp_replace(query, '\m([Ss][Ee][Gg][UuÚú][Nn]|[Tt][Rr][Aa][Ss]|[Hh][Aa][Cc][Ii][Aa]|[Mm][Ee][Dd][Ii][Aa][Nn][Tt][Ee]|[Cc][Uu][AaÁá][Nn][Tt][OoAa][Ss]?|[Cc][Uu][AaÁá][Ll][Ee][Ss]|[Aa][Dd][OoÓó][Nn][Dd][Ee]|[Dd][Ee][Bb][Ee][Nn]?|[Pp][Uu][Ee][Dd][Ee][Nn]?)\M', ' ', 'g');
\set scores with_modals
\ir rule_scores.sql
\set unlisted '^front matter'
\ir rule_summary.sql
SELECT m.method, count(*) AS n, round(avg(o.reciprocal_rank)::numeric, 3) AS without_rule,
       round(avg(w.reciprocal_rank)::numeric, 3) AS with_rule, round(avg(m.reciprocal_rank)::numeric, 3) AS with_modals_too
FROM with_modals m JOIN with_rule w USING (method, question_id) JOIN without_rule o USING (method, question_id)
GROUP BY 1 ORDER BY 1;
ROLLBACK;
