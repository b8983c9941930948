#!/usr/bin/env bash
# Integration: the background queue workers (pg_dof preloaded; the project's cluster runs
# them for database pg_dof_workers during this test). With two workers and a manual CALL
# draining at once, every deferred document is indexed exactly once and none is left (index
# calls counted per document by a statement trigger); a worker killed with SIGKILL in the
# middle of a batch leaves nothing half indexed (the server reinitialises, the batch rolls
# back) and the queue resumes; a failing document is retried up to pg_dof.queue_max_attempts
# and then left failed; dof_requeue hands a collection to the workers; dof_queue_progress
# shows the running batches; a committed insert wakes idle workers at once;
# pg_terminate_backend and a fast shutdown stop a worker within a second in the middle of a
# long batch, which rolls back; more workers than half of max_worker_processes are capped;
# ALTER SYSTEM refuses a queue database that does not exist, and one written by hand waits
# for its database without a FATAL; workers whose rounds fail (a database still at 0.1.0)
# log it once and back off, and say when they work again; a worker whose launcher is gone
# stops.
set -uo pipefail
. "$(dirname "$0")/common.bash"
export PG_DOF_DB=pg_dof_workers
"$scripts/cluster.sh" fresh >/dev/null 2>&1
settings() { PG_DOF_DB=postgres q -c "ALTER SYSTEM SET pg_dof.queue_database = '$1'" -c "ALTER SYSTEM SET pg_dof.queue_naptime = '200ms'" -c "SELECT pg_reload_conf()" >/dev/null; }
workers() { PG_DOF_DB=postgres q -c "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'pg_dof queue worker' AND datname = '$1'"; }
wait_for() { for _ in $(seq 1 "$2"); do [ "$(q -c "$1")" = t ] && return 0; sleep 0.5; done; return 1; }
trap 'PG_DOF_DB=postgres q -c "ALTER SYSTEM RESET pg_dof.queue_workers" -c "ALTER SYSTEM RESET pg_dof.queue_naptime" -c "ALTER SYSTEM RESET pg_dof.queue_database" >/dev/null; "$scripts/cluster.sh" restart >/dev/null' EXIT
PG_DOF_DB=postgres q -c "ALTER SYSTEM SET pg_dof.queue_workers = 2" >/dev/null
"$scripts/cluster.sh" restart >/dev/null
settings pg_dof_workers
for _ in $(seq 1 40); do [ "$(workers pg_dof_workers)" = 2 ] && break; sleep 0.5; done
check "$(workers pg_dof_workers)" "2" "two workers serve the database named by pg_dof.queue_database"

q -c "INSERT INTO dof_collections (name, model, late_chunking, max_tokens, deferred) VALUES ('w', 'hash-384', false, 64, true)"
q -c "CREATE TABLE index_calls (document_id bigint);
      CREATE FUNCTION count_index_call() RETURNS trigger LANGUAGE plpgsql AS \$\$
      BEGIN INSERT INTO index_calls SELECT DISTINCT document_id FROM added; RETURN NULL; END \$\$;
      CREATE TRIGGER count_index_call AFTER INSERT ON dof_chunks REFERENCING NEW TABLE AS added
          FOR EACH STATEMENT EXECUTE FUNCTION count_index_call()"
q -c "INSERT INTO dof_documents (collection, source_id, body)
      SELECT 'w', 'doc-' || g, format(E'# Aviso %s\n\n%s', g, repeat(format('Texto del aviso número %s. ', g), 60)) FROM generate_series(1, 300) g"
q -c "SET client_min_messages = warning" -c "CALL dof_process_queue(4)" &
manual=$!
wait_for "SELECT count(*) = 0 FROM dof_queue WHERE status = 'queued'" 240
wait "$manual"
check "$(q -c "SELECT count(*) FROM dof_queue WHERE status <> 'done'")" "0" "workers and a manual CALL drain the queue"
check "$(q -c "SELECT count(DISTINCT document_id) || '/' || count(*) FROM index_calls")" "300/300" "every document indexed exactly once"
check "$(q -c "SELECT count(*) > 0 FROM pg_stat_activity WHERE backend_type = 'pg_dof queue worker'")" "t" "the workers are still there"
# a worker that has indexed yields the CPU to searches: its scheduling group (each backend
# is its own Linux autogroup) and its threads at pg_dof.ingest_nice's default, 19
niced=""
for wpid in $(PG_DOF_DB=postgres q -c "SELECT pid FROM pg_stat_activity WHERE backend_type = 'pg_dof queue worker' AND datname = 'pg_dof_workers'"); do
  group=$(awk '{print $NF}' "/proc/$wpid/autogroup" 2>/dev/null || echo 19)
  niced+="$group/$(ps -o ni= -p "$wpid" | tr -d ' ') "
