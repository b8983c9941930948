#!/usr/bin/env bash
# The scale benchmark's search (bench/sql/scale_search.sql over database pg_dof_scale,
# made by bench/scripts/store_search.sh) with this tree's dof_hybrid_search and
# dof_vector_search, huge pages and timing loop, against those of git revision BEFORE
# (default d5bd5ce: before the kept vector-leg plan, reading content for k rows only,
# huge pages, and exact searches in a loop of their own), with 4 kB pages. The two
# alternate ROUNDS times (default 4), each after a restart of the cluster, so drift on this
# shared machine hits both; prints each round's p50s and the ratio of the medians. The
# current definitions and setting are restored at the end. The revision's vector leg
# orders by the float vectors, which the product's halfvec index does not answer: an HNSW
# index on them, same settings, is built beside it for the run (dropped at the end).
set -euo pipefail
. "$(dirname "$0")/common.bash"
export PG_DOF_DB=pg_dof_scale
BEFORE="${BEFORE:-d5bd5ce}"
ROUNDS="${ROUNDS:-4}"
repo="$(cd "$here/.." && pwd)"
require_scale_data
(cd "$repo" && cargo run --release -q -p dof_bench --bin cpu)
work="$(mktemp -d)"
declare -A search
for state in before after; do
  # sql/vector_search.sql was sql/vector_leg.sql before 0.3.0
  if [ $state = before ]; then show() { git -C "$repo" show "$BEFORE:$1" 2>/dev/null || git -C "$repo" show "$BEFORE:${1/vector_search/vector_leg}"; }; else show() { cat "$repo/$1"; }; fi
  show sql/fusion.sql | definition dof_hybrid_search > "$work/$state.sql"
  show sql/vector_search.sql | definition dof_vector_search >> "$work/$state.sql"
done
git -C "$repo" show "$BEFORE:bench/sql/scale_search.sql" > "$work/before-search.sql"
search=([before]="$work/before-search.sql" [after]="$repo/bench/sql/scale_search.sql")  # the latter includes scale_timings.sql
restore() {
  drop_float_index
  q -c "ALTER SYSTEM RESET huge_pages" >/dev/null 2>&1 || true
  "$here/cluster.sh" restart >/dev/null
  q -f "$work/after.sql" >/dev/null
  rm -rf "$work"
}
trap restore EXIT
build_float_index
q -c "SET client_min_messages = warning; DROP TABLE IF EXISTS bench_before_after; CREATE TABLE bench_before_after (round integer, state text, metric text, p50 double precision, mean double precision)"
for round in $(seq "$ROUNDS"); do
  for state in before after; do
    if [ $state = before ]; then q -c "ALTER SYSTEM SET huge_pages = off" >/dev/null; else q -c "ALTER SYSTEM RESET huge_pages" >/dev/null; fi
    "$here/cluster.sh" restart >/dev/null
    q -f "$work/$state.sql" >/dev/null
    q -c "SET client_min_messages = warning; DROP TABLE IF EXISTS bench_queries, bench_timings"
    q -v queries=100 -f "${search[$state]}" >/dev/null
    q -c "INSERT INTO bench_before_after SELECT $round, '$state', metric, percentile_cont(0.5) WITHIN GROUP (ORDER BY value), avg(value)
          FROM bench_timings WHERE metric IN ('hybrid excluding query embedding', 'vector leg (HNSW, 50 candidates)',
                                              'vector leg recall@10 vs exact (same ids)') GROUP BY metric"
  done
done
echo "| scale search, 100 queries, $BEFORE vs this tree, $ROUNDS alternating rounds | before: p50 per round | after: p50 per round | ratio of medians |"
echo "|---|---|---|---|"
q -c "WITH lists AS (
        SELECT metric, state, percentile_cont(0.5) WITHIN GROUP (ORDER BY p50) AS median,
               CASE WHEN metric LIKE '%recall%' THEN 'mean ' || string_agg(round(mean::numeric, 3)::text, ', ' ORDER BY round)
                    ELSE string_agg(round(p50::numeric, 2)::text || ' ms', ', ' ORDER BY round) END AS list
        FROM bench_before_after GROUP BY metric, state)
      SELECT format('| %s | %s | %s | %s |', b.metric, b.list, a.list,
                    CASE WHEN b.metric NOT LIKE '%recall%' THEN round((b.median / a.median)::numeric, 2) || '×' ELSE '' END)
      FROM lists b JOIN lists a ON a.metric = b.metric AND a.state = 'after'
      WHERE b.state = 'before' ORDER BY b.metric"
