#!/usr/bin/env bash
# What the triggers' folds of BM25's statistics (pg_dof.stats_fold_every) cost a load and
# save its searches: DOCS legalize-pe laws (default 300), COPIES times each (default 4, under
# other source ids), inserted a document a statement and a transaction (as an application's
# own INSERTs write them) into a collection embedded by the hash model (so that chunking,
# storing and the statistics are the whole insert, and the text leg the whole search); the
# hand-written questions' text searches (k 10) with no collection named and with it named;
# with the setting at its default against 0 (never: what 0.3.0 did before it, every delta row
# left until dof_compact_stats). RUNS (default 3) interleaved loads of each; medians, ratios.
set -euo pipefail
. "$(dirname "$0")/common.bash"
DOCS="${DOCS:-300}"; COPIES="${COPIES:-4}"; RUNS="${RUNS:-3}"
repo="$(cd "$here/.." && pwd)"
(cd "$repo" && cargo run --release -q -p dof_bench --bin cpu)
export PG_DOF_DB=pg_dof_stats_fold_every
"$here/cluster.sh" fresh >/dev/null
eval_laws "$DOCS"
# the text leg is the whole search: without the passages' HNSW index, whose inserts of the hash
# model's vectors grow with the graph and would be most of a load
q -c "SELECT format('DROP INDEX %s;', i.indexrelid::regclass) FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
      JOIN pg_am a ON a.oid = c.relam WHERE i.indrelid = 'dof_passages'::regclass AND a.amname = 'hnsw'" | q
q -c "CREATE TABLE questions (question text)"
tail -n +2 "$bench/eval/legalize_pe_questions.tsv" | cut -f2 | grep -v '^$' | q -c "\copy questions FROM STDIN"
default=$(q -c "SELECT reset_val FROM pg_settings WHERE name = 'pg_dof.stats_fold_every'")
q <<'SQL'
-- a document a statement and a transaction; ms for the whole load
CREATE PROCEDURE load_laws(collection text, copies integer, INOUT ms double precision DEFAULT NULL) LANGUAGE plpgsql AS $f$
DECLARE t0 timestamptz := clock_timestamp(); law record;
BEGIN
    FOR copy IN 1..copies LOOP
        FOR law IN SELECT source_id, body FROM eval_documents ORDER BY source_id LOOP
            INSERT INTO dof_documents (collection, source_id, body) VALUES (collection, copy || '/' || law.source_id, law.body);
            COMMIT;
        END LOOP;
    END LOOP;
    ms := extract(epoch FROM clock_timestamp() - t0) * 1000;
END
$f$;
SQL
q -f "$bench/sql/text_search_ms.sql"
# ms per text search over the questions, after one pass to warm the connection
q -c "CREATE FUNCTION per_search(collection text) RETURNS double precision LANGUAGE plpgsql
      AS \$\$ BEGIN PERFORM text_search_ms(collection); RETURN text_search_ms(collection); END \$\$"
declare -A loads named all vnamed vall rows
one() { # EVERY: a fresh collection loaded with the setting at EVERY, measured, then removed
  local c="leyes_$1"
  q -c "INSERT INTO dof_collections (name, model, late_chunking) VALUES ('$c', 'hash-384', false)"
  loads[$1]+=" $(q -c "SET pg_dof.stats_fold_every = $1" -c "CALL load_laws('$c', $COPIES)" | xargs printf '%.0f')"
  # the planner's statistics as autovacuum's ANALYZE leaves them; searched before its VACUUM
  # (the statistics' new rows not yet all-visible: an index-only scan reads their heap too)
  # and after it
  q -c "ANALYZE dof_documents, dof_chunks, dof_passages, dof_term_stats, dof_collection_stats"
  rows[$1]=$(q -c "SELECT count(*) || ' rows, ' || count(DISTINCT lexeme) || ' lexemes' FROM dof_term_stats WHERE collection = '$c'")
  named[$1]+=" $(q -c "SELECT round(per_search('$c')::numeric, 3)")"
  all[$1]+=" $(q -c "SELECT round(per_search(NULL)::numeric, 3)")"
  q -c "VACUUM dof_documents, dof_chunks, dof_passages, dof_term_stats, dof_collection_stats"
  vnamed[$1]+=" $(q -c "SELECT round(per_search('$c')::numeric, 3)")"
  vall[$1]+=" $(q -c "SELECT round(per_search(NULL)::numeric, 3)")"
  # emptied, not deleted: the next load starts from the same empty tables (dead rows and
  # grown indexes favoured the first of each pair by up to 1.2x)
  q -c "TRUNCATE dof_documents, dof_chunks, dof_passages, dof_queue, dof_term_stats, dof_collection_stats" \
    -c "DELETE FROM dof_collections WHERE name = '$c'" >/dev/null
}
# interleaved, each setting first in every other run
for run in $(seq 1 "$RUNS"); do
  if [ $((run % 2)) = 1 ]; then one 0; one "$default"; else one "$default"; one 0; fi
done
# shellcheck disable=SC2086
row() { # LABEL ARRAY
  local -n runs=$2; local a b; a=$(median ${runs[$default]}); b=$(median ${runs[0]})
  echo "| $1 | $a | $b | $(echo "scale=3; $a / $b" | bc) |"
}
echo "| $((DOCS * COPIES)) laws, a statement each; $(q -c "SELECT count(*) FROM questions") questions, k 10; medians of $RUNS | stats_fold_every $default: ms | 0 (never): ms | ratio |"
echo "|---|---|---|---|"
row "the load" loads
row "text search, no collection named" all
row "text search, the collection named" named
row "text search, no collection named, after a VACUUM" vall
row "text search, the collection named, after a VACUUM" vnamed
echo "statistics after the load: stats_fold_every $default ${rows[$default]}; 0 ${rows[0]}"
