-- Numbers typed without their leading zeros (docs/measurements.md, "Numbers typed without
-- their zeros"). On a quality database that bench/scripts/retrieval_quality.sh left with this
-- tree (pg_dof_quality_<set>, collection eval-independent, whose tsvectors hold each
-- number with leading zeros also without them: dof_number_variants): every question as
-- written, and the questions holding such a number (092, 0004, 08) with its zeros dropped,
-- through dof_evaluate_questions (text and hybrid); then, in a transaction rolled back, the
-- same with the zeros' rule undone (dof_number_variants keeps its ordinal and number-sign
-- variants; the chunks holding a padded number indexed again). Prints MRR@10 without / with:
--   psql -d pg_dof_quality_mixed -f bench/sql/quality_number_variants.sql
\set ON_ERROR_STOP on
\pset pager off
\pset footer off
SET client_min_messages = warning;
BEGIN;
CREATE TEMP TABLE asked AS
SELECT 'q' || id AS question_id, 'as written' AS kind, question, corpus_id AS source_id, reference AS answer FROM eval_questions
UNION ALL
SELECT 'q' || id || '/unpadded', 'typed without leading zeros', regexp_replace(question, '\m0+([0-9])', '\1', 'g'), corpus_id, reference
FROM eval_questions WHERE question ~ '\m0[0-9]';
\set scores with_rule
\ir rule_scores.sql
-- without: dof_number_variants as built but for the leading zeros it strips
CREATE OR REPLACE FUNCTION dof_number_variants(tsv tsvector) RETURNS tsvector
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    RETURN dof_tsvector_add(tsv, (SELECT string_agg(DISTINCT dof_tsvector_entry(n.number, u.positions, u.weights), ' ')
                                  FROM unnest(tsv) u,
                                       LATERAL (SELECT regexp_replace(u.lexeme, '^nº', '') AS bare) b,
                                       LATERAL (VALUES (b.bare),
                                                       (regexp_replace(b.bare, '(º|ª|o|a|er|ero|era|ro|ra|do|da|to|ta|vo|va|no|na|mo|ma)$', ''))) n(number)
                                  WHERE b.bare ~ '^[0-9]' AND n.number ~ '^[0-9]+$' AND n.number <> u.lexeme));
\set lexemes '^(nº)?0+[0-9]'
\set unlisted '^as written$'
\ir rule_without.sql
\ir rule_summary.sql
ROLLBACK;
