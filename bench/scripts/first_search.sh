#!/usr/bin/env bash
# A new connection's first search, same run: the server loads e5's tokenizer at start and
# every backend inherits it (pg_dof.preload_tokenizer = 'multilingual-e5-small/tokenizer.json')
# against each backend loading it on its first use (the default, ''). The cluster is
# restarted with each setting in turn, ROUNDS (default 3) times; after each restart CONNECTIONS
# (default 5) new connections each run one hybrid search of a collection of 30 Peruvian
# laws, embedded by the real model (the query embedded in the call), timed by psql; and the
# backend's private memory after it (Private_Clean + Private_Dirty of
# /proc/PID/smaps_rollup: what it does not share with the postmaster); and what every
# connection pays, one that only runs SELECT 1 (psql -c, timed from outside). Medians.
set -euo pipefail
. "$(dirname "$0")/common.bash"
ROUNDS="${ROUNDS:-3}"
CONNECTIONS="${CONNECTIONS:-5}"
echo "$(cargo run --release -q -p dof_bench --bin cpu)"
export PG_DOF_DB=pg_dof_first_search
"$here/cluster.sh" fresh >/dev/null 2>&1
eval_laws 30
q -c "INSERT INTO dof_documents (source_id, body) SELECT source_id, body FROM eval_documents"
# one connection: its first search's ms and its private kB after it
first_search() {
  "$here/cluster.sh" psql -X -At -q -v ON_ERROR_STOP=1 <<'SQL' | tail -2 | paste -sd' '
SELECT pg_backend_pid() AS pid \gset
\timing on
SELECT count(*) FROM dof_hybrid_search('¿Qué plazo tiene la comisión para emitir su informe?', 10) \g /dev/null
\timing off
SELECT sum((regexp_match(l, '(\d+) kB'))[1]::bigint) FROM regexp_split_to_table(pg_read_file('/proc/' || :pid || '/smaps_rollup'), '\n') l
WHERE l ~ '^Private_(Clean|Dirty):' \gset
\echo :sum
SQL
}
declare -A ms kb plain
for round in $(seq 1 "$ROUNDS"); do
  for setting in shared own; do
    if [ "$setting" = own ]; then q -c "ALTER SYSTEM RESET pg_dof.preload_tokenizer"
    else q -c "ALTER SYSTEM SET pg_dof.preload_tokenizer = 'multilingual-e5-small/tokenizer.json'"; fi
    "$here/cluster.sh" restart >/dev/null
    for _ in $(seq 1 "$CONNECTIONS"); do
      read -r t private < <(first_search | sed 's/Time: \([0-9.]*\) ms[^ ]*\( ([^)]*)\)\?/\1/')
      ms[$setting]+="$t "; kb[$setting]+="$private "
      started=$(date +%s%N); q -c "SELECT 1" >/dev/null; plain[$setting]+="$((($(date +%s%N) - started) / 1000)) "
    done
  done
done
q -c "ALTER SYSTEM RESET pg_dof.preload_tokenizer"; "$here/cluster.sh" restart >/dev/null
echo "| a new connection's first hybrid search | tokenizer loaded at server start (shared) | loaded by the backend | ratio |"
echo "|---|---|---|---|"
# A table row: LABEL, then each side's median of its list divided by DIVISOR, shown with
# DECIMALS, and their ratio.
row() { # LABEL DIVISOR DECIMALS SHARED_LIST OWN_LIST
  local s o
  # shellcheck disable=SC2086 # the lists are words
  s="$(median $4)"; o="$(median $5)"
  echo "| $1 | $(echo "scale=$3; $s / $2" | bc) | $(echo "scale=$3; $o / $2" | bc) | $(echo "scale=2; $s / $o" | bc) |"
}
row "ms, median of $((ROUNDS * CONNECTIONS))" 1 1 "${ms[shared]}" "${ms[own]}"
row "the backend's private memory after it, MB" 1024 0 "${kb[shared]}" "${kb[own]}"
row "a connection that runs SELECT 1, ms (psql -c)" 1000 1 "${plain[shared]}" "${plain[own]}"
