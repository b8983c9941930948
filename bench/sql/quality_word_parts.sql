-- Identifiers joined by slashes and dots (docs/measurements.md, "Identifiers joined by
-- slashes and dots"). On a quality database that bench/scripts/retrieval_quality.sh left
-- with this tree (pg_dof_quality_<set>, collection eval-independent, whose tsvectors hold
-- each lexeme joined by a slash or a dot, cusco/gr or g.r.pasco, also as its words:
-- dof_word_parts, and whose queries' slashes and dots separate words: dof_query_words):
-- every question as written, and the questions holding such a lexeme typed with spaces
-- instead, through dof_evaluate_questions (text and hybrid); then, in a transaction rolled
-- back, the same with the hyphen alone separating a query's words and the chunks holding
-- one indexed without the parts. Prints MRR@10 without / with, per kind where the set has
-- kinds, and the questions whose hybrid rank changed:
--   psql -d pg_dof_quality_mixed -f bench/sql/quality_word_parts.sql
\set ON_ERROR_STOP on
\pset pager off
\pset footer off
SET client_min_messages = warning;
BEGIN;
CREATE TEMP TABLE asked AS
SELECT id, question, corpus_id, reference, false AS spaced,
       EXISTS (SELECT 1 FROM unnest(to_tsvector(k.text_search_config, question)) u
               WHERE u.lexeme ~ '[./]' AND dof_query_words(btrim(u.lexeme, '/.')) <> u.lexeme) AS joined
FROM eval_questions, dof_collections k WHERE k.name = 'eval-independent';
INSERT INTO asked
SELECT id, regexp_replace(question, '([[:alnum:]])[./]+(?=[[:alnum:]])', '\1 ', 'g'), corpus_id, reference, true, true FROM asked WHERE joined;
CREATE TEMP VIEW asked_ids AS
SELECT *, id::text || CASE WHEN spaced THEN '/spaced' ELSE '' END AS question_id FROM asked;
CREATE TEMP TABLE with_parts AS
SELECT e.method, e.question_id, e.reciprocal_rank
FROM dof_evaluate_questions('SELECT question_id AS id, question, corpus_id AS source_id, reference AS answer FROM asked_ids',
                            'eval-independent', methods => ARRAY['text', 'hybrid']) e;
-- without: the hyphen alone separates a query's words, and the chunks are indexed as before
CREATE OR REPLACE FUNCTION dof_query_words(query text) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    RETURN regexp_replace(query, '([[:alnum:]])-(?=[[:alnum:]])', '\1 ', 'g');
UPDATE dof_chunks c
SET tsv = dof_number_variants(setweight(to_tsvector(k.text_search_config, array_to_string(c.heading_path || (c.metadata ->> 'identifier'), ' ')), 'A')
                              || setweight(to_tsvector(k.text_search_config, c.content), 'B'))
FROM dof_collections k
WHERE k.name = c.collection AND c.collection = 'eval-independent' AND EXISTS (SELECT 1 FROM unnest(c.tsv) l WHERE l.lexeme ~ '[./]');
CREATE TEMP TABLE without_parts AS
SELECT e.method, e.question_id, e.reciprocal_rank
FROM dof_evaluate_questions('SELECT question_id AS id, question, corpus_id AS source_id, reference AS answer FROM asked_ids',
                            'eval-independent', methods => ARRAY['text', 'hybrid']) e;
SELECT w.method,
       CASE WHEN a.spaced THEN 'joined, typed with spaces' WHEN a.joined THEN 'joined, as written' ELSE 'others, as written' END
       || CASE WHEN GROUPING(q.kind) = 1 THEN '' ELSE ', ' || q.kind END AS questions,
       count(*) AS n, round(avg(o.reciprocal_rank)::numeric, 3) AS without_parts, round(avg(w.reciprocal_rank)::numeric, 3) AS with_parts,
       count(*) FILTER (WHERE w.reciprocal_rank > o.reciprocal_rank) AS up, count(*) FILTER (WHERE w.reciprocal_rank < o.reciprocal_rank) AS down
FROM with_parts w JOIN without_parts o USING (method, question_id)
JOIN asked_ids a USING (question_id)
JOIN eval_questions q ON q.id = a.id
GROUP BY GROUPING SETS ((w.method, a.spaced, a.joined), (w.method, a.spaced, a.joined, q.kind))
HAVING GROUPING(q.kind) = 1 OR (q.kind IS NOT NULL AND a.joined)
ORDER BY 1, 2;
SELECT a.question, round(o.reciprocal_rank::numeric, 2) AS without_parts, round(w.reciprocal_rank::numeric, 2) AS with_parts
FROM with_parts w JOIN without_parts o USING (method, question_id) JOIN asked_ids a USING (question_id)
WHERE w.method = 'hybrid' AND w.reciprocal_rank IS DISTINCT FROM o.reciprocal_rank
ORDER BY w.reciprocal_rank - o.reciprocal_rank, a.question;
ROLLBACK;
