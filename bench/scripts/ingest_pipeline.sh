#!/usr/bin/env bash
# End-to-end ingest, files → searchable chunks, against the raw model throughput of the same
# run. A sample of legalize-pe documents (SAMPLE_KB, default 1024 KB, files under 64 KB) is
# loaded with `dof load` into:
#   inline, --jobs 1 and --jobs 2   (the triggers chunk and embed in each writer's backend)
#   deferred, 1 and 2 queue workers (the loader only inserts; the workers drain the queue)
# and the raw figure is dof_embed over exactly the chunks the pipeline stored (one session,
# then two sessions at once). Also the loader alone into a deferred hash-model collection
# with no workers: files/s and MB/s of the whole legalize-pe sample. Restarts the project's
# cluster to change pg_dof.queue_workers, and restores it.
set -euo pipefail
. "$(dirname "$0")/common.bash"
pe="$(corpus legalize-pe-sample)"
SAMPLE_KB="${SAMPLE_KB:-1024}"
echo "$(cargo run --release -q -p dof_bench --bin cpu)"
cargo build --release -q -p dof_loader
dof="$CARGO_TARGET_DIR/release/dof"
export PG_DOF_DB=pg_dof_pipeline
export PGHOST="$("$here/cluster.sh" dir)" PGPORT="${PG_DOF_PORT:-5499}" PGUSER=postgres PGDATABASE=pg_dof_pipeline
sample="$(mktemp -d)"
trap 'rm -rf "$sample"; PG_DOF_DB=postgres q -c "ALTER SYSTEM RESET pg_dof.queue_workers" -c "ALTER SYSTEM RESET pg_dof.queue_database" -c "ALTER SYSTEM RESET pg_dof.queue_naptime" >/dev/null; "$here/cluster.sh" restart >/dev/null' EXIT
files=$(legalize_sample "$sample" "$SAMPLE_KB")
workers() {  # restart with N workers serving this database
  PG_DOF_DB=postgres q -c "ALTER SYSTEM SET pg_dof.queue_workers = $1" -c "ALTER SYSTEM SET pg_dof.queue_database = 'pg_dof_pipeline'" \
    -c "ALTER SYSTEM SET pg_dof.queue_naptime = '100ms'" >/dev/null
  "$here/cluster.sh" restart >/dev/null
}
fresh() { "$here/cluster.sh" fresh >/dev/null 2>&1; q -c "INSERT INTO dof_collections (name, deferred) VALUES ('p', $1)"; q -c "SELECT dof_embed_query('carga')" >/dev/null; }
now() { date +%s.%N; }
rows=()
run() {  # label, jobs, deferred
  local t0 t1
  t0=$(now)
  "$dof" load "$sample" --collection p --jobs "$2" >/dev/null 2>&1
  if [ "$3" = true ]; then
    until [ "$(q -c "SELECT count(*) FROM dof_queue WHERE status = 'queued'")" = 0 ]; do sleep 0.2; done
    until [ "$(q -c "SELECT count(*) FROM dof_documents d WHERE NOT EXISTS (SELECT 1 FROM dof_chunks c WHERE c.document_id = d.id)")" = 0 ]; do sleep 0.2; done
  fi
  t1=$(now)
  read -r docs tokens <<<"$(q -F ' ' -c "SELECT count(DISTINCT document_id), sum(token_count) FROM dof_chunks")"
  rows+=("$1|$(echo "$t1 - $t0" | bc)|$docs|$tokens")
}
workers 0; fresh false; run "inline triggers, dof load --jobs 1" 1 false
# the raw model on the same chunks: dof_embed in one session, then in two at once
q -c "CREATE TABLE raw AS SELECT content FROM dof_chunks"
tokens=$(q -c "SELECT sum(token_count) FROM dof_chunks")
t0=$(now); q -c "SELECT count(*) FROM dof_embed(ARRAY(SELECT content FROM raw))" >/dev/null; t1=$(now)  # model loaded by fresh()
raw1=$(echo "$t1 - $t0" | bc)
t0=$(now)
q -c "ALTER TABLE raw ADD COLUMN n serial"
q -c "SELECT count(*) FROM dof_embed(ARRAY(SELECT content FROM raw WHERE n % 2 = 0))" >/dev/null &
q -c "SELECT count(*) FROM dof_embed(ARRAY(SELECT content FROM raw WHERE n % 2 = 1))" >/dev/null
wait; t1=$(now); raw2=$(echo "$t1 - $t0" | bc)
fresh false; run "inline triggers, dof load --jobs 2" 2 false
workers 1; fresh true; run "deferred, 1 queue worker" 1 true
workers 2; fresh true; run "deferred, 2 queue workers" 1 true
echo
echo "| $files legalize-pe files ($((total / 1024)) KB), $tokens tokens in chunks | s | documents/s | tokens/s | ratio to raw dof_embed (same sessions) |"
echo "|---|---|---|---|---|"
echo "| raw dof_embed of the stored chunks, 1 session | $raw1 | | $(echo "scale=0; $tokens / $raw1" | bc) | 1 |"
echo "| raw dof_embed of the stored chunks, 2 sessions | $raw2 | | $(echo "scale=0; $tokens / $raw2" | bc) | 1 |"
for row in "${rows[@]}"; do
  IFS='|' read -r label s docs toks <<<"$row"
  raw=$raw1; case "$label" in *"--jobs 2"*|*"2 queue"*) raw=$raw2 ;; esac
  echo "| $label | $s | $(echo "scale=1; $docs / $s" | bc) | $(echo "scale=0; $toks / $s" | bc) | $(echo "scale=3; $raw / $s" | bc) |"
done
# the loader alone: deferred hash-model collection, no workers, the whole legalize-pe sample
workers 0; "$here/cluster.sh" fresh >/dev/null 2>&1
q -c "INSERT INTO dof_collections (name, model, deferred) VALUES ('solo', 'hash-384', true)"
t0=$(now); "$dof" load "$pe" --collection solo --jobs 2 >/dev/null 2>&1 || true; t1=$(now)
s=$(echo "$t1 - $t0" | bc)
read -r n mb <<<"$(q -F ' ' -c "SELECT count(*), round(sum(octet_length(body)) / 1e6, 1) FROM dof_documents")"
echo
echo "| the loader alone (deferred, no embedding): $n legalize-pe documents, $mb MB | s | files/s | MB/s |"
echo "|---|---|---|---|"
echo "| dof load --jobs 2 | $s | $(echo "scale=0; $n / $s" | bc) | $(echo "scale=1; $mb / $s" | bc) |"
