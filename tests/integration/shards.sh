#!/usr/bin/env bash
# Integration: pg_dof over three local clusters, a PL/Proxy coordinator and two shards
# (scripts/shards.sh), against one server holding the same documents (the project's
# cluster, database pg_dof_single), with the real model. Documents go in through the
# coordinator; each lands on exactly one shard (the one dof_shard_of names), ids are unique
# across shards, re-sending changes nothing; with exact vector legs on both sides the
# coordinator's top 10 equal the single server's for every query (three fusions, and over
# every collection with a second model of the query's dimension); with
# HNSW the overlap is reported. A shard that is down fails the search naming it; a
# statement_timeout on the coordinator stops the shards' work; a cancelled put leaves no
# half-written document; shards of different versions are refused.
set -uo pipefail
. "$(dirname "$0")/common.bash"
repo="$(cd "$scripts/.." && pwd)"
corpora="${PG_DOF_CORPORA:-$repo/../shared/corpora}"
export PG_DOF_DB=pg_dof_single
coord() { "$scripts/shards.sh" psql -X -At -v ON_ERROR_STOP=1 -q "$@"; }
shard_q() { local i="$1"; shift; "$scripts/shards.sh" shard "$i" -X -At -v ON_ERROR_STOP=1 -q "$@"; }
work="$(mktemp -d)"
trap 'PG_DOF_SHARDS=3 "$scripts/shards.sh" stop >/dev/null 2>&1; [ -n "${KEEP:-}" ] || rm -rf "$work"; echo "work: $work"' EXIT

"$scripts/cluster.sh" fresh >/dev/null 2>&1
# Where each document of WHERE is stored ("source_id|shard", sorted, in $work/placed) and
# where dof_shard_of says it belongs (the same form, in $work/expected).
placement() { # "SHARDS..." WHERE
  local i
  for i in $1; do shard_q "$i" -c "SELECT source_id || '|$i' FROM dof_documents WHERE $2"; done | sort > "$work/placed"
  cut -d'|' -f1 "$work/placed" > "$work/source_ids"
  coord -c "CREATE TEMPORARY TABLE placed (source_id text)" -c "\\copy placed FROM '$work/source_ids'" \
        -c "SELECT source_id || '|' || dof_shard_of(source_id) FROM placed" | sort > "$work/expected"
}
"$scripts/shards.sh" up >/dev/null || { echo "FAILED: the coordinator and shards did not start"; exit 1; }

# The documents: the smallest Peruvian legal texts of the shared corpora (Spanish, many
# short documents, so term statistics vary by shard), or the samples without them.
files=()
if [ -d "$corpora/legalize-pe-sample" ]; then
  mapfile -t files < <(find "$corpora/legalize-pe-sample" -name '*.md' -size +1k -printf '%s %p\n' | sort -n | head -n 48 | cut -d' ' -f2-)
else
  echo "note: $corpora/legalize-pe-sample absent, the samples only (fewer documents)"
  mapfile -t files < <(find "$repo/samples" -name '*.md' ! -name README.md | sort)
fi
collection="INSERT INTO dof_collections (name, max_tokens, overlap_tokens) VALUES ('t', 160, 0)"
q -c "$collection"
check "$(coord -c "SELECT sum(n) FROM dof_cluster_execute(\$\$$collection\$\$) n")" "2" "dof_cluster_execute creates the collection on both shards"

single_script="$work/single.sql"; cluster_script="$work/cluster.sql"
for f in "${files[@]}"; do
  id="$(basename "$(dirname "$f")")/$(basename "$f" .md)"
  printf '%s\n' "\\set body \`cat '$f'\`" \
    "INSERT INTO dof_documents (collection, source_id, title, body) VALUES ('t', '$id', split_part(:'body', E'\\n', 1), :'body');" >> "$single_script"
  printf '%s\n' "\\set body \`cat '$f'\`" \
    "SELECT action FROM dof_put_document('t', '$id', split_part(:'body', E'\\n', 1), :'body');" >> "$cluster_script"
