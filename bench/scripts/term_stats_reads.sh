#!/usr/bin/env bash
# What BM25's statistics cost a search and a fold: DOCS legalize-pe laws (default 300), each
# inserted by a statement of its own (as the triggers and `dof load` write them: a delta row
# per lexeme per document) into a collection embedded by the hash model (so that the text
# leg is the whole search); the hand-written questions' text searches (k 10), with no
# collection named (the default) and with it named, through this tree's dof_term_stats and
# dof_compact_stats against revision BEFORE's (default 2c4c45e2, whose all-collections count
# summed by lexeme alone, which the index does not lead with, and whose fold rewrote every
# row), first with the deltas as written, then folded. Then each fold: the deltas as
# written, and a folded table with FEW (default 5) documents' new deltas, each in a
# transaction rolled back. RUNS (default 5) interleaved runs; medians and ratios.
set -euo pipefail
. "$(dirname "$0")/common.bash"
BEFORE="${BEFORE:-2c4c45e2}"; DOCS="${DOCS:-300}"; FEW="${FEW:-5}"; RUNS="${RUNS:-5}"
repo="$(cd "$here/.." && pwd)"
(cd "$repo" && cargo run --release -q -p dof_bench --bin cpu)
export PG_DOF_DB=pg_dof_term_stats_reads
"$here/cluster.sh" fresh >/dev/null
eval_laws "$DOCS"
q -c "INSERT INTO dof_collections (name, model, late_chunking) VALUES ('leyes', 'hash-384', false)"
# one statement per document, as written by the triggers of a load: the laws after the
# first FEW (OFFSET), or those FEW (LIMIT); the triggers' own folds off, so that the deltas
# stay as written (bench/scripts/stats_fold_every.sh measures those folds)
insert_laws() { # OFFSET|LIMIT
  q -c "SELECT source_id FROM eval_documents ORDER BY source_id $1 $FEW" | while read -r id; do
    printf '%s\n' "SET pg_dof.stats_fold_every = 0;" \
      "INSERT INTO dof_documents (collection, source_id, body) SELECT 'leyes', source_id, body FROM eval_documents WHERE source_id = :'id'" | q -v id="$id"
  done
}
insert_laws OFFSET
q -c "CREATE TABLE questions (question text)"
tail -n +2 "$bench/eval/legalize_pe_questions.tsv" | cut -f2 | grep -v '^$' | q -c "\copy questions FROM STDIN"
# each revision's two functions, by another name; the statement that runs them is swapped in
sql_function() { # NAME AS_NAME END: a function's definition up to the line END starts, renamed
  python3 -c '
import sys
s = sys.stdin.read(); name, as_name, end = sys.argv[1:4]; a = s.index("CREATE FUNCTION " + name + "(")
body = s[a + len("CREATE FUNCTION " + name):s.index("\n" + end, a) + len(end) + 1]
print("CREATE OR REPLACE FUNCTION " + as_name + body.replace(name + ".", as_name + "."))' "$@"
}
for state in before after; do
  if [ $state = before ]; then show() { git -C "$repo" show "$BEFORE:$1"; }; else show() { cat "$repo/$1"; }; fi
  show sql/text_search.sql | sql_function dof_term_stats "dof_term_stats_$state" "END;" | q
  show sql/term_stats.sql | sql_function dof_compact_stats "dof_compact_stats_$state" '$$;' | q
done
# ms per text search over the questions, with dof_term_stats swapped for STATE's (restored after)
q -f "$bench/sql/text_search_ms.sql"
q <<'SQL'
CREATE FUNCTION per_search(state text, collection text) RETURNS double precision LANGUAGE plpgsql AS $f$
BEGIN
    EXECUTE format('CREATE OR REPLACE FUNCTION dof_term_stats(collection text, lexemes text[])
                        RETURNS TABLE (lexeme text, chunks bigint) LANGUAGE sql STABLE PARALLEL SAFE
                    BEGIN ATOMIC SELECT * FROM dof_term_stats_%s(collection, lexemes); END', state);
    RETURN text_search_ms(collection);
END
$f$;
SQL
q <<'SQL'
CREATE FUNCTION fold_ms(state text) RETURNS double precision LANGUAGE plpgsql AS $f$
DECLARE t0 timestamptz := clock_timestamp();
BEGIN
    EXECUTE format('SELECT dof_compact_stats_%s(''leyes'')', state);
    RETURN extract(epoch FROM clock_timestamp() - t0) * 1000;
END
$f$;
SQL
reads() { # LABEL
  for collection in NULL "'leyes'"; do
    for state in before after; do q -c "BEGIN" -c "SELECT per_search('$state', $collection)" -c "ROLLBACK" >/dev/null; done  # warm
    local runs_before=() runs_after=()
    for _ in $(seq 1 "$RUNS"); do
      runs_before+=("$(q -c "BEGIN" -c "SELECT round(per_search('before', $collection)::numeric, 3)" -c "ROLLBACK")")
      runs_after+=("$(q -c "BEGIN" -c "SELECT round(per_search('after', $collection)::numeric, 3)" -c "ROLLBACK")")
    done
    local b a; b=$(median "${runs_before[@]}"); a=$(median "${runs_after[@]}")
    echo "| text search, $( [ "$collection" = NULL ] && echo 'no collection named' || echo 'the collection named'), $1 | $a | $b | $(echo "scale=3; $a / $b" | bc) |"
  done
}
fold() { # LABEL: each fold, timed in a transaction rolled back
  local runs_before=() runs_after=()
  for _ in $(seq 1 "$RUNS"); do
    for state in before after; do
      local ms; ms=$(q -c "BEGIN" -c "SELECT round(fold_ms('$state')::numeric, 1)" -c "ROLLBACK")
      if [ $state = before ]; then runs_before+=("$ms"); else runs_after+=("$ms"); fi
    done
  done
  local b a; b=$(median "${runs_before[@]}"); a=$(median "${runs_after[@]}")
  echo "| fold, $1 | $a | $b | $(echo "scale=3; $a / $b" | bc) |"
}
rows() { q -c "SELECT count(*) || ' rows, ' || count(DISTINCT lexeme) || ' lexemes' FROM dof_term_stats"; }
questions=$(q -c "SELECT count(*) FROM questions")
echo "| $((DOCS - FEW)) laws, $(q -c "SELECT count(*) FROM dof_chunks") chunks (hash embedder); $questions questions, k 10; medians of $RUNS | this tree: ms | $BEFORE: ms | ratio |"
echo "|---|---|---|---|"
unfolded="deltas as written ($(rows))"
reads "$unfolded"
fold "$unfolded"
q -c "SELECT dof_compact_stats()" >/dev/null
reads "folded ($(rows))"
insert_laws LIMIT
fold "folded, then $FEW documents' deltas ($(rows))"
