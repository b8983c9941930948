#!/usr/bin/env bash
# Chunking strategies side by side on the shared corpora, through the product's SQL
# (dof_compare_chunkers): MB/s and chunks/s per strategy over every DOF edition and
# legalize-pe document, the same documents for all. The semantic strategy twice: with the
# hash model (the algorithm: sentences, windows, thresholds, limits, without the model)
# on everything, and with the real e5 model on a sample of SAMPLE_KB (default 300) KB of
# legalize-pe documents under 64 KB, cold (empty sentence cache) against re-cut with another threshold (cached),
# and the cached sentence vectors fetched from a table instead (what a table cache would
# cost, index lookups alone). Medians of RUNS (default 3) where a run is cheap.
set -euo pipefail
. "$(dirname "$0")/common.bash"
dof="$(corpus dof-editions)"; pe="$(corpus legalize-pe-sample)"
RUNS="${RUNS:-3}"; SAMPLE_KB="${SAMPLE_KB:-300}"
export PG_DOF_DB=pg_dof_chunkers
"$here/cluster.sh" fresh >/dev/null
echo "$(cargo run --release -q -p dof_bench --bin cpu)"
q -c "CREATE TABLE docs (id serial, source text, body text)"
{ find "$dof/dof_markdown_gemini" -name '*.md'; find "$pe" -name '*.md'; } | sort |
  awk '{printf "INSERT INTO docs (source, body) VALUES (%s, pg_read_file(%s));\n", q($0), q($0)} function q(s) {gsub("\047", "\047\047", s); return "\047" s "\047"}' | q >/dev/null
q -c "CREATE TABLE sample AS SELECT body FROM (SELECT body, sum(octet_length(body)) OVER (ORDER BY id) AS running FROM docs WHERE source LIKE '%legalize-pe%' AND octet_length(body) < 64 * 1024) s WHERE running <= $SAMPLE_KB * 1024"
read -r files mb <<<"$(q -F ' ' -c "SELECT count(*), round(sum(octet_length(body)) / 1048576.0, 2) FROM docs")"
read -r sample_files sample_kb <<<"$(q -F ' ' -c "SELECT count(*), round(sum(octet_length(body)) / 1024.0) FROM sample")"
compare() { q -F ' ' -c "SELECT ms, chunks, tokens_mean, tokens_max, over_limit, sentence_embeddings, sentence_cache_hits FROM dof_compare_chunkers(ARRAY(SELECT body FROM $1), 800, $2, ARRAY['$3'], '$4')"; }
echo
echo "| strategy | corpus | chunks | mean / max tokens | over limit | median s | MB/s | chunks/s |"
echo "|---|---|---|---|---|---|---|---|"
for strategy in pattern paragraph recursive semantic; do
  model="NULL"; label="$strategy"
  [ "$strategy" = semantic ] && { model="'hash-384-e5-tokens'"; label="semantic (hash model: no model time)"; }
  [ "$strategy" = semantic ] && q -c "INSERT INTO dof_models (name, kind, tokenizer_file, dimension) VALUES ('hash-384-e5-tokens', 'hash', 'multilingual-e5-small/tokenizer.json', 384) ON CONFLICT DO NOTHING" >/dev/null
  times=(); for _ in $(seq 1 "$RUNS"); do read -r ms chunks mean max over _ _ <<<"$(compare docs "$model" "$strategy" '{}')"; times+=("$ms"); done
  s=$(echo "scale=3; $(median "${times[@]}") / 1000" | bc)
  echo "| $label | $files files, $mb MB | $chunks | $mean / $max | $over | $s | $(echo "scale=2; $mb / $s" | bc) | $(echo "scale=0; $chunks / $s" | bc) |"
done
echo
q -v sample_files="$sample_files" -v sample_kb="$sample_kb" -f "$bench/sql/semantic_cache.sql"
