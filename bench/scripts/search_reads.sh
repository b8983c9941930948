#!/usr/bin/env bash
# What a search reads of its candidates, same run: the legs leave tables of contents out,
# and a chunk holds the rule's answer (dof_chunks.contents, written when it is stored)
# against the rule run on each candidate's text at search time (dof_contents, as 0.3.0 did
# before the column, and still does for a chunk stored before 0.3.0, whose column is NULL:
# the "read" collection below); and the vector leg's index query as the product writes it
# (src/api/vector_search.rs: the query vector cast once a search, in a subquery) against the
# same statement with the parameter cast in place (in a kept generic plan, once for every
# passage the walk yields). The first LAWS (default 150) Peruvian laws under 64 KB and
# docling's two DOF editions (as the mixed quality set holds them), chunked
# by the product and embedded by MODEL (384 dimensions; default hash-384: seconds to load;
# multilingual-e5-small is the real model, minutes), stored twice: collection "held"
# (contents written) and "read" (contents NULL). 40 queries of the laws' own words, each
# with its vector given (query_embedding), so the model's query embedding is not timed;
# medians of RUNS (default 5) runs of 40 calls each, interleaved, in one session after 40
# calls of each (past the plan cache's five custom plans).
set -euo pipefail
. "$(dirname "$0")/common.bash"
RUNS="${RUNS:-5}"
MODEL="${MODEL:-hash-384}"
editions="$(corpus dof-editions)"
echo "$(cargo run --release -q -p dof_bench --bin cpu)"
export PG_DOF_DB=pg_dof_search_reads
"$here/cluster.sh" fresh >/dev/null 2>&1
eval_laws "${LAWS:-150}"
files="$(mktemp)"; find "$editions/dof_markdown_docling" -name '*.md' | sort > "$files"; chmod a+r "$files"
q -v files="$files" -v root="$editions" -f "$bench/sql/quality_load_files.sql"; rm -f "$files"
q -c "INSERT INTO dof_collections (name, model) VALUES ('held', '$MODEL'), ('read', '$MODEL')" \
  -c "INSERT INTO dof_documents (collection, source_id, body) SELECT k, source_id, body FROM eval_documents, unnest(ARRAY['held', 'read']) k" \
  -c "UPDATE dof_chunks SET contents = NULL WHERE collection = 'read'" \
  -c "VACUUM ANALYZE"
# the product's index query with the query vector's casts in place, as static SQL of a
# PL/pgSQL function: its plan is kept by the same plan cache as the product's prepared
# statement (five custom plans, then generic if no dearer)
q <<'SQL'
CREATE FUNCTION cast_per_row(query vector, searched text, wanted bigint) RETURNS bigint[]
    LANGUAGE plpgsql STABLE AS $$
BEGIN
    RETURN (SELECT array_agg(best.id ORDER BY best.distance, best.id)
            FROM (SELECT near.id, near.distance
                  FROM (SELECT hits.chunk_id AS id, min(hits.distance) AS distance
                        FROM (SELECT p.chunk_id, (p.embedding::vector(384) <=> query::vector(384))::double precision AS distance
                              FROM dof_passages p JOIN dof_chunks c ON c.id = p.chunk_id
                              WHERE vector_dims(p.embedding) = 384 AND c.collection = searched
                              ORDER BY p.embedding::halfvec(384) <=> query::halfvec(384)
                              LIMIT (wanted + 10) * 4) hits
                        GROUP BY hits.chunk_id
                        ORDER BY 2, 1
                        LIMIT wanted + 10) near
                  JOIN dof_chunks c ON c.id = near.id
                  WHERE NOT coalesce(c.contents, dof_contents(c.heading_path, c.content))
                  ORDER BY near.distance, near.id
                  LIMIT wanted) best);
END
$$;
SQL
q <<SQL
CREATE TABLE queries AS
SELECT string_agg(w, ' ') AS t, dof_embed_query(string_agg(w, ' '), '$MODEL') AS v
FROM (SELECT c.id, (regexp_split_to_array(c.content, '\s+'))[10:16] AS ws
      FROM dof_chunks c WHERE c.collection = 'held' ORDER BY c.id LIMIT 40) s,
     unnest(s.ws) w GROUP BY s.id;
-- RULE: what:collection (vector, text, hybrid: the search of that collection; index: the
-- product's index query, cast_per_row: the statement above, both of "held")
CREATE FUNCTION per_call(rule text, unused text, rounds integer) RETURNS double precision LANGUAGE plpgsql AS \$\$
DECLARE
    what text := split_part(rule, ':', 1);
    searched text := split_part(rule, ':', 2);
    started timestamptz := clock_timestamp();
    n bigint;
    ids bigint[];
    q record;
BEGIN
    FOR i IN 1..rounds LOOP
        FOR q IN SELECT * FROM queries LOOP
            CASE what
                WHEN 'vector' THEN SELECT count(*) INTO n FROM dof_vector_search(q.t, 10, searched, query_embedding => q.v);
                WHEN 'text' THEN SELECT count(*) INTO n FROM dof_text_search(q.t, 10, searched);
                WHEN 'hybrid' THEN SELECT count(*) INTO n FROM dof_hybrid_search(q.t, 10, searched, query_embedding => q.v);
                WHEN 'index' THEN
                    PERFORM set_config('hnsw.ef_search', '400', true);
                    SELECT x.ids INTO ids FROM dof_nearest_passages_internal(q.v, 384, searched, NULL, 100, NULL) x;
                ELSE
                    PERFORM set_config('hnsw.ef_search', '400', true);
                    ids := cast_per_row(q.v, searched, 100);
            END CASE;
        END LOOP;
    END LOOP;
    RETURN extract(epoch FROM clock_timestamp() - started) * 1000 / (rounds * (SELECT count(*) FROM queries));
END
\$\$;
SQL
same="$(q -c "SELECT count(*) FILTER (WHERE a.ids = cast_per_row(q.v, 'held', 100)) || ' of ' || count(*)
              FROM queries q, LATERAL dof_nearest_passages_internal(q.v, 384, 'held', NULL, 100, NULL) a")"
sizes="$(q -c "SELECT count(*) FILTER (WHERE collection = 'held') || ' / ' || count(*) FILTER (WHERE collection = 'held' AND contents)
                      || ' / ' || round(avg(octet_length(content)) FILTER (WHERE collection = 'held')) FROM dof_chunks")"
echo "${LAWS:-150} laws and 2 DOF editions; chunks / tables of contents / mean content bytes of one collection: $sizes; index query answers equal: $same"
echo
echo "| search (k 10, query vector given) | contents held: ms | read at search time: ms | ratio |"
echo "|---|---|---|---|"
for what in vector text hybrid; do
  read -r h r < <(interleaved_medians "$what:held" "$what:read" NULL 1 1 3)
  echo "| $what | $h | $r | $(echo "scale=2; $h / $r" | bc) |"
done
echo
echo "| index query (wanted 100, ef_search 400) | cast once: ms | cast per passage: ms | ratio |"
echo "|---|---|---|---|"
read -r o p < <(interleaved_medians "index:held" "cast_per_row:held" NULL 1 1 3)
echo "| dof_nearest_passages_internal | $o | $p | $(echo "scale=2; $o / $p" | bc) |"
