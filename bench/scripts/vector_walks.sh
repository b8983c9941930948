#!/usr/bin/env bash
# What choosing the vector leg's walks costs a search (dof_vector_search_collections), same
# run: the rule that reads the models a collection's chunks hold (two index probes a
# collection: its first model, whether it holds another) against the rule before it, which
# read each collection's configured model and probed once whether it holds chunks (and so
# compared a collection's chunks embedded by its previous model with the new model's query
# vector). Collections of e5 chunks (one short document each, the usual one-model case),
# 3 and 100 of them; every collection (collection NULL) and one named; medians of RUNS
# (default 5) runs of 300 calls, interleaved, in one session.
set -euo pipefail
. "$(dirname "$0")/common.bash"
RUNS="${RUNS:-5}"
echo "$(cargo run --release -q -p dof_bench --bin cpu)"
export PG_DOF_DB=pg_dof_vector_walks
"$here/cluster.sh" start >/dev/null
echo "| collections | searched | reading the chunks' models: ms | configured models, one probe (before): ms | ratio |"
echo "|---|---|---|---|---|"
for collections in 3 100; do
  "$here/cluster.sh" fresh >/dev/null 2>&1
  q -c "INSERT INTO dof_collections (name) SELECT 'c' || i FROM generate_series(2, $collections) i" \
    -c "INSERT INTO dof_documents (collection, source_id, body)
        SELECT coalesce('c' || nullif(i, 1), 'default'), 'd' || i, 'Aviso número ' || i || ' sobre una licitación pública'
        FROM generate_series(1, $collections) i"
  q <<'SQL'
CREATE FUNCTION before_walks(collection text, model text, dimension integer) RETURNS text[]
    LANGUAGE sql STABLE PARALLEL SAFE
    RETURN (WITH held AS (SELECT o.name, o.model FROM dof_collections o JOIN dof_models m ON m.name = o.model
                          WHERE m.dimension = before_walks.dimension
                            AND EXISTS (SELECT FROM dof_chunks c WHERE c.collection = o.name))
            SELECT CASE
                WHEN collection IS NOT NULL THEN ARRAY[collection]
                WHEN NOT EXISTS (SELECT FROM held WHERE held.model IS DISTINCT FROM before_walks.model) THEN ARRAY[NULL::text]
                ELSE ARRAY(SELECT held.name FROM held ORDER BY held.name)
            END);
CREATE FUNCTION per_call(rule text, searched text, n integer) RETURNS double precision LANGUAGE plpgsql AS $$
DECLARE
    started timestamptz := clock_timestamp();
    names text[];
    models text[];
BEGIN
    FOR i IN 1..n LOOP
        IF rule = 'before' THEN
            names := before_walks(searched, 'multilingual-e5-small', 384);
        ELSE
            SELECT array_agg(w.walk_collection), array_agg(w.walk_model) INTO names, models
            FROM dof_vector_search_collections(searched, 'multilingual-e5-small', 384) w;
        END IF;
    END LOOP;
    RETURN extract(epoch FROM clock_timestamp() - started) * 1000 / n;
END
$$;
SQL
  for searched in NULL "'c2'"; do
    # one session: warmed by 50 calls each, then RUNS runs of 300 calls of each rule, interleaved
    read -r n b < <(interleaved_medians now before "$searched" 50 300 4)
    echo "| $collections | $( [ "$searched" = NULL ] && echo "every collection" || echo "one named") | $n | $b | $(echo "scale=2; $n / $b" | bc) |"
  done
done
