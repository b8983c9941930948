#!/usr/bin/env bash
# Ingest and search at scale, in a database of its own (pg_dof_bench) on the local cluster:
#   1. ingest real documents (legalize-pe sample, small files) inline and deferred, real model;
#   2. multiply their embedded chunks to SCALE_CHUNKS (default 100,000): each synthetic vector
#      is a random mix of three real chunk vectors plus noise (so points spread over the space
#      the real ones span instead of piling up as near-duplicates), its text is the first
#      one's; then build the HNSW index;
#   3. hybrid search p50/p95 with and without the query embedding, and the vector leg's
#      recall@10 against exact search, over 50 queries.
# Prints a markdown table. Needs the shared corpora (PG_DOF_CORPORA).
set -euo pipefail
here="$(cd "$(dirname "$0")/../../scripts" && pwd)"
. "$here/config.sh"
corpus="${PG_DOF_CORPORA:-$here/../../shared/corpora}/legalize-pe-sample"
[ -d "$corpus" ] || { echo "corpus $corpus is absent: set PG_DOF_CORPORA" >&2; exit 2; }
DOCS="${DOCS:-60}"
SCALE_CHUNKS="${SCALE_CHUNKS:-100000}"
export PG_DOF_DB=pg_dof_bench
q() { "$here/cluster.sh" psql -X -At -v ON_ERROR_STOP=1 -q "$@"; }
PG_DOF_DB=postgres "$here/cluster.sh" psql -q -c "DROP DATABASE IF EXISTS pg_dof_bench" -c "CREATE DATABASE pg_dof_bench"
q -c "SET client_min_messages = warning; CREATE EXTENSION pg_dof CASCADE"
q -c "INSERT INTO dof_collections (name, deferred) VALUES ('inline', false), ('deferred', true)"

load() { # COLLECTION FILES...
  local collection="$1"; shift
  local script; script="$(mktemp)"
  for f in "$@"; do
    printf '%s\n' "\\set body \`cat '$f'\`" \
      "INSERT INTO dof_documents (collection, source_id, body) VALUES ('$collection', '$(basename "$f")', :'body');" >> "$script"
  done
  local start; start=$(date +%s.%N)
  PGOPTIONS='-c client_min_messages=warning' q -f "$script"
  rm -f "$script"
  echo "$(date +%s.%N) - $start" | bc
}
mapfile -t files < <(find "$corpus" -name '*.md' -size -20k | sort)
inline_s=$(load inline "${files[@]:0:$DOCS}")
deferred_queue_s=$(load deferred "${files[@]:$DOCS:$DOCS}")
start=$(date +%s.%N)
PGOPTIONS="-c client_min_messages=warning" q -c "CALL dof_process_queue(20)"
deferred_s=$(echo "$(date +%s.%N) - $start + $deferred_queue_s" | bc)
echo "| ingest (real model, late chunking) | documents | chunks | seconds | docs/s | chunks/s |"
echo "|---|---|---|---|---|---|"
q <<SQL
SELECT format('| %s | %s | %s | %s | %s | %s |', mode, docs, chunks, round(secs, 1), round(docs / secs, 2), round(chunks / secs, 2))
FROM (SELECT 'inline (trigger)' AS mode, count(DISTINCT document_id) AS docs, count(*) AS chunks, $inline_s::numeric AS secs
      FROM dof_chunks WHERE collection = 'inline'
      UNION ALL
      SELECT 'deferred (queue + dof_process_queue)', count(DISTINCT document_id), count(*), $deferred_s::numeric
      FROM dof_chunks WHERE collection = 'deferred') r;
SQL
echo
echo "| search at scale | value |"
echo "|---|---|"
q <<SQL
SET client_min_messages = warning;
INSERT INTO dof_collections (name, deferred) VALUES ('scale', true);
CREATE FUNCTION pg_temp.noise() RETURNS vector LANGUAGE sql VOLATILE
  RETURN (SELECT array_agg((random() - 0.5) * 0.02)::vector FROM generate_series(1, 384));
CREATE FUNCTION pg_temp.mix(a vector, b vector, c vector) RETURNS vector LANGUAGE sql VOLATILE
  RETURN (SELECT array_agg(x * w1 + y * w2 + z * w3 ORDER BY i)::vector
          FROM (SELECT random() AS w1, random() AS w2, random() AS w3) w,
               unnest(a::real[], b::real[], c::real[]) WITH ORDINALITY u(x, y, z, i));
DROP INDEX dof_chunks_embedding_idx;
CREATE TABLE base AS SELECT row_number() OVER (ORDER BY id) AS n, * FROM dof_chunks;
INSERT INTO dof_documents (collection, source_id, body)
SELECT 'scale', 'scale-' || g, 'synthetic' FROM generate_series(1, ($SCALE_CHUNKS / 50) + 1) g;
DELETE FROM dof_queue;
INSERT INTO dof_chunks (document_id, collection, chunk_index, pattern, heading_path, content, token_count,
                        char_start, char_end, table_piece, overlap, split, metadata, embedding, tsv, model, chunker_version, sizer)