done
check "$niced" "19/19 19/19 " "both workers index at nice 19, group and threads (pg_dof.ingest_nice)"

# SIGKILL a worker mid-batch: slow documents (a trigger sleeps) so a batch is in flight
q -c "TRUNCATE index_calls"
q -c "CREATE FUNCTION slow() RETURNS trigger LANGUAGE plpgsql AS \$\$ BEGIN PERFORM pg_sleep(0.2); RETURN NULL; END \$\$;
      CREATE TRIGGER slow AFTER INSERT ON dof_chunks FOR EACH STATEMENT EXECUTE FUNCTION slow()"
q -c "SELECT dof_requeue('w')" >/dev/null
wait_for "SELECT running > 0 FROM dof_queue_progress WHERE collection = 'w'" 40
check "$(q -c "SELECT running > 0 AND running <= 8 FROM dof_queue_progress WHERE collection = 'w'")" "t" \
  "dof_queue_progress shows the documents of the batches in flight as running (two workers, batches of 4)"
wait_for "SELECT count(*) > 8 FROM dof_queue WHERE status = 'done'" 60
pid=$(PG_DOF_DB=postgres q -c "SELECT pid FROM pg_stat_activity WHERE backend_type = 'pg_dof queue worker' AND datname = 'pg_dof_workers' AND state = 'active' LIMIT 1")
[ -n "$pid" ] && kill -9 "$pid"
sleep 2
for _ in $(seq 1 60); do q -c "SELECT 1" >/dev/null 2>&1 && break; sleep 0.5; done
q -c "DROP TRIGGER slow ON dof_chunks"
wait_for "SELECT count(*) = 0 FROM dof_queue WHERE status = 'queued'" 240
check "$([ -n "$pid" ] && echo killed)" "killed" "a busy worker was killed with SIGKILL"
check "$(q -c "SELECT count(*) FROM dof_queue WHERE status <> 'done'")" "0" "after the server reinitialised, the queue resumed and drained"
check "$(q -c "SELECT count(*) FROM dof_documents d WHERE NOT EXISTS (SELECT 1 FROM dof_chunks c WHERE c.document_id = d.id)
                  OR (SELECT count(*) FROM dof_chunks c WHERE c.document_id = d.id) <> (SELECT count(*) FROM dof_chunk(d.body, 64, 50, model => 'hash-384'))")" \
  "0" "no document half indexed: each holds exactly its chunks"

# retries: a document that fails is tried pg_dof.queue_max_attempts (3) times, then left
q -c "CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS \$\$ BEGIN
        IF EXISTS (SELECT 1 FROM added a JOIN dof_documents d ON d.id = a.document_id WHERE d.source_id = 'doc-7') THEN
          RAISE EXCEPTION 'refused for the test'; END IF; RETURN NULL; END \$\$;
      CREATE TRIGGER refuse AFTER INSERT ON dof_chunks REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION refuse()"
q -c "UPDATE dof_queue SET status = 'queued', attempts = 0 WHERE document_id = (SELECT id FROM dof_documents WHERE source_id = 'doc-7')"
# the pause doubles from 10 s: move the clock of each failure back instead of waiting
for _ in $(seq 1 60); do
  q -c "UPDATE dof_queue SET processed_at = processed_at - interval '1 hour' WHERE status = 'failed'" >/dev/null
  [ "$(q -c "SELECT attempts FROM dof_queue q JOIN dof_documents d ON d.id = q.document_id WHERE d.source_id = 'doc-7'")" = 3 ] && break
  sleep 0.5
done
sleep 1.5
check "$(q -c "SELECT status || ' ' || attempts || ' ' || error FROM dof_queue q JOIN dof_documents d ON d.id = q.document_id WHERE d.source_id = 'doc-7'")" \
  "failed 3 refused for the test" "a failing document is tried three times, then left failed with its error"
