-- Article numbers typed without their ordinal sign (docs/measurements.md, "Ordinal numbers
-- typed as numbers"). Peruvian laws number their articles "Artículo 1º.-", DOF decrees
-- "Artículo 5o.", and PostgreSQL's parser reads 1º and 5o as words of their own, which "artículo
-- 1" does not match. On a quality database that bench/scripts/retrieval_quality.sh left with
-- this tree (pg_dof_quality_<set>, collection eval-independent, whose tsvectors hold each
-- such number also as the number alone: dof_number_variants): the set's own questions as
-- written, and article lookups built from the documents that have an identifier (front
-- matter's): for each of a document's first three "Artículo Nº" with an ordinal sign, the
-- question "artículo Nº <identifier>" as written and "articulo N <identifier>" without the
-- sign, the answer that heading's characters; through dof_evaluate_questions (text and
-- hybrid); then, in a transaction rolled back, the same with the chunks holding such a
-- number indexed without it (dof_number_variants for leading zeros alone). Prints MRR@10
-- without / with:
--   psql -d pg_dof_quality_mixed -f bench/sql/quality_ordinal_numbers.sql
\set ON_ERROR_STOP on
\pset pager off
\pset footer off
SET client_min_messages = warning;
BEGIN;
CREATE TEMP TABLE asked AS
SELECT 'q' || id AS question_id, 'the set''s questions' AS kind, question, corpus_id AS source_id, reference AS answer FROM eval_questions;
INSERT INTO asked
SELECT 'a' || o.id || '-' || o.n || '/' || f.form, 'article lookups, ' || f.form, f.question, o.source_id,
       int4multirange(int4range(o.pos - 1, o.pos - 1 + char_length(o.heading)))
FROM (SELECT d.id, d.source_id, d.metadata ->> 'identifier' AS identifier, g.n,
             regexp_instr(d.body, 'Art[íi]culo\s+[0-9]+(º|°|o)\.?', 1, g.n::integer) AS pos,
             regexp_substr(d.body, 'Art[íi]culo\s+[0-9]+(º|°|o)\.?', 1, g.n::integer) AS heading
      FROM dof_documents d, generate_series(1, 3) AS g(n)
      WHERE d.collection = 'eval-independent' AND d.metadata ? 'identifier') o,
     LATERAL (VALUES ('as written', 'artículo ' || substring(o.heading FROM '[0-9]+(?:º|°|o)') || ' ' || o.identifier),
                     ('typed without the sign', 'articulo ' || substring(o.heading FROM '[0-9]+') || ' ' || o.identifier)) AS f(form, question)
WHERE o.pos > 0 AND o.heading !~ '°';
CREATE TEMP TABLE with_variants AS
SELECT e.method, e.question_id, e.reciprocal_rank
FROM dof_evaluate_questions('SELECT question_id AS id, question, source_id, answer FROM asked', 'eval-independent', methods => ARRAY['text', 'hybrid']) e;
-- without: leading zeros alone
CREATE OR REPLACE FUNCTION dof_number_variants(tsv tsvector) RETURNS tsvector
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    RETURN CASE WHEN NOT EXISTS (SELECT 1 FROM unnest(tsv) u WHERE u.lexeme ~ '^0+[0-9]+$') THEN tsv ELSE
        (tsv::text || ' ' || (SELECT string_agg(dof_tsvector_entry(regexp_replace(u.lexeme, '^0+([0-9])', '\1'), u.positions, u.weights), ' ')
                              FROM unnest(tsv) u WHERE u.lexeme ~ '^0+[0-9]+$'))::tsvector
    END;
UPDATE dof_chunks c SET tsv = dof_chunk_tsvector(k.text_search_config, c.heading_path, c.content, c.metadata)
FROM dof_collections k
WHERE k.name = c.collection AND c.collection = 'eval-independent'
  AND EXISTS (SELECT 1 FROM unnest(c.tsv) l WHERE l.lexeme ~ '^[0-9]+[^0-9]+$');
CREATE TEMP TABLE without_variants AS
SELECT e.method, e.question_id, e.reciprocal_rank
FROM dof_evaluate_questions('SELECT question_id AS id, question, source_id, answer FROM asked', 'eval-independent', methods => ARRAY['text', 'hybrid']) e;
SELECT w.method, a.kind, count(*) AS n, round(avg(o.reciprocal_rank)::numeric, 3) AS without_variants, round(avg(w.reciprocal_rank)::numeric, 3) AS with_variants,
       count(*) FILTER (WHERE w.reciprocal_rank > o.reciprocal_rank) AS up, count(*) FILTER (WHERE w.reciprocal_rank < o.reciprocal_rank) AS down
FROM with_variants w JOIN without_variants o USING (method, question_id) JOIN asked a USING (question_id)
GROUP BY 1, 2 ORDER BY 1, 2;
SELECT w.method, a.question, round(o.reciprocal_rank::numeric, 2) AS without_variants, round(w.reciprocal_rank::numeric, 2) AS with_variants
FROM with_variants w JOIN without_variants o USING (method, question_id) JOIN asked a USING (question_id)
WHERE a.kind = 'the set''s questions' AND w.reciprocal_rank IS DISTINCT FROM o.reciprocal_rank ORDER BY 1, 2;
ROLLBACK;
