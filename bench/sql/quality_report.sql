-- The quality benchmark's table for one set (quality.sql): per method and embedding, over
-- the 10 chunks returned, MRR@10 and R@1 / R@5 (the first chunk touching a reference range
-- of the question's document, and whether one is in the top 1 / 5), and the
-- chunking-evaluation set's own measures over the top 5 chunks: recall@5 (the share of the
-- reference characters inside them), precision@5 (the share of their characters that are
-- reference) and IoU@5 (intersection over union of the two character sets). psql
-- variable: set_name.
\pset footer off
\pset tuples_only on
SELECT format('| %s: %s questions, %s documents, max_tokens %s | chunks (late / independent): %s / %s | ingest s (late / independent): %s / %s |',
              :'set_name', (SELECT count(*) FROM eval_questions), (SELECT count(*) FROM eval_documents),
              (SELECT max_tokens FROM dof_collections WHERE name = 'eval-late'),
              (SELECT count(*) FROM dof_chunks WHERE collection = 'eval-late'),
              (SELECT count(*) FROM dof_chunks WHERE collection = 'eval-independent'),
              (SELECT round(value::numeric, 1) FROM eval_facts WHERE fact = 'late_ingest_s'),
              (SELECT round(value::numeric, 1) FROM eval_facts WHERE fact = 'independent_ingest_s'));
SELECT '';
SELECT '| method | embedding | MRR@10 | R@1 | R@5 | recall@5 | precision@5 | IoU@5 | p50 ms |';
SELECT '|---|---|---|---|---|---|---|---|---|';
WITH returned AS (
  SELECT r.method, r.collection, r.question, r.ms, q.reference, c.id, c.char_start, c.char_end, x.rank
  FROM eval_runs r JOIN eval_questions q ON q.id = r.question
  LEFT JOIN LATERAL unnest(r.ids) WITH ORDINALITY AS x(id, rank) ON true
  LEFT JOIN dof_chunks c ON c.id = x.id
       AND c.document_id = (SELECT d.id FROM dof_documents d WHERE d.collection = r.collection AND d.source_id = q.corpus_id)
), scored AS (
  SELECT method, collection, question, ms,
         min(rank) FILTER (WHERE id IS NOT NULL AND reference && int4multirange(int4range(char_start, char_end))) AS first_hit,
         (array_agg(reference))[1] AS reference,
         coalesce(range_agg(int4range(char_start, char_end)) FILTER (WHERE id IS NOT NULL AND rank <= 5), '{}') AS top5
  FROM returned GROUP BY method, collection, question, ms),
measured AS (
  SELECT *, (SELECT coalesce(sum(upper(y) - lower(y)), 0) FROM unnest(reference * top5) y)::double precision AS overlap,
         (SELECT sum(upper(y) - lower(y)) FROM unnest(reference) y)::double precision AS reference_chars,
         (SELECT coalesce(sum(upper(y) - lower(y)), 0) FROM unnest(top5) y)::double precision AS top5_chars,
         (SELECT coalesce(sum(upper(y) - lower(y)), 0) FROM unnest(reference + top5) y)::double precision AS union_chars
  FROM scored)
SELECT format('| %s | %s | %s | %s | %s | %s | %s | %s | %s |', method, CASE WHEN method LIKE 'text%' THEN '-' ELSE replace(collection, 'eval-', '') END,
              round(avg(coalesce(1.0 / first_hit, 0))::numeric, 3), round(avg(coalesce((first_hit = 1)::int, 0))::numeric, 3),
              round(avg(coalesce((first_hit <= 5)::int, 0))::numeric, 3), round(avg(overlap / reference_chars)::numeric, 3),
              round(avg(coalesce(overlap / nullif(top5_chars, 0), 0))::numeric, 3), round(avg(overlap / union_chars)::numeric, 3),
              round(percentile_cont(0.5) WITHIN GROUP (ORDER BY ms)::numeric, 2))
FROM measured GROUP BY method, collection ORDER BY avg(coalesce(1.0 / first_hit, 0)) DESC;
