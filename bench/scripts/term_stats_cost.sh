#!/usr/bin/env bash
# What BM25's exact per-collection statistics cost on insert: the same DOCS legalize-pe
# documents (default 100) inserted into a collection with the hash embedder (so that
# chunking, storing and indexing are the whole cost, not the model), with the statistics
# triggers on dof_chunks enabled and disabled, alternating RUNS times (default 3); medians
# and the ratio. Needs the shared corpora (PG_DOF_CORPORA).
set -euo pipefail
. "$(dirname "$0")/common.bash"
corpus="$(corpus legalize-pe-sample)"
DOCS="${DOCS:-100}"; RUNS="${RUNS:-3}"
export PG_DOF_DB=pg_dof_term_stats_cost
"$here/cluster.sh" fresh >/dev/null
q -c "CREATE TABLE docs (source_id text, body text)"
find "$corpus" -name '*.md' -size -100k | sort | sed -n "1,${DOCS}p" | while read -r f; do
  echo "INSERT INTO docs VALUES (:'id', :'body')" | q -v id="$(basename "$f")" -v body="$(cat "$f")"
done
q -c "INSERT INTO dof_collections (name, model, late_chunking, max_tokens) VALUES ('cost', 'hash-384', false, 256)"
triggers() { for t in added removed changed; do q -c "ALTER TABLE dof_chunks $1 TRIGGER dof_chunks_stats_$t"; done; }
timed() { # ENABLE|DISABLE
  triggers "$1"
  q -c "DELETE FROM dof_documents WHERE collection = 'cost'" -c "VACUUM dof_chunks"
  local t0 t1; t0=$(date +%s.%N)
  q -c "INSERT INTO dof_documents (collection, source_id, body) SELECT 'cost', source_id, body FROM docs"
  t1=$(date +%s.%N); echo "$t1 - $t0" | bc
}
ons=(); offs=()
for _ in $(seq 1 "$RUNS"); do offs+=("$(timed DISABLE)"); ons+=("$(timed ENABLE)"); done
on=$(median "${ons[@]}"); off=$(median "${offs[@]}")
chunks=$(q -c "SELECT count(*) FROM dof_chunks WHERE collection = 'cost'")
rows=$(q -c "SELECT count(*) FROM dof_term_stats WHERE collection = 'cost'")
echo "| insert $DOCS documents ($chunks chunks, hash embedder), median of $RUNS | statistics on (s) | off (s) | ratio (on / off) | delta rows |"
echo "|---|---|---|---|---|"
echo "| inline trigger ingest | $on | $off | $(echo "scale=3; $on / $off" | bc) | $rows |"
