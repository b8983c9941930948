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

-- Deferred indexing as it goes, per collection: documents queued, done and failed, the
-- tokens indexed per second over the last minute, and the time left at that rate (the
-- queued documents' bytes at the tokens per byte the collection's done documents had).
CREATE VIEW dof_queue_progress AS
WITH queued_documents AS (
    SELECT d.collection, q.status, q.processed_at, octet_length(d.body) AS bytes,
           (SELECT sum(c.token_count) FROM dof_chunks c WHERE c.document_id = d.id) AS tokens
    FROM dof_queue q JOIN dof_documents d ON d.id = q.document_id
), per_collection AS (
    SELECT collection,
           count(*) FILTER (WHERE status = 'queued') AS queued,
           count(*) FILTER (WHERE status = 'done') AS done,
           count(*) FILTER (WHERE status = 'failed') AS failed,
           coalesce(sum(tokens) FILTER (WHERE status = 'done' AND processed_at > now() - interval '1 minute'), 0) AS tokens_last_minute,
           sum(bytes) FILTER (WHERE status = 'queued') AS queued_bytes,
           sum(tokens) FILTER (WHERE status = 'done')::double precision
               / nullif(sum(bytes) FILTER (WHERE status = 'done' AND tokens IS NOT NULL), 0) AS tokens_per_byte
    FROM queued_documents GROUP BY collection
)
SELECT collection, queued, done, failed, round(tokens_last_minute / 60.0, 1) AS tokens_per_second,
       CASE WHEN tokens_last_minute > 0 AND queued > 0
            THEN make_interval(secs => round(queued_bytes * tokens_per_byte / (tokens_last_minute / 60.0))) END AS eta
FROM per_collection;
COMMENT ON VIEW dof_queue_progress IS 'Deferred indexing per collection: queued, done, failed, tokens per second over the last minute, and the estimated time left at that rate';

COMMENT ON VIEW dof_pattern_stats IS 'Documents per pattern and collection (count, %)';
COMMENT ON VIEW dof_chunk_stats IS 'Chunks per document by pattern and collection (mean, median, max)';
COMMENT ON VIEW dof_token_stats IS 'Tokens per chunk by pattern and collection (mean, median, max, chunks over the collection''s limit)';
COMMENT ON VIEW dof_queue_status IS 'Deferred indexing: documents queued, done and failed per collection, with the last error';
