#!/usr/bin/env bash
# The vector leg's speed and recall over the scale collection (database pg_dof_scale, made
# by bench/scripts/store_search.sh: 120,689 real chunks with their real e5 vectors) for a
# grid of HNSW build settings (CONFIGS, each rebuilt in turn and timed) and query-time
# hnsw.ef_search values (EFS, set on dof_vector_search as an administrator would). Each point
# times the vector leg at k 10 and 50 and the hybrid search (query embedding given), and
# measures recall@10 against exact search (by ids, ties broken by id; and counting a result
# as close as the exact 10th). Prints one markdown table; the product's index and setting
# are restored at the end.
#   CONFIGS (default "m=16,ef_construction=128 m=16,ef_construction=256 m=24,ef_construction=256")
#   EFS (default "100 200 300 400")
set -euo pipefail
. "$(dirname "$0")/common.bash"
export PG_DOF_DB=pg_dof_scale
CONFIGS="${CONFIGS:-m=16,ef_construction=128 m=16,ef_construction=256 m=24,ef_construction=256}"
EFS="${EFS:-100 200 300 400}"
require_scale_data
(cd "$here/.." && cargo run --release -q -p dof_bench --bin cpu)
product_ef="$(q -c "SELECT split_part(c, '=', 2) FROM pg_proc, unnest(proconfig) c
                    WHERE proname = 'dof_vector_search' AND c LIKE 'hnsw.ef_search=%'")"
product_index="$(q -c "SELECT pg_get_indexdef('dof_passages_embedding_384'::regclass)")"
q <<'SQL'
SET client_min_messages = warning;
DROP TABLE IF EXISTS bench_grid;
CREATE TABLE bench_grid (label text, ef integer, vector_k10 double precision, vector_k50 double precision,
                         hybrid_p50 double precision, hybrid_p95 double precision, recall_ids double precision,
                         recall_ties double precision, recall_ids_of_20 double precision, hybrid_recall double precision, build_s double precision,
                         index_mb double precision);
SQL
# exact answers do not depend on the index: computed once per scale database
if ! q -c "SELECT 1 FROM bench_exact LIMIT 1" >/dev/null 2>&1; then
q <<'SQL'
SET client_min_messages = warning;
SET enable_indexscan = off;
CREATE TABLE bench_exact AS
SELECT q.n, e.ids, e.tenth
FROM bench_queries q,
     LATERAL (SELECT array_agg(id ORDER BY distance, id) AS ids, max(distance) AS tenth
              FROM (SELECT id, embedding <=> q.embedding AS distance FROM dof_chunks
                    WHERE collection = 'scale' ORDER BY embedding <=> q.embedding, id LIMIT 10) t) e;
-- the hybrid's top 10 with an exact vector leg (a sequential scan; the text leg's GIN
-- index is a bitmap scan, still allowed)
ALTER TABLE bench_exact ADD COLUMN hybrid_ids bigint[];
UPDATE bench_exact e SET hybrid_ids = (SELECT array_agg(chunk_id) FROM dof_hybrid_search(q.text, 10, 'scale', query_embedding => q.embedding))
FROM bench_queries q WHERE q.n = e.n;
SQL
fi
rebuilt=0
for config in $CONFIGS; do
  if [ "$config" != current ]; then  # "current": the index as it stands
    start=$(date +%s.%N)
    q -c "SET client_min_messages = warning; SET maintenance_work_mem = '2GB'; DROP INDEX dof_passages_embedding_384;
          CREATE INDEX dof_passages_embedding_384 ON dof_passages USING hnsw ((embedding::halfvec(384)) halfvec_cosine_ops)
          WITH ($config) WHERE vector_dims(embedding) = 384"
    build_s=$(echo "$(date +%s.%N) - $start" | bc)
    rebuilt=1
    q -c "VACUUM ANALYZE dof_passages" 2>/dev/null
  else
    config="$(q -c "SELECT array_to_string(reloptions, ',') FROM pg_class WHERE relname = 'dof_passages_embedding_384'") (as built)${LABEL:+, $LABEL}"
    build_s=NULL
  fi
  for ef in $EFS; do
    q -v label="$config" -v ef="$ef" -f "$bench/sql/scale_vector_grid.sql"
  done
  q -c "UPDATE bench_grid SET build_s = $build_s, index_mb = pg_relation_size('dof_passages_embedding_384') / 1e6 WHERE label = '$config'"
done
if [ "$rebuilt" = 1 ]; then
  q -c "SET client_min_messages = warning; DROP INDEX dof_passages_embedding_384; SET maintenance_work_mem = '2GB'; $product_index"
fi
q -c "ALTER FUNCTION dof_vector_search(text, integer, text, jsonb, vector) SET hnsw.ef_search = $product_ef"
echo "| HNSW build | ef_search | vector leg k 10 p50 (ms) | k 50 p50 | hybrid p50 / p95 (ms) | vector recall@10 by ids | with distance ties | by ids, first 10 of 20 | hybrid top 10 vs exact vector leg | build (s) | index (MB) |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
q -c "SELECT format('| %s | %s | %s | %s | %s / %s | %s | %s | %s | %s | %s | %s |', label, ef, round(vector_k10::numeric, 2), round(vector_k50::numeric, 2),
             round(hybrid_p50::numeric, 2), round(hybrid_p95::numeric, 2), round(recall_ids::numeric, 3), round(recall_ties::numeric, 3),
             round(recall_ids_of_20::numeric, 3), round(hybrid_recall::numeric, 3), coalesce(round(build_s::numeric)::text, '-'), round(index_mb::numeric))
      FROM bench_grid ORDER BY label, ef"
