-- One pass of bench/scripts/index_kinds.sh over the scale collection: the vector leg's
-- index query written out for each index kind (src/api/nearest.rs's statement, which runs
-- the halfvec one), at each ef_search of :'efs' (a comma-separated list), in an order that
-- alternates with :round. For every query of bench_queries: k 50 (the hybrid's candidates,
-- wanted 60) and k 10 (wanted 20) timed warm, and recall@10 by ids of the latter against
-- bench_exact_ids (ties broken by id). Appends to bench_kinds (made by the script).
\set ON_ERROR_STOP on
SET client_min_messages = warning;
SET hnsw.iterative_scan = off;
-- float index: the walk and the order by the stored vectors
CREATE OR REPLACE FUNCTION pg_temp.nearest_float(q vector, wanted integer) RETURNS bigint[] LANGUAGE sql STABLE AS $f$
  SELECT array_agg(id ORDER BY d, id) FROM (
    SELECT c.id, (c.embedding::vector(384) <=> q::vector(384))::double precision AS d FROM dof_chunks c
    WHERE vector_dims(c.embedding) = 384 AND c.collection = 'scale'
    ORDER BY c.embedding::vector(384) <=> q::vector(384) LIMIT wanted) x $f$;
-- halfvec index: the walk over 16-bit copies, the order by the stored float vectors
CREATE OR REPLACE FUNCTION pg_temp.nearest_halfvec(q vector, wanted integer) RETURNS bigint[] LANGUAGE sql STABLE AS $f$
  SELECT array_agg(id ORDER BY d, id) FROM (
    SELECT c.id, (c.embedding::vector(384) <=> q::vector(384))::double precision AS d FROM dof_chunks c
    WHERE vector_dims(c.embedding) = 384 AND c.collection = 'scale'
    ORDER BY c.embedding::halfvec(384) <=> q::halfvec(384) LIMIT wanted) x $f$;
CREATE TEMP TABLE kind_timings (n integer, kind text, ef integer, metric text, value double precision);
DO $$
DECLARE
  query record; t0 timestamptz; found bigint[]; point text; points text[];
BEGIN
  SELECT array_agg(k || '/' || e ORDER BY k, e::integer) INTO points
  FROM unnest(ARRAY['float', 'halfvec']) k, unnest(string_to_array(current_setting('bench.efs'), ',')) e;
  IF current_setting('bench.round')::integer % 2 = 0 THEN
    points := ARRAY(SELECT p FROM unnest(points) WITH ORDINALITY AS u(p, i) ORDER BY i DESC);
  END IF;
  FOR query IN SELECT q.n, q.embedding, e.ids FROM bench_queries q JOIN bench_exact_ids e USING (n) ORDER BY n LOOP
    FOREACH point IN ARRAY points LOOP
      PERFORM set_config('hnsw.ef_search', split_part(point, '/', 2), true);
      IF point LIKE 'float/%' THEN
        found := pg_temp.nearest_float(query.embedding, 60);
        t0 := clock_timestamp();
        found := pg_temp.nearest_float(query.embedding, 60);
        INSERT INTO kind_timings VALUES (query.n, 'float', split_part(point, '/', 2)::integer, 'k50 ms', extract(epoch FROM clock_timestamp() - t0) * 1000);
        t0 := clock_timestamp();
        found := pg_temp.nearest_float(query.embedding, 20);
        INSERT INTO kind_timings VALUES (query.n, 'float', split_part(point, '/', 2)::integer, 'k10 ms', extract(epoch FROM clock_timestamp() - t0) * 1000);
      ELSE
        found := pg_temp.nearest_halfvec(query.embedding, 60);
        t0 := clock_timestamp();
        found := pg_temp.nearest_halfvec(query.embedding, 60);
        INSERT INTO kind_timings VALUES (query.n, 'halfvec', split_part(point, '/', 2)::integer, 'k50 ms', extract(epoch FROM clock_timestamp() - t0) * 1000);
        t0 := clock_timestamp();
        found := pg_temp.nearest_halfvec(query.embedding, 20);
        INSERT INTO kind_timings VALUES (query.n, 'halfvec', split_part(point, '/', 2)::integer, 'k10 ms', extract(epoch FROM clock_timestamp() - t0) * 1000);
      END IF;
      INSERT INTO kind_timings VALUES (query.n, split_part(point, '/', 1), split_part(point, '/', 2)::integer, 'recall',
                                       (SELECT count(*) FROM unnest(found[1:10]) f WHERE f = ANY (query.ids))::double precision / 10);
    END LOOP;
  END LOOP;
END
$$;
INSERT INTO bench_kinds
SELECT current_setting('bench.round')::integer, kind, ef,
       percentile_cont(0.5) WITHIN GROUP (ORDER BY value) FILTER (WHERE metric = 'k10 ms'),
       percentile_cont(0.5) WITHIN GROUP (ORDER BY value) FILTER (WHERE metric = 'k50 ms'),
       avg(value) FILTER (WHERE metric = 'recall')
FROM kind_timings GROUP BY kind, ef;
DROP TABLE kind_timings;
