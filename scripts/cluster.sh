#!/usr/bin/env bash
# The project's own PostgreSQL cluster (version $PG: 15, 17 or 18; scripts/config.sh): never the system one.
#   cluster.sh start | stop | restart | clean | status | psql [psql args...] | dir | fresh
#   (fresh: drops and recreates database $PG_DOF_DB with pg_dof installed)
# PG_DOF_RUN (its directory), PG_DOF_PORT, PG_DOF_DB, PG_DOF_PRELOAD=0 (no queue workers) and
# PG_DOF_SHARED_BUFFERS describe a further cluster: scripts/shards.sh starts three.
# Data, socket and log live in one directory owned by the postgres user (PostgreSQL
# refuses to run as root): .run/ in the checkout when postgres can reach it, otherwise a
# folder under /var/tmp named after the checkout. Unix socket only, port $PG_DOF_PORT;
# shared_buffers 1GB so the scale benchmark's indexes (~300 MB at 120k chunks) stay in memory,
# in huge pages where the kernel can give them (reserve_huge_pages; PG_DOF_HUGE_PAGES=off
# leaves the kernel's settings alone).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
. "$here/config.sh"
repo="$(cd "$here/.." && pwd)"
PORT="${PG_DOF_PORT:-5499}"
DB="${PG_DOF_DB:-pg_dof}"

as_postgres() { if [ "$(id -u)" = 0 ]; then sudo -u postgres "$@"; else "$@"; fi; }

run_dir() {
  if [ -n "${PG_DOF_RUN:-}" ]; then  # another cluster beside the main one (scripts/shards.sh)
    mkdir -p "$PG_DOF_RUN"; [ "$(id -u)" = 0 ] && chown postgres:postgres "$PG_DOF_RUN"
    echo "$PG_DOF_RUN"; return
  fi
  # one cluster per version, side by side: .run (15), .run-17, .run-18
  local dir="$repo/.run"; [ "$PG" = 15 ] || dir="$repo/.run-$PG"
  mkdir -p "$dir"
  [ "$(id -u)" = 0 ] && chown postgres:postgres "$dir"
  if as_postgres test -w "$dir" 2>/dev/null; then echo "$dir"; return; fi
  # the checkout is under a folder postgres cannot enter (e.g. root's home)
  dir="/var/tmp/pg_dof-run-$(echo "$repo" | cksum | cut -d' ' -f1)"; [ "$PG" = 15 ] || dir="$dir-$PG"
  install -d -o postgres -g postgres "$dir"
  echo "$dir"
}

RUN="$(run_dir)"
DATA="$RUN/data"

