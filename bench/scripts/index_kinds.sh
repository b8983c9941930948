#!/usr/bin/env bash
# The vector leg's HNSW index on halfvec (what dof_vector_index builds) vs one on the float
# vectors, same build settings, over the scale collection (database pg_dof_scale, made by
# bench/scripts/store_search.sh: 120,689 real chunks with their real e5 vectors). The float
# index is built beside the product's for the run and dropped at the end. Each round
# (ROUNDS, default 4) runs every (kind, ef_search, candidate pool) point of EFS (default
# "300 400") and POOLS (default "20 100": the leg re-ranks max(100, k + 10) candidates; 20
# was k 10's before) over the 100 queries, in an order that alternates between rounds
# (bench/sql/scale_index_kinds.sql): the leg's query p50 and recall@10 by ids against exact
# search. Prints the median over the rounds, recall, the index sizes and the ratios.
set -euo pipefail
. "$(dirname "$0")/common.bash"
export PG_DOF_DB=pg_dof_scale
ROUNDS="${ROUNDS:-4}"
EFS="${EFS:-300 400}"
POOLS="${POOLS:-20 100}"
require_scale_data
(cd "$here/.." && cargo run --release -q -p dof_bench --bin cpu)
trap drop_float_index EXIT
build_float_index
q <<'SQL'
SET client_min_messages = warning;
DROP TABLE IF EXISTS bench_kinds;
CREATE TABLE bench_kinds (round integer, kind text, ef integer, pool integer, ms double precision, recall double precision);
-- the exact answers (a sequential scan per query), kept for the scale database
CREATE TABLE IF NOT EXISTS bench_exact_ids AS
SELECT q.n, (SELECT array_agg(id ORDER BY d, id) FROM (SELECT id, embedding <=> q.embedding AS d FROM dof_chunks
                                                        WHERE collection = 'scale' ORDER BY 2, 1 LIMIT 10) x) AS ids
FROM bench_queries q;
SQL
for round in $(seq "$ROUNDS"); do
  PGOPTIONS="-c bench.round=$round -c bench.efs=${EFS// /,} -c bench.pools=${POOLS// /,}" q -f "$bench/sql/scale_index_kinds.sql"
done
echo "| HNSW index (m 16, ef_construction 256), $ROUNDS rounds of 100 queries | ef_search | candidates re-ranked | vector leg p50 (ms) | recall@10 by ids | index (MB) |"
echo "|---|---|---|---|---|---|"
q -c "SELECT format('| %s | %s | %s | %s | %s | %s |', kind, ef, pool, round(percentile_cont(0.5) WITHIN GROUP (ORDER BY ms)::numeric, 2),
                    round(avg(recall)::numeric, 3),
                    round(pg_relation_size(CASE kind WHEN 'float' THEN 'bench_float_384' ELSE 'dof_passages_embedding_384' END) / 1e6))
      FROM bench_kinds GROUP BY kind, ef, pool ORDER BY ef, pool, kind"
echo
echo "| ratio (same run, medians over the rounds) | float / halfvec |"
echo "|---|---|"
q -c "WITH m AS (SELECT kind, ef, pool, percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) AS ms FROM bench_kinds GROUP BY kind, ef, pool)
      SELECT format('| vector leg, ef_search %s, %s candidates | %s× |', f.ef, f.pool, round((f.ms / h.ms)::numeric, 2))
      FROM m f JOIN m h ON (h.ef, h.pool, h.kind) = (f.ef, f.pool, 'halfvec') WHERE f.kind = 'float' ORDER BY f.ef, f.pool"
echo "| index size | $(q -c "SELECT round(pg_relation_size('bench_float_384')::numeric / pg_relation_size('dof_passages_embedding_384'), 2)")× |"
