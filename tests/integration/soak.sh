#!/usr/bin/env bash
# Integration: a bounded soak. For SOAK_SECONDS (default 45; `make soak` runs 300)
# 8 sessions insert, update (body and metadata) and delete documents in an inline and a
# deferred collection through the triggers, a ninth drains the queue, and a chaos loop
# cancels a random one of them every ~0.7 s. Afterwards: every document has exactly the
# chunks a fresh dof_chunk gives for its body (nothing orphaned, duplicated or stale), every
# chunk is embedded, every deferred document's queue row is done, patterns match
# dof_classify, and the server log has no deadlock and no crash.
set -uo pipefail
. "$(dirname "$0")/common.bash"
export PG_DOF_DB=pg_dof_soak
seconds="${SOAK_SECONDS:-45}"
sessions=8
"$scripts/cluster.sh" fresh
log_file="$("$scripts/cluster.sh" dir)/postgresql.log"
log_start=$(wc -l < "$log_file")
q -c "INSERT INTO dof_collections (name, max_tokens, overlap_tokens) VALUES ('soak', 64, 8)"
q -c "INSERT INTO dof_collections (name, max_tokens, overlap_tokens, deferred) VALUES ('soak_q', 64, 8, true)"

session_sql() {  # session_sql N SECONDS: random operations for SECONDS, each in its own transaction
  cat <<SQL
SET application_name = 'dof_soak_$1';
DO \$\$
DECLARE
    deadline timestamptz := clock_timestamp() + interval '$2 seconds';
    coll text; sid text; op integer; new_body text;
    done integer := 0; cancelled integer := 0; deadlocks integer := 0; errors integer := 0;
BEGIN
    PERFORM setseed($1 / 100.0);
    WHILE clock_timestamp() < deadline LOOP
        coll := CASE WHEN random() < 0.5 THEN 'soak' ELSE 'soak_q' END;
        sid := 'doc-' || floor(random() * 30)::integer;
        op := floor(random() * 10)::integer;
        new_body := '# Aviso ' || sid || E'\n\n' || repeat(format('Párrafo %s del aviso oficial número %s. ', op, floor(random() * 1000)), 1 + floor(random() * 12)::integer);
        BEGIN
            IF op < 4 THEN
                INSERT INTO dof_documents (collection, source_id, body) VALUES (coll, sid, new_body)
                ON CONFLICT (collection, source_id) DO UPDATE SET body = excluded.body;
            ELSIF op < 6 THEN
                UPDATE dof_documents SET metadata = jsonb_build_object('op', op) WHERE collection = coll AND source_id = sid;
            ELSIF op < 8 THEN
                DELETE FROM dof_documents WHERE collection = coll AND source_id = sid;
            ELSE
                UPDATE dof_documents SET body = body || E'\n\nAdición ' || op || '.' WHERE collection = coll AND source_id = sid;
            END IF;
            done := done + 1;
        EXCEPTION
            WHEN query_canceled THEN cancelled := cancelled + 1;
            WHEN deadlock_detected THEN deadlocks := deadlocks + 1;
            WHEN OTHERS THEN errors := errors + 1; RAISE WARNING 'soak error: % %', SQLSTATE, SQLERRM;
        END;
        COMMIT;
    END LOOP;
    RAISE NOTICE 'soak session $1: % done, % cancelled, % deadlocks, % errors', done, cancelled, deadlocks, errors;
END
\$\$;
SQL
}

# a cancel that lands between two operations (in COMMIT, say) ends the DO block: the
# writer then reconnects and goes on until the deadline
end=$(( $(date +%s) + seconds ))
outputs=()
for i in $(seq 1 "$sessions"); do
  out="$(mktemp)"; outputs+=("$out")
  ( while [ "$(date +%s)" -lt "$end" ]; do session_sql "$i" $(( end - $(date +%s) )) | q; done > "$out" 2>&1 ) &
done
drain_out="$(mktemp)"
( end=$(( $(date +%s) + seconds )); drains=0
  while [ "$(date +%s)" -lt "$end" ]; do
    q -c "SET application_name = 'dof_soak_drain'" -c "CALL dof_process_queue(5, 2)" >/dev/null 2>&1; drains=$((drains + 1))
  done; echo "$drains" > "$drain_out" ) &
