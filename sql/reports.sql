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

-- cut_embeddings: chunks embedded before 0.3.0 (chunker version 1 or 2) with more tokens
-- than their model's window holds between its two special tokens: their vectors saw only
-- the start (0.3.0 embeds such a chunk as several windows; dof_requeue re-indexes).
CREATE VIEW dof_token_stats AS
SELECT c.collection, c.pattern, count(*) AS chunks,
       round(avg(c.token_count), 1) AS mean_tokens,
       percentile_cont(0.5) WITHIN GROUP (ORDER BY c.token_count) AS median_tokens,
       max(c.token_count) AS max_tokens,
       count(*) FILTER (WHERE c.token_count > s.max_tokens) AS over_limit,
       count(*) FILTER (WHERE c.chunker_version IN ('1', '2') AND c.token_count > m.max_positions - 2) AS cut_embeddings
FROM dof_chunks c JOIN dof_collections s ON s.name = c.collection
LEFT JOIN dof_models m ON m.name = dof_chunk_model_name(c.model)
GROUP BY c.collection, c.pattern;

CREATE VIEW dof_queue_status AS
SELECT d.collection, q.status, count(*) AS documents, max(q.processed_at) AS last_processed,
       (array_agg(q.error ORDER BY q.processed_at DESC) FILTER (WHERE q.status = 'failed'))[1] AS last_error
FROM dof_queue q JOIN dof_documents d ON d.id = q.document_id
GROUP BY d.collection, q.status;