q -c "DROP TRIGGER refuse ON dof_chunks"

# pg_terminate_backend stops a worker within a second even in the middle of a long batch
# (a 600 KB document through the real model takes minutes): the batch rolls back, the
# document stays queued, and the postmaster starts the worker again. A 60 s naptime keeps
# the other worker asleep meanwhile (nothing new is queued), so nothing claims it again.
PG_DOF_DB=postgres q -c "ALTER SYSTEM SET pg_dof.queue_naptime = '60s'" -c "SELECT pg_reload_conf()" >/dev/null
sleep 1
q -c "INSERT INTO dof_collections (name, deferred) VALUES ('e5', true)"
big_body="SELECT format(E'# Ley\\n\\n%s', repeat('El contribuyente presentará la declaración anual ante la autoridad fiscal competente. ', 7000))"
q -c "INSERT INTO dof_documents (collection, source_id, body) SELECT 'e5', 'big', ($big_body)"
busy="SELECT pid FROM pg_stat_activity WHERE backend_type = 'pg_dof queue worker' AND datname = 'pg_dof_workers' AND state = 'active'"
wait_for "SELECT running = 1 FROM dof_queue_progress WHERE collection = 'e5'" 40
sleep 2  # well into the batch: tokenizing and embedding
old_pid=$(PG_DOF_DB=postgres q -c "$busy")
start=$(date +%s.%N)
PG_DOF_DB=postgres q -c "SELECT pg_terminate_backend($old_pid)" >/dev/null
for _ in $(seq 1 400); do [ "$(PG_DOF_DB=postgres q -c "SELECT count(*) FROM pg_stat_activity WHERE pid = $old_pid")" = 0 ] && break; sleep 0.05; done
took=$(echo "$(date +%s.%N) - $start" | bc)
check "$([ -n "$old_pid" ] && [ "$(echo "$took < 1.5" | bc)" = 1 ] && echo stopped)" "stopped" \
  "pg_terminate_backend stops a worker in the middle of a long batch within a second (took $(printf '%.2f' "$took") s)"
check "$(q -c "SELECT q.status || ' ' || (SELECT count(*) FROM dof_chunks c WHERE c.document_id = d.id) FROM dof_queue q JOIN dof_documents d ON d.id = q.document_id WHERE d.source_id = 'big'")" \
  "queued 0" "its batch rolled back: the document is queued again, no chunk stored"
q -c "SET lock_timeout = '3s'" -c "DELETE FROM dof_documents WHERE source_id = 'big'"
for _ in $(seq 1 60); do [ "$(workers pg_dof_workers)" = 2 ] && break; sleep 0.5; done
check "$(workers pg_dof_workers):$(PG_DOF_DB=postgres q -c "SELECT count(*) FROM pg_stat_activity WHERE pid = $old_pid")" "2:0" "and the postmaster starts it again"

# wake on new work: with a 60 s naptime, a document queued by a committed insert is indexed
# at once (the insert's commit signals the idle workers)
q -c "INSERT INTO dof_documents (collection, source_id, body) VALUES ('w', 'woken', E'# Aviso\n\nUn aviso nuevo que despierta a los trabajadores.')"
start=$(date +%s.%N)
wait_for "SELECT status = 'done' FROM dof_queue q JOIN dof_documents d ON d.id = q.document_id WHERE d.source_id = 'woken'" 20
check "$(q -c "SELECT status FROM dof_queue q JOIN dof_documents d ON d.id = q.document_id WHERE d.source_id = 'woken'")" "done" \
  "a newly queued document wakes the idle workers ($(printf '%.1f' "$(echo "$(date +%s.%N) - $start" | bc)") s with a 60 s naptime)"

