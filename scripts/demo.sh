#!/usr/bin/env bash
# The "run" path's last step: (re)creates the demo database on the local cluster, inserts
# the sample documents (the triggers chunk and embed them in the backend), and prints the
# reports and two hybrid searches.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
. "$here/config.sh"
repo="$(cd "$here/.." && pwd)"
DB="${PG_DOF_DB:-pg_dof}"
psql_db() { PG_DOF_DB="$DB" "$here/cluster.sh" psql -v ON_ERROR_STOP=1 -q "$@"; }

log "demo database $DB (rebuilt on every run)"
PG_DOF_DB="$DB" "$here/cluster.sh" fresh
# One psql script: \set reads each file (no argument-length limit), the insert trigger
# classifies, chunks, embeds (late chunking) and indexes it.
load_script="$(mktemp)"; trap 'rm -f "$load_script"' EXIT
add_document() { # FILE SOURCE_ID
  printf '%s\n' "\\set body \`cat '$1'\`" \
    "INSERT INTO dof_documents (source_id, title, body) VALUES ('$2', split_part(:'body', E'\\n', 1), :'body');" >> "$load_script"
}
for file in "$repo"/samples/*.md; do
  [ "$(basename "$file")" = README.md ] || add_document "$file" "$(basename "$file" .md)"
done
corpus="${PG_DOF_CORPORA:-$repo/../shared/corpora}/dof-editions"
if [ -d "$corpus" ]; then
  # two real DOF editions too (the smallest over 20 KB), when the shared corpora are
  # beside the checkout: embedding runs at a few chunks per second per core here
  n=0
  while read -r file; do n=$((n + 1)); add_document "$file" "dof-$n-$(basename "$file" .md)"; done \
    < <(find "$corpus" -name '*.md' -size +20k -printf '%s %p\n' | sort -n | head -n 2 | cut -d' ' -f2-)
fi
start=$(date +%s.%N)
# tsvector warns about "words" over 2047 characters (table rules): expected, not news
PGOPTIONS='-c client_min_messages=warning' psql_db -f "$load_script"
echo "loaded $(grep -c '^INSERT' "$load_script") documents in $(echo "$(date +%s.%N) - $start" | bc) s (classify + chunk + embed + index, in the insert trigger)"
# the planner's statistics for the new chunks (the search plans read them): now, not at autovacuum's turn
psql_db -c "ANALYZE dof_chunks"

log "report"
psql_db <<'SQL'
\pset footer off
SELECT dof_version() AS pg_dof, (SELECT extversion FROM pg_extension WHERE extname = 'vector') AS pgvector,
       (dof_model()).name AS model;
\echo 'Documents per pattern (dof_pattern_stats)'
SELECT pattern, documents, percent FROM dof_pattern_stats ORDER BY documents DESC, pattern;
\echo 'Chunks per document (dof_chunk_stats) and tokens per chunk (dof_token_stats)'
SELECT s.pattern, s.documents, s.mean_chunks, s.max_chunks, t.mean_tokens, t.max_tokens, t.over_limit
FROM dof_chunk_stats s JOIN dof_token_stats t USING (collection, pattern) ORDER BY s.pattern;
\echo 'dof_hybrid_search(''compra de medicinas para hospitales'', k => 3)'
SELECT source_id, round(score::numeric, 4) AS score, vector_rank, text_rank, left(replace(content, E'\n', ' '), 60) AS content
FROM dof_hybrid_search('compra de medicinas para hospitales', k => 3);
\echo 'dof_hybrid_search(''tipo de cambio del dólar'', k => 3, dedup_by_source => true)'
SELECT source_id, round(score::numeric, 4) AS score, vector_rank, text_rank, left(replace(content, E'\n', ' '), 60) AS content
FROM dof_hybrid_search('tipo de cambio del dólar', k => 3, dedup_by_source => true);
SQL

run_dir="$("$here/cluster.sh" dir)"
v=""; [ "$PG" = 15 ] || v=" PG=$PG"  # the make targets of this version's cluster
cat <<MSG

Connect with:   make psql$v        (or: psql -h $run_dir -p ${PG_DOF_PORT:-5499} -U postgres $DB)
Load a folder:  PGHOST=$run_dir PGPORT=${PG_DOF_PORT:-5499} PGUSER=postgres PGDATABASE=$DB dof load FOLDER
                (.md .txt .html .epub; into the 'default' collection, or --collection NAME)
Then search:    make psql$v ARGS="-c \"SELECT source_id, score, content FROM dof_hybrid_search('su pregunta', k => 5)\""
One query:      make psql$v ARGS='-c "SELECT dof_version()"'
Stop:           make stop$v        (make clean$v also deletes the cluster's data)
MSG