-- Deferred indexing as it goes, per collection: documents queued, running (claimed by a
-- batch in progress), done and failed, the tokens indexed per second, and the time left at
-- that rate (the queued documents' bytes at the tokens per byte the collection's done
-- documents had). The rate is measured between the batches done in the last minute: the
-- tokens of those after the first, over the time from the first to the last (a batch's
-- documents share its commit's timestamp). Dividing by a whole minute made the first
-- minute of a run look slow (its ETA up to 60 times too long); with one batch done there
-- is no rate yet (NULL).
CREATE VIEW dof_queue_progress AS
WITH queued_documents AS (
    SELECT d.collection, q.status, q.processed_at, octet_length(d.body) AS bytes,
           (SELECT sum(c.token_count) FROM dof_chunks c WHERE c.document_id = d.id) AS tokens,
           q.status = 'done' AND q.processed_at > now() - interval '1 minute' AS recent,
           -- claimed by a batch not yet committed (dof_process_queue_batch's advisory lock)
           q.status <> 'done' AND EXISTS (SELECT 1 FROM pg_locks l
                                          WHERE l.locktype = 'advisory' AND l.classid = dof_queue_lock_class() AND l.objsubid = 2
                                            AND l.objid = (q.document_id % 2147483647)::oid AND l.granted) AS running
    FROM dof_queue q JOIN dof_documents d ON d.id = q.document_id
), timed AS (
    SELECT queued_documents.*,
           recent AND processed_at = min(processed_at) FILTER (WHERE recent) OVER (PARTITION BY collection) AS first_batch
    FROM queued_documents
), per_collection AS (
    SELECT collection,
           count(*) FILTER (WHERE status = 'queued' AND NOT running) AS queued,
           count(*) FILTER (WHERE running) AS running,
           count(*) FILTER (WHERE status = 'done') AS done,
           count(*) FILTER (WHERE status = 'failed') AS failed,
           sum(tokens) FILTER (WHERE recent AND NOT first_batch)
               / nullif(extract(epoch FROM max(processed_at) FILTER (WHERE recent) - min(processed_at) FILTER (WHERE recent)), 0)
               AS rate,
           sum(bytes) FILTER (WHERE status = 'queued') AS queued_bytes,
           sum(tokens) FILTER (WHERE status = 'done')::double precision
               / nullif(sum(bytes) FILTER (WHERE status = 'done' AND tokens IS NOT NULL), 0) AS tokens_per_byte
    FROM timed GROUP BY collection
)
SELECT collection, queued, running, done, failed, round(rate, 1) AS tokens_per_second,
       CASE WHEN rate > 0 AND queued + running > 0
            THEN make_interval(secs => round(queued_bytes * tokens_per_byte / rate::double precision)) END AS eta
FROM per_collection;
-- The chunking strategies compared (semantic vs recursive, how each cuts tables), in psql: the
-- same documents through each strategy. Per-strategy options: options -> 'strategy name'.
CREATE FUNCTION dof_compare_chunkers(docs text[], max_tokens integer DEFAULT 800, model text DEFAULT NULL,
                                     strategies text[] DEFAULT NULL, options jsonb DEFAULT '{}',
                                     overlap_tokens integer DEFAULT 50)
    RETURNS TABLE (strategy text, documents integer, chunks bigint, tokens_mean numeric, tokens_min integer,
                   tokens_max integer, over_limit bigint, chars_mean numeric, ms numeric,
                   sentence_embeddings bigint, sentence_cache_hits bigint)
    LANGUAGE plpgsql VOLATILE SET search_path FROM CURRENT
AS $$
DECLARE
    name text;
    started timestamptz;
    before record;
    after record;
BEGIN
    FOREACH name IN ARRAY coalesce(strategies, ARRAY(SELECT s.name FROM dof_chunk_strategies() s)) LOOP
        SELECT * INTO before FROM dof_sentence_cache();
        started := clock_timestamp();
        SELECT count(*), round(avg(c.token_count), 1), min(c.token_count), max(c.token_count),
               count(*) FILTER (WHERE c.token_count > dof_compare_chunkers.max_tokens),
               round(avg(length(c.content)), 1)
          INTO chunks, tokens_mean, tokens_min, tokens_max, over_limit, chars_mean
          FROM unnest(docs) AS d(body),
               dof_chunk(d.body, dof_compare_chunkers.max_tokens, dof_compare_chunkers.overlap_tokens, NULL, model,
                         name, coalesce(options -> name, '{}')) c;
        ms := round(extract(epoch FROM clock_timestamp() - started)::numeric * 1000, 1);
        SELECT * INTO after FROM dof_sentence_cache();
        strategy := name;
        documents := coalesce(cardinality(docs), 0);
        sentence_embeddings := after.misses - before.misses;
        sentence_cache_hits := after.hits - before.hits;
        RETURN NEXT;
    END LOOP;
END;
$$;
COMMENT ON FUNCTION dof_compare_chunkers(text[], integer, text, text[], jsonb, integer) IS
    'The same documents through each chunking strategy (all, or those named), as the seeds compare them: chunks, tokens per chunk (mean, min, max), chunks over the limit, mean characters, time, and the sentence embeddings the model ran (the semantic strategy; cache hits apart). options: per strategy name, its chunker_options. Example: SELECT * FROM dof_compare_chunkers(ARRAY(SELECT body FROM dof_documents WHERE collection = ''default'' LIMIT 50))';

-- The views read the tables with the caller's rights: row-level security on dof_documents
-- and dof_queue applies to what they count and show (owner's rights showed every role's
-- collections and queue errors).
ALTER VIEW dof_pattern_stats SET (security_invoker = true);
ALTER VIEW dof_chunk_stats SET (security_invoker = true);
ALTER VIEW dof_token_stats SET (security_invoker = true);
ALTER VIEW dof_queue_status SET (security_invoker = true);
ALTER VIEW dof_queue_progress SET (security_invoker = true);

COMMENT ON VIEW dof_queue_progress IS 'Deferred indexing per collection: queued, running, done, failed, tokens per second between the batches done in the last minute (NULL until two are), and the estimated time left at that rate';

COMMENT ON VIEW dof_pattern_stats IS 'Documents per pattern and collection (count, %)';
COMMENT ON VIEW dof_chunk_stats IS 'Chunks per document by pattern and collection (mean, median, max)';
COMMENT ON VIEW dof_token_stats IS 'Tokens per chunk by pattern and collection (mean, median, max, chunks over the collection''s limit, chunks embedded before 0.3.0 whose vector saw only the start: re-index them with dof_requeue)';
COMMENT ON VIEW dof_queue_status IS 'Deferred indexing: documents queued, done and failed per collection, with the last error';
COMMENT ON FUNCTION dof_sentence_cache() IS 'This backend''s cache of sentence vectors (the semantic chunker): entries, capacity (pg_dof.sentence_cache_size), hits, misses and hit rate since the backend started or dof_sentence_cache_clear()';
COMMENT ON FUNCTION dof_sentence_cache_clear() IS 'Empties this backend''s sentence cache and zeroes its counters';
COMMENT ON FUNCTION dof_query_cache() IS 'This backend''s cache of query vectors (the searches'' queries, dof_embed_query, dof_embed with as_query): entries, capacity (pg_dof.query_cache_size), hits, misses and hit rate since the backend started or dof_query_cache_clear()';
COMMENT ON FUNCTION dof_query_cache_clear() IS 'Empties this backend''s query cache and zeroes its counters';