# a fast shutdown while a worker is in a long batch takes seconds, not the batch's minutes
q -c "INSERT INTO dof_documents (collection, source_id, body) SELECT 'e5', 'big-2', ($big_body)"
wait_for "SELECT running = 1 FROM dof_queue_progress WHERE collection = 'e5'" 40
sleep 2
# after the restart the workers serve another database, so big-2 can be deleted unclaimed
PG_DOF_DB=postgres q -c "ALTER SYSTEM SET pg_dof.queue_database = 'pg_dof'" >/dev/null
start=$(date +%s.%N)
"$scripts/cluster.sh" stop >/dev/null
took=$(echo "$(date +%s.%N) - $start" | bc)
check "$([ "$(echo "$took < 5" | bc)" = 1 ] && echo fast)" "fast" "a fast shutdown with a worker mid-batch takes $(printf '%.1f' "$took") s"
"$scripts/cluster.sh" start >/dev/null
check "$(q -c "SELECT q.status FROM dof_queue q JOIN dof_documents d ON d.id = q.document_id WHERE d.source_id = 'big-2'")" "queued" "the interrupted batch's document is still queued"
q -c "DELETE FROM dof_documents WHERE collection = 'e5'"

# more workers than half of max_worker_processes: capped at half, said in the log
slots=$(PG_DOF_DB=postgres q -c "SHOW max_worker_processes")
log="$("$scripts/cluster.sh" dir)/postgresql.log"; log_from=$(( $(stat -c %s "$log") + 1 ))
PG_DOF_DB=postgres q -c "ALTER SYSTEM SET pg_dof.queue_workers = 64" -c "ALTER SYSTEM SET pg_dof.queue_database = 'pg_dof_workers'" >/dev/null
"$scripts/cluster.sh" restart >/dev/null
for _ in $(seq 1 40); do [ "$(workers pg_dof_workers)" = $((slots / 2)) ] && break; sleep 0.5; done
check "$(workers pg_dof_workers):$(tail -c +"$log_from" "$log" | grep -c "pg_dof.queue_workers = 64 is over half of max_worker_processes ($slots): starting $((slots / 2)) queue workers")" \
      "$((slots / 2)):1" "pg_dof.queue_workers = 64 starts half of max_worker_processes ($slots), with a warning"
PG_DOF_DB=postgres q -c "ALTER SYSTEM SET pg_dof.queue_workers = 2" >/dev/null
"$scripts/cluster.sh" restart >/dev/null

# a database that does not exist is refused by ALTER SYSTEM (the workers would FATAL every 5 s)
refused="$(PG_DOF_DB=postgres q -c "ALTER SYSTEM SET pg_dof.queue_database = 'no_such_database'" 2>&1)"
check "$(echo "$refused" | grep -c 'invalid value for parameter "pg_dof.queue_database": "no_such_database"'):$(echo "$refused" | grep -c 'No database has that name')" \
      "1:1" "ALTER SYSTEM refuses a pg_dof.queue_database that does not exist, saying why"
# workers in a database whose pg_dof is still 0.1.0 (no queue there): the error is logged
# once per worker, the workers stay (no restart every 5 s) and back off; after the update
# they say they work again
PG_DOF_DB=postgres q -c "DROP DATABASE IF EXISTS pg_dof_workers_old" -c "CREATE DATABASE pg_dof_workers_old" >/dev/null
PG_DOF_DB=pg_dof_workers_old q -c "SET client_min_messages = warning" -c "CREATE EXTENSION pg_dof VERSION '0.1.0' CASCADE"
log_from=$(( $(stat -c %s "$log") + 1 ))
settings pg_dof_workers_old
for _ in $(seq 1 40); do [ "$(workers pg_dof_workers_old)" = 2 ] && break; sleep 0.5; done
sleep 3
old_pids="$(PG_DOF_DB=postgres q -c "SELECT string_agg(pid::text, ',' ORDER BY pid) FROM pg_stat_activity WHERE backend_type = 'pg_dof queue worker'")"
sleep 4
failing='pg_dof queue worker: database "pg_dof_workers_old": .*without logging this again'
check "$(tail -c +"$log_from" "$log" | grep -c "$failing"):$(tail -c +"$log_from" "$log" | grep -c 'ERROR: .*dof_process_queue_batch')" "2:0" \
      "a database still at 0.1.0: one warning per worker in 7 s, no ERROR and restart every 5 s"
check "$(PG_DOF_DB=postgres q -c "SELECT string_agg(pid::text, ',' ORDER BY pid) FROM pg_stat_activity WHERE backend_type = 'pg_dof queue worker'")" \
      "$old_pids" "the failing workers stay (the same processes)"
