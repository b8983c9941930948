-- One pass over bench_queries (scale_search.sql) timing, inside the server: the hybrid
-- search (query embedding given) on its first call and repeated, the vector leg (50
-- candidates, as the hybrid asks) and the text leg (BM25, any selective term, 50), each
-- repeated after one warm call. Appends each metric's p50 to bench_pages under :'round'
-- and :'label'.
\set ON_ERROR_STOP on
SET client_min_messages = warning;
CREATE TEMP TABLE pass_timings (n integer, metric text, value double precision);
DO $$
DECLARE
  query record; t0 timestamptz;
BEGIN
  FOR query IN SELECT * FROM bench_queries ORDER BY n LOOP
    t0 := clock_timestamp();
    PERFORM * FROM dof_hybrid_search(query.text, 10, 'scale', query_embedding => query.embedding);
    INSERT INTO pass_timings VALUES (query.n, 'hybrid, first call', extract(epoch FROM clock_timestamp() - t0) * 1000);
    t0 := clock_timestamp();
    PERFORM * FROM dof_hybrid_search(query.text, 10, 'scale', query_embedding => query.embedding);
    INSERT INTO pass_timings VALUES (query.n, 'hybrid, repeated', extract(epoch FROM clock_timestamp() - t0) * 1000);
    PERFORM * FROM dof_vector_search(query.text, 50, 'scale', query_embedding => query.embedding);
    t0 := clock_timestamp();
    PERFORM * FROM dof_vector_search(query.text, 50, 'scale', query_embedding => query.embedding);
    INSERT INTO pass_timings VALUES (query.n, 'vector leg (50 candidates)', extract(epoch FROM clock_timestamp() - t0) * 1000);
    PERFORM * FROM dof_text_search(query.text, 50, 'scale');
    t0 := clock_timestamp();
    PERFORM * FROM dof_text_search(query.text, 50, 'scale');
    INSERT INTO pass_timings VALUES (query.n, 'text leg (BM25, any, 50)', extract(epoch FROM clock_timestamp() - t0) * 1000);
  END LOOP;
END
$$;
INSERT INTO bench_pages SELECT :round, :'label', metric, percentile_cont(0.5) WITHIN GROUP (ORDER BY value) FROM pass_timings GROUP BY metric;
