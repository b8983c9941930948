-- One point of the vector-index grid (bench/scripts/vector_grid.sh) over the scale
-- collection: the index as it stands, dof_vector_search's hnsw.ef_search set to :ef.
-- Times, for every query of bench_queries (scale_search.sql), warm and inside the server:
-- the vector leg alone at k 10 and at the hybrid's 50 candidates, and the hybrid search
-- with the query embedding given; recall@10 against bench_exact (by ids, and counting a
-- result as close as the exact 10th; the hybrid's top 10 against the hybrid's with an exact
-- vector leg). Appends to bench_grid. psql variables: label, ef.
\set ON_ERROR_STOP on
SET client_min_messages = warning;
ALTER FUNCTION dof_vector_search(text, integer, text, jsonb, vector) SET hnsw.ef_search = :ef;
CREATE TEMP TABLE grid_timings (n integer, metric text, value double precision);
DO $$
DECLARE
  query record; t0 timestamptz; approx bigint[]; approx_distances double precision[]; hybrid bigint[];
BEGIN
  FOR query IN SELECT q.n, q.text, q.embedding, e.ids, e.tenth, e.hybrid_ids
               FROM bench_queries q JOIN bench_exact e USING (n) ORDER BY n LOOP
    PERFORM * FROM dof_vector_search(query.text, 10, 'scale', query_embedding => query.embedding);
    t0 := clock_timestamp();
    SELECT array_agg(chunk_id), array_agg(distance) INTO approx, approx_distances
    FROM dof_vector_search(query.text, 10, 'scale', query_embedding => query.embedding);
    INSERT INTO grid_timings VALUES (query.n, 'vector k10 ms', extract(epoch FROM clock_timestamp() - t0) * 1000);
    INSERT INTO grid_timings VALUES (query.n, 'recall ids', (SELECT count(*) FROM unnest(approx) a WHERE a = ANY (query.ids))::double precision / 10);
    INSERT INTO grid_timings VALUES (query.n, 'recall ties', (SELECT count(*) FROM unnest(approx_distances) d WHERE d <= query.tenth + 1e-6)::double precision / 10);
    -- ties at the 10th place: 20 from the index, the first 10 by (distance, id)
    SELECT array_agg(chunk_id) INTO approx FROM dof_vector_search(query.text, 20, 'scale', query_embedding => query.embedding) WHERE rank <= 10;
    INSERT INTO grid_timings VALUES (query.n, 'recall ids of 20', (SELECT count(*) FROM unnest(approx) a WHERE a = ANY (query.ids))::double precision / 10);
    PERFORM * FROM dof_vector_search(query.text, 50, 'scale', query_embedding => query.embedding);
    t0 := clock_timestamp();
    PERFORM * FROM dof_vector_search(query.text, 50, 'scale', query_embedding => query.embedding);
    INSERT INTO grid_timings VALUES (query.n, 'vector k50 ms', extract(epoch FROM clock_timestamp() - t0) * 1000);
    PERFORM * FROM dof_hybrid_search(query.text, 10, 'scale', query_embedding => query.embedding);
    t0 := clock_timestamp();
    SELECT array_agg(chunk_id) INTO hybrid FROM dof_hybrid_search(query.text, 10, 'scale', query_embedding => query.embedding);
    INSERT INTO grid_timings VALUES (query.n, 'hybrid ms', extract(epoch FROM clock_timestamp() - t0) * 1000);
    INSERT INTO grid_timings VALUES (query.n, 'hybrid recall', (SELECT count(*) FROM unnest(hybrid) h WHERE h = ANY (query.hybrid_ids))::double precision / 10);
  END LOOP;
END
$$;
INSERT INTO bench_grid
SELECT :'label', :ef,
       (SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY value) FROM grid_timings WHERE metric = 'vector k10 ms'),
       (SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY value) FROM grid_timings WHERE metric = 'vector k50 ms'),
       (SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY value) FROM grid_timings WHERE metric = 'hybrid ms'),
       (SELECT percentile_cont(0.95) WITHIN GROUP (ORDER BY value) FROM grid_timings WHERE metric = 'hybrid ms'),
       (SELECT avg(value) FROM grid_timings WHERE metric = 'recall ids'),
       (SELECT avg(value) FROM grid_timings WHERE metric = 'recall ties'),
       (SELECT avg(value) FROM grid_timings WHERE metric = 'recall ids of 20'),
       (SELECT avg(value) FROM grid_timings WHERE metric = 'hybrid recall');
DROP TABLE grid_timings;
