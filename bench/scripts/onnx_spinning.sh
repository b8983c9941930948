#!/usr/bin/env bash
# ONNX Runtime's spinning threads (pg_dof.onnx_spinning, on by default), same run, same
# texts (the first chunks of legalize-pe files, at most 60, e5, 2 model threads per backend): one session embedding
# alone, and two sessions embedding at once (twice the work, as two queue workers or a
# search beside an ingest do), with spinning on and off, interleaved, medians of RUNS
# (default 3). Each psql is a new backend: the times include loading the model (~0.9 s).
set -euo pipefail
. "$(dirname "$0")/common.bash"
RUNS="${RUNS:-3}"
echo "$(cargo run --release -q -p dof_bench --bin cpu)"
export PG_DOF_DB=pg_dof_onnx_spinning
"$here/cluster.sh" start >/dev/null
"$here/cluster.sh" fresh >/dev/null 2>&1
chunk_texts 12 60
embed() { PGOPTIONS="-c pg_dof.onnx_spinning=$1" q -c "SELECT count(*) FROM dof_embed(ARRAY(SELECT content FROM texts))" >/dev/null; }
one() { local t0; t0=$(date +%s.%N); embed "$1"; echo "$(date +%s.%N) - $t0" | bc; }
two() { local t0; t0=$(date +%s.%N); embed "$1" & embed "$1"; wait; echo "$(date +%s.%N) - $t0" | bc; }
declare -A secs
for _ in $(seq 1 "$RUNS"); do
  for spinning in on off; do
    secs[one_$spinning]+="$(one $spinning) "
    secs[two_$spinning]+="$(two $spinning) "
  done
done
echo "$(q -c "SELECT count(*) FROM texts") texts, $(texts_tokens) tokens per session; medians of $RUNS interleaved runs"
echo "| sessions embedding at once | spinning on (default): s | spinning off: s | on / off |"
echo "|---|---|---|---|"
for n in one two; do
  on=$(median ${secs[${n}_on]}); off=$(median ${secs[${n}_off]})
  echo "| $n | $on | $off | $(echo "scale=2; $on / $off" | bc) |"
done