SELECT d.id, 'scale', g % 50, b.pattern, b.heading_path, b.content, b.token_count, b.char_start, b.char_end,
       b.table_piece, b.overlap, b.split, jsonb_build_object('bucket', g % 10),
       l2_normalize(pg_temp.mix(b.embedding, b2.embedding, b3.embedding) + pg_temp.noise()),
       b.tsv, b.model, b.chunker_version, b.sizer
FROM generate_series(1, $SCALE_CHUNKS - (SELECT count(*) FROM base)) g
JOIN base b ON b.n = 1 + g % (SELECT count(*) FROM base)
JOIN base b2 ON b2.n = 1 + (g * 7919) % (SELECT count(*) FROM base)
JOIN base b3 ON b3.n = 1 + (g * 104729) % (SELECT count(*) FROM base)
JOIN dof_documents d ON d.source_id = 'scale-' || (1 + g / 50) AND d.collection = 'scale';
SET maintenance_work_mem = '2GB';
SQL
start=$(date +%s.%N)
q -c "SET maintenance_work_mem = '2GB'; CREATE INDEX dof_chunks_embedding_idx ON dof_chunks USING hnsw (embedding vector_cosine_ops)"
hnsw_build_s=$(echo "$(date +%s.%N) - $start" | bc)
q -c "VACUUM ANALYZE dof_chunks"
q <<SQL
SET client_min_messages = warning;
CREATE TABLE bench_queries AS
SELECT n AS id, array_to_string((regexp_split_to_array(content, '\s+'))[1:6], ' ') AS text
FROM base WHERE n % greatest(1, (SELECT count(*) FROM base) / 50) = 0 LIMIT 50;
ALTER TABLE bench_queries ADD COLUMN embedding vector(384);
UPDATE bench_queries SET embedding = dof_embed_query(text);
CREATE TABLE bench_results (metric text, value double precision);
DO \$\$
DECLARE
  query record; t0 timestamptz; excl double precision[] := '{}'; incl double precision[] := '{}';
  recalls double precision[] := '{}'; approx bigint[]; exact bigint[];
BEGIN
  FOR query IN SELECT * FROM bench_queries ORDER BY id LOOP
    PERFORM * FROM dof_hybrid_search(query.text, 10, query_embedding => query.embedding);  -- warm
    t0 := clock_timestamp();
    PERFORM * FROM dof_hybrid_search(query.text, 10, query_embedding => query.embedding);
    excl := excl || extract(epoch FROM clock_timestamp() - t0) * 1000;
    t0 := clock_timestamp();
    PERFORM * FROM dof_hybrid_search(query.text, 10);
    incl := incl || extract(epoch FROM clock_timestamp() - t0) * 1000;
    SELECT array_agg(chunk_id) INTO approx FROM dof_vector_search(query.text, 10, query_embedding => query.embedding);
    PERFORM set_config('enable_indexscan', 'off', true);
    SELECT array_agg(id) INTO exact FROM (SELECT id FROM dof_chunks ORDER BY embedding <=> query.embedding LIMIT 10) e;
    PERFORM set_config('enable_indexscan', 'on', true);
    recalls := recalls || (SELECT count(*) FROM unnest(approx) a WHERE a = ANY (exact))::double precision / 10;
  END LOOP;
  INSERT INTO bench_results VALUES
    ('p50_ms_excluding_embedding', (SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY x) FROM unnest(excl) x)),
    ('p95_ms_excluding_embedding', (SELECT percentile_cont(0.95) WITHIN GROUP (ORDER BY x) FROM unnest(excl) x)),
    ('p50_ms_including_embedding', (SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY x) FROM unnest(incl) x)),
    ('p95_ms_including_embedding', (SELECT percentile_cont(0.95) WITHIN GROUP (ORDER BY x) FROM unnest(incl) x)),
    ('recall_at_10_vs_exact', (SELECT avg(x) FROM unnest(recalls) x));
END
\$\$;
SQL
q <<SQL
SELECT '| chunks in dof_chunks | ' || count(*) || ' |' FROM dof_chunks;
SELECT '| HNSW index build (s) | ' || round($hnsw_build_s, 1) || ' |';
SELECT '| HNSW index size (MB) | ' || round(pg_relation_size('dof_chunks_embedding_idx') / 1e6, 1) || ' |';
SELECT '| GIN tsvector index size (MB) | ' || round(pg_relation_size('dof_chunks_tsv_idx') / 1e6, 1) || ' |';
SELECT '| ' || metric || ' | ' || round(value::numeric, 3) || ' |' FROM bench_results;
SQL
