#!/usr/bin/env bash
# What the plan PostgreSQL keeps for the vector leg's index query costs a search, same run:
# the product's statement (src/api/vector_search.rs, dof_nearest_passages_internal), which
# names only the conditions whose arguments are given, against the statement before it,
# which named each as `$2 IS NULL OR c.collection = $2` (its generic plan, kept after five
# searches, could estimate that one chunk passes and scan every passage instead of walking
# the index). The first LAWS (default "30 150") Peruvian laws under 64 KB, chunked by the
# product, embedded by MODEL (384 dimensions; default hash-384: seconds to load;
# multilingual-e5-small is the real model, minutes), in one collection; a collection named and none (NULL); 40
# query texts of the laws' own words; ef_search 400, as dof_vector_search sets it; medians
# of RUNS (default 5) runs of 40 calls each, interleaved, in one session after 40 calls
# each (past the plan cache's five custom plans). "walks the index" reads EXPLAIN of each
# statement's generic plan.
set -euo pipefail
. "$(dirname "$0")/common.bash"
RUNS="${RUNS:-5}"
MODEL="${MODEL:-hash-384}"
echo "$(cargo run --release -q -p dof_bench --bin cpu)"
export PG_DOF_DB=pg_dof_vector_plans
"$here/cluster.sh" start >/dev/null
# the statement before, as static SQL of a PL/pgSQL function: its plan is kept by the same
# plan cache as the product's prepared statement (five custom plans, then generic if cheaper)
before_statement='SELECT array_agg(best.id ORDER BY best.distance, best.id)
         FROM (SELECT near.id, near.distance
               FROM (SELECT hits.chunk_id AS id, min(hits.distance) AS distance
                     FROM (SELECT p.chunk_id, (p.embedding::vector(384) <=> (SELECT query::vector(384)))::double precision AS distance
                           FROM dof_passages p JOIN dof_chunks c ON c.id = p.chunk_id
                           WHERE vector_dims(p.embedding) = 384
                             AND (collection IS NULL OR c.collection = collection)
                             AND (filter IS NULL OR c.metadata @> filter::jsonb)
                             AND (model IS NULL OR dof_chunk_model_name(c.model) = model)
                           ORDER BY p.embedding::halfvec(384) <=> (SELECT query::halfvec(384))
                           LIMIT (wanted + 10) * 4) hits
                     GROUP BY hits.chunk_id
                     ORDER BY 2, 1
                     LIMIT wanted + 10) near
               JOIN dof_chunks c ON c.id = near.id
               WHERE NOT coalesce(c.contents, dof_contents(c.heading_path, c.content))
               ORDER BY near.distance, near.id
               LIMIT wanted) best'
echo "| laws | chunks / passages | searched | product: ms | walks the index | statement before: ms | walks the index | ratio |"
echo "|---|---|---|---|---|---|---|---|"
for laws in ${LAWS:-30 150}; do
  "$here/cluster.sh" fresh >/dev/null 2>&1
  eval_laws "$laws"
  q -c "UPDATE dof_collections SET model = '$MODEL' WHERE name = 'default'" \
    -c "INSERT INTO dof_documents (source_id, body) SELECT source_id, body FROM eval_documents" \
    -c "ANALYZE"
  q <<SQL
CREATE FUNCTION before_nearest(query vector, collection text, filter text, wanted bigint, model text) RETURNS bigint[]
    LANGUAGE plpgsql STABLE AS \$\$
#variable_conflict use_variable
BEGIN
    RETURN ($before_statement);
END
\$\$;
CREATE TABLE queries AS
SELECT dof_embed_query(string_agg(w, ' '), '$MODEL') AS v
FROM (SELECT c.id, (regexp_split_to_array(c.content, '\s+'))[10:16] AS ws FROM dof_chunks c ORDER BY c.id LIMIT 40) s,
     unnest(s.ws) w GROUP BY s.id;
CREATE FUNCTION per_call(rule text, searched text, rounds integer) RETURNS double precision LANGUAGE plpgsql AS \$\$
DECLARE
    started timestamptz := clock_timestamp();
    ids bigint[];
    v record;
BEGIN
    PERFORM set_config('hnsw.ef_search', '400', true);
    FOR i IN 1..rounds LOOP
        FOR v IN SELECT q.v FROM queries q LOOP
            IF rule = 'product' THEN
                SELECT x.ids INTO ids FROM dof_nearest_passages_internal(v.v, 384, searched, NULL, 100, NULL) x;
            ELSE
                ids := before_nearest(v.v, searched, NULL, 100, NULL);
            END IF;
        END LOOP;
    END LOOP;
    RETURN extract(epoch FROM clock_timestamp() - started) * 1000 / (rounds * (SELECT count(*) FROM queries));
END
\$\$;
SQL
  first_query="$(q -c "SELECT v FROM queries LIMIT 1")"
  sizes="$(q -c "SELECT (SELECT count(*) FROM dof_chunks) || ' / ' || (SELECT count(*) FROM dof_passages)")"
  for searched in "'default'" NULL; do
    conditions=""; [ "$searched" = NULL ] || conditions=" AND c.collection = \$2"
    walks() { # STATEMENT: whether its generic plan ($1 the query vector, $2 the collection, $3 the filter, $4 the model, $5 wanted) walks the HNSW index
      q -c "PREPARE s(vector, text, text, text, bigint) AS $1" -c "SET plan_cache_mode = force_generic_plan" \
        -c "EXPLAIN EXECUTE s('$first_query', $searched, NULL, NULL, 100)" | grep -q dof_passages_embedding_384 && echo yes || echo no
    }
    product_walks="$(walks "SELECT p.chunk_id FROM dof_passages p JOIN dof_chunks c ON c.id = p.chunk_id
                            WHERE vector_dims(p.embedding) = 384$conditions
                            ORDER BY p.embedding::halfvec(384) <=> (SELECT \$1::halfvec(384)) LIMIT (\$5 + 10) * 4")"
    before_walks="$(walks "SELECT p.chunk_id FROM dof_passages p JOIN dof_chunks c ON c.id = p.chunk_id
                           WHERE vector_dims(p.embedding) = 384 AND (\$2 IS NULL OR c.collection = \$2)
                             AND (\$3 IS NULL OR c.metadata @> \$3::jsonb)
                             AND (\$4 IS NULL OR dof_chunk_model_name(c.model) = \$4)
                           ORDER BY p.embedding::halfvec(384) <=> (SELECT \$1::halfvec(384)) LIMIT (\$5 + 10) * 4")"
    read -r n b < <(interleaved_medians product before "$searched" 1 1 3)
    echo "| $laws | $sizes | $( [ "$searched" = NULL ] && echo "every collection" || echo "one named") | $n | $product_walks | $b | $before_walks | $(echo "scale=2; $n / $b" | bc) |"
  done
done