PG_DOF_DB=pg_dof_workers_old q -c "SET client_min_messages = warning" -c "CREATE EXTENSION unaccent" -c "CREATE EXTENSION dict_int" -c "ALTER EXTENSION pg_dof UPDATE"
for _ in $(seq 1 60); do [ "$(tail -c +"$log_from" "$log" | grep -c 'database "pg_dof_workers_old" works again')" = 2 ] && break; sleep 0.5; done
check "$(tail -c +"$log_from" "$log" | grep -c 'database "pg_dof_workers_old" works again')" "2" "after ALTER EXTENSION pg_dof UPDATE both workers say they work again"

settings pg_dof
for _ in $(seq 1 40); do [ "$(workers pg_dof_workers)" = 0 ] && break; sleep 0.5; done
check "$(workers pg_dof_workers)" "0" "a changed pg_dof.queue_database moves the workers away"

# a database that does not exist, written into the configuration by hand (ALTER SYSTEM
# refuses it): the launcher says so once, no worker dies (before: a FATAL per worker every
# 5 s), and the workers start when the database is created; a terminated launcher's workers
# stop and the launcher started again starts its own
data="$("$scripts/cluster.sh" dir)/data"
PG_DOF_DB=postgres q -c "ALTER SYSTEM RESET pg_dof.queue_database" -c "SET client_min_messages = warning" -c "DROP DATABASE IF EXISTS pg_dof_later" >/dev/null
echo "pg_dof.queue_database = 'pg_dof_later'" | sudo -u postgres tee -a "$data/postgresql.auto.conf" >/dev/null
log_from=$(( $(stat -c %s "$log") + 1 ))
"$scripts/cluster.sh" restart >/dev/null
sleep 8
check "$(tail -c +"$log_from" "$log" | grep -c "pg_dof.queue_database = 'pg_dof_later' names no database"):$(tail -c +"$log_from" "$log" | grep -c 'FATAL: .*database "pg_dof_later" does not exist'):$(workers pg_dof_later)" \
      "1:0:0" "a missing pg_dof.queue_database written by hand: one warning in 8 s, no FATAL, no worker"
PG_DOF_DB=postgres q -c "CREATE DATABASE pg_dof_later" >/dev/null
for _ in $(seq 1 20); do [ "$(workers pg_dof_later)" = 2 ] && break; sleep 0.5; done
check "$(workers pg_dof_later):$(tail -c +"$log_from" "$log" | grep -c 'database "pg_dof_later" exists now')" "2:1" \
      "once the database is created the launcher starts both workers there, and says so"
launcher="$(PG_DOF_DB=postgres q -c "SELECT pid FROM pg_stat_activity WHERE backend_type = 'pg_dof queue launcher'")"
before="$(PG_DOF_DB=postgres q -c "SELECT string_agg(pid::text, ',' ORDER BY pid) FROM pg_stat_activity WHERE backend_type = 'pg_dof queue worker'")"
PG_DOF_DB=postgres q -c "SELECT pg_terminate_backend($launcher)" >/dev/null
sleep 8
after="$(PG_DOF_DB=postgres q -c "SELECT string_agg(pid::text, ',' ORDER BY pid) FROM pg_stat_activity WHERE backend_type = 'pg_dof queue worker'")"
check "$(workers pg_dof_later):$([ "$before" != "$after" ] && echo new):$(tail -c +"$log_from" "$log" | grep -c "its launcher (PID $launcher) is gone")" "2:new:2" \
      "a terminated launcher: its two workers stop, the launcher started again starts two new ones"
PG_DOF_DB=postgres q -c "DROP DATABASE pg_dof_later WITH (FORCE)" >/dev/null
sleep 3
check "$(workers pg_dof_later):$(tail -c +"$log_from" "$log" | grep -c "pg_dof.queue_database = 'pg_dof_later' names no database")" "0:2" \
      "the database dropped: its workers are gone, and the launcher says once more that it is missing"
sudo -u postgres sed -i "/pg_dof_later/d" "$data/postgresql.auto.conf"
trap - EXIT
PG_DOF_DB=postgres q -c "ALTER SYSTEM RESET pg_dof.queue_workers" -c "ALTER SYSTEM RESET pg_dof.queue_naptime" \
  -c "ALTER SYSTEM RESET pg_dof.queue_database" >/dev/null
"$scripts/cluster.sh" restart >/dev/null
finish
