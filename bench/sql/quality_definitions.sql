-- A definition question's term (docs/measurements.md, "A definition question's term"). On a
-- quality database that bench/scripts/retrieval_quality.sh left with this tree
-- (pg_dof_quality_<set>, collection eval-independent; the order within a document puts
-- first a chunk that defines the term a definition question asks about: dof_definition_term,
-- dof_defines): the set's own questions, and questions built from its documents' acronyms,
-- each the first "(ABC)" of a document that names ABC at least twice more, asked as
-- "¿Qué significa ABC?", "¿Cuál es el significado de ABC?", "¿A qué se refiere ABC?", "What
-- does ABC stand for?", "What is ABC?" and as the bare "ABC" (no definition question: the rule must leave it alone), the answer that
-- parenthesis; through dof_evaluate_questions (text and hybrid);
-- then, in a transaction rolled back, the same with no query read as a definition question
-- (dof_definition_term NULL). Prints MRR@10 without / with:
--   psql -d pg_dof_quality_dof -f bench/sql/quality_definitions.sql
\set ON_ERROR_STOP on
\pset pager off
\pset footer off
SET client_min_messages = warning;
BEGIN;
CREATE TEMP TABLE asked AS
SELECT 'q' || id AS question_id, 'the set''s questions' || CASE WHEN dof_definition_term(question) IS NOT NULL THEN ', definition' ELSE '' END AS kind,
       question, corpus_id AS source_id, reference AS answer
FROM eval_questions;
INSERT INTO asked
SELECT 'a' || o.id || '-' || o.acronym || '/' || f.form, 'acronyms, ' || f.form, f.question, o.source_id,
       int4multirange(int4range(o.pos - 1, o.pos - 1 + char_length(o.acronym) + 2))
FROM (SELECT DISTINCT ON (d.id, m.acronym) d.id, d.source_id, m.acronym, strpos(d.body, '(' || m.acronym || ')') AS pos
      FROM dof_documents d, LATERAL (SELECT (regexp_matches(d.body, '\(([A-ZÁÉÍÓÚÑ]{3,12})\)', 'g'))[1] AS acronym) m
      WHERE d.collection = 'eval-independent'
        AND (SELECT count(*) FROM regexp_matches(d.body, '\m' || m.acronym || '\M', 'g')) >= 3
      ORDER BY d.id, m.acronym) o,
     LATERAL (VALUES ('¿Qué significa ABC?', '¿Qué significa ' || o.acronym || '?'),
                     ('¿Cuál es el significado de ABC?', '¿Cuál es el significado de ' || o.acronym || '?'),
                     ('¿A qué se refiere ABC?', '¿A qué se refiere ' || o.acronym || '?'),
                     ('What does ABC stand for?', 'What does ' || o.acronym || ' stand for?'), ('What is ABC?', 'What is ' || o.acronym || '?'),
                     ('ABC alone', o.acronym)) AS f(form, question);
SELECT kind, count(*) AS questions FROM asked GROUP BY 1 ORDER BY 1;
\set scores with_rule
\ir rule_scores.sql
-- without: no query is a definition question
CREATE OR REPLACE FUNCTION dof_definition_term(query text) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    RETURN NULL;
\set scores without_rule
\ir rule_scores.sql
\set unlisted '^acronyms'
\ir rule_summary.sql
ROLLBACK;
