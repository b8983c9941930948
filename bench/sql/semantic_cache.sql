-- The semantic strategy with the real model on the sample (chunkers.sh): cold (empty
-- sentence cache) against re-cut with other thresholds (every window cached), and what a
-- table cache would cost: the same number of 384-dimension vectors fetched by key (index
-- lookups and detoasting alone; a real one would also hash the windows and write misses).
-- psql variables: sample_files, sample_kb.
\set ON_ERROR_STOP on
\pset footer off
\pset tuples_only on
SET client_min_messages = warning;
SET pg_dof.sentence_cache_size = 1000000;
SELECT count(*) FROM dof_embed_query('carga del modelo') \g /dev/null
SELECT dof_sentence_cache_clear() \g /dev/null
CREATE TEMP TABLE passes AS
SELECT 'cold, threshold_type percentile'::text AS pass, c.* FROM dof_compare_chunkers(ARRAY(SELECT body FROM sample), 800, NULL, ARRAY['semantic'], '{"semantic": {"threshold_type": "percentile"}}') c;
INSERT INTO passes SELECT 'cached, threshold_type interquartile', c.* FROM dof_compare_chunkers(ARRAY(SELECT body FROM sample), 800, NULL, ARRAY['semantic'], '{"semantic": {"threshold_type": "interquartile"}}') c;
INSERT INTO passes SELECT 'cached, threshold_type gradient', c.* FROM dof_compare_chunkers(ARRAY(SELECT body FROM sample), 800, NULL, ARRAY['semantic'], '{"semantic": {"threshold_type": "gradient"}}') c;
CREATE TEMP TABLE sentence_vectors (key bigint PRIMARY KEY, v vector(384));
INSERT INTO sentence_vectors
SELECT g, (SELECT array_agg(random()) FROM generate_series(1, 384) s WHERE s > -g)::vector(384)
FROM generate_series(1, (SELECT sentence_cache_hits FROM passes WHERE pass LIKE 'cached%' LIMIT 1)) g;
ANALYZE sentence_vectors;
SELECT clock_timestamp() AS t0 \gset
SELECT count(v) FROM sentence_vectors WHERE key = ANY(ARRAY(SELECT key FROM sentence_vectors)) \g /dev/null
INSERT INTO passes (pass, ms, sentence_cache_hits)
SELECT 'a table cache: the cached vectors fetched by key, no chunking',
       round(extract(epoch FROM clock_timestamp() - :'t0'::timestamptz)::numeric * 1000, 1), count(*) FROM sentence_vectors;
SELECT '';
SELECT format('| semantic with e5, %s legalize-pe documents (%s KB) | ms | sentence windows embedded | cache hits | chunks | ratio (cold / this) |', :'sample_files', :'sample_kb');
SELECT '|---|---|---|---|---|---|';
SELECT format('| %s | %s | %s | %s | %s | %s |', pass, round(ms, 1), coalesce(sentence_embeddings::text, ''), sentence_cache_hits,
              coalesce(chunks::text, ''), round((SELECT ms FROM passes WHERE pass LIKE 'cold%') / nullif(ms, 0), 1))
FROM passes ORDER BY ms DESC;
SELECT format('| hit rate of this session after the passes | %s | | | | |', round(hit_rate::numeric, 3)) FROM dof_sentence_cache();
