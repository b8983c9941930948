-- The seed's tables, per collection, for psql.
CREATE VIEW dof_pattern_stats AS
SELECT collection, pattern, count(*) AS documents,
       round(100.0 * count(*) / sum(count(*)) OVER (PARTITION BY collection), 1) AS percent
FROM dof_documents
GROUP BY collection, pattern;

CREATE VIEW dof_chunk_stats AS
SELECT d.collection, d.pattern, count(*) AS documents,
       round(avg(coalesce(n.chunks, 0)), 1) AS mean_chunks,
       percentile_cont(0.5) WITHIN GROUP (ORDER BY coalesce(n.chunks, 0)) AS median_chunks,
       max(coalesce(n.chunks, 0)) AS max_chunks
FROM dof_documents d
LEFT JOIN (SELECT document_id, count(*) AS chunks FROM dof_chunks GROUP BY document_id) n ON n.document_id = d.id
GROUP BY d.collection, d.pattern;

CREATE VIEW dof_token_stats AS
SELECT c.collection, c.pattern, count(*) AS chunks,
       round(avg(c.token_count), 1) AS mean_tokens,
       percentile_cont(0.5) WITHIN GROUP (ORDER BY c.token_count) AS median_tokens,
       max(c.token_count) AS max_tokens,
       count(*) FILTER (WHERE c.token_count > s.max_tokens) AS over_limit
FROM dof_chunks c JOIN dof_collections s ON s.name = c.collection
GROUP BY c.collection, c.pattern;

CREATE VIEW dof_queue_status AS
SELECT d.collection, q.status, count(*) AS documents, max(q.processed_at) AS last_processed,
       (array_agg(q.error ORDER BY q.processed_at DESC) FILTER (WHERE q.status = 'failed'))[1] AS last_error
FROM dof_queue q JOIN dof_documents d ON d.id = q.document_id
GROUP BY d.collection, q.status;

COMMENT ON VIEW dof_pattern_stats IS 'Documents per pattern and collection (count, %)';
COMMENT ON VIEW dof_chunk_stats IS 'Chunks per document by pattern and collection (mean, median, max)';
COMMENT ON VIEW dof_token_stats IS 'Tokens per chunk by pattern and collection (mean, median, max, chunks over the collection''s limit)';
COMMENT ON VIEW dof_queue_status IS 'Deferred indexing: documents queued, done and failed per collection, with the last error';
