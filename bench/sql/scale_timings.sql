-- The scale benchmark's search timings: one pass over bench_queries (scale_search.sql),
-- inside the server (no client round trip): the hybrid search on its first call, then each
-- search repeated after one warm call — the hybrid with and without embedding the query,
-- the vector leg (50 candidates, as the hybrid asks), the text leg in three variants. Into
-- temporary table `timed` (n, metric, value in ms), emptied first: scale_search.sql keeps
-- them, bench/scripts/huge_pages.sh takes their p50s per pass.
CREATE TEMP TABLE IF NOT EXISTS timed (n integer, metric text, value double precision);
TRUNCATE timed;
DO $$
DECLARE
  query record; t0 timestamptz; variant text;
BEGIN
  FOR query IN SELECT * FROM bench_queries ORDER BY n LOOP
    t0 := clock_timestamp();
    PERFORM * FROM dof_hybrid_search(query.text, 10, 'scale', query_embedding => query.embedding);
    INSERT INTO timed VALUES (query.n, 'hybrid excluding query embedding, first call', extract(epoch FROM clock_timestamp() - t0) * 1000);
    t0 := clock_timestamp();
    PERFORM * FROM dof_hybrid_search(query.text, 10, 'scale', query_embedding => query.embedding);
    INSERT INTO timed VALUES (query.n, 'hybrid excluding query embedding', extract(epoch FROM clock_timestamp() - t0) * 1000);
    t0 := clock_timestamp();
    PERFORM * FROM dof_hybrid_search(query.text, 10, 'scale');
    INSERT INTO timed VALUES (query.n, 'hybrid including query embedding', extract(epoch FROM clock_timestamp() - t0) * 1000);

    PERFORM * FROM dof_vector_search(query.text, 50, 'scale', query_embedding => query.embedding);
    t0 := clock_timestamp();
    PERFORM * FROM dof_vector_search(query.text, 50, 'scale', query_embedding => query.embedding);
    INSERT INTO timed VALUES (query.n, 'vector leg (HNSW, 50 candidates)', extract(epoch FROM clock_timestamp() - t0) * 1000);
    FOREACH variant IN ARRAY ARRAY['bm25/any', 'bm25/all', 'ts_rank_cd/all'] LOOP
      PERFORM * FROM dof_text_search(query.text, 50, 'scale', ranking => split_part(variant, '/', 1), match_terms => split_part(variant, '/', 2));
      t0 := clock_timestamp();
      PERFORM * FROM dof_text_search(query.text, 50, 'scale', ranking => split_part(variant, '/', 1), match_terms => split_part(variant, '/', 2));
      INSERT INTO timed VALUES (query.n, 'text leg, ' || replace(variant, '/', ' ') || ' (50 candidates)', extract(epoch FROM clock_timestamp() - t0) * 1000);
    END LOOP;
  END LOOP;
END
$$;
