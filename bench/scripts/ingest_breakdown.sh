#!/usr/bin/env bash
# Where an inline ingest's time goes beyond the model, same run, same documents (DOCS
# legalize-pe documents, default 40, e5, independent embedding, the default collection
# settings), each step RUNS times (default 2) interleaved, medians:
#   model alone      dof_embed of exactly the chunks stored (the raw throughput)
#   + chunking       the one chunk-and-embed call, nothing stored
#   + storing        INSERT into dof_documents, the triggers storing chunks, statistics,
#                    tsvectors, with the HNSW and GIN indexes dropped
#   + GIN            the same with the tsvector GIN index
#   everything       the same with the HNSW index too (what users get)
set -euo pipefail
. "$(dirname "$0")/common.bash"
corpus="$(corpus legalize-pe-sample)"
DOCS="${DOCS:-40}"; RUNS="${RUNS:-2}"
echo "$(cargo run --release -q -p dof_bench --bin cpu)"
export PG_DOF_DB=pg_dof_ingest_breakdown
"$here/cluster.sh" start >/dev/null
"$here/cluster.sh" fresh >/dev/null 2>&1
q -c "CREATE TABLE docs (source_id text, body text)"
find "$corpus" -name '*.md' -size -64k | sort | sed -n "1,${DOCS}p" | while read -r f; do
  echo "INSERT INTO docs VALUES (:'id', :'body')" | q -v id="$(basename "$f")" -v body="$(cat "$f")"
done
q -c "INSERT INTO dof_collections (name) VALUES ('b')"
q -c "CREATE TABLE chunk_texts AS SELECT c.content FROM docs d, dof_collections k,
        LATERAL dof_chunk(d.body, k.max_tokens, k.overlap_tokens, NULL, k.model, k.chunker, k.chunker_options) c WHERE k.name = 'b'"
read -r chunks tokens <<<"$(q -F ' ' -c "SELECT count(*), sum(t) FROM chunk_texts, LATERAL (SELECT token_count AS t FROM dof_chunk(content, 100000, 0) LIMIT 1) x")"
q -c "SELECT dof_embed_query('calentar el modelo')" >/dev/null
hnsw="$(q -c "SELECT dof_vector_index((dof_model()).dimension)")"
hnsw_def="$(q -c "SELECT pg_get_indexdef('$hnsw'::regclass)")"
gin_def="$(q -c "SELECT pg_get_indexdef('dof_chunks_tsv_idx'::regclass)")"
timed() { local t0; t0=$(date +%s.%N); q "$@" >/dev/null; echo "$(date +%s.%N) - $t0" | bc; }
insert="INSERT INTO dof_documents (collection, source_id, body) SELECT 'b', source_id, body FROM docs"
clear="DELETE FROM dof_documents WHERE collection = 'b'"
declare -A secs
for _ in $(seq 1 "$RUNS"); do
  secs[model]+="$(timed -c "SELECT count(*) FROM dof_embed(ARRAY(SELECT content FROM chunk_texts))") "
  secs[chunking]+="$(timed -c "SELECT count(*) FROM docs d, dof_collections k, LATERAL dof_chunk_passages_internal(d.body, dof_classify(d.body), k, dof_model(k.model)) x WHERE k.name = 'b'") "
  q -c "DROP INDEX $hnsw" -c "DROP INDEX dof_chunks_tsv_idx"
  secs[storing]+="$(timed -c "$insert") "; q -c "$clear"
  q -c "$gin_def"
  secs[gin]+="$(timed -c "$insert") "; q -c "$clear"
  q -c "$hnsw_def"
  secs[all]+="$(timed -c "$insert") "; q -c "$clear"
done
model=$(median ${secs[model]})
echo "$DOCS documents, $chunks chunks, ~$tokens tokens; medians of $RUNS interleaved runs"
echo "| step | seconds | tokens/s | share of the model's throughput |"
echo "|---|---|---|---|"
for step in model chunking storing gin all; do
  m=$(median ${secs[$step]})
  label=$(case $step in model) echo "model alone (dof_embed of the stored chunks)";; chunking) echo "+ chunking (chunk-and-embed call, nothing stored)";;
          storing) echo "+ storing (insert, triggers, statistics, tsvector; no HNSW, no GIN)";; gin) echo "+ the GIN index";; all) echo "+ the HNSW index (everything)";; esac)
  echo "| $label | $m | $(echo "$tokens / $m" | bc) | $(echo "scale=2; $model / $m" | bc) |"
done
