-- The scale benchmark's tables, from bench_facts and bench_timings (scale_load.sql,
-- scale_search.sql).
\pset footer off
\pset tuples_only on
SELECT '| corpus at scale | value |' UNION ALL SELECT '|---|---|';
SELECT format('| documents / distinct chunks / tokens | %s / %s / %s |',
              (SELECT count(*) FROM dof_documents WHERE collection = 'scale'), count(*), sum(token_count))
FROM dof_chunks WHERE collection = 'scale';
SELECT format('| chunking and storing through dof_index_document (hash vectors, e5 tokenizer) (s) | %s |', round(value::numeric, 1))
FROM bench_facts WHERE fact = 'writer_load_s';
SELECT format('| HNSW build, %s (s) | %s |', (SELECT array_to_string(reloptions, ', ') FROM pg_class WHERE relname = 'dof_passages_embedding_384'),
              round(value::numeric, 1)) FROM bench_facts WHERE fact = 'hnsw_build_s';
SELECT format('| HNSW index / GIN tsvector index / table with TOAST (MB) | %s / %s / %s |',
              round(pg_relation_size('dof_passages_embedding_384') / 1e6, 1), round(pg_relation_size('dof_chunks_tsv_idx') / 1e6, 1),
              round(pg_table_size('dof_chunks') / 1e6, 1));
SELECT '';
SELECT '| search, ' || count(DISTINCT n) || ' queries | p50 | p95 | max |' FROM bench_timings;
SELECT '|---|---|---|---|';
SELECT format('| %s | %s | %s | %s |', metric,
              round(percentile_cont(0.5) WITHIN GROUP (ORDER BY value)::numeric, 2),
              round(percentile_cont(0.95) WITHIN GROUP (ORDER BY value)::numeric, 2),
              round(max(value)::numeric, 2))
FROM bench_timings WHERE metric NOT LIKE '%recall%'
GROUP BY metric ORDER BY min(CASE WHEN metric LIKE 'hybrid%' THEN 0 ELSE 1 END), metric;
SELECT format('| %s (mean; share of queries at 1.0) | %s | %s of queries | |', metric,
              round(avg(value)::numeric, 3), round(avg((value = 1)::int)::numeric * 100) || '%')
FROM bench_timings WHERE metric LIKE '%recall%' GROUP BY metric ORDER BY metric DESC;
SELECT '';
SELECT '| ratio (same run, medians) | value |' UNION ALL SELECT '|---|---|';
CREATE FUNCTION pg_temp.p50(pattern text) RETURNS numeric LANGUAGE sql
  RETURN (SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY value) FROM bench_timings WHERE metric LIKE pattern)::numeric;
SELECT format('| exact search / HNSW vector leg | %s× |', round(pg_temp.p50('exact%') / nullif(pg_temp.p50('vector leg (%'), 0), 1));
SELECT format('| text leg: ts_rank_cd all terms / BM25 all terms | %s× |', round(pg_temp.p50('text leg, ts_rank_cd all%') / nullif(pg_temp.p50('text leg, bm25 all%'), 0), 2));
SELECT format('| text leg: BM25 any selective term / BM25 all terms | %s× |', round(pg_temp.p50('text leg, bm25 any%') / nullif(pg_temp.p50('text leg, bm25 all%'), 0), 2));
