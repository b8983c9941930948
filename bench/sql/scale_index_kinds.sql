-- One pass of bench/scripts/index_kinds.sh over the scale collection: the vector leg's
-- index query written out for each index kind (src/api/vector_search.rs's statement, which runs
-- the halfvec one), at each ef_search of setting bench.efs and each candidate pool of
-- bench.pools (comma-separated lists; the leg re-ranks max(100, k + 10) candidates, 20 was
-- k 10's pool before), points in an order that alternates with bench.round. For every
-- query of bench_queries: the query timed warm, and recall@10 by ids of its first 10 by
-- float distance against bench_exact_ids (ties broken by id). Appends to bench_kinds
-- (made by the script). The scale collection holds one passage per chunk (scale_load.sql),
-- so a passage's chunk id is its id.
\set ON_ERROR_STOP on
SET client_min_messages = warning;
SET hnsw.iterative_scan = off;
-- float index: the walk and the order by the stored vectors
CREATE OR REPLACE FUNCTION pg_temp.nearest_float(q vector, wanted integer) RETURNS bigint[] LANGUAGE sql STABLE AS $f$
  SELECT array_agg(id ORDER BY d, id) FROM (
    SELECT p.chunk_id AS id, (p.embedding::vector(384) <=> q::vector(384))::double precision AS d
    FROM dof_passages p JOIN dof_chunks c ON c.id = p.chunk_id
    WHERE vector_dims(p.embedding) = 384 AND c.collection = 'scale'
    ORDER BY p.embedding::vector(384) <=> q::vector(384) LIMIT wanted) x $f$;
-- halfvec index: the walk over 16-bit copies, the order by the stored float vectors
CREATE OR REPLACE FUNCTION pg_temp.nearest_halfvec(q vector, wanted integer) RETURNS bigint[] LANGUAGE sql STABLE AS $f$
  SELECT array_agg(id ORDER BY d, id) FROM (
    SELECT p.chunk_id AS id, (p.embedding::vector(384) <=> q::vector(384))::double precision AS d
    FROM dof_passages p JOIN dof_chunks c ON c.id = p.chunk_id
    WHERE vector_dims(p.embedding) = 384 AND c.collection = 'scale'
    ORDER BY p.embedding::halfvec(384) <=> q::halfvec(384) LIMIT wanted) x $f$;
CREATE OR REPLACE FUNCTION pg_temp.nearest(kind text, q vector, wanted integer) RETURNS bigint[] LANGUAGE sql STABLE AS $f$
  SELECT CASE kind WHEN 'float' THEN pg_temp.nearest_float(q, wanted) ELSE pg_temp.nearest_halfvec(q, wanted) END $f$;
CREATE TEMP TABLE kind_timings (n integer, kind text, ef integer, pool integer, ms double precision, recall double precision);
DO $$
DECLARE
  query record; t0 timestamptz; found bigint[]; point text[]; points text[];
BEGIN
  SELECT array_agg(k || '/' || e || '/' || p ORDER BY k, e::integer, p::integer) INTO points
  FROM unnest(ARRAY['float', 'halfvec']) k, unnest(string_to_array(current_setting('bench.efs'), ',')) e,
       unnest(string_to_array(current_setting('bench.pools'), ',')) p;
  IF current_setting('bench.round')::integer % 2 = 0 THEN
    points := ARRAY(SELECT p FROM unnest(points) WITH ORDINALITY AS u(p, i) ORDER BY i DESC);
  END IF;
  FOR query IN SELECT q.n, q.embedding, e.ids FROM bench_queries q JOIN bench_exact_ids e USING (n) ORDER BY n LOOP
    FOR i IN 1 .. cardinality(points) LOOP
      point := string_to_array(points[i], '/');  -- kind, ef_search, pool
      PERFORM set_config('hnsw.ef_search', point[2], true);
      found := pg_temp.nearest(point[1], query.embedding, point[3]::integer);
      t0 := clock_timestamp();
      found := pg_temp.nearest(point[1], query.embedding, point[3]::integer);
      INSERT INTO kind_timings VALUES (query.n, point[1], point[2]::integer, point[3]::integer, extract(epoch FROM clock_timestamp() - t0) * 1000,
                                       (SELECT count(*) FROM unnest(found[1:10]) f WHERE f = ANY (query.ids))::double precision / 10);
    END LOOP;
  END LOOP;
END
$$;
INSERT INTO bench_kinds
SELECT current_setting('bench.round')::integer, kind, ef, pool, percentile_cont(0.5) WITHIN GROUP (ORDER BY ms), avg(recall)
FROM kind_timings GROUP BY kind, ef, pool;
DROP TABLE kind_timings;
