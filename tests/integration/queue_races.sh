#!/usr/bin/env bash
# Integration: a queue drain that overlaps a writer of the same document. The writer holds
# its transaction open for two seconds while the drain starts; afterwards the chunks must
# carry the metadata and body the writer committed, and a document whose body changed must
# not be left marked done with the old body's chunks. (The soak found the first of these
# once in 45 s of random operations; here each is forced.)
set -uo pipefail
. "$(dirname "$0")/common.bash"
export PG_DOF_DB=pg_dof_races
"$scripts/cluster.sh" fresh
q -c "INSERT INTO dof_collections (name, max_tokens, overlap_tokens, deferred) VALUES ('race', 64, 0, true)"
q -c "INSERT INTO dof_documents (collection, source_id, body) VALUES ('race', 'a', E'# Aviso\n\nPrimer texto del aviso.'), ('race', 'b', E'# Aviso\n\nOtro aviso del día.')"
q -c "CALL dof_process_queue()" 2>/dev/null
check "$(q -c "SELECT count(*) FROM dof_queue WHERE status = 'done'")" "2" "both documents indexed before the races"

# 1. metadata committed while the drain works on the document
q -c "UPDATE dof_documents SET body = body || ' Segunda versión.' WHERE source_id = 'a'"
q -c "BEGIN" -c "UPDATE dof_documents SET metadata = '{\"v\": 2}' WHERE source_id = 'a'" -c "SELECT pg_sleep(2)" -c "COMMIT" >/dev/null &
writer=$!
sleep 0.5
q -c "CALL dof_process_queue()" 2>/dev/null
wait $writer
check "$(q -c "SELECT count(*) FROM dof_chunks c JOIN dof_documents d ON d.id = c.document_id WHERE d.source_id = 'a' AND c.metadata = d.metadata")" \
      "$(q -c "SELECT count(*) FROM dof_chunks c JOIN dof_documents d ON d.id = c.document_id WHERE d.source_id = 'a'")" \
      "every chunk carries the metadata committed during the drain"

# 2. body committed while the drain works on the document
q -c "UPDATE dof_documents SET metadata = '{\"v\": 3}' WHERE source_id = 'b'"
q -c "UPDATE dof_queue SET status = 'queued' FROM dof_documents d WHERE d.id = dof_queue.document_id AND d.source_id = 'b'"
q -c "BEGIN" -c "UPDATE dof_documents SET body = E'# Aviso\n\nTexto nuevo, escrito durante el proceso.' WHERE source_id = 'b'" -c "SELECT pg_sleep(2)" -c "COMMIT" >/dev/null &
writer=$!
sleep 0.5
q -c "CALL dof_process_queue(1, 1)" 2>/dev/null
wait $writer
q -c "CALL dof_process_queue()" 2>/dev/null
check "$(q -c "SELECT string_agg(content, ' ') LIKE '%escrito durante el proceso%' FROM dof_chunks c JOIN dof_documents d ON d.id = c.document_id WHERE d.source_id = 'b'")" \
      "t" "the chunks are those of the body committed during the drain"
check "$(q -c "SELECT count(*) FROM dof_queue WHERE status <> 'done'")" "0" "no queue row left behind"
finish
