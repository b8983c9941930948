#!/usr/bin/env bash
# The same work on each PostgreSQL version (VERSIONS, default "15 17"; each built, with
# pg_dof installed: `make install PG=17`): `dof load` of legalize-pe laws into an inline e5
# collection (chunk, embed, index in the backend), then the DOF questions through
# dof_hybrid_search and dof_text_search, each search timed in the backend. The versions
# alternate over ROUNDS (default 3), one cluster running at a time, on the same machine in
# the same run: the ratio to the first version is the result.
set -euo pipefail
. "$(dirname "$0")/common.bash"
read -r -a versions <<< "${VERSIONS:-15 17}"
ROUNDS="${ROUNDS:-3}"; SEARCHES="${SEARCHES:-40}"; KB="${KB:-400}"
echo "$(cargo run --release -q -p dof_bench --bin cpu)"
cargo build --release -q -p dof_loader
dof="$CARGO_TARGET_DIR/release/dof"
docs="$(mktemp -d)"; trap 'rm -rf "$docs"' EXIT
n=$(legalize_sample "$docs" "$KB")
echo "documents: $n legalize-pe files under 64 KB ($KB KB in all); searches: $SEARCHES DOF questions per method"
questions="$(awk -F'\t' -v n="$SEARCHES" 'NR > 1 && NR <= n + 1 {print $1}' "$bench/eval/dof_questions.tsv")"

declare -A ingest hybrid text
for round in $(seq 1 "$ROUNDS"); do
  for v in "${versions[@]}"; do
    for other in "${versions[@]}"; do [ "$other" = "$v" ] || PG=$other "$here/cluster.sh" stop >/dev/null; done
    export PG=$v PG_DOF_DB=pg_dof_versions_bench
    PG=$v "$here/cluster.sh" start >/dev/null
    PG=$v "$here/cluster.sh" fresh >/dev/null 2>&1
    export PGHOST="$(PG=$v "$here/cluster.sh" dir)" PGPORT="${PG_DOF_PORT:-5499}" PGUSER=postgres PGDATABASE=$PG_DOF_DB
    t0=$(date +%s.%N)
    "$dof" load "$docs" --jobs 1 >/dev/null 2>&1
    t1=$(date +%s.%N)
    ingest[$v]+="$(awk -v n="$n" -v a="$t0" -v b="$t1" 'BEGIN {print n / (b - a)}') "
    q -c "ANALYZE dof_chunks"
    q -c "CREATE TABLE questions (n serial, query text)"
    echo "$questions" | q -c "\\copy questions (query) FROM STDIN"
    for method in hybrid text; do
      ms="$(q <<SQL
SELECT FROM dof_hybrid_search('calentamiento', k => 10);
CREATE TEMP TABLE timed (ms double precision);
DO \$\$
DECLARE t0 timestamptz; r record;
BEGIN
  FOR r IN SELECT query FROM questions ORDER BY n LOOP
    t0 := clock_timestamp();
    PERFORM count(*) FROM dof_${method}_search(r.query, k => 10);
    INSERT INTO timed VALUES (extract(epoch FROM clock_timestamp() - t0) * 1000);
  END LOOP;
END \$\$;
SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) FROM timed;
SQL
)"
      if [ "$method" = hybrid ]; then hybrid[$v]+="$ms "; else text[$v]+="$ms "; fi
    done
  done
done
first="${versions[0]}"
# shellcheck disable=SC2086  # the lists are space-separated numbers
row() { # WORKLOAD UNIT ARRAY-NAME HIGHER-IS-BETTER
  local -n values=$3; local line base m
  base="$(median ${values[$first]})"
  line="| $1 ($2) | $(printf '%.2f' "$base")"
  for v in "${versions[@]:1}"; do
    m="$(median ${values[$v]})"
    line+=" | $(printf '%.2f' "$m") | $(awk -v m="$m" -v b="$base" 'BEGIN {printf "%.2f", m / b}')×"
  done
  echo "$line |"
}
header="| workload (median of $ROUNDS) | PostgreSQL $first"
for v in "${versions[@]:1}"; do header+=" | PostgreSQL $v | $v / $first"; done
echo "$header |"
echo "|---|---$(for _ in "${versions[@]:1}"; do printf '|---|---'; done)|"
row "dof load, inline e5, $n files" "files/s" ingest
row "dof_hybrid_search p50, $SEARCHES questions" "ms" hybrid
row "dof_text_search p50, $SEARCHES questions" "ms" text
for v in "${versions[@]}"; do PG=$v "$here/cluster.sh" stop >/dev/null; done
PG=15 "$here/cluster.sh" start >/dev/null
