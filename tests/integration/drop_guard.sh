#!/usr/bin/env bash
# Integration: a careless drop cannot delete stored documents. DROP EXTENSION pg_dof, DROP
# EXTENSION vector / unaccent / plpgsql CASCADE, DROP TYPE vector CASCADE, DROP SCHEMA ...
# CASCADE of pg_dof's schema and DROP OWNED BY pg_dof's owner are refused (SQLSTATE 2BP01)
# while documents are stored, in replica mode too; nothing is lost; an empty install drops
# freely; SET pg_dof.allow_drop = on lets a deliberate drop through; other drops are
# untouched.
set -uo pipefail
. "$(dirname "$0")/common.bash"
export PG_DOF_DB=pg_dof_drop_guard
"$scripts/cluster.sh" fresh
# pg_dof in a schema of its own, for the DROP SCHEMA case, owned by a role of its own, for
# DROP OWNED BY (the bootstrap superuser's objects cannot be dropped that way at all)
q -c "DROP ROLE IF EXISTS dof_guard_other"
q -c "DO \$\$BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'dof_guard_owner') THEN CREATE ROLE dof_guard_owner SUPERUSER; END IF; END\$\$"
q -c "SET client_min_messages = warning; DROP EXTENSION pg_dof" -c "CREATE SCHEMA rag" -c "SET ROLE dof_guard_owner" -c "CREATE EXTENSION pg_dof SCHEMA rag"
q -c "CREATE EXTENSION pg_trgm" -c "DROP EXTENSION pg_trgm"
check "$(q -c "SELECT count(*) FROM pg_extension WHERE extname = 'pg_trgm'")" "0" "other extensions drop as usual"
q -c "SET client_min_messages = warning; DROP EXTENSION pg_dof"
check "$(q -c "SELECT count(*) FROM pg_extension WHERE extname = 'pg_dof'")" "0" "an install without documents drops freely"
q -c "SET client_min_messages = warning; SET ROLE dof_guard_owner; CREATE EXTENSION pg_dof SCHEMA rag"
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
check "$(refused "DROP EXTENSION plpgsql CASCADE")" "2BP01" "DROP EXTENSION plpgsql CASCADE (pg_dof's functions are in PL/pgSQL) is refused"
check "$(refused "DROP EXTENSION unaccent CASCADE")" "2BP01" "DROP EXTENSION unaccent CASCADE is refused"
check "$(refused "DROP TYPE vector CASCADE")" "2BP01" "DROP TYPE vector CASCADE is refused"
check "$(refused "DROP LANGUAGE plpgsql CASCADE")" "2BP01" "DROP LANGUAGE plpgsql CASCADE is refused"
check "$(refused "DROP OWNED BY dof_guard_owner")" "2BP01" "DROP OWNED BY pg_dof's owner (no CASCADE) is refused"
check "$(refused "DROP OWNED BY dof_guard_owner CASCADE")" "2BP01" "DROP OWNED BY pg_dof's owner CASCADE is refused"
check "$(refused "SET session_replication_role = replica; DROP EXTENSION pg_dof CASCADE")" "2BP01" "DROP EXTENSION pg_dof CASCADE in replica mode is refused"
# drops that do not reach pg_dof pass while documents are stored
q -c "CREATE SCHEMA scratch" -c "CREATE FUNCTION scratch.f() RETURNS int LANGUAGE plpgsql AS 'BEGIN RETURN 1; END'" \
  -c "CREATE TYPE scratch.t AS (a int)" -c "CREATE VIEW scratch.v AS SELECT scratch.f()" -c "CREATE ROLE dof_guard_other" \
  -c "CREATE TABLE scratch.owned (a int)" -c "ALTER TABLE scratch.owned OWNER TO dof_guard_other"
check "$(q -c "DROP TYPE scratch.t CASCADE" -c "DROP FUNCTION scratch.f() CASCADE" -c "DROP OWNED BY dof_guard_other" -c "DROP SCHEMA scratch CASCADE" -c "DROP ROLE dof_guard_other" 2>&1 | grep -c ERROR)" "0" \
      "DROP TYPE / FUNCTION / SCHEMA ... CASCADE and DROP OWNED of objects pg_dof does not depend on pass"
check "$(q -c "SELECT count(*) FROM rag.dof_documents")/$(q -c "SELECT count(*) FROM rag.dof_chunks WHERE embedding IS NOT NULL")" "1/1" "the document and its chunk are still there"
check "$(q -c "SET pg_dof.allow_drop = on" -c "DROP EXTENSION pg_dof" 2>&1)" "" "SET pg_dof.allow_drop = on lets a deliberate drop through"
check "$(q -c "SELECT count(*) FROM pg_extension WHERE extname = 'pg_dof'")" "0" "and pg_dof is gone"
q -c "DROP ROLE dof_guard_owner"
finish
