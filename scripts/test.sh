#!/usr/bin/env bash
# Runs pg_dof's test tiers against real PostgreSQL, real pgvector and the real model.
#   test.sh [lint|core|pgrx|regress|integration ...]    (default: all five, in that order)
# on PostgreSQL $PG (15 unless set), or on each of PG_TEST_VERSIONS in turn: the first gets
# the tiers asked for (default all five), each further one the tiers that depend on the
# server (regress, integration; lint, core and pgrx are the same Rust on every version);
# then tests/versions/same_answers.sh compares the versions' chunks and answers.
# Expects `make setup` to have run for each version (the Makefile's test target does it).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
read -r -a versions <<< "${PG_TEST_VERSIONS:-}"
if [ ${#versions[@]} -gt 1 ]; then
  first=1; failed=()
  for v in "${versions[@]}"; do
    if [ "$first" = 1 ]; then PG=$v PG_TEST_VERSIONS= "$0" "$@" || failed+=("PostgreSQL $v"); first=0
    else PG=$v PG_TEST_VERSIONS= "$0" regress integration || failed+=("PostgreSQL $v"); fi
  done
  . "$here/config.sh"
  log "across versions: the same documents give the same chunks and answers on PostgreSQL ${versions[*]}"
  bash "$here/../tests/versions/same_answers.sh" "${versions[@]}" || failed+=("same answers across versions")
  [ ${#failed[@]} -eq 0 ] || { echo "tests failed: ${failed[*]}" >&2; exit 1; }
  exit 0
elif [ ${#versions[@]} -eq 1 ]; then
  export PG="${versions[0]}"
fi
. "$here/config.sh"
repo="$(cd "$here/.." && pwd)"
cd "$repo"
tiers=("$@"); [ ${#tiers[@]} -gt 0 ] || tiers=(lint core pgrx regress integration)
echo "PostgreSQL $PG ($PG_CONFIG): tiers ${tiers[*]}"

for tier in "${tiers[@]}"; do
  case "$tier" in
    lint)
      log "tier 0: cargo fmt --check and clippy -D warnings (workspace and fuzz target, every target)"
      cargo fmt --all --check
      cargo clippy --release --workspace --all-targets -- -D warnings
      # the fuzz targets are crates of their own (cargo-fuzz's layout), outside the workspace
      for fuzz in dof_core/fuzz loader/fuzz; do
        cargo fmt --manifest-path "$fuzz/Cargo.toml" --check
        cargo clippy --release --manifest-path "$fuzz/Cargo.toml" --all-targets -- -D warnings
      done
      ;;
    core)
      log "tier 1: dof_core (no PostgreSQL), release build"
      corpora="${PG_DOF_CORPORA:-$repo/../shared/corpora}"
      if [ -d "$corpora" ]; then
        corpora="$(cd "$corpora" && pwd)"
        echo "corpus tests read $corpora"
      else
        echo "NOTE: no shared corpora at $corpora: the corpus tests will say SKIPPED and check nothing"
      fi
      # release: tokenizer and corpus tests are ~20x slower in debug builds
      PG_DOF_CORPORA="$corpora" PG_DOF_REQUIRE_MODEL=1 PG_DOF_HOME="$PG_DOF_HOME" cargo test --release -p dof_core -p dof_loader -- --nocapture
      ;;
    pgrx)
      log "tier 2: #[pg_test] in a temporary PostgreSQL $PG (as user postgres)"
      # cargo pgrx test installs its test build over the installed library: a running local
      # cluster, which preloads pg_dof, would crash on the replaced file (seen: signal 11)
      "$here/cluster.sh" stop >/dev/null 2>&1 || true
      data="$PG_DOF_CACHE/pgrx-test-data"; [ "$PG" = 15 ] || data="$data-$PG"
      install -d -o postgres -g postgres "$data"
      cargo pgrx test "pg$PG" --runas postgres --pgdata "$data"
      ;;
    regress)
      log "tier 3: pg_regress golden tests on the local cluster (PostgreSQL $PG)"
      # the pgrx tier installs a test build: put the release build back first
      "$here/install-extension.sh" >/dev/null
      "$here/cluster.sh" start
      run_dir="$("$here/cluster.sh" dir)"
      out="$PG_DOF_CACHE/regress-out"; [ "$PG" = 15 ] || out="$out-$PG"
      rm -rf "$out"
      pg_regress="$("$PG_CONFIG" --pkglibdir)/pgxs/src/test/regress/pg_regress"
      failed=()
      # each file in a database of its own (pg_regress drops and creates it), so no file
      # depends on what another left behind, and one file can be run alone
      for suite in tests/pg_regress pgvector-compat; do
        mkdir -p "$out/$suite"
        for file in "$suite"/sql/*.sql; do
          name="$(basename "$file" .sql)"
          if ! "$pg_regress" --host="$run_dir" --port="${PG_DOF_PORT:-5499}" --user=postgres \
               --inputdir="$suite" --outputdir="$out/$suite" --dbname="dof_regress_$name" "$name" >"$out/$suite/$name.log" 2>&1; then
            cat "$out/$suite/$name.log"; cat "$out/$suite/regression.diffs" 2>/dev/null | head -200
            failed+=("$suite/$name")
          else
            echo "ok: $suite/$name"
          fi
        done
      done
      [ ${#failed[@]} -eq 0 ] || { echo "pg_regress failed: ${failed[*]} (results under $out)" >&2; exit 1; }
      ;;
    integration)
      log "tier 4: integration tests against the running local cluster (PostgreSQL $PG)"
      "$here/cluster.sh" start
      failed=()
      for script in tests/integration/*.sh; do
        bash "$script" || failed+=("$(basename "$script")")
      done
      [ ${#failed[@]} -eq 0 ] || { echo "integration failed on PostgreSQL $PG: ${failed[*]}" >&2; exit 1; }
      ;;
    *) echo "unknown tier $tier (lint, core, pgrx, regress, integration)" >&2; exit 2 ;;
  esac
done
