#!/usr/bin/env bash
# Scale-out on one machine: a PL/Proxy coordinator over two pg_dof shards (scripts/shards.sh)
# against one server holding the same documents, same run, real model.
#   ingest: a sample of legalize-pe (SAMPLE_KB, default 512 KB, files under 64 KB) with
#           `dof load` into an inline collection: one server with one writer (its model on
#           every core), and through the coordinator with one writer per shard, each shard's
#           model on one thread: the same cores split in two. N machines would each bring
#           their own cores.
#   search: dof_hybrid_search for every question of bench/eval/dof_questions.tsv, timed
#           in the server (clock_timestamp around each call, after a warm-up pass): with
#           the query embedded by the search, and with query_embedding given.
set -euo pipefail
. "$(dirname "$0")/common.bash"
SAMPLE_KB="${SAMPLE_KB:-512}"
echo "$(cargo run --release -q -p dof_bench --bin cpu)"
cargo build --release -q -p dof_loader
dof="$CARGO_TARGET_DIR/release/dof"
export PG_DOF_DB=pg_dof_scale_out
sample="$(mktemp -d)"
trap 'rm -rf "$sample"; "$here/shards.sh" stop >/dev/null 2>&1' EXIT
files=$(legalize_sample "$sample" "$SAMPLE_KB")

"$here/cluster.sh" start >/dev/null
"$here/cluster.sh" fresh >/dev/null 2>&1
"$here/shards.sh" up >/dev/null
coord() { "$here/shards.sh" psql -X -At -v ON_ERROR_STOP=1 -q "$@"; }
collection="INSERT INTO dof_collections (name) VALUES ('p')"
q -c "$collection"
coord -c "SELECT dof_cluster_execute(\$\$$collection\$\$)" >/dev/null
# the two shards share this machine's cores: one model thread each (new connections)
coord -c "SELECT dof_cluster_execute('ALTER DATABASE pg_dof SET pg_dof.intra_op_threads = 1')" >/dev/null
# the model loaded in each backend that will embed, before the clock starts (the loader's
# connections are new backends: each loads it once, the same on both sides)
now() { date +%s.%N; }
t0=$(now)
PGHOST="$("$here/cluster.sh" dir)" PGPORT="${PG_DOF_PORT:-5499}" PGUSER=postgres PGDATABASE=$PG_DOF_DB \
  "$dof" load "$sample" --collection p --jobs 1 --batch-size 4 >/dev/null 2>&1
single_ingest=$(echo "$(now) - $t0" | bc)
t0=$(now)
"$dof" load "$sample" --collection p --coordinator --jobs 1 --batch-size 4 \
  --connection "host=$("$here/shards.sh" dir)/coordinator port=${PG_DOF_SHARDS_PORT:-5510} dbname=dof_coordinator user=postgres" >/dev/null 2>&1
cluster_ingest=$(echo "$(now) - $t0" | bc)
read -r docs chunks tokens <<<"$(q -F ' ' -c "SELECT count(DISTINCT document_id), count(*), sum(token_count) FROM dof_chunks WHERE collection = 'p'")"
# searches: each shard's model on every core again (each psql below is a new coordinator
# session, so new shard connections)
coord -c "SELECT dof_cluster_execute('ALTER DATABASE pg_dof RESET pg_dof.intra_op_threads')" >/dev/null
shard_chunks=$(for i in 0 1; do "$here/shards.sh" shard "$i" -X -At -c "SELECT count(*) FROM dof_chunks WHERE collection = 'p'"; done | paste -sd+ | bc)

# search latency: the same function on both sides, timing each call inside the server, on
# the second of two passes; the questions' vectors computed once (single server), so the
# "given" runs time the search alone
timing_sql() { # EMBEDDED(true|false)
  echo "CREATE TEMPORARY TABLE timings (ms double precision);
DO \$\$
DECLARE
    question record;
    started timestamptz;
BEGIN
    FOR pass IN 1 .. 2 LOOP
        FOR question IN SELECT query, embedding FROM question_vectors LOOP
            started := clock_timestamp();
            PERFORM count(*) FROM dof_hybrid_search(question.query, 10, 'p',
                                                    query_embedding => CASE WHEN $1 THEN NULL ELSE question.embedding END);
            IF pass = 2 THEN INSERT INTO timings VALUES (extract(epoch FROM clock_timestamp() - started) * 1000); END IF;
        END LOOP;
    END LOOP;
END
\$\$;
SELECT round(percentile_cont(0.5) WITHIN GROUP (ORDER BY ms)::numeric, 2) || ' ' || round(percentile_cont(0.95) WITHIN GROUP (ORDER BY ms)::numeric, 2) FROM timings;"
}
q -c "DROP TABLE IF EXISTS question_vectors" \
  -c "CREATE TABLE question_vectors (query text, embedding vector)" \
  -c "\\copy question_vectors (query) FROM PROGRAM 'tail -n +2 $bench/eval/dof_questions.tsv | cut -f1'" \
  -c "UPDATE question_vectors SET embedding = dof_embed_query(query)"
q -c "\\copy question_vectors TO '$sample/vectors.tsv'"
coord -c "DROP TABLE IF EXISTS question_vectors" -c "CREATE TABLE question_vectors (query text, embedding vector)" \
  -c "\\copy question_vectors FROM '$sample/vectors.tsv'"
read -r single_p50 single_p95 <<<"$(q -c "$(timing_sql true)" | tail -1)"
read -r cluster_p50 cluster_p95 <<<"$(coord -c "$(timing_sql true)" | tail -1)"
read -r single_given_p50 single_given_p95 <<<"$(q -c "$(timing_sql false)" | tail -1)"
read -r cluster_given_p50 cluster_given_p95 <<<"$(coord -c "$(timing_sql false)" | tail -1)"

ratio() { echo "scale=2; $1 / $2" | bc; }
echo "| workload | one server | coordinator + 2 shards (same 2 cores) | coordinator / one server |"
echo "|---|---|---|---|"
echo "| ingest $files files, $docs documents, $tokens tokens (inline, e5): seconds | $single_ingest | $cluster_ingest | $(ratio "$cluster_ingest" "$single_ingest") |"
echo "| ingest tokens/s | $(echo "$tokens / $single_ingest" | bc) | $(echo "$tokens / $cluster_ingest" | bc) | $(ratio "$single_ingest" "$cluster_ingest") |"
echo "| chunks stored | $chunks | $shard_chunks | |"
echo "| hybrid search p50 ms (query embedded in the call) | $single_p50 | $cluster_p50 | $(ratio "$cluster_p50" "$single_p50") |"
echo "| hybrid search p95 ms (query embedded in the call) | $single_p95 | $cluster_p95 | $(ratio "$cluster_p95" "$single_p95") |"
echo "| hybrid search p50 ms (query_embedding given) | $single_given_p50 | $cluster_given_p50 | $(ratio "$cluster_given_p50" "$single_given_p50") |"
echo "| hybrid search p95 ms (query_embedding given) | $single_given_p95 | $cluster_given_p95 | $(ratio "$cluster_given_p95" "$single_given_p95") |"
echo "(questions: $(($(wc -l < "$bench/eval/dof_questions.tsv") - 1)), timed on the second of two passes; per shard: $(for i in 0 1; do "$here/shards.sh" shard "$i" -X -At -c "SELECT count(*) || ' chunks, ' || coalesce(sum(token_count), 0) || ' tokens' FROM dof_chunks WHERE collection = 'p'"; done | paste -sd';'))"
