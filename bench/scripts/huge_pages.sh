#!/usr/bin/env bash
# Search at scale with shared memory in 2 MB huge pages vs 4 kB pages (database
# pg_dof_scale, made by bench/scripts/store_search.sh). The project's cluster is restarted
# with huge_pages = on and off in turn (ROUNDS times each, alternating, so drift on this
# shared machine hits both), a warm-up pass after each start, then one timed pass of
# store_search's timings (bench/sql/scale_timings.sql). Prints each metric's p50 (median over the rounds), the
# ratio, and in how many rounds huge pages were the faster of the pair. Needs root for the
# huge pages (scripts/cluster.sh reserves them); the cluster's setting is restored at the end.
set -euo pipefail
. "$(dirname "$0")/common.bash"
export PG_DOF_DB=pg_dof_scale
ROUNDS="${ROUNDS:-6}"
require_scale_data
(cd "$here/.." && cargo run --release -q -p dof_bench --bin cpu)
restore() { q -c "ALTER SYSTEM RESET huge_pages" >/dev/null 2>&1 || true; "$here/cluster.sh" restart >/dev/null; }
trap restore EXIT
q -c "SET client_min_messages = warning; DROP TABLE IF EXISTS bench_pages; CREATE TABLE bench_pages (round integer, pages text, metric text, p50 double precision)"
for round in $(seq "$ROUNDS"); do
  for pages in on off; do
    q -c "ALTER SYSTEM SET huge_pages = $pages" >/dev/null
    if ! "$here/cluster.sh" restart >/dev/null 2>&1; then
      echo "PostgreSQL would not start with huge_pages = $pages (no huge pages free, not root?): nothing measured" >&2
      exit 0
    fi
    # a restart starts cold: the first pass warms, the second is kept (its p50s)
    q -q <<SQL
SET client_min_messages = warning;
\\i $bench/sql/scale_timings.sql
\\i $bench/sql/scale_timings.sql
INSERT INTO bench_pages SELECT $round, '$pages', metric, percentile_cont(0.5) WITHIN GROUP (ORDER BY value) FROM timed GROUP BY metric;
SQL
  done
done
echo "| search, $(q -c "SELECT count(*) FROM dof_chunks WHERE collection = 'scale'") chunks, $(q -c "SELECT count(*) FROM bench_queries") queries: p50, median of $ROUNDS rounds | 2 MB huge pages | 4 kB pages | ratio | rounds where huge pages were faster |"
echo "|---|---|---|---|---|"
q -c "SELECT format('| %s | %s ms | %s ms | %s× | %s of %s |', metric, round(huge::numeric, 2), round(small::numeric, 2), round((small / huge)::numeric, 2), faster, rounds)
      FROM (SELECT metric, percentile_cont(0.5) WITHIN GROUP (ORDER BY on_p50) AS huge, percentile_cont(0.5) WITHIN GROUP (ORDER BY off_p50) AS small,
                   count(*) FILTER (WHERE on_p50 < off_p50) AS faster, count(*) AS rounds
            FROM (SELECT round, metric, min(p50) FILTER (WHERE pages = 'on') AS on_p50, min(p50) FILTER (WHERE pages = 'off') AS off_p50
                  FROM bench_pages GROUP BY round, metric) paired
            GROUP BY metric) m ORDER BY metric"
