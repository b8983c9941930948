#!/usr/bin/env bash
# Integration: a careless drop cannot delete stored documents. DROP EXTENSION pg_dof, DROP
# EXTENSION vector CASCADE and DROP SCHEMA ... CASCADE of pg_dof's schema are refused
# (SQLSTATE 2BP01) while documents are stored; nothing is lost; an empty install drops
# freely; SET pg_dof.allow_drop = on lets a deliberate drop through; other drops are
# untouched.
set -uo pipefail
. "$(dirname "$0")/common.bash"
export PG_DOF_DB=pg_dof_drop_guard
"$scripts/cluster.sh" fresh
# pg_dof in a schema of its own, for the DROP SCHEMA case
q -c "SET client_min_messages = warning; DROP EXTENSION pg_dof" -c "CREATE SCHEMA rag" -c "CREATE EXTENSION pg_dof SCHEMA rag"
q -c "CREATE EXTENSION pg_trgm" -c "DROP EXTENSION pg_trgm"
check "$(q -c "SELECT count(*) FROM pg_extension WHERE extname = 'pg_trgm'")" "0" "other extensions drop as usual"
q -c "SET client_min_messages = warning; DROP EXTENSION pg_dof"
check "$(q -c "SELECT count(*) FROM pg_extension WHERE extname = 'pg_dof'")" "0" "an install without documents drops freely"
q -c "SET client_min_messages = warning; CREATE EXTENSION pg_dof SCHEMA rag"
q -c "INSERT INTO rag.dof_documents (source_id, body) VALUES ('aviso', E'# Aviso\n\nEl tipo de cambio fue de 17.05 pesos por dólar.')"

refused() {  # refused SQL...: the SQLSTATE of the statement, run with VERBOSITY verbose
  q -v VERBOSITY=verbose -c "$1" 2>&1 | sed -n 's/^ERROR:  \([0-9A-Z]\{5\}\):.*/\1/p' | head -1
}
check "$(refused "DROP EXTENSION pg_dof")" "2BP01" "DROP EXTENSION pg_dof is refused while a document is stored"
check "$(q -c "DROP EXTENSION pg_dof" 2>&1 | grep -c 'would delete its 1 stored documents')" "1" "the error says how many documents would go"
check "$(q -c "DROP EXTENSION pg_dof" 2>&1 | grep -c 'HINT:.*pg_dof.allow_drop')" "1" "the hint names pg_dof.allow_drop"
check "$(refused "DROP EXTENSION pg_dof CASCADE")" "2BP01" "DROP EXTENSION pg_dof CASCADE is refused"
check "$(refused "DROP EXTENSION IF EXISTS pg_trgm, pg_dof")" "2BP01" "a list that names pg_dof is refused"
check "$(refused "DROP EXTENSION vector CASCADE")" "2BP01" "DROP EXTENSION vector CASCADE (pg_dof requires it) is refused"
check "$(refused "DROP SCHEMA rag CASCADE")" "2BP01" "DROP SCHEMA of pg_dof's schema CASCADE is refused"
check "$(q -c "SELECT count(*) FROM rag.dof_documents")/$(q -c "SELECT count(*) FROM rag.dof_chunks WHERE embedding IS NOT NULL")" "1/1" "the document and its chunk are still there"
check "$(q -c "SET pg_dof.allow_drop = on" -c "DROP EXTENSION pg_dof" 2>&1)" "" "SET pg_dof.allow_drop = on lets a deliberate drop through"
check "$(q -c "SELECT count(*) FROM pg_extension WHERE extname = 'pg_dof'")" "0" "and pg_dof is gone"
finish
