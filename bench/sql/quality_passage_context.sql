-- The document's title in what the model embeds of each passage, measured against the
-- passage alone, through the product's own searches: on a quality database that
-- bench/scripts/retrieval_quality.sh left (pg_dof_quality_<set>, collection
-- eval-independent), every question is scored by dof_evaluate_questions as stored; then,
-- in a transaction rolled back at the end, every passage is embedded again (dof_embed)
-- as its document's title (its front matter's; with -v heading=on, a document without one
-- takes the chunk's top heading), a blank line and the passage, unless the passage starts
-- with that title, and the questions are scored again.
-- The text leg does not change, so only the vector leg and the hybrid are scored. Prints
-- MRR@10 before / after per kind of question (where the set has kinds) and how many
-- questions' first hit moved up and down:
-- The new vectors join the HNSW index beside the old ones (dead to the transaction, still
-- walked past), so the vector leg searches exactly (no index: -v exact=on, the default)
-- both before and after, unless -v exact=off.
--   psql -d pg_dof_quality_mixed [-v heading=on] [-v exact=off] -f bench/sql/quality_passage_context.sql
\set ON_ERROR_STOP on
\if :{?heading}
\else
\set heading off
\endif
\if :{?exact}
\else
\set exact on
\endif
SELECT CASE WHEN :'exact' = 'on' THEN 'off' ELSE 'on' END AS index_scans \gset
SET enable_indexscan = :index_scans;
\pset pager off
SET client_min_messages = warning;
\set questions 'SELECT id, question, corpus_id AS source_id, reference AS answer FROM eval_questions'
CREATE TEMP TABLE context_before AS
SELECT * FROM dof_evaluate_questions(:'questions', 'eval-independent', methods => ARRAY['vector', 'hybrid']);
BEGIN;
CREATE TEMP TABLE context_text AS
SELECT row_number() OVER (ORDER BY p.chunk_id, p.passage) AS n, p.chunk_id, p.passage,
       NOT (t.title IS NULL OR starts_with(lower(ltrim(x.text, '# ')), lower(t.title))) AS titled,
       CASE WHEN t.title IS NULL OR starts_with(lower(ltrim(x.text, '# ')), lower(t.title)) THEN x.text
            ELSE t.title || E'\n\n' || x.text END AS embedded
FROM dof_passages p
JOIN dof_chunks c ON c.id = p.chunk_id
JOIN dof_documents d ON d.id = c.document_id
CROSS JOIN LATERAL (SELECT substr(c.content, p.char_start + 1, p.char_end - p.char_start) AS text) x
CROSS JOIN LATERAL (SELECT nullif(btrim(coalesce(d.title, CASE WHEN :'heading' = 'on' THEN c.heading_path[1] END)), '') AS title) t
WHERE c.collection = 'eval-independent';
SELECT count(*) AS passages, count(*) FILTER (WHERE titled) AS titled, round(avg(length(embedded))) AS mean_chars
FROM context_text;
CREATE TEMP TABLE context_vectors AS
SELECT e.ordinality AS n, e.embedding
FROM dof_embed((SELECT array_agg(embedded ORDER BY n) FROM context_text)) e;
UPDATE dof_passages p SET embedding = v.embedding
FROM context_text t JOIN context_vectors v ON v.n = t.n
WHERE p.chunk_id = t.chunk_id AND p.passage = t.passage;
CREATE TEMP TABLE context_after AS
SELECT * FROM dof_evaluate_questions(:'questions', 'eval-independent', methods => ARRAY['vector', 'hybrid']);
SELECT coalesce(q.kind, 'all') AS questions, b.method, count(*) AS n,
       round(avg(b.reciprocal_rank)::numeric, 3) AS before, round(avg(a.reciprocal_rank)::numeric, 3) AS after,
       count(*) FILTER (WHERE a.reciprocal_rank > b.reciprocal_rank) AS up,
       count(*) FILTER (WHERE a.reciprocal_rank < b.reciprocal_rank) AS down
FROM context_before b
JOIN context_after a ON a.method = b.method AND a.question_id = b.question_id
JOIN eval_questions q ON q.id::text = b.question_id
GROUP BY GROUPING SETS ((b.method), (b.method, q.kind))
ORDER BY q.kind NULLS FIRST, b.method;
ROLLBACK;
