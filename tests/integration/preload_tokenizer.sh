#!/usr/bin/env bash
# Integration: pg_dof.preload_tokenizer (pg_dof preloaded, as the project's cluster runs it).
# Set to e5's tokenizer, the server loads it at start and a new backend holds it before its
# first use, its chunks cut by it as by one it loads itself; a file that cannot be loaded
# (missing, or not a tokenizer) is logged and the server starts anyway, each backend then
# loading the tokenizer it needs; empty (the default) preloads none.
set -uo pipefail
. "$(dirname "$0")/common.bash"
export PG_DOF_DB=pg_dof_preload_tokenizer
"$scripts/cluster.sh" fresh >/dev/null 2>&1
dir="$("$scripts/cluster.sh" dir)"
setting() { # SQL literal, or DEFAULT; then a restart, after which logged() reads what the server logged
  if [ "$1" = DEFAULT ]; then q -c "ALTER SYSTEM RESET pg_dof.preload_tokenizer"; else q -c "ALTER SYSTEM SET pg_dof.preload_tokenizer = $1"; fi
  logged_from=$(($(wc -l < "$dir/postgresql.log") + 1))
  "$scripts/cluster.sh" restart >/dev/null
}
logged() { tail -n "+$logged_from" "$dir/postgresql.log" | grep -c "$1"; }
trap 'setting DEFAULT' EXIT
held="SELECT count(*) FROM dof_model_cache() WHERE cache = 'tokenizer'"
chunks="SELECT string_agg(token_count || ':' || char_start, ',' ORDER BY char_start)
        FROM dof_chunk(repeat(E'Artículo 1. La comisión emite su informe en treinta días hábiles.\n\n', 80), 64)"

setting "'multilingual-e5-small/tokenizer.json'"
check "$(q -c "$held")" "1" "a new backend holds the tokenizer the server loaded at start"
preloaded_chunks="$(q -c "$chunks")"
check "$(($(tr ',' '\n' <<< "$preloaded_chunks" | wc -l) > 1))" "1" "it cuts a document into chunks by its tokens"
check "$(q -c "$chunks" -c "$held" | tail -1)" "1" "and chunking with it loads no second one (the same key)"

setting "'nope/tokenizer.json'"
check "$(q -c "SELECT 1")" "1" "a missing file: the server starts"
check "$(logged 'pg_dof.preload_tokenizer not loaded: tokenizer file ".*/nope/tokenizer.json" does not exist')" "1" \
      "and logs it, naming the file"
check "$(q -c "$held")" "0" "a new backend holds none"
check "$(q -c "$chunks")" "$preloaded_chunks" "it loads the tokenizer itself, and cuts the same chunks"

setting "'$dir/data/PG_VERSION'"
check "$(logged 'pg_dof.preload_tokenizer not loaded: could not load tokenizer')/$(q -c "SELECT 1")" "1/1" "a file that is not a tokenizer: logged, the server starts"

setting DEFAULT
check "$(q -c "SHOW pg_dof.preload_tokenizer")/$(q -c "$held")" "/0" "the default, empty: none preloaded"
finish
