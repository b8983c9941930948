#!/usr/bin/env bash
# Release build of the extension into PostgreSQL (and of the loader, `dof`, into
# /usr/local/bin: PG_DOF_BIN_DIR), with the frozen install scripts of
# earlier versions (sql/releases/: `CREATE EXTENSION pg_dof VERSION '0.1.0'` and the
# upgrade test need them; cargo pgrx install copies only the current version's script and
# the upgrade scripts sql/pg_dof--A--B.sql).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
. "$here/config.sh"
cd "$here/.."
cargo pgrx install --release --pg-config "$PG_CONFIG" >/dev/null
install -m 644 sql/releases/pg_dof--*.sql sql/releases/pg_dof--*.control "$("$PG_CONFIG" --sharedir)/extension/"
# the coordinator of a sharded set-up: SQL only, over PL/Proxy (coordinator/)
# (and into 15's too, where PL/Proxy is: the coordinator of shards of another version, shards.sh)
for pg_config in "$PG_CONFIG" /usr/lib/postgresql/15/bin/pg_config; do
  install -m 644 coordinator/pg_dof_coordinator.control coordinator/pg_dof_coordinator--*.sql "$("$pg_config" --sharedir)/extension/"
done
# the loader, `dof`, on the PATH
cargo build --release -q -p dof_loader
install -m 755 "$CARGO_TARGET_DIR/release/dof" "${PG_DOF_BIN_DIR:-/usr/local/bin}/dof"
# the project's cluster preloads pg_dof (queue workers): its postmaster holds the old
# library, and every backend it forks would run it, so a running cluster restarts
if "$here/cluster.sh" status | grep -q '^running'; then "$here/cluster.sh" restart >/dev/null; fi
echo "pg_dof $(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1) installed into $("$PG_CONFIG" --pkglibdir), the loader dof into ${PG_DOF_BIN_DIR:-/usr/local/bin}"
