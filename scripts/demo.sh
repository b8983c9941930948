#!/usr/bin/env bash
# The "run" path's last step: (re)creates the demo database on the local cluster, loads
# the sample documents in samples/, embeds them in the backend and prints a short report.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
. "$here/config.sh"
repo="$(cd "$here/.." && pwd)"
DB="${PG_DOF_DB:-pg_dof}"
psql_db() { PG_DOF_DB="$DB" "$here/cluster.sh" psql -v ON_ERROR_STOP=1 -q "$@"; }

log "demo database $DB (rebuilt on every run)"
PG_DOF_DB=postgres "$here/cluster.sh" psql -q -c "DROP DATABASE IF EXISTS $DB" -c "CREATE DATABASE $DB"
psql_db -c "CREATE EXTENSION pg_dof CASCADE" 2>&1 | grep -v 'installing required extension' || true
psql_db <<'SQL'
CREATE TABLE sample_documents (
    id        int GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    source_id text NOT NULL UNIQUE,
    body      text NOT NULL,
    embedding vector(384)
);
CREATE INDEX ON sample_documents USING hnsw (embedding vector_cosine_ops);
SQL
for file in "$repo"/samples/*.md; do
  [ "$(basename "$file")" = README.md ] && continue
  echo "INSERT INTO sample_documents (source_id, body) VALUES (:'source_id', :'body');" \
    | psql_db -v source_id="$(basename "$file" .md)" -v body="$(cat "$file")"
done

log "report"
psql_db <<'SQL'
\pset footer off
SELECT dof_version() AS pg_dof, (SELECT extversion FROM pg_extension WHERE extname = 'vector') AS pgvector,
       current_setting('pg_dof.default_model') AS model;
SELECT count(*) AS documents, sum(length(body)) AS characters FROM sample_documents;
-- first embedding in a backend loads the model; the rest reuse it
SELECT clock_timestamp() AS t0 \gset
SELECT dof_embed_query('calentamiento') IS NOT NULL AS model_loaded \gset
SELECT round(extract(epoch FROM clock_timestamp() - :'t0') * 1000) AS first_call_ms \gset
SELECT clock_timestamp() AS t1 \gset
UPDATE sample_documents SET embedding = dof_embed_query(body);
SELECT :first_call_ms AS first_call_ms_incl_model_load,
       round(extract(epoch FROM clock_timestamp() - :'t1') * 1000 / count(*)) AS ms_per_document
FROM sample_documents;
SET enable_seqscan = off;
\echo 'Query: "compra de medicinas para hospitales" (HNSW, cosine)'
SELECT source_id, round((1 - (embedding <=> dof_embed_query('compra de medicinas para hospitales')))::numeric, 3) AS similarity
FROM sample_documents ORDER BY embedding <=> dof_embed_query('compra de medicinas para hospitales'), id LIMIT 3;
\echo 'Query: "cuántos pesos vale un dólar" (HNSW, cosine)'
SELECT source_id, round((1 - (embedding <=> dof_embed_query('cuántos pesos vale un dólar')))::numeric, 3) AS similarity
FROM sample_documents ORDER BY embedding <=> dof_embed_query('cuántos pesos vale un dólar'), id LIMIT 3;
SQL

run_dir="$("$here/cluster.sh" dir)"
cat <<MSG

Connect with:   make psql        (or: psql -h $run_dir -p ${PG_DOF_PORT:-5499} -U postgres $DB)
One query:      make psql ARGS='-c "SELECT dof_version()"'
Stop:           make stop        (make clean also deletes the cluster's data)
MSG