drainer=$!
cancels=0
while [ "$(date +%s)" -lt "$end" ]; do
  sleep 0.7
  hit=$(q -c "SELECT count(*) FROM (SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE application_name LIKE 'dof_soak%' AND state = 'active' ORDER BY random() LIMIT 1) c")
  cancels=$((cancels + ${hit:-0}))
done
wait
q -c "CALL dof_process_queue()" >/dev/null 2>&1

totals=$(cat "${outputs[@]}" | sed -n 's/.*soak session [0-9]*: \([0-9]*\) done, \([0-9]*\) cancelled, \([0-9]*\) deadlocks, \([0-9]*\) errors.*/\1 \2 \3 \4/p' \
  | awk '{d += $1; c += $2; k += $3; e += $4; n += 1} END {print n, d, c, k, e}')
read -r finished ops cancelled deadlocks errors <<< "$totals"
aborted=$(cat "${outputs[@]}" | grep -c 'ERROR:  canceling statement due to user request' || true)
other=$(cat "${outputs[@]}" | grep 'ERROR:' | grep -vc 'canceling statement due to user request' || true)
echo "soak | $seconds s, $sessions writers + 1 queue drainer ($(cat "$drain_out") drains) | $ops operations, $cancelled cancelled inside a trigger, $aborted between operations, $cancels cancels sent, $deadlocks deadlocks, $errors other errors"
cat "${outputs[@]}" | grep -h "soak error\|ERROR:" | grep -v 'canceling statement due to user request' | sort | uniq -c | head -5
echo "soak | session blocks: $finished ran to the deadline, $aborted ended by a cancel between operations and reconnected"
check "$(( cancelled + aborted > 0 ))" "1" "cancels reached sessions at work (inside triggers: $cancelled)"
check "$other" "0" "no session ended by an error other than a cancel"
check "$(( ops > 0 ))" "1" "operations were done"
check "$deadlocks" "0" "no deadlock between writers"
check "$errors" "0" "no error other than the cancels"
check "$(q -c "SELECT count(*) FROM dof_documents d JOIN dof_collections k ON k.name = d.collection
               WHERE d.collection LIKE 'soak%'
                 AND (SELECT array_agg(ROW(c.chunk_index, c.char_start, c.char_end, c.content, c.token_count)::text ORDER BY c.chunk_index)
                      FROM dof_chunks c WHERE c.document_id = d.id)
                     IS DISTINCT FROM
                     (SELECT array_agg(ROW(x.chunk_index, x.char_start, x.char_end, x.content, x.token_count)::text ORDER BY x.chunk_index)
                      FROM dof_chunk(d.body, k.max_tokens, k.overlap_tokens, NULL, k.model, k.chunker, k.chunker_options) x)")" "0" \
  "every document has exactly the chunks of its current body ($(q -c "SELECT count(*) FROM dof_documents") documents, $(q -c "SELECT count(*) FROM dof_chunks") chunks)"
check "$(q -c "SELECT count(*) FROM dof_chunks c JOIN dof_documents d ON d.id = c.document_id WHERE c.embedding IS NULL OR c.collection <> d.collection OR c.metadata <> d.metadata")" "0" "every chunk is embedded and carries its document's collection and metadata"
check "$(q -c "SELECT count(*) FROM dof_documents d WHERE d.collection = 'soak_q' AND NOT EXISTS (SELECT 1 FROM dof_queue q WHERE q.document_id = d.id AND q.status = 'done')")" "0" "every deferred document's queue row is done"
check "$(q -c "SELECT count(*) FROM dof_queue WHERE status <> 'done'")" "0" "no queue row left queued or failed"
check "$(q -c "SELECT count(*) FROM dof_documents WHERE pattern IS DISTINCT FROM dof_classify(body)")" "0" "every stored pattern is the body's classification"
check "$(tail -n +"$((log_start + 1))" "$log_file" | grep -c 'deadlock detected' || true)" "0" "no deadlock in the server log"
check "$(tail -n +"$((log_start + 1))" "$log_file" | grep -cE 'terminated by signal|PANIC' || true)" "0" "no crash in the server log"
rm -f "${outputs[@]}" "$drain_out"
finish
