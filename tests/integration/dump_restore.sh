#!/usr/bin/env bash
# Integration: pg_dump / pg_restore of a database with collections (one with its own
# chunking options, one deferred with a document still queued), documents, chunks and a
# registered model restores to a database with the same rows (documents, chunks with their
# vectors and tsvectors, queue, models, collections), the same search answers, and working
# triggers: nothing is re-chunked or re-embedded during the restore (see dof_restoring()).
set -uo pipefail
. "$(dirname "$0")/common.bash"
repo="$(cd "$scripts/.." && pwd)"
export PG_DOF_DB=pg_dof_dump
"$scripts/cluster.sh" fresh
export PGHOST="$("$scripts/cluster.sh" dir)" PGPORT="${PG_DOF_PORT:-5499}" PGUSER=postgres
# the user's own default model, and a changed 'default' collection: CREATE EXTENSION makes
# both rows again in the restored database, and the restored ones must win
q -c "SET client_min_messages = warning; SELECT name FROM dof_register_model('e5-copy', 'multilingual-e5-small/model.onnx', 'multilingual-e5-small/tokenizer.json', 'query: ', 'passage: ', make_default => true)" >/dev/null
q -c "UPDATE dof_collections SET max_tokens = 700, text_search_config = 'spanish' WHERE name = 'default'"
q -c "INSERT INTO dof_collections (name, model, late_chunking, max_tokens, chunker_options) VALUES ('plain', 'e5-copy', false, 128, '{\"pattern\": \"plain_text\"}')"
q -c "INSERT INTO dof_collections (name, deferred) VALUES ('later', true)"
# a model of another dimension: its HNSW index is not dumped (pg_dump skips indexes of an
# extension's tables) and must come back through the trigger on dof_models
q -c "INSERT INTO dof_models (name, kind, dimension) VALUES ('hash-24', 'hash', 24)"
q -c "INSERT INTO dof_collections (name, model) VALUES ('small', 'hash-24')"
for f in "$repo"/samples/*.md; do
  for coll in default plain small; do
    echo "INSERT INTO dof_documents (collection, source_id, body, metadata) VALUES (:'coll', :'id', :'body', jsonb_build_object('file', :'id'))" \
      | q -v coll="$coll" -v id="$(basename "$f" .md)" -v body="$(cat "$f")"
  done
done
q -c "INSERT INTO dof_documents (collection, source_id, body) VALUES ('later', 'pendiente', E'# Pendiente\n\nTodavía en la cola.')"
q -c "ANALYZE dof_chunks"

# everything a user stored, and what searches answer
state="SELECT 'collections', md5(string_agg(c::text, '|' ORDER BY name)) FROM dof_collections c
UNION ALL SELECT 'models', md5(string_agg(m.name || m.revision || coalesce(m.model_file, '') || m.is_default, '|' ORDER BY name)) FROM dof_models m
UNION ALL SELECT 'documents', count(*) || ':' || md5(string_agg(d::text, '|' ORDER BY id)) FROM dof_documents d
UNION ALL SELECT 'chunks', count(*) || ':' || md5(string_agg(c::text, '|' ORDER BY id)) FROM dof_chunks c
UNION ALL SELECT 'queue', string_agg(q.status || '/' || d.source_id, ',' ORDER BY d.source_id) FROM dof_queue q JOIN dof_documents d ON d.id = q.document_id
UNION ALL SELECT 'hybrid', string_agg(chunk_id::text, ',' ORDER BY score DESC, chunk_id) FROM dof_hybrid_search('tipo de cambio del dólar', k => 5)
UNION ALL SELECT 'hybrid e5-copy', string_agg(chunk_id::text, ',' ORDER BY score DESC, chunk_id) FROM dof_hybrid_search('etiquetado de alimentos', k => 5, collection => 'plain')
UNION ALL SELECT 'vector hash-24', string_agg(chunk_id::text, ',' ORDER BY rank) FROM dof_vector_search('tipo de cambio', k => 3, collection => 'small')
UNION ALL SELECT 'HNSW indexes', string_agg(indexdef, ' ; ' ORDER BY indexname) FROM pg_indexes WHERE tablename = 'dof_chunks' AND indexdef LIKE '%hnsw%'
UNION ALL SELECT 'BM25 statistics', md5(string_agg(collection || ':' || lexeme || ':' || n, '|' ORDER BY collection, lexeme))
          FROM (SELECT collection, lexeme, sum(chunks) AS n FROM dof_term_stats GROUP BY 1, 2 HAVING sum(chunks) <> 0) s
UNION ALL SELECT 'text', string_agg(chunk_id::text, ',' ORDER BY rank) FROM dof_text_search('licitación pública', k => 5)"
before="$(q -c "$state")"
check "$(echo "$before" | grep -c '^chunks|[1-9]')" "1" "the source database has chunks"

dump="$(mktemp -d)/pg_dof.dump"
pg_dump -Fc -d pg_dof_dump -f "$dump"
check "$?" "0" "pg_dump -Fc of the database"
PG_DOF_DB=postgres q -c "DROP DATABASE IF EXISTS pg_dof_restored" -c "CREATE DATABASE pg_dof_restored"
restore_log="$(mktemp)"
pg_restore -d pg_dof_restored "$dump" > "$restore_log" 2>&1
rc=$?
check "$rc" "0" "pg_restore into an empty database succeeds"
[ "$rc" = 0 ] || head -20 "$restore_log"
export PG_DOF_DB=pg_dof_restored
q -c "ANALYZE dof_chunks"
after="$(q -c "$state")"
while IFS= read -r line; do
  what="${line%%|*}"
  check "$(echo "$after" | grep -F "$what|" | head -1)" "$line" "restored $what is the same"
done <<< "$before"

# the restored database works on: new documents are indexed with fresh ids, the queue drains
q -c "INSERT INTO dof_documents (source_id, body) VALUES ('nuevo', E'# Nuevo\n\nUn aviso cargado después de restaurar.')"
check "$(q -c "SELECT count(*) FROM dof_chunks c JOIN dof_documents d ON d.id = c.document_id WHERE d.source_id = 'nuevo' AND c.embedding IS NOT NULL")" "1" "a document inserted after the restore is chunked and embedded"
q -c "CALL dof_process_queue()" 2>/dev/null
check "$(q -c "SELECT status FROM dof_queue q JOIN dof_documents d ON d.id = q.document_id WHERE d.source_id = 'pendiente'")" "done" "the restored queue drains"
rm -rf "$(dirname "$dump")" "$restore_log"
finish
