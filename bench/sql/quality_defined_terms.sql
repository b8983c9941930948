-- The terms a chunk defines, weighted like its heading, measured and not kept
-- (docs/measurements.md, "Defined terms weighted like headings"). On a quality database
-- that bench/scripts/retrieval_quality.sh left (pg_dof_quality_<set>, collection
-- eval-independent): every question through the product's dof_evaluate_questions (text
-- and hybrid), then, in the same transaction, each chunk's tsvector given the terms it
-- defines as weight A (what a heading match counts: twice), every question again, and a
-- rollback. A defined term is what opens a line (after quote and list markers, numbering
-- such as 1.1.12. / X. / a), and bold) up to a colon followed by text on the same line:
-- a capitalised term of at most 12 words, without commas or semicolons ("CNRTS: Catálogo
-- Nacional...", "III. **Bienes de consumo:** Los que..."). Prints MRR@10 before / after
-- per method, per kind where the set has kinds, and on the definition questions ("qué
-- es", "qué significa", "definición", "se entiende"):
--   psql -d pg_dof_quality_dof -f bench/sql/quality_defined_terms.sql
\set ON_ERROR_STOP on
\pset pager off
\pset footer off
SET client_min_messages = warning;
BEGIN;
CREATE FUNCTION pg_temp.defined_terms(content text) RETURNS text LANGUAGE sql IMMUTABLE
RETURN (SELECT string_agg(DISTINCT m[1], ' . ')
        FROM regexp_matches(content,
          '^[ \t>]*(?:[-*+][ \t]+)?(?:\*\*)?(?:(?:\d+(?:\.\d+)*\.?|[IVXLCDM]+\.|[a-zA-Z][.)])[ \t]+)?(?:\*\*)?([[:upper:]][^:\n*|,;]{0,99}?)[ \t]*(?:\*\*)?:(?:\*\*)?[ \t]+[^ \t\n]',
          'gn') AS m
        WHERE array_length(regexp_split_to_array(m[1], '\s+'), 1) <= 12);
CREATE TEMP TABLE before_terms AS
SELECT e.method, e.question_id, e.reciprocal_rank
FROM dof_evaluate_questions($$SELECT id, question, corpus_id AS source_id, reference AS answer FROM eval_questions$$,
                            'eval-independent', methods => ARRAY['text', 'hybrid']) e;
UPDATE dof_chunks c SET tsv = c.tsv || setweight(to_tsvector(col.text_search_config, pg_temp.defined_terms(c.content)), 'A')
FROM dof_collections col
WHERE col.name = c.collection AND c.collection = 'eval-independent' AND pg_temp.defined_terms(c.content) IS NOT NULL;
SELECT count(*) FILTER (WHERE pg_temp.defined_terms(content) IS NOT NULL) AS chunks_defining, count(*) AS chunks
FROM dof_chunks WHERE collection = 'eval-independent';
CREATE TEMP TABLE with_terms AS
SELECT e.method, e.question_id, e.reciprocal_rank
FROM dof_evaluate_questions($$SELECT id, question, corpus_id AS source_id, reference AS answer FROM eval_questions$$,
                            'eval-independent', methods => ARRAY['text', 'hybrid']) e;
SELECT b.method, CASE WHEN GROUPING(q.kind) = 1 THEN 'all' ELSE q.kind END AS questions, count(*) AS n, round(avg(b.reciprocal_rank)::numeric, 3) AS before,
       round(avg(x.reciprocal_rank)::numeric, 3) AS with_terms,
       count(*) FILTER (WHERE x.reciprocal_rank > b.reciprocal_rank) AS up, count(*) FILTER (WHERE x.reciprocal_rank < b.reciprocal_rank) AS down
FROM before_terms b JOIN with_terms x USING (method, question_id) JOIN eval_questions q ON q.id::text = b.question_id
GROUP BY GROUPING SETS ((b.method), (b.method, q.kind))
HAVING GROUPING(q.kind) = 1 OR q.kind IS NOT NULL
UNION ALL
SELECT b.method, 'definitions', count(*), round(avg(b.reciprocal_rank)::numeric, 3), round(avg(x.reciprocal_rank)::numeric, 3),
       count(*) FILTER (WHERE x.reciprocal_rank > b.reciprocal_rank), count(*) FILTER (WHERE x.reciprocal_rank < b.reciprocal_rank)
FROM before_terms b JOIN with_terms x USING (method, question_id) JOIN eval_questions q ON q.id::text = b.question_id
WHERE q.question ~* '(qu[ée] (es|son|significa) |definici[oó]n|se entiende)'
GROUP BY b.method
ORDER BY 1, 2;
ROLLBACK;
