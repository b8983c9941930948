#!/usr/bin/env bash
# A sharded pg_dof on this machine: a coordinator (PL/Proxy + pg_dof_coordinator, no model,
# no chunks) and $PG_DOF_SHARDS pg_dof shards (2 by default), each its own PostgreSQL
# cluster with its own socket directory and port.
#   shards.sh start   start them, (re)create the databases, set up the cluster, load the
#                     samples through the coordinator and run a search
#   shards.sh up      start them and set up the cluster, empty, loading nothing (tests)
#   shards.sh stop | status | psql [args] (coordinator) | shard N [psql args] | dir
#   shards.sh shard-stop N | shard-start N   one shard only (tests: a shard that is down)
#   shards.sh add N      start shard N (beyond $PG_DOF_SHARDS) with a fresh database; prints
#                        its connection string for dof_cluster_set_shards
# Ports: coordinator $PG_DOF_SHARDS_PORT (5510), shard i the next ones.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
. "$here/config.sh"
repo="$(cd "$here/.." && pwd)"
SHARDS="${PG_DOF_SHARDS:-2}"
BASE_PORT="${PG_DOF_SHARDS_PORT:-5510}"
BASE="$("$here/cluster.sh" dir)/shards"

# cluster.sh for one member: coordinator or shard N
member() { # NAME PORT DB PRELOAD cluster.sh-args...
  local name="$1" port="$2" db="$3" preload="$4"; shift 4
  PG_DOF_RUN="$BASE/$name" PG_DOF_PORT="$port" PG_DOF_DB="$db" PG_DOF_PRELOAD="$preload" \
    PG_DOF_SHARED_BUFFERS=256MB "$here/cluster.sh" "$@"
}
# The coordinator needs PL/Proxy, which Debian packages for PostgreSQL 15 only: over shards
# of another version it runs on 15 (it holds no pg_dof and no chunks, only SQL over PL/Proxy)
COORDINATOR_PG="$PG"; [ -f "$("$PG_CONFIG" --pkglibdir)/plproxy.so" ] || COORDINATOR_PG=15
coordinator() { PG=$COORDINATOR_PG member coordinator "$BASE_PORT" dof_coordinator 0 "$@"; }
shard() { local i="$1"; shift; member "shard$i" $((BASE_PORT + 1 + i)) pg_dof 1 "$@"; }
shard_connection() { echo "host=$BASE/shard$1 port=$((BASE_PORT + 1 + $1)) dbname=pg_dof"; }

up() {
  local connections=() i
  for i in $(seq 0 $((SHARDS - 1))); do
    shard "$i" start >/dev/null
    shard "$i" fresh
    connections+=("'$(shard_connection "$i")'")
  done
  coordinator start >/dev/null
  PG=$COORDINATOR_PG PG_DOF_DB=postgres member coordinator "$BASE_PORT" postgres 0 psql -q -v ON_ERROR_STOP=1 \
    -c "DROP DATABASE IF EXISTS dof_coordinator WITH (FORCE)" -c "CREATE DATABASE dof_coordinator"
  coordinator psql -q -v ON_ERROR_STOP=1 -c "SET client_min_messages = warning; CREATE EXTENSION pg_dof_coordinator CASCADE" \
    -c "SELECT dof_cluster_set_shards(ARRAY[$(IFS=,; echo "${connections[*]}")])" >/dev/null
  echo "coordinator on port $BASE_PORT, $SHARDS shards on ports $((BASE_PORT + 1))-$((BASE_PORT + SHARDS)) ($BASE)"
}

case "${1:-status}" in
  up) up ;;
  start)
    up
    log "samples through the coordinator (dof_put_document routes each to its shard)"
    script="$(mktemp)"; trap 'rm -f "$script"' EXIT
    for file in "$repo"/samples/*.md; do
      [ "$(basename "$file")" = README.md ] && continue
      printf '%s\n' "\\set body \`cat '$file'\`" \
        "SELECT * FROM dof_put_document('default', '$(basename "$file" .md)', split_part(:'body', E'\\n', 1), :'body');" >> "$script"
    done
    PGOPTIONS='-c client_min_messages=warning' coordinator psql -q -v ON_ERROR_STOP=1 -o /dev/null -f "$script"
    coordinator psql -q <<'SQL'
\pset footer off
\echo 'dof_cluster_status'
SELECT shard, reachable, version, documents, chunks, queued FROM dof_cluster_status;
\echo 'dof_hybrid_search(''compra de medicinas para hospitales'', k => 3), through the coordinator'
SELECT source_id, round(score::numeric, 4) AS score, vector_rank, text_rank, left(replace(content, E'\n', ' '), 60) AS content
FROM dof_hybrid_search('compra de medicinas para hospitales', k => 3);
SQL
    echo "Connect with: scripts/shards.sh psql (coordinator), scripts/shards.sh shard 0 (a shard)"
    ;;
  stop)
    coordinator stop
    for i in $(seq 0 $((SHARDS - 1))); do shard "$i" stop; done
    ;;
  status)
    echo "coordinator: $(coordinator status)"
    for i in $(seq 0 $((SHARDS - 1))); do echo "shard $i: $(shard "$i" status)"; done
    ;;
  psql) shift; coordinator psql "$@" ;;
  shard) i="$2"; shift 2; shard "$i" psql "$@" ;;
  shard-stop) shard "$2" stop ;;
  shard-start) shard "$2" start ;;
  add) shard "$2" start >/dev/null; shard "$2" fresh; shard_connection "$2" ;;
  connection) shard_connection "$2" ;;
  dir) echo "$BASE" ;;
  *) echo "usage: $0 start|up|stop|status|psql [args]|shard N [args]|shard-stop N|shard-start N|add N|connection N|dir" >&2; exit 2 ;;
esac
