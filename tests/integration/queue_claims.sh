#!/usr/bin/env bash
# Integration: several drains of the deferred queue at once (three CALLs in parallel
# sessions, as workers and a manual CALL would) index every document exactly once: each
# batch claims its rows with FOR UPDATE SKIP LOCKED. Index calls are counted per document
# by a statement trigger on dof_chunks (each dof_index_document inserts a document's chunks
# in one statement).
set -uo pipefail
. "$(dirname "$0")/common.bash"
export PG_DOF_DB=pg_dof_claims
"$scripts/cluster.sh" fresh
q -c "INSERT INTO dof_collections (name, model, late_chunking, max_tokens, deferred) VALUES ('claims', 'hash-384', false, 64, true)"
q -c "INSERT INTO dof_documents (collection, source_id, body)
      SELECT 'claims', 'doc-' || g, format(E'# Aviso %s\n\n%s', g, repeat(format('Texto del aviso número %s. ', g), 40)) FROM generate_series(1, 120) g"
q -c "CREATE TABLE index_calls (document_id bigint, at timestamptz DEFAULT clock_timestamp());
      CREATE FUNCTION count_index_call() RETURNS trigger LANGUAGE plpgsql AS \$\$
      BEGIN INSERT INTO index_calls (document_id) SELECT DISTINCT document_id FROM added; RETURN NULL; END \$\$;
      CREATE TRIGGER count_index_call AFTER INSERT ON dof_chunks REFERENCING NEW TABLE AS added
          FOR EACH STATEMENT EXECUTE FUNCTION count_index_call()"
check "$(q -c "SELECT count(*) FROM dof_queue WHERE status = 'queued'")" "120" "120 documents queued"
pids=()
for _ in 1 2 3; do
  q -c "SET client_min_messages = warning" -c "CALL dof_process_queue(4)" &
  pids+=($!)
done
failures=0
for pid in "${pids[@]}"; do wait "$pid" || failures=$((failures + 1)); done
check "$failures" "0" "three concurrent drains finish without an error"
check "$(q -c "SELECT count(*) FROM dof_queue WHERE status <> 'done'")" "0" "no document left unprocessed"
check "$(q -c "SELECT count(DISTINCT document_id) FROM index_calls")" "120" "every document indexed"
check "$(q -c "SELECT count(*) FROM (SELECT document_id FROM index_calls GROUP BY 1 HAVING count(*) > 1) twice")" "0" \
      "no document indexed twice"
finish