done
PGOPTIONS='-c client_min_messages=warning' q -f "$single_script"
PGOPTIONS='-c client_min_messages=warning' coord -f "$cluster_script" > "$work/actions"
n=${#files[@]}
check "$(sort "$work/actions" | uniq -c | awk '{print $2 ":" $1}')" "added:$n" "every document added through the coordinator"

# placement: on exactly one shard, the one dof_shard_of names
placement "0 1" "collection = 't'"
check "$(wc -l < "$work/placed")" "$n" "every document is stored once"
check "$(cut -d'|' -f1 "$work/placed" | sort -u | wc -l)" "$n" "no document is on two shards"
check "$(diff "$work/placed" "$work/expected" >/dev/null && echo same)" "same" "each document is on the shard dof_shard_of names"
check "$(for i in 0 1; do shard_q "$i" -c "SELECT count(*) > 0 FROM dof_documents"; done | tr '\n' ' ')" "t t " "both shards hold documents"
for i in 0 1; do shard_q "$i" -c "SELECT 'd' || id FROM dof_documents UNION ALL SELECT 'c' || id FROM dof_chunks"; done > "$work/ids"
check "$(sort "$work/ids" | uniq -d | wc -l)" "0" "document and chunk ids are unique across shards"
check "$(for i in 0 1; do shard_q "$i" -c "SELECT count(*) FROM dof_chunks WHERE collection = 't'"; done | paste -sd+ | bc)" \
      "$(q -c "SELECT count(*) FROM dof_chunks WHERE collection = 't'")" "the shards hold as many chunks as the single server"

before="$(for i in 0 1; do shard_q "$i" -c "SELECT string_agg(id::text, ',' ORDER BY id) FROM dof_chunks"; done)"
PGOPTIONS='-c client_min_messages=warning' coord -f "$cluster_script" > "$work/actions"
check "$(sort "$work/actions" | uniq -c | awk '{print $2 ":" $1}')" "unchanged:$n" "re-sending every document changes nothing"
check "$(for i in 0 1; do shard_q "$i" -c "SELECT string_agg(id::text, ',' ORDER BY id) FROM dof_chunks"; done)" "$before" "re-sending re-indexes nothing (same chunk ids)"

# Fused scores tie too (under RRF, the fifth of one leg alone and the fifth of the other:
# 1/65 each), and a tie across the tenth place is broken by chunk id, so either chunk may
# be tenth: each query's rows scoring its tenth's score are left out of the comparison of
# chunks, and the scores rank by rank are compared apart, all of them.
above_last() { awk -F'|' '{ rows[NR] = $0; id[NR] = $1; score[NR] = $4; last[$1] = $4 }
                          END { for (i = 1; i <= NR; i++) if (score[i] != last[id[i]]) print rows[i] }'; }
# SQL run on one server and, through the coordinator, on every shard
everywhere() { q -c "$1"; coord -c "SELECT sum(n) FROM dof_cluster_execute(\$\$$1\$\$) n" >/dev/null; }
# a search statement's rows on one server and through the coordinator, into
# $work/single-NAME.out and $work/cluster-NAME.out, with exact vector legs on every side
exact_answers() { # SQL NAME
  for i in 0 1; do shard_q "$i" -c "ALTER DATABASE pg_dof SET enable_indexscan = off"; done
  PGOPTIONS='-c enable_indexscan=off' q -c "$1" > "$work/single-$2.out"
  coord -c "$1" > "$work/cluster-$2.out"
  for i in 0 1; do shard_q "$i" -c "ALTER DATABASE pg_dof RESET enable_indexscan"; done
}
# whether NAME's top 10 are the same on both sides, rows tied at the tenth score apart
same_top() { diff <(above_last < "$work/single-$1.out" | cut -d'|' -f1,3,4 | sort) \
                  <(above_last < "$work/cluster-$1.out" | cut -d'|' -f1,3,4 | sort) >/dev/null && echo equal; }
# a search over every collection, with a collection on another model of the query's
# dimension beside 't' (hash-384 beside e5's 384), before the loader adds collections one
# server does not have: each shard embeds the query's text by that collection's own model,
# as one server does (the shards compared the one e5 vector the coordinator passes with
# hash-384's vectors too). Exact vector legs on both sides, as the comparisons below.
everywhere "INSERT INTO dof_collections (name, model) VALUES ('h', 'hash-384')"
sed "s/('t', '/('h', 'h-/" "$single_script" | head -n 24 > "$work/single-h.sql"
sed "s/('t', '/('h', 'h-/" "$cluster_script" | head -n 24 > "$work/cluster-h.sql"
PGOPTIONS='-c client_min_messages=warning' q -f "$work/single-h.sql"
PGOPTIONS='-c client_min_messages=warning' coord -f "$work/cluster-h.sql" > /dev/null
# the queries: questions, and the hash-384 documents' first headings (which hash-384's
# vectors of them match, where an e5 vector compared with them matched nothing)
{ tail -n +2 "$repo/bench/eval/dof_questions.tsv" | head -n 20 | cut -f1
  q -c "SELECT DISTINCT ON (document_id) left(array_to_string(heading_path, ' '), 80) FROM dof_chunks
        WHERE collection = 'h' AND cardinality(heading_path) > 0 ORDER BY document_id, chunk_index"; } > "$work/every-queries"
every_sql="SELECT q.n || '|' || h.n || '|' || md5(h.content) || '|' || round(h.score::numeric, 6) || '|' || h.source_id
           FROM (SELECT row_number() OVER () AS n, v.query
                 FROM (VALUES $(awk 'NF' "$work/every-queries" | sed "s/'/''/g; s/.*/('&')/" | paste -sd,)) v(query)) q,
                LATERAL dof_hybrid_search(q.query, 10, NULL) WITH ORDINALITY AS h(chunk_id, document_id, source_id, heading_path, content, score, vector_rank, text_rank, n)
           ORDER BY q.n, h.n"
exact_answers "$every_sql" every
check "$(grep -c '|h-' "$work/single-every.out" | awk '$1 > 0 {print "h"}')/$(same_top every)" "h/equal" \
      "collection NULL over e5 and hash-384 collections: the coordinator's top 10 equal one server's (exact legs)"
# 'h' moved to e5 and not yet re-indexed: its chunks hold hash-384's vectors, compared with
# the query embedded by hash-384 as before the change, on one server and on the shards (they
# were compared with the e5 query vector, as if 'h' were one walk with 't')
everywhere "UPDATE dof_collections SET model = 'multilingual-e5-small' WHERE name = 'h'"
exact_answers "$every_sql" switched
check "$(diff "$work/single-every.out" "$work/single-switched.out" >/dev/null && same_top switched)" "equal" \
      "a collection moved to another model, not re-indexed: the answers before the change, the coordinator's equal one server's"
everywhere "DELETE FROM dof_documents WHERE collection = 'h'"
everywhere "DELETE FROM dof_collections WHERE name = 'h'"

# the loader through the coordinator: each file straight to its shard, a rerun adds nothing
. "$scripts/config.sh"
cargo build --release -q -p dof_loader
coordinator_connection="host=$("$scripts/shards.sh" dir)/coordinator port=${PG_DOF_SHARDS_PORT:-5510} dbname=dof_coordinator user=postgres"
coord -c "SELECT dof_cluster_execute(\$\$INSERT INTO dof_collections (name, model, deferred) VALUES ('carga', 'hash-384', true)\$\$)" >/dev/null
load_dir="$(dirname "${files[0]}")"
loaded=$(find "$load_dir" -maxdepth 1 -name '*.md' -size +0 | wc -l)
out=$("$CARGO_TARGET_DIR/release/dof" load "$load_dir" --collection carga --coordinator --jobs 2 --connection "$coordinator_connection" 2>/dev/null)
check "$?/$(echo "$out" | awk -F'|' 'NR == 3 {gsub(/ /, "", $2); print $2}')" "0/$loaded" "dof load --coordinator adds every file ($loaded)"
placement "0 1" "collection = 'carga'"
check "$(wc -l < "$work/placed")/$(diff "$work/placed" "$work/expected" >/dev/null && echo same)" "$loaded/same" \
      "the loader wrote each file once, on the shard dof_shard_of names"
out=$("$CARGO_TARGET_DIR/release/dof" load "$load_dir" --collection carga --coordinator --connection "$coordinator_connection" 2>/dev/null)
check "$(echo "$out" | awk -F'|' 'NR == 3 {gsub(/ /, "", $2); gsub(/ /, "", $4); print $2 "/" $4}')" "0/$loaded" "a second load through the coordinator adds nothing"

# the coordinator connection lost in the middle of a load (pg_terminate_backend once files
# are going in): the loader connects again and every file lands, or is listed as failed
coord -c "SELECT dof_cluster_execute(\$\$INSERT INTO dof_collections (name, model, deferred) VALUES ('carga2', 'hash-384', true)\$\$)" >/dev/null
mkdir -p "$work/many"
for i in $(seq 1 300); do printf '# Aviso %s\n\nTexto breve del aviso número %s.\n' "$i" "$i" > "$work/many/aviso-$i.md"; done
many=300
"$CARGO_TARGET_DIR/release/dof" load "$work/many" --collection carga2 --coordinator --batch-size 1 --connection "$coordinator_connection" \
  > "$work/load2.out" 2> "$work/load2.err" &
loader=$!
stored2() { for i in 0 1; do shard_q "$i" -c "SELECT count(*) FROM dof_documents WHERE collection = 'carga2'"; done | paste -sd+ | bc; }
for _ in $(seq 1 200); do [ "$(stored2)" -ge 5 ] && break; sleep 0.02; done
at=$(stored2)
terminated=$(coord -c "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = 'dof load' AND pid <> pg_backend_pid()")
wait "$loader"; status=$?
added2=$(awk -F'|' 'NR == 3 {gsub(/ /, "", $2); print $2}' "$work/load2.out")
check "$terminated:$status:$(grep -c 'connected again' "$work/load2.err")" "1:0:1" \
      "the loader's coordinator connection terminated after $at of $many files: it connects again and finishes (exit 0)"
check "$added2/$(stored2)" "$many/$many" "every file is added and stored, none lost"

# queries: evaluation questions and the loaded documents' first headings
{ tail -n +2 "$repo/bench/eval/dof_questions.tsv" | cut -f1
  q -c "SELECT DISTINCT ON (document_id) left(array_to_string(heading_path, ' '), 80) FROM dof_chunks
        WHERE collection = 't' AND cardinality(heading_path) > 0 ORDER BY document_id, chunk_index LIMIT 40"; } \
  | awk 'NF' | awk '{print NR "\t" $0}' > "$work/queries.tsv"
queries=$(wc -l < "$work/queries.tsv")
for side in single cluster; do
  run() { if [ "$side" = single ]; then q "$@"; else coord "$@"; fi; }
  run -c "CREATE TABLE queries (id integer, query text)" -c "\\copy queries FROM '$work/queries.tsv'"
done
search_sql() { # FUSION DEDUP: every query's top 10: rank, content hash, score, source
  echo "SELECT q.id || '|' || h.n || '|' || md5(h.content) || '|' || round(h.score::numeric, 6) || '|' || h.source_id
        FROM queries q, LATERAL dof_hybrid_search(q.query, 10, 't', fusion => '$1', dedup_by_source => $2)
             WITH ORDINALITY AS h(chunk_id, document_id, source_id, heading_path, content, score, vector_rank, text_rank, n)
        ORDER BY q.id, h.n"
}
# exact vector legs on both sides: no index scans (HNSW is one), so both sort every distance.
# Equal means every query's ten chunks (by text) with the same scores; ranks follow the
# scores, but equal fused scores (0.5 each for the top of one leg and the top of the other
# under weighted fusion) are ordered by chunk id, and a shard's ids are not the single
# server's: such reorderings are counted and shown, not failed.
# RRF scores ranks, and equal scores within a leg are ranked by chunk id: the queries with
# such ties are left out of the RRF comparison (counted).
PGOPTIONS='-c enable_indexscan=off' q -c "SELECT q.id FROM queries q
    WHERE EXISTS (SELECT 1 FROM dof_text_search(q.query, 50, 't') t GROUP BY t.text_score HAVING count(*) > 1)
       OR EXISTS (SELECT 1 FROM dof_vector_search(q.query, 50, 't') v GROUP BY v.distance HAVING count(*) > 1)" > "$work/leg_ties"
# (FILENAME, not NR == FNR: with no ties the file is empty, and NR == FNR would hold for
# every query line too, leaving none to compare)
untied() { if [ "$1" = rrf ]; then awk -F'|' 'FILENAME == ARGV[1] { tied[$1] = 1; next } !($1 in tied)' "$work/leg_ties" -; else cat; fi; }
for i in 0 1; do shard_q "$i" -c "ALTER DATABASE pg_dof SET enable_indexscan = off"; done
for mode in "weighted false" "rrf false" "weighted true"; do
  set -- $mode
  PGOPTIONS='-c enable_indexscan=off' q -c "$(search_sql "$1" "$2")" > "$work/single-$1-$2.out"
  coord -c "$(search_sql "$1" "$2")" > "$work/cluster-$1-$2.out"
  rows=$(wc -l < "$work/single-$1-$2.out")
  compared=$(untied "$1" < "$work/single-$1-$2.out" | cut -d'|' -f1 | sort -u | wc -l)
  same=$(diff <(untied "$1" < "$work/single-$1-$2.out" | above_last | cut -d'|' -f1,3,4 | sort) \
              <(untied "$1" < "$work/cluster-$1-$2.out" | above_last | cut -d'|' -f1,3,4 | sort) >/dev/null \
         && diff <(untied "$1" < "$work/single-$1-$2.out" | cut -d'|' -f1,2,4) \
                 <(untied "$1" < "$work/cluster-$1-$2.out" | cut -d'|' -f1,2,4) >/dev/null && echo equal)
  check "$( [ "$compared" -ge 50 ] && [ "$rows" -ge $((queries * 5)) ] && echo "$same")" "equal" \
        "exact legs, fusion $1, dedup_by_source $2: the coordinator's top 10 equal one server's for $compared queries"
  echo "note: $(diff <(cut -d'|' -f1-3 "$work/single-$1-$2.out") <(cut -d'|' -f1-3 "$work/cluster-$1-$2.out") | grep -c '^<') of $rows rows ordered otherwise within equal scores"
done
for i in 0 1; do shard_q "$i" -c "ALTER DATABASE pg_dof RESET enable_indexscan"; done
# a search's first results do not depend on how many it asks for (a document's order within
# the list depends on its own chunks alone: dof_document_order): each query's first 3 at
# k 3 are its first 3 at k 10, on one server
prefix_sql() { # K: every query's first K chunk ids, in the search's order
  echo "SELECT q.id || '|' || string_agg(h.chunk_id::text, ',' ORDER BY h.n) FROM queries q,
        LATERAL (SELECT h.chunk_id, h.n FROM dof_hybrid_search(q.query, $1, 't')
                 WITH ORDINALITY AS h(chunk_id, document_id, source_id, heading_path, content, score, vector_rank, text_rank, n)
                 WHERE h.n <= 3) h GROUP BY q.id ORDER BY q.id"
}
q -c "$(prefix_sql 3)" > "$work/first3-k3.out"
q -c "$(prefix_sql 10)" > "$work/first3-k10.out"
check "$(diff "$work/first3-k3.out" "$work/first3-k10.out" | grep -c '^<')/$(wc -l < "$work/first3-k3.out")" "0/$queries" \
      "a hybrid search's first 3 are the same at k 3 and k 10, for every query"
q -c "$(search_sql weighted false)" | cut -d'|' -f1,3 > "$work/single.out"
coord -c "$(search_sql weighted false)" | cut -d'|' -f1,3 > "$work/cluster.out"
echo "note: with HNSW on both sides, $(comm -12 <(sort "$work/single.out") <(sort "$work/cluster.out") | wc -l) of $(wc -l < "$work/single.out") top-10 results are the same"
huge="$(coord -c "SELECT count(*) FROM dof_hybrid_search(repeat('palabra ', 10000))" 2>&1)"
check "$(echo "$huge" | grep -c 'query has 80000 bytes, over the 65536 bytes'):$(echo "$huge" | grep -c 'stack depth')" "1:0" \
      "a query over 64 KB is refused through the coordinator, clearly (it failed on the shards with stack depth limit exceeded)"
# the search's arguments are checked by the shards with one server's checks, in the first call
# PL/Proxy names the function and shard before the shard's message: "f(8): [db] REMOTE ERROR: "
first_error() { sed -E 's/[^ ]+\([0-9]+\): \[[^]]*\] REMOTE ERROR: //' | grep -o 'ERROR:  [0-9A-Z]*: [^(]*' | head -1; }
for args in "k => 0" "candidate_pool => 0" "dedup_by_source => NULL" "ranking => 'tf'" "match_terms => 'some'" \
            "filter => '[1]'" "query_embedding => '[1,2,3]'"; do
  single="$(q -v VERBOSITY=verbose -c "SELECT count(*) FROM dof_hybrid_search('aduana', $args)" 2>&1 | first_error)"
  cluster="$(coord -v VERBOSITY=verbose -c "SELECT count(*) FROM dof_hybrid_search('aduana', $args)" 2>&1 | first_error)"
  check "$( [ -n "$single" ] && echo "$cluster")" "$single" "$args: the coordinator's error is one server's (${single:0:60})"
done
# an empty query too (one server listed k arbitrary chunks for it)
single="$(q -v VERBOSITY=verbose -c "SELECT count(*) FROM dof_hybrid_search('  ')" 2>&1 | first_error)"
cluster="$(coord -v VERBOSITY=verbose -c "SELECT count(*) FROM dof_hybrid_search('  ')" 2>&1 | first_error)"
check "$(echo "$single" | grep -c 'query is empty'):$cluster" "1:$single" "an empty query: the coordinator's error is one server's (${single:0:60})"
single="$(q -v VERBOSITY=verbose -c "SELECT count(*) FROM dof_hybrid_search('-ley')" 2>&1 | first_error)"
cluster="$(coord -v VERBOSITY=verbose -c "SELECT count(*) FROM dof_hybrid_search('-ley')" 2>&1 | first_error)"
check "$(echo "$single" | grep -c 'names no word'):$cluster" "1:$single" "a query of excluded words alone: the coordinator's error is one server's (${single:0:60})"
# a blank body, written through the coordinator, is refused by the shard that owns it
single="$(q -v VERBOSITY=verbose -c "SELECT action FROM dof_put_document('t', 'en-blanco', NULL, ' ')" 2>&1 | first_error)"
cluster="$(coord -v VERBOSITY=verbose -c "SELECT action FROM dof_put_document('t', 'en-blanco', NULL, ' ')" 2>&1 | first_error)"
check "$(echo "$single" | grep -c 'empty body'):$cluster" "1:$single" "a blank body: the coordinator's error is one server's (${single:0:60})"
single="$(q -v VERBOSITY=verbose -c "SELECT action FROM dof_put_document('t', ' ', NULL, 'Texto del aviso.')" 2>&1 | first_error)"
cluster="$(coord -v VERBOSITY=verbose -c "SELECT action FROM dof_put_document('t', ' ', NULL, 'Texto del aviso.')" 2>&1 | first_error)"
check "$(echo "$single" | grep -c 'source_id is empty'):$cluster" "1:$single" "a blank source_id: the coordinator's error is one server's (${single:0:60})"
alpha_default="SELECT substring(pg_get_function_arguments('dof_hybrid_search'::regproc) FROM 'alpha double precision DEFAULT ([0-9.]+)')"
single_alpha="$(q -c "$alpha_default")"
check "$( [ -n "$single_alpha" ] && coord -c "$alpha_default")" "$single_alpha" \
      "the coordinator's hybrid search has one server's defaults (alpha $single_alpha)"

# a third shard: the mapping changes, dof_cluster_rebalance moves the documents whose owner
# changed, with their vectors (nothing re-embedded), and the answers stay the same
chunk_prints() { for i in "$@"; do shard_q "$i" -c "SELECT d.source_id || '|' || c.chunk_index || '|' || md5(c.embedding::text) || '|' || md5(c.tsv::text)
                                                FROM dof_chunks c JOIN dof_documents d ON d.id = c.document_id WHERE d.collection = 't'"; done | sort; }
chunk_prints 0 1 > "$work/prints_before"
# a query's rows as (query, content, score), without those tied with its last row's score:
# chunk ids are a shard's own, so a move can change which of two equally scored chunks the
# id tie-break puts tenth; the last score itself is kept, so a changed score still differs
untied() { cut -d'|' -f1,3,4 | awk -F'|' '{ row[NR] = $0; query[NR] = $1; score[NR] = $3 + 0
                                           if (!($1 in last) || $3 + 0 < last[$1]) last[$1] = $3 + 0 }
                                         END { for (i = 1; i <= NR; i++) if (score[i] != last[query[i]]) print row[i]
                                               for (q in last) print q "|last|" last[q] }' | sort; }
coord -c "$(search_sql weighted false)" | untied > "$work/answers_before"
# documents waiting in a queue when the cluster grows: 40 documents indexed, then sent again
# with a new body while the shards' queue workers are away (serving database postgres), so
# they are queued with their old body's chunks; after the rebalance and the drain every one
# holds its new body's chunks only
cola="INSERT INTO dof_collections (name, model, deferred, max_tokens, overlap_tokens) VALUES ('cola', 'hash-384', true, 64, 0) ON CONFLICT DO NOTHING"
coord -c "SELECT dof_cluster_execute(\$\$$cola\$\$)" >/dev/null
put_cola() { coord -c "SELECT count(*) FROM generate_series(1, 40) g, dof_put_document('cola', 'cola-' || g, NULL, format(E'# Aviso %s\\n\\n$1 del aviso %s.', g, g))" >/dev/null; }
drained() { for _ in $(seq 1 120); do [ "$(coord -c "SELECT coalesce(sum(queued), 0) FROM dof_cluster_status")" = 0 ] && return 0; sleep 0.5; done; return 1; }
put_cola "Primera versión"
drained
for i in 0 1; do shard_q "$i" -c "ALTER SYSTEM SET pg_dof.queue_database = 'postgres'" -c "SELECT pg_reload_conf()" >/dev/null; done
sleep 2
put_cola "Segunda versión"
check "$(coord -c "SELECT sum(queued) FROM dof_cluster_status")" "40" "40 new bodies wait in the shards' queues (workers away)"
connection2="$("$scripts/shards.sh" add 2 | tail -1)"
# the new shard gets the collections first (the README's order), straight on it; then it
# joins, and searches work at once
shard_q 2 -c "$collection" -c "INSERT INTO dof_collections (name, model, deferred) VALUES ('carga', 'hash-384', true), ('carga2', 'hash-384', true)" -c "$cola"
coord -c "SELECT dof_cluster_set_shards(ARRAY['$("$scripts/shards.sh" connection 0)', '$("$scripts/shards.sh" connection 1)', '$connection2'])" >/dev/null
check "$(coord -c "SELECT count(*) > 0 FROM dof_hybrid_search('ley', collection => 't')")" "t" "a search right after the shard joins works (its collections were made first)"
moved=$(coord -c "SELECT sum(moved) FROM dof_cluster_rebalance(20)")
check "$( [ "$moved" -gt 0 ] && echo moved)" "moved" "dof_cluster_rebalance moves documents to the new shard ($moved)"
placement "0 1 2" "collection IN ('t', 'carga')"
check "$(wc -l < "$work/placed")/$(diff "$work/placed" "$work/expected" >/dev/null && echo same)" "$((n + loaded))/same" \
      "after the rebalance every document is once, on its owner of three shards"
chunk_prints 0 1 2 > "$work/prints_after"
check "$(diff "$work/prints_before" "$work/prints_after" >/dev/null && echo same)" "same" "moved chunks keep their vectors and tsvectors (nothing re-embedded)"
check "$(shard_q 2 -c "SELECT count(*) FILTER (WHERE contents IS DISTINCT FROM dof_contents(heading_path, content)) || '/' || (count(*) > 0) FROM dof_chunks")" "0/true" \
      "the moved chunks hold the tables-of-contents rule's answer (dof_shard_import writes dof_chunks.contents)"
coord -c "$(search_sql weighted false)" | untied > "$work/answers_after"
check "$(diff "$work/answers_before" "$work/answers_after" >/dev/null && echo same)" "same" "three shards answer as two did"
check "$(coord -c "SELECT sum(moved) FROM dof_cluster_rebalance()")" "0" "a second rebalance moves nothing"
for i in 0 1; do shard_q "$i" -c "ALTER SYSTEM RESET pg_dof.queue_database" -c "SELECT pg_reload_conf()" >/dev/null; done
drained
check "$(for i in 0 1 2; do shard_q "$i" -c "SELECT d.source_id || ':' || count(c.id) || ':' || count(c.id) FILTER (WHERE c.content LIKE '%Segunda%' AND c.content NOT LIKE '%Primera%')
                                           FROM dof_documents d LEFT JOIN dof_chunks c ON c.document_id = d.id WHERE d.collection = 'cola' GROUP BY d.source_id"; done \
        | awk -F: '$2 > 0 && $2 == $3' | wc -l)" "40" "after the rebalance and the drain, each of the 40 holds its new body's chunks only (none moved with stale chunks)"

# safe by default: a role granted nothing reaches no shard and runs no administration
for side in coordinator 0 1 2; do
  if [ "$side" = coordinator ]; then run_as() { coord "$@"; }; else run_as() { shard_q "$side" "$@"; }; fi
  run_as -c "DROP ROLE IF EXISTS mallory" -c "CREATE ROLE mallory LOGIN"
done
for i in 0 1 2; do shard_q "$i" -c "GRANT SELECT ON ALL TABLES IN SCHEMA public TO mallory"; done
mallory() { "$scripts/shards.sh" psql -X -At -q -U mallory "$@" 2>&1; }
public_functions="SELECT string_agg(p.proname, ' ' ORDER BY p.proname) FROM pg_proc p
  JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
  JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'pg_dof_coordinator'
  WHERE p.proacl IS NULL OR EXISTS (SELECT 1 FROM aclexplode(p.proacl) a WHERE a.grantee = 0 AND a.privilege_type = 'EXECUTE')"
administration="dof_cluster_configure_shard dof_cluster_execute dof_cluster_export_misplaced dof_cluster_forget dof_cluster_import dof_cluster_rebalance dof_cluster_set_shards"
listed="$(coord -c "$public_functions")"
check "$(for f in $administration; do echo " $listed " | grep -q " $f " && echo "$f"; done | wc -l)" "0" \
      "no administration function is executable by PUBLIC (PUBLIC may run: $listed)"
check "$(coord -c "SELECT count(*) FROM pg_foreign_server s, aclexplode(s.srvacl) a WHERE s.srvname = 'dof_shards' AND a.grantee = 0")" "0" \
      "USAGE on dof_shards is not granted to PUBLIC"
check "$(mallory -c "SELECT dof_cluster_execute(\$\$copy (select 1) to program 'id'\$\$)" | grep -c 'permission denied for function dof_cluster_execute')" "1" \
      "a role granted nothing may not call dof_cluster_execute"
check "$(mallory -c "CREATE USER MAPPING FOR mallory SERVER dof_shards OPTIONS (user 'postgres')" | grep -c 'permission denied for foreign server')" "1" \
      "nor map itself to the shards' superuser"
check "$(mallory -c "SELECT count(*) FROM dof_hybrid_search('ley', collection => 't')" | grep -c 'permission denied for foreign server')" "1" \
      "nor search before it is granted USAGE on dof_shards"
coord -c "GRANT USAGE ON FOREIGN SERVER dof_shards TO mallory"
check "$(mallory -c "SELECT count(*) > 0 FROM dof_hybrid_search('ley', collection => 't')")" "t" "a role granted USAGE searches, as itself on the shards"
check "$(mallory -c "CREATE USER MAPPING FOR mallory SERVER dof_shards OPTIONS (user 'postgres')" | grep -c 'may map role "mallory" only to its own user name')" "1" \
      "a role with USAGE may not map itself to another user on the shards"
check "$(mallory -c "CREATE USER MAPPING FOR mallory SERVER dof_shards OPTIONS (user 'mallory')" -c "ALTER USER MAPPING FOR mallory SERVER dof_shards OPTIONS (SET user 'postgres')" | grep -c 'only to its own user name')" "1" \
      "nor alter its own mapping to another user"
check "$(mallory -c "SELECT count(*) > 0 FROM dof_hybrid_search('ley', collection => 't')")" "t" "its mapping to its own name works"
check "$(mallory -c "SELECT dof_cluster_execute('SELECT 1')" | grep -c 'permission denied for function')" "1" "and it still may not call dof_cluster_execute"
coord -c "DROP USER MAPPING FOR mallory SERVER dof_shards" -c "REVOKE USAGE ON FOREIGN SERVER dof_shards FROM mallory" -c "DROP ROLE mallory"
for i in 0 1 2; do shard_q "$i" -c "REVOKE ALL ON ALL TABLES IN SCHEMA public FROM mallory" -c "DROP ROLE mallory"; done

# connection strings that name a user or a password are refused; so is leaving out a shard
# that holds documents
c0="$("$scripts/shards.sh" connection 0)"; c1="$("$scripts/shards.sh" connection 1)"
for bad in "$c0 user=postgres" "$c0 password=secret" "postgresql://postgres@localhost/pg_dof"; do
  check "$(coord -c "SELECT dof_cluster_set_shards(ARRAY['$bad', '$c1', '$connection2'])" 2>&1 | grep -c 'must not name user= or password=')" "1" \
        "dof_cluster_set_shards refuses a connection string naming a user or password ($(echo "$bad" | sed 's/.* //'))"
done
check "$(coord -c "SELECT dof_cluster_set_shards(ARRAY['$c0', '$c1'])" 2>&1 | grep -c 'shard 2 would be left out of the cluster while it holds')" "1" \
      "shrinking the cluster past a shard that holds documents is refused"
check "$(coord -c "SELECT cardinality(dof_cluster_connections())")" "3" "and the cluster keeps its three shards"

# a SET run on every shard would stay in PL/Proxy's pooled connections: refused, rolled back
"$scripts/shards.sh" psql -X -At -q -c "SELECT dof_cluster_execute('SET pg_dof.allow_drop = on')" \
  -c "SELECT sum(n) FROM dof_cluster_execute(\$\$SELECT 1 WHERE current_setting('pg_dof.allow_drop') = 'on'\$\$) n" > "$work/set" 2>&1
check "$(grep -c 'must not change session settings' "$work/set")/$(tail -1 "$work/set")" "1/0" \
      "dof_cluster_execute refuses a SET, and the next call in the session does not see it"

# a put cancelled on the coordinator (statement_timeout) while its shard indexes a large
# document: the shard's transaction rolls back whole, no document without its chunks
big="$work/big.md"; for _ in $(seq 1 400); do cat "${files[0]}"; done > "$big"
printf '%s\n' "\\set body \`cat '$big'\`" "SET statement_timeout = '300ms';" \
  "SELECT action FROM dof_put_document('t', 'big-document', 'big', :'body');" > "$work/big.sql"
coord -f "$work/big.sql" >/dev/null 2>"$work/err"
check "$(grep -c 'statement timeout' "$work/err")" "1" "a put over statement_timeout is cancelled"
sleep 1
check "$(for i in 0 1 2; do shard_q "$i" -c "SELECT count(*) FROM pg_stat_activity WHERE query LIKE '%dof_put_document%' AND state = 'active' AND pid <> pg_backend_pid()"; done | tr '\n' ' ')" "0 0 0 " \
      "the shard's indexing was cancelled with it"
check "$(for i in 0 1 2; do shard_q "$i" -c "SELECT count(*) FROM dof_documents d WHERE d.collection = 't' AND NOT EXISTS (SELECT 1 FROM dof_chunks c WHERE c.document_id = d.id)"; done | tr '\n' ' ')" "0 0 0 " \
      "no document is left without its chunks"
check "$(for i in 0 1 2; do shard_q "$i" -c "SELECT count(*) FROM dof_documents WHERE source_id = 'big-document'"; done | paste -sd+ | bc)" "0" \
      "the cancelled document is not stored"
# a coordinator transaction rolled back: PL/Proxy committed the shard's own transaction
# (no two-phase commit), so the document is there whole, and sending it again is a no-op
coord -c "BEGIN" -c "SELECT action FROM dof_put_document('t', 'rolled-back', 'x', '# Aviso\n\nTexto del aviso que se revierte.')" -c "ROLLBACK" >/dev/null
check "$(for i in 0 1 2; do shard_q "$i" -c "SELECT count(*) FROM dof_documents d JOIN dof_chunks c ON c.document_id = d.id WHERE d.source_id = 'rolled-back'"; done | paste -sd+ | bc)" "1" \
      "a put in a rolled-back coordinator transaction is whole on its shard (documented: no 2PC)"
check "$(coord -c "SELECT action FROM dof_put_document('t', 'rolled-back', 'x', '# Aviso\n\nTexto del aviso que se revierte.')")" "unchanged" \
      "the retry of that put changes nothing"

# statement_timeout on the coordinator stops the shards' work
coord -c "SET statement_timeout = '500ms'" -c "SELECT dof_cluster_execute('SELECT pg_sleep(30)')" >/dev/null 2>"$work/err"
check "$(grep -c 'statement timeout' "$work/err")" "1" "a coordinator call over statement_timeout is cancelled"
sleep 1
check "$(for i in 0 1 2; do shard_q "$i" -c "SELECT count(*) FROM pg_stat_activity WHERE query LIKE '%pg_sleep(30)%' AND state = 'active' AND pid <> pg_backend_pid()"; done | tr '\n' ' ')" "0 0 0 " \
      "the shards' queries were cancelled with it"

# shards of different pg_dof versions are refused
shard_q 1 -c "UPDATE pg_extension SET extversion = '0.1.0' WHERE extname = 'pg_dof'"
coord -c "SELECT count(*) FROM dof_hybrid_search('ley', collection => 't')" >/dev/null 2>"$work/err"
check "$(grep -c 'different pg_dof versions' "$work/err")" "1" "a search over shards of different versions is refused"
shard_q 1 -c "UPDATE pg_extension SET extversion = '$(sed -n 's/^version = "\(.*\)"/\1/p' "$repo/Cargo.toml" | head -1)' WHERE extname = 'pg_dof'"

# a shard that is down: the search fails naming it; the status view says which
"$scripts/shards.sh" shard-stop 1 >/dev/null
port1="$("$scripts/shards.sh" connection 1 | sed 's/.*port=\([0-9]*\).*/\1/')"
coord -c "SELECT count(*) FROM dof_hybrid_search('ley', collection => 't')" >/dev/null 2>"$work/err"
check "$(grep -c "PGSQL.$port1" "$work/err")" "1" "a search with a shard down fails naming that shard"
check "$(coord -c "SELECT string_agg(shard || ':' || reachable, ' ' ORDER BY shard) FROM dof_cluster_status")" "0:true 1:false 2:true" \
      "dof_cluster_status shows the shard that is down"
"$scripts/shards.sh" shard-start 1 >/dev/null
check "$(coord -c "SELECT count(*) > 0 FROM dof_hybrid_search('ley', collection => 't')")" "t" "searches work again once the shard is back"
finish
