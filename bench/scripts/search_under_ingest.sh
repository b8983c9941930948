#!/usr/bin/env bash
# Search while ingesting: hybrid search p50/p95 (e5, the DOF questions) on a collection of
# legalize-pe documents with no writer, and with two inline writers (each inserting documents
# into an e5 collection in a loop: chunking and embedding in its backend, as `dof load
# --jobs 2` does) at each pg_dof.ingest_nice: 0 (the writers as they ran before the
# setting), 10, and the default (19). The states alternate over ROUNDS (default 3); each
# search is timed in the searching backend (clock_timestamp around it), the query
# embedding included. Same run, same machine: the ratios to idle are the result.
#
# Renicing the writers' threads from outside (tried before the setting) changed nothing:
# each backend is its own scheduling group (src/ingest_priority.rs says why).
set -euo pipefail
. "$(dirname "$0")/common.bash"
ROUNDS="${ROUNDS:-3}"; SEARCHES="${SEARCHES:-40}"
echo "$(cargo run --release -q -p dof_bench --bin cpu)"
export PG_DOF_DB=pg_dof_search_under_ingest
"$here/cluster.sh" start >/dev/null
"$here/cluster.sh" fresh >/dev/null 2>&1
pe="$(corpus legalize-pe-sample)"
mapfile -t files < <(find "$pe" -name '*.md' -size -24k | sort)
q -c "INSERT INTO dof_collections (name) VALUES ('leer'), ('escribir')"
# the searched collection: the first 40 files, inline (e5)
for f in "${files[@]:0:40}"; do
  echo "INSERT INTO dof_documents (collection, source_id, body) VALUES ('leer', :'id', :'body')" | q -v id="${f#$pe/}" -v body="$(cat "$f")"
done
q -c "ANALYZE dof_chunks"
q -c "CREATE TABLE questions (n serial, query text)"
awk -F'\t' -v n="$SEARCHES" 'NR > 1 && NR <= n + 1 {print $1}' "$bench/eval/dof_questions.tsv" | q -c "\\copy questions (query) FROM STDIN"
q -c "CREATE TABLE writes (body text)"
for f in "${files[@]:40:200}"; do echo "INSERT INTO writes VALUES (:'body')" | q -v body="$(cat "$f")"; done
writer() { # OPTIONS: one session inserting the writes' bodies in a loop, a transaction each, until cancelled
  PGOPTIONS="$1" q -c "DO \$\$ DECLARE i bigint := 0; BEGIN LOOP
      i := i + 1;
      INSERT INTO dof_documents (collection, source_id, body)
      SELECT 'escribir', 'w-' || pg_backend_pid() || '-' || i, body FROM writes ORDER BY random() LIMIT 1;
      COMMIT;
    END LOOP; END \$\$" >/dev/null 2>&1 || true
}
timed() { # the searches, each timed in the backend (the model loaded first): one ms figure per line
  q <<'SQL'
SELECT FROM dof_hybrid_search('calentamiento', k => 10, collection => 'leer');
CREATE TEMP TABLE timed (ms double precision);
DO $$
DECLARE t0 timestamptz; r record;
BEGIN
  FOR r IN SELECT query FROM questions ORDER BY n LOOP
    t0 := clock_timestamp();
    PERFORM count(*) FROM dof_hybrid_search(r.query, k => 10, collection => 'leer');
    INSERT INTO timed VALUES (extract(epoch FROM clock_timestamp() - t0) * 1000);
  END LOOP;
END $$;
SELECT ms FROM timed;
SQL
}
declare -A all
states="idle writers_nice_0 writers_nice_10 writers_default"
for round in $(seq 1 "$ROUNDS"); do
  for state in $states; do
    case "$state" in
      writers_nice_*) for _ in 1 2; do writer "-c pg_dof.ingest_nice=${state#writers_nice_}" & done; sleep 3 ;;
      writers_default) for _ in 1 2; do writer "" & done; sleep 3 ;;
    esac
    all[$state]+=" $(timed | tr '\n' ' ')"
    q -c "SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND query LIKE 'DO %'" >/dev/null
    wait 2>/dev/null || true
    sleep 1
  done
done
percentile() { printf '%s\n' $2 | sort -g | awk -v p="$1" '{a[NR] = $1} END {i = int(NR * p + 0.999); if (i < 1) i = 1; printf "%.2f", a[i]}'; }
written=$(q -c "SELECT count(*) FROM dof_documents WHERE collection = 'escribir'")
echo "hybrid search, $SEARCHES questions x $ROUNDS rounds per state, states alternating; $written documents written by the writers"
echo "| state | p50 ms | p95 ms | p50 / idle | p95 / idle |"
echo "|---|---|---|---|---|"
idle50=$(percentile 0.5 "${all[idle]}"); idle95=$(percentile 0.95 "${all[idle]}")
for state in $states; do
  p50=$(percentile 0.5 "${all[$state]}"); p95=$(percentile 0.95 "${all[$state]}")
  echo "| $state | $p50 | $p95 | $(echo "scale=2; $p50 / $idle50" | bc) | $(echo "scale=2; $p95 / $idle95" | bc) |"
done
