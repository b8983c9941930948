-- The quality benchmark's table (quality.sql).
\pset footer off
\pset tuples_only on
SELECT format('| chunking-evaluation: %s questions, %s documents, max_tokens %s | chunks (late / independent): %s / %s | ingest s (late / independent): %s / %s |',
              (SELECT count(*) FROM eval_questions), (SELECT count(*) FROM eval_documents),
              (SELECT max_tokens FROM dof_collections WHERE name = 'eval-late'),
              (SELECT count(*) FROM dof_chunks WHERE collection = 'eval-late'),
              (SELECT count(*) FROM dof_chunks WHERE collection = 'eval-independent'),
              (SELECT round(value::numeric, 1) FROM eval_facts WHERE fact = 'late_ingest_s'),
              (SELECT round(value::numeric, 1) FROM eval_facts WHERE fact = 'independent_ingest_s'));
SELECT '';
SELECT '| method | embedding | recall@' || current_setting('eval.k') || ' (reference characters) | hit@' || current_setting('eval.k') || ' | questions with no result | p50 ms |';
SELECT '|---|---|---|---|---|---|';
WITH scored AS (
  SELECT r.method, r.collection, r.question, r.ms, cardinality(r.ids) IS NULL AS empty,
         coalesce((SELECT sum(upper(x) - lower(x)) FROM unnest(q.reference * range_agg(int4range(c.char_start, c.char_end)) FILTER (WHERE c.id IS NOT NULL)) x), 0)::double precision
           / (SELECT sum(upper(x) - lower(x)) FROM unnest(q.reference) x) AS recall
  FROM eval_runs r JOIN eval_questions q ON q.id = r.question
  LEFT JOIN dof_chunks c ON c.id = ANY (r.ids)
       AND c.document_id = (SELECT d.id FROM dof_documents d WHERE d.collection = r.collection AND d.source_id = q.corpus_id)
  GROUP BY r.method, r.collection, r.question, r.ms, r.ids, q.reference)
SELECT format('| %s | %s | %s | %s | %s | %s |', method, CASE WHEN method LIKE 'text%' THEN '-' ELSE replace(collection, 'eval-', '') END,
              round(avg(recall)::numeric, 3), round(avg((recall > 0)::int)::numeric, 3), sum(empty::int),
              round(percentile_cont(0.5) WITHIN GROUP (ORDER BY ms)::numeric, 2))
FROM scored GROUP BY method, collection ORDER BY avg(recall) DESC;
