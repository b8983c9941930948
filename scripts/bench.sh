#!/usr/bin/env bash
# Runs every benchmark (release builds) and prints their tables. RUNS sets repetitions.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
. "$here/config.sh"
cd "$here/.."
log "chunking: pg_dof vs raw tokenizers encode vs text-splitter (single thread, e5 tokenizer, 800 tokens)"
cargo run --release -q -p dof_bench --bin chunking
log "the seed's tables on the shared corpora"
cargo run --release -q -p dof_bench --bin corpus_report