# An HNSW graph walk reads thousands of scattered 8 kB buffers per search: with 4 kB pages
# each is also a TLB miss. PostgreSQL's default huge_pages = try maps shared memory in 2 MB
# pages when the kernel has enough free, which it has not unless reserved: as root, raise
# vm.nr_hugepages by what this cluster needs (postgres -C shared_memory_size_in_huge_pages)
# beyond the free ones, up to a quarter of the machine's memory. Measured at 120,689 chunks
# (bench/scripts/huge_pages.sh, 6 alternating restarts): vector leg p50 5.07 vs 6.12 ms,
# hybrid 9.68 vs 10.94 ms, faster in every round. PostgreSQL starts either way.
reserve_huge_pages() { # SERVER OPTIONS...
  if [ "${PG_DOF_HUGE_PAGES:-on}" = off ] || [ "$(id -u)" != 0 ]; then return 0; fi
  local needed total free reserved target
  needed="$(as_postgres "$PG_BIN/postgres" -D "$DATA" -C shared_memory_size_in_huge_pages "$@" 2>/dev/null)" || return 0
  read -r total free reserved < <(awk '/^HugePages_Total/ {t=$2} /^HugePages_Free/ {f=$2} /^HugePages_Rsvd/ {r=$2}
                                      END {print t, f, r}' /proc/meminfo)
  [ -n "$needed" ] && [ "$needed" -gt 0 ] && [ $((free - reserved)) -lt "$needed" ] || return 0
  target=$((total + needed - (free - reserved)))  # the pages in use stay theirs
  [ "$target" -le "$(awk '/^MemTotal/ {print int($2 / 2048 / 4)}' /proc/meminfo)" ] || return 0
  sysctl -qw vm.nr_hugepages="$target" 2>/dev/null \
    && echo "reserved $needed huge pages (2 MB) for this cluster's shared memory: vm.nr_hugepages=$target; PG_DOF_HUGE_PAGES=off skips this" >&2
  return 0
}

running() { [ -f "$DATA/postmaster.pid" ] && as_postgres "$PG_BIN/pg_ctl" -D "$DATA" status >/dev/null 2>&1; }

case "${1:-status}" in
  start)
    if [ ! -f "$DATA/PG_VERSION" ]; then
      as_postgres "$PG_BIN/initdb" -D "$DATA" -A trust -U postgres -E UTF8 --locale=C.UTF-8 >/dev/null
    fi
    # in postgresql.conf, not on the command line: ALTER SYSTEM (tests, benchmarks) overrides it
    grep -q '^pg_dof.queue_database' "$DATA/postgresql.conf" \
      || echo "pg_dof.queue_database = 'pg_dof'" | as_postgres tee -a "$DATA/postgresql.conf" >/dev/null
    # preloaded once installed (a build not yet installed would stop the server starting)
    preload=""
    [ -f "$("$PG_CONFIG" --pkglibdir)/pg_dof.so" ] && [ "${PG_DOF_PRELOAD:-1}" = 1 ] && preload="-c shared_preload_libraries=pg_dof"
    if running; then
      echo "cluster already running ($RUN, port $PORT)"
    else
      # shellcheck disable=SC2086  # $preload is empty or one option
      reserve_huge_pages -c shared_buffers="${PG_DOF_SHARED_BUFFERS:-1GB}" $preload
      as_postgres "$PG_BIN/pg_ctl" -D "$DATA" -l "$RUN/postgresql.log" -w \
        -o "-p $PORT -k $RUN -c listen_addresses='' -c shared_buffers=${PG_DOF_SHARED_BUFFERS:-1GB} $preload" start >/dev/null
      echo "cluster started ($RUN, port $PORT)"
    fi
    as_postgres "$PG_BIN/psql" -X -h "$RUN" -p "$PORT" -U postgres -d postgres -Atq \
      -c "SELECT 1 FROM pg_database WHERE datname = '$DB'" | grep -q 1 \
      || as_postgres "$PG_BIN/createdb" -h "$RUN" -p "$PORT" -U postgres "$DB"
    ;;
  restart)
    "$0" stop >/dev/null
    exec "$0" start
    ;;
  stop)
    if running; then as_postgres "$PG_BIN/pg_ctl" -D "$DATA" -m fast -w stop >/dev/null; echo "cluster stopped"; else echo "cluster not running"; fi
    ;;
  clean)
    "$0" stop
    rm -rf "$RUN"
    echo "removed $RUN"
    ;;
  status)
    if running; then echo "running: $RUN, port $PORT"; else echo "not running"; fi
    ;;
  psql)
    shift
    exec "$PG_BIN/psql" -X -h "$RUN" -p "$PORT" -U postgres -d "$DB" "$@"
    ;;
  dir)
    echo "$RUN"
    ;;
  fresh)
    running || "$0" start >/dev/null
    # FORCE: a queue worker may be connected to it. A worker sees the terminate between
    # batches, and DROP waits 5 s for it: a longer batch needs another try.
    for try in 1 2 3 4 5 6; do
      PG_DOF_DB=postgres "$0" psql -q -v ON_ERROR_STOP=1 -c "DROP DATABASE IF EXISTS $DB WITH (FORCE)" 2>/dev/null && break
      [ "$try" = 6 ] && { echo "could not drop database $DB: still in use" >&2; exit 1; }
    done
    PG_DOF_DB=postgres "$0" psql -q -v ON_ERROR_STOP=1 -c "CREATE DATABASE $DB"
    "$0" psql -q -v ON_ERROR_STOP=1 -c "SET client_min_messages = warning; CREATE EXTENSION pg_dof CASCADE"
    ;;
  *)
    echo "usage: $0 start|stop|restart|clean|status|psql [args]|dir|fresh" >&2; exit 2
    ;;
esac
