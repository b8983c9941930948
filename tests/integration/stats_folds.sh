#!/usr/bin/env bash
# Integration: BM25's statistics folded by two sessions at once. A fold holds its collection
# (dof_stats_lock_class) until its transaction ends, which for a trigger's fold is the end of
# the user's own transaction: another session's fold of that collection must not wait for it
# (dof_compact_stats returns NULL, a statement whose fold is due goes on unfolded), and the
# counts stay exact. Each session here waits at most lock_timeout (1 s) for a lock: a fold
# that waited would fail it.
set -uo pipefail
. "$(dirname "$0")/common.bash"
export PG_DOF_DB=pg_dof_stats_folds
"$scripts/cluster.sh" fresh
q -c "INSERT INTO dof_collections (name, model, late_chunking, max_tokens) VALUES ('a', 'hash-384', false, 32), ('b', 'hash-384', false, 32)"
insert() { # COLLECTION FIRST LAST: a statement per document, folds due every statement
  q -c "SET pg_dof.stats_fold_every = 1" -c "SET lock_timeout = '1s'" \
    -c "DO \$\$ BEGIN FOR g IN $2..$3 LOOP INSERT INTO dof_documents (collection, source_id, body)
          VALUES ('$1', '$1-' || g, format(E'# Aviso %s\n\nLa aduana revisa el pedimento número %s.', g, g)); END LOOP; END \$\$"
}
wrong() { q -c "$stats_wrong"; }
rows() { q -c "SELECT count(*) FROM dof_collection_stats WHERE collection = '$1'"; }
insert a 1 3; insert b 1 3
check "$(rows a)/$(rows b)/$(wrong)" "1/1/0" "folded by the triggers as written: one statement row per collection, counts exact"

# session 1 folds 'a' and keeps its transaction open until told (a row in released; at most 60 s)
q -c "CREATE TABLE released ()"
q -c "BEGIN" -c "INSERT INTO dof_documents (collection, source_id, body) VALUES ('a', 'a-held', E'# Aviso\n\nUn aviso más.')" \
  -c "SELECT dof_compact_stats('a')" \
  -c "DO \$\$ BEGIN FOR i IN 1..1200 LOOP EXIT WHEN EXISTS (SELECT FROM released); PERFORM pg_sleep(0.05); END LOOP; END \$\$" \
  -c "COMMIT" >/dev/null &
holder=$!
held() { q -c "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND classid = dof_stats_lock_class() AND objid = hashtext('a')::oid AND granted"; }
for _ in $(seq 1 100); do [ "$(held)" = 1 ] && break; sleep 0.1; done
check "$(held)" "1" "the fold holds its collection's advisory lock (pg_locks)"
check "$(q -c "SET lock_timeout = '1s'" -c "SELECT dof_compact_stats('a') IS NULL")" "t" "a second fold of 'a' returns NULL instead of waiting"
insert a 4 6; status=$?
check "$status/$(rows a)" "0/4" "statements whose fold is due go on without waiting, their deltas unfolded"
insert b 4 6
check "$(rows b)" "1" "another collection is folded meanwhile"
check "$(q -c "SET lock_timeout = '1s'" -c "SELECT dof_compact_stats() IS NOT NULL")" "t" "a fold of every collection skips the one held and does not wait"
q -c "INSERT INTO released DEFAULT VALUES"
wait $holder
check "$(wrong)" "0" "the counts are exact after both sessions"
insert a 7 7
check "$(rows a)/$(wrong)" "1/0" "once the holder commits, the next statement folds 'a'"
finish
