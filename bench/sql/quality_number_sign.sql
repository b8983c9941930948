-- Numbers glued to their number sign (docs/measurements.md, "A number sign glued to its
-- number"). PostgreSQL's parser reads º as a letter, so "Ley Nº27902" is one word,
-- 'nº27902', which "ley 27902" does not match (nor "Ley Nº27902" a body that writes "Ley Nº
-- 27902"). On a quality database that bench/scripts/retrieval_quality.sh left with this tree
-- (pg_dof_quality_<set>, collection eval-independent, whose tsvectors hold such a number also
-- as the number: dof_number_variants; dof_query_words follows such a word in a query with
-- the number): the
-- set's own questions as written, and lookups built from every "<word> Nº<number>" of its
-- documents, typed "<word> <number>" and as written, the answer that occurrence's characters;
-- through dof_evaluate_questions (text and hybrid); then, in a transaction rolled back, the
-- same with both rules as they were before (the chunks holding such a word indexed again).
-- Prints MRR@10 without / with:
--   psql -d pg_dof_quality_mixed -f bench/sql/quality_number_sign.sql
\set ON_ERROR_STOP on
\pset pager off
\pset footer off
SET client_min_messages = warning;
BEGIN;
CREATE TEMP TABLE asked AS
SELECT 'q' || id AS question_id, 'the set''s questions' AS kind, question, corpus_id AS source_id, reference AS answer FROM eval_questions;
INSERT INTO asked
SELECT 'n' || o.id || '-' || o.n || '/' || f.form, 'lookups, ' || f.form, f.question, o.source_id,
       int4multirange(int4range(o.pos - 1, o.pos - 1 + char_length(o.found)))
FROM (SELECT d.id, d.source_id, g.n,
             regexp_instr(d.body, '[[:alpha:]]+\.? +Nº[0-9]+', 1, g.n::integer) AS pos,
             regexp_substr(d.body, '[[:alpha:]]+\.? +Nº[0-9]+', 1, g.n::integer) AS found
      FROM dof_documents d, generate_series(1, 20) AS g(n)
      WHERE d.collection = 'eval-independent') o,
     LATERAL (VALUES ('as written', o.found),
                     ('typed without the sign', lower(regexp_replace(o.found, '\.? +Nº', ' ')))) AS f(form, question)
WHERE o.pos > 0;
\set scores with_rule
\ir rule_scores.sql
-- without: the two functions as they were before the rule
CREATE OR REPLACE FUNCTION dof_query_words(query text) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    RETURN regexp_replace(regexp_replace(query, '([[:alnum:]])(?:-|/+)(?=[[:alnum:]])', '\1 ', 'g'),
                          '([[:alpha:]])\.(?=[[:alnum:]])|([[:digit:]])\.(?=[[:alpha:]])', '\1\2 ', 'g');
CREATE OR REPLACE FUNCTION dof_number_variants(tsv tsvector) RETURNS tsvector
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    RETURN coalesce((SELECT (tsv::text || ' ' || string_agg(dof_tsvector_entry(n.number, u.positions, u.weights), ' '))::tsvector
                     FROM unnest(tsv) u,
                          LATERAL (SELECT regexp_replace(regexp_replace(u.lexeme, '(º|ª|o|a|er|ero|era|ro|ra|do|da|to|ta|vo|va|no|na|mo|ma)$', ''),
                                                         '^0+([0-9])', '\1') AS number) n
                     WHERE u.lexeme ~ '^[0-9]' AND n.number ~ '^[0-9]+$' AND n.number <> u.lexeme), tsv);
UPDATE dof_chunks c SET tsv = dof_chunk_tsvector(k.text_search_config, c.heading_path, c.content, c.metadata)
FROM dof_collections k
WHERE k.name = c.collection AND c.collection = 'eval-independent'
  AND EXISTS (SELECT 1 FROM unnest(c.tsv) l WHERE l.lexeme ~ '^nº[0-9]');
\set scores without_rule
\ir rule_scores.sql
\ir rule_summary.sql
SELECT w.method, a.kind, a.question, round(o.reciprocal_rank::numeric, 2) AS without_rule, round(w.reciprocal_rank::numeric, 2) AS with_rule
FROM with_rule w JOIN without_rule o USING (method, question_id) JOIN asked a USING (question_id)
WHERE w.reciprocal_rank IS DISTINCT FROM o.reciprocal_rank ORDER BY 1, 2, 3;
ROLLBACK;
