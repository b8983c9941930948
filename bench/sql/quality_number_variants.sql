-- Numbers typed without their leading zeros (docs/measurements.md, "Numbers typed without
-- their zeros"). On a quality database that bench/scripts/retrieval_quality.sh left with this
-- tree (pg_dof_quality_<set>, collection eval-independent, whose tsvectors hold each
-- number with leading zeros also without them: dof_number_variants): every question as
-- written, and the questions holding such a number (092, 0004, 08) with its zeros dropped,
-- through dof_evaluate_questions (text and hybrid); then, in a transaction rolled back, the
-- same with the chunks holding one indexed without them (dof_word_parts alone). Prints MRR@10
-- without / with the variants, per kind where the set has kinds:
--   psql -d pg_dof_quality_mixed -f bench/sql/quality_number_variants.sql
\set ON_ERROR_STOP on
\pset pager off
\pset footer off
SET client_min_messages = warning;
BEGIN;
CREATE TEMP TABLE asked AS
SELECT id, question, corpus_id, reference, false AS unpadded FROM eval_questions
UNION ALL
SELECT id, regexp_replace(question, '\m0+([0-9])', '\1', 'g'), corpus_id, reference, true FROM eval_questions WHERE question ~ '\m0[0-9]';
CREATE TEMP TABLE with_variants AS
SELECT e.method, e.question_id, e.reciprocal_rank
FROM dof_evaluate_questions($$SELECT id::text || CASE WHEN unpadded THEN '/unpadded' ELSE '' END AS id, question, corpus_id AS source_id,
                                     reference AS answer FROM asked$$, 'eval-independent', methods => ARRAY['text', 'hybrid']) e;
UPDATE dof_chunks c
SET tsv = dof_word_parts(k.text_search_config, setweight(to_tsvector(k.text_search_config, array_to_string(c.heading_path || (c.metadata ->> 'identifier'), ' ')), 'A')
                                                  || setweight(to_tsvector(k.text_search_config, c.content), 'B'))
FROM dof_collections k
WHERE k.name = c.collection AND c.collection = 'eval-independent' AND EXISTS (SELECT 1 FROM unnest(c.tsv) l WHERE l.lexeme ~ '^0+[0-9]+$');
CREATE TEMP TABLE without_variants AS
SELECT e.method, e.question_id, e.reciprocal_rank
FROM dof_evaluate_questions($$SELECT id::text || CASE WHEN unpadded THEN '/unpadded' ELSE '' END AS id, question, corpus_id AS source_id,
                                     reference AS answer FROM asked$$, 'eval-independent', methods => ARRAY['text', 'hybrid']) e;
SELECT w.method,
       CASE WHEN w.question_id LIKE '%/unpadded' THEN 'typed without leading zeros' ELSE 'as written' END
       || CASE WHEN GROUPING(q.kind) = 1 THEN '' ELSE ', ' || q.kind END AS questions,
       count(*) AS n, round(avg(o.reciprocal_rank)::numeric, 3) AS without_variants, round(avg(w.reciprocal_rank)::numeric, 3) AS with_variants,
       count(*) FILTER (WHERE w.reciprocal_rank > o.reciprocal_rank) AS up, count(*) FILTER (WHERE w.reciprocal_rank < o.reciprocal_rank) AS down
FROM with_variants w JOIN without_variants o USING (method, question_id)
JOIN eval_questions q ON q.id::text = split_part(w.question_id, '/', 1)
GROUP BY GROUPING SETS ((w.method, w.question_id LIKE '%/unpadded'), (w.method, w.question_id LIKE '%/unpadded', q.kind))
HAVING GROUPING(q.kind) = 1 OR q.kind IS NOT NULL
ORDER BY 1, 2;
ROLLBACK;
