#!/usr/bin/env bash
# Ingest and search at scale, in databases of their own on the local cluster:
#   1. ingest real documents (legalize-pe sample, small files) inline and deferred, real
#      model, late chunking (database pg_dof_bench);
#   2. search at scale (database pg_dof_scale): every document of the Spanish corpora
#      (dof-editions, legalize-pe-sample) chunked at SCALE_MAX_TOKENS (128: ~120,000
#      distinct chunks) and embedded for real by `embed_corpus` (the product's chunker and
#      embedder outside PostgreSQL, independent embedding; about 11.5M tokens, 1-1.5 h on
#      two cores, resumable, cached in $PG_DOF_CACHE/scale-128); the chunks are written by
#      the product's writer, dof_index_document, and given those vectors (scale_load.sql);
#   3. hybrid search p50/p95 with and without the query embedding, each leg alone, exact
#      search, and the vector leg's recall@10 against exact search (bench/sql/scale_search.sql).
# Prints markdown tables. Needs the shared corpora (PG_DOF_CORPORA).
set -euo pipefail
. "$(dirname "$0")/common.bash"
corpus="$(corpus legalize-pe-sample)"
DOCS="${DOCS:-40}"
SCALE_MAX_TOKENS="${SCALE_MAX_TOKENS:-128}"
SCALE_DATA="${SCALE_DATA:-$PG_DOF_CACHE/scale-$SCALE_MAX_TOKENS}"
QUERIES="${QUERIES:-100}"
export PG_DOF_DB=pg_dof_bench
"$here/cluster.sh" fresh
q -c "INSERT INTO dof_collections (name, deferred) VALUES ('inline', false), ('deferred', true)"

load() { # COLLECTION FILES...
  local collection="$1"; shift
  local script; script="$(mktemp)"
  for f in "$@"; do
    printf '%s\n' "\\set body \`cat '$f'\`" \
      "INSERT INTO dof_documents (collection, source_id, body) VALUES ('$collection', '$(basename "$f")', :'body');" >> "$script"
  done
  local start; start=$(date +%s.%N)
  PGOPTIONS='-c client_min_messages=warning' q -f "$script"
  rm -f "$script"
  echo "$(date +%s.%N) - $start" | bc
}
mapfile -t files < <(find "$corpus" -name '*.md' -size -20k | sort)
inline_s=$(load inline "${files[@]:0:$DOCS}")
deferred_queue_s=$(load deferred "${files[@]:$DOCS:$DOCS}")
start=$(date +%s.%N)
PGOPTIONS="-c client_min_messages=warning" q -c "CALL dof_process_queue(20)"
deferred_s=$(echo "$(date +%s.%N) - $start + $deferred_queue_s" | bc)
echo "| ingest (real model, late chunking) | documents | chunks | seconds | docs/s | chunks/s |"
echo "|---|---|---|---|---|---|"
q <<SQL
SELECT format('| %s | %s | %s | %s | %s | %s |', mode, docs, chunks, round(secs, 1), round(docs / secs, 2), round(chunks / secs, 2))
FROM (SELECT 'inline (trigger)' AS mode, count(DISTINCT document_id) AS docs, count(*) AS chunks, $inline_s::numeric AS secs
      FROM dof_chunks WHERE collection = 'inline'
      UNION ALL
      SELECT 'deferred (queue + dof_process_queue)', count(DISTINCT document_id), count(*), $deferred_s::numeric
      FROM dof_chunks WHERE collection = 'deferred') r;
SQL

echo
# 2. the scale data: real chunks, real vectors (cached; resumable when interrupted)
if [ ! -f "$SCALE_DATA/complete" ]; then
  echo "embedding the corpora for the scale test into $SCALE_DATA (about an hour on two cores; resumable)" >&2
  (cd "$here/.." && cargo run --release -q -p dof_bench --bin embed_corpus -- "$SCALE_DATA" "$SCALE_MAX_TOKENS")
  touch "$SCALE_DATA/complete"
fi
export PG_DOF_DB=pg_dof_scale
"$here/cluster.sh" fresh
q -v docs="$SCALE_DATA/documents.csv" -v chunks="$SCALE_DATA/chunks.csv" -v max_tokens="$SCALE_MAX_TOKENS" -f "$bench/sql/scale_load.sql"
q -v queries="$QUERIES" -f "$bench/sql/scale_search.sql"
q -f "$bench/sql/scale_report.sql"
