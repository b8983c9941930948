#!/usr/bin/env bash
# Ingest path, 0.1.0's vs the current one, same library, same run, same documents: what an
# inline insert costs per document in chunk + embed.
#   0.1.0 path: SQL dof_chunk (classifies again) → arrays → dof_embed_late → rows
#   current:    dof_chunk_passages_internal(body, stored pattern, collection row, model row)
# Alternates the two RUNS times (default 3) over DOCS legalize-pe documents (default 30)
# and prints the medians and the ratio, and chunking alone as a share of the whole.
# Needs the shared corpora (PG_DOF_CORPORA).
set -euo pipefail
. "$(dirname "$0")/common.bash"
corpus="$(corpus legalize-pe-sample)"
DOCS="${DOCS:-30}"; RUNS="${RUNS:-3}"
export PG_DOF_DB=pg_dof_ingest_paths
"$here/cluster.sh" fresh >/dev/null
q -c "CREATE TABLE docs (source_id text, body text, pattern text)"
find "$corpus" -name '*.md' | sort | sed -n "1,${DOCS}p" | while read -r f; do
  echo "INSERT INTO docs VALUES (:'id', :'body', dof_classify(:'body'))" | q -v id="$(basename "$f")" -v body="$(cat "$f")"
done
old="SELECT count(*) FROM docs d, dof_collections k,
  LATERAL (WITH chunks AS MATERIALIZED (SELECT * FROM dof_chunk(d.body, k.max_tokens, k.overlap_tokens, NULL, k.model)),
           batch AS (SELECT array_agg(content ORDER BY chunk_index) AS contents,
                            array_agg(array_to_string(heading_path[1:2], E'\n') ORDER BY chunk_index) AS front FROM chunks)
           SELECT e.embedding FROM batch, dof_embed_late(batch.contents, batch.front, k.model) e WHERE batch.contents IS NOT NULL) x
  WHERE k.name = 'default'"
new="SELECT count(*) FROM docs d, dof_collections k, LATERAL dof_chunk_passages_internal(d.body, d.pattern, k, dof_model(k.model)) x WHERE k.name = 'default'"
chunk_only="SELECT count(*) FROM docs d, dof_collections k, LATERAL dof_chunk(d.body, k.max_tokens, k.overlap_tokens, d.pattern, k.model) c WHERE k.name = 'default'"
timed() { local t0 t1; t0=$(date +%s.%N); q -c "$1" > /dev/null; t1=$(date +%s.%N); echo "$t1 - $t0" | bc; }
q -c "$new" > /dev/null  # load the model once
olds=(); news=(); chunkings=()
for _ in $(seq 1 "$RUNS"); do olds+=("$(timed "$old")"); news+=("$(timed "$new")"); chunkings+=("$(timed "$chunk_only")"); done
mo=$(median "${olds[@]}"); mn=$(median "${news[@]}"); mc=$(median "${chunkings[@]}")
chunks=$(q -c "$new")
tokens=$(q -c "SELECT sum(token_count) FROM docs d, LATERAL dof_chunk(d.body) c")
echo "| workload | current path (s) | 0.1.0 path (s) | ratio (0.1.0 / current) |"
echo "|---|---|---|---|"
echo "| chunk + late-embed $DOCS legalize-pe documents ($chunks chunks, $tokens tokens), median of $RUNS | $mn | $mo | $(echo "scale=3; $mo / $mn" | bc) |"
# chunking is where the text is first tokenized (exact counts); embedding tokenizes the
# chunks again for the model: this row bounds what sharing one tokenization could save
echo "| chunking alone (dof_chunk, same settings), share of the current path | $mc | | $(echo "scale=3; $mc / $mn" | bc) |"
