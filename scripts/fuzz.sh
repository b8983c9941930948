#!/usr/bin/env bash
# Fuzzes pg_dof's parsers with libFuzzer on the nightly toolchain, one target after another.
#   scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]    (default 1800 s; every target)
# Targets: the core's fast ones (classify, sentences, blocks, pack_characters: thousands of
# runs a second), its slow one (classify_chunk: the real tokenizer, ~12 a second) and the
# loader's (convert: HTML and EPUB on arbitrary bytes). Each target's corpus is committed
# (src/core/fuzz/corpus/TARGET, loader/fuzz/corpus/TARGET), minimised after each run and
# seeded with the committed hostile shapes (src/core/fuzz/seeds/), the samples and the first
# 4 KB of each shared corpus file. Every run appends its executions to
# tests/fuzz/executions.tsv (committed: the total across sessions) and prints a table.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
. "$here/config.sh"
repo="$(cd "$here/.." && pwd)"
seconds="${1:-1800}"; shift || true
targets=("$@"); [ ${#targets[@]} -gt 0 ] || targets=(classify sentences blocks pack_characters convert classify_chunk)
corpora="${PG_DOF_CORPORA:-$repo/../shared/corpora}"
log="$repo/tests/fuzz/executions.tsv"
mkdir -p "$(dirname "$log")"
[ -f "$log" ] || printf 'date\ttarget\tseconds\texecutions\tper_second\tcrashes\tcpu\n' > "$log"
cargo +nightly fuzz --help >/dev/null 2>&1 || cargo install cargo-fuzz --version =0.13.2 --locked
unset CARGO_TARGET_DIR   # sanitizer builds must not share the product's target folder
cpu="$(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1)"
echo "CPU: $cpu, $(nproc) cores"
echo "| target | seconds | executions | per second | crashes |"
echo "|---|---|---|---|---|"
for target in "${targets[@]}"; do
  case "$target" in convert) crate="$repo/loader/fuzz" ;; *) crate="$repo/src/core/fuzz" ;; esac
  corpus="$crate/corpus/$target"
  mkdir -p "$corpus"
  seeds="$(mktemp -d)"
  cp "$repo"/samples/*.md "$repo"/src/core/fuzz/seeds/* "$seeds/"
  if [ -d "$corpora" ]; then
    find "$corpora" -name '*.md' | sort | while read -r f; do head -c 4096 "$f" > "$seeds/$(echo "$f" | cksum | cut -d' ' -f1).md"; done
  fi
  stats="$(mktemp)"
  status=0
  (cd "$crate/.." && cargo +nightly fuzz run --fuzz-dir "$crate" "$target" "$corpus" "$seeds" -- \
      -max_total_time="$seconds" -max_len="$([ "$target" = pack_characters ] && echo 4097 || echo 65536)" \
      -rss_limit_mb=2048 -print_final_stats=1) > "$stats" 2>&1 || status=$?
  executions="$(sed -n 's/^stat::number_of_executed_units: *//p' "$stats" | tail -1)"
  crashes=$([ "$status" = 0 ] && echo 0 || echo 1)
  [ "$crashes" = 0 ] || { grep -E 'panicked|ERROR: libFuzzer|SUMMARY|Test unit written' "$stats" | head -10; }
  # keep a minimal corpus that covers what this one covered (committed)
  minimal="$(mktemp -d)"
  (cd "$crate/.." && cargo +nightly fuzz run --fuzz-dir "$crate" "$target" "$minimal" "$corpus" -- -merge=1 -max_len=65536) >/dev/null 2>&1 \
    && rm -rf "$corpus" && mv "$minimal" "$corpus" || rm -rf "$minimal"
  per_second=$(( ${executions:-0} / seconds ))
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$(date -u +%F)" "$target" "$seconds" "${executions:-0}" "$per_second" "$crashes" "$cpu" >> "$log"
  echo "| $target | $seconds | ${executions:-0} | $per_second | $crashes |"
  rm -rf "$seeds" "$stats"
done
awk -F'\t' 'NR > 1 { total[$2] += $4; all += $4 } END { for (t in total) printf "accumulated: %s %d\n", t, total[t]; printf "accumulated: all targets %d\n", all }' "$log" | sort
