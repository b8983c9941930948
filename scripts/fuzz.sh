#!/usr/bin/env bash
# Fuzzes classify + chunk (src/core/fuzz) with libFuzzer on the nightly toolchain.
#   scripts/fuzz.sh [SECONDS]     (default 1800)
# Seeds the corpus with the committed hostile shapes (src/core/fuzz/seeds/), the samples
# and the first 4 KB of each shared corpus file. The working corpus (corpus/) is not
# committed: it grows from the shared corpora, which stay outside the repository.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
. "$here/config.sh"
seconds="${1:-1800}"
fuzz="$here/../src/core/fuzz"
corpus="$fuzz/corpus/classify_chunk"
mkdir -p "$corpus"
cp "$here"/../samples/*.md "$fuzz"/seeds/* "$corpus/"
corpora="${PG_DOF_CORPORA:-$here/../../shared/corpora}"
if [ -d "$corpora" ]; then
  mapfile -t seeds < <(find "$corpora" -name '*.md' | sort)
  for f in "${seeds[@]}"; do
    head -c 4096 "$f" > "$corpus/$(echo "$f" | cksum | cut -d' ' -f1).md"
  done
fi
cargo +nightly fuzz --help >/dev/null 2>&1 || cargo install cargo-fuzz --version =0.13.2 --locked
cd "$fuzz/.."
unset CARGO_TARGET_DIR   # sanitizer builds must not share the product's target folder
cargo +nightly fuzz run classify_chunk "$corpus" -- -max_total_time="$seconds" -max_len=65536 -print_final_stats=1
