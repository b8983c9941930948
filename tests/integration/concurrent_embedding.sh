#!/usr/bin/env bash
# Integration: sessions embedding at the same time, a session cancelled mid-embedding, and
# backends that exit after loading ONNX Runtime — the server must log no crash.
# Runs against the local cluster (scripts/cluster.sh); prints "N passed, N failed".
set -uo pipefail
. "$(dirname "$0")/common.bash"
export PG_DOF_DB=pg_dof_integration

"$scripts/cluster.sh" fresh
log_file="$("$scripts/cluster.sh" dir)/postgresql.log"
log_start=$(wc -l < "$log_file")

embed_sql="SELECT count(*) FILTER (WHERE vector_dims(embedding) = 384) FROM dof_embed(ARRAY(SELECT format('Artículo %s. Se reforma la ley federal de derechos en su fracción %s.', i, i) FROM generate_series(1, 40) i))"
out_a="$(mktemp)"; out_b="$(mktemp)"
q -c "$embed_sql" > "$out_a" 2>&1 & pid_a=$!
q -c "$embed_sql" > "$out_b" 2>&1 & pid_b=$!
wait $pid_a; rc_a=$?; wait $pid_b; rc_b=$?
check "$rc_a:$(cat "$out_a")" "0:40" "session A embeds 40 texts while B does"
check "$rc_b:$(cat "$out_b")" "0:40" "session B embeds 40 texts while A does"
rm -f "$out_a" "$out_b"

# cancel a long embedding from another session: the victim gets 57014, the server lives on
long_sql="SELECT count(*) FROM dof_embed(ARRAY(SELECT repeat(format('Artículo %s de la ley. ', i), 60) FROM generate_series(1, 3000) i))"
out_c="$(mktemp)"
q -c "SET application_name = 'dof_victim'" -c "$long_sql" > "$out_c" 2>&1 & pid_c=$!
for _ in $(seq 1 60); do  # wait until the embedding is running, then give it a second
  [ "$(q -c "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'dof_victim' AND state = 'active'")" = 1 ] && break
  sleep 0.5
done
sleep 1
q -c "SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE application_name = 'dof_victim'" >/dev/null
wait $pid_c
check "$(grep -c 'canceling statement due to user request' "$out_c")" "1" "a cancelled embedding stops with 'canceling statement due to user request'"
rm -f "$out_c"
check "$(q -c "SELECT vector_dims(dof_embed_query('sigo vivo'))")" "384" "the server still embeds after the cancel"

# backends that loaded ONNX Runtime exit cleanly (no crash, no recovery) in the server log
crashes=$(tail -n +"$((log_start + 1))" "$log_file" | grep -cE 'terminated by signal|server process .* was terminated|all server processes terminated' || true)
check "$crashes" "0" "no backend crashed (server log)"

finish
