#!/usr/bin/env bash
# Fuzzes pg_dof's parsers with libFuzzer on the nightly toolchain, one target after another.
#   scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]    (default 1800 s; every target)
# Targets: the core's fast ones (classify, sentences, blocks, pack_characters: inputs of at
# most 4 KB, thousands of runs a second, built without a sanitizer: they are safe Rust), its
# slow one (classify_chunk: the real tokenizer, a few runs a second) and the loader's
# (convert: HTML and EPUB on arbitrary bytes, with AddressSanitizer: html5ever and zip hold
# unsafe code). Each target's corpus is committed (dof_core/fuzz/corpus/TARGET,
# loader/fuzz/corpus/TARGET) and minimised after each run; it grows from the committed
# seeds only (the hostile shapes in dof_core/fuzz/seeds/ and the samples), because the
# shared corpora must stay out of the repository. FUZZ_SHARED=1 adds the first 4 KB of each
# shared corpus file as seeds, and then the target's corpus is an uncommitted one
# (corpus-shared/TARGET). Every run appends its executions to tests/fuzz/executions.tsv
# (committed: the total across sessions) and prints a table.
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
  case "$target" in convert) crate="$repo/loader/fuzz" ;; *) crate="$repo/dof_core/fuzz" ;; esac
  case "$target" in convert | classify_chunk) max_len=65536; sanitizer=address ;; *) max_len=4096; sanitizer=none ;; esac
  corpus="$crate/corpus/$target"
  seeds="$(mktemp -d)"
  cp "$repo"/samples/*.md "$repo"/dof_core/fuzz/seeds/* "$seeds/"
  if [ "${FUZZ_SHARED:-0}" = 1 ] && [ -d "$corpora" ]; then
    corpus="$crate/corpus-shared/$target"
    find "$corpora" -name '*.md' | sort | while read -r f; do head -c 4096 "$f" > "$seeds/$(echo "$f" | cksum | cut -d' ' -f1).md"; done
  fi
  mkdir -p "$corpus"
  stats="$(mktemp)"
  status=0
  started=$(date +%s)
  (cd "$crate/.." && cargo +nightly fuzz run --sanitizer "$sanitizer" --fuzz-dir "$crate" "$target" "$corpus" "$seeds" -- \
      -max_total_time="$seconds" -max_len="$max_len" -rss_limit_mb=2048 -print_final_stats=1) > "$stats" 2>&1 || status=$?
  ran=$(( $(date +%s) - started ))
  executions="$(sed -n 's/^stat::number_of_executed_units: *//p' "$stats" | tail -1)"
  crashes=$([ "$status" = 0 ] && echo 0 || echo 1)
  [ "$crashes" = 0 ] || { grep -E 'panicked|ERROR: libFuzzer|SUMMARY|Test unit written' "$stats" | head -10; }
  # keep a minimal corpus that covers what this one covered
  minimal="$(mktemp -d)"
  if (cd "$crate/.." && cargo +nightly fuzz run --sanitizer "$sanitizer" --fuzz-dir "$crate" "$target" "$minimal" "$corpus" -- \
        -merge=1 -max_len="$max_len") >/dev/null 2>&1; then
    rm -rf "$corpus" && mv "$minimal" "$corpus"
  else
    rm -rf "$minimal"
  fi
  # a crash ends the run early: the rate is over the time it ran (build time included)
  per_second=$(( ${executions:-0} / (crashes == 0 ? seconds : (ran > 0 ? ran : 1)) ))
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$(date -u +%F)" "$target" "$seconds" "${executions:-0}" "$per_second" "$crashes" "$cpu" >> "$log"
  echo "| $target | $seconds | ${executions:-0} | $per_second | $crashes |"
  rm -rf "$seeds" "$stats"
done
awk -F'\t' 'NR > 1 { total[$2] += $4; all += $4 } END { for (t in total) printf "accumulated: %s %d\n", t, total[t]; printf "accumulated: all targets %d\n", all }' "$log" | sort
