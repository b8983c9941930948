#!/usr/bin/env bash
# The query cache (pg_dof.query_cache_size, per backend), same run: a hybrid search and the
# query's embedding alone (dof_embed_query), for a query this backend embedded before (a
# hit: the next page, another collection or filter, a pooled connection's users asking
# alike), and for one it did not (a miss: the cache emptied before each query, so the
# cache's own cost is timed), against the cache off (0). The first LAWS (default 30)
# Peruvian laws under 64 KB, embedded by the real model; 40 queries of the laws' own words
# (7 words each); medians of RUNS (default 5) runs of 40 calls each, interleaved, in one
# session after 40 calls of each.
set -euo pipefail
. "$(dirname "$0")/common.bash"
echo "$(cargo run --release -q -p dof_bench --bin cpu)"
export PG_DOF_DB=pg_dof_query_cache
"$here/cluster.sh" fresh >/dev/null 2>&1
eval_laws "${LAWS:-30}"
q -c "INSERT INTO dof_documents (source_id, body) SELECT source_id, body FROM eval_documents" -c "VACUUM ANALYZE"
q <<'SQL'
CREATE TABLE queries AS
SELECT string_agg(w, ' ') AS t
FROM (SELECT c.id, (regexp_split_to_array(c.content, '\s+'))[10:16] AS ws FROM dof_chunks c ORDER BY c.id LIMIT 40) s,
     unnest(s.ws) w GROUP BY s.id;
-- RULE: what:cache (hybrid or embed; hit: the cache on and holding every query, miss: on
-- and emptied before each query, off: pg_dof.query_cache_size 0); ms a call
CREATE FUNCTION per_call(rule text, unused text, rounds integer) RETURNS double precision LANGUAGE plpgsql AS $$
DECLARE
    what text := split_part(rule, ':', 1);
    cache text := split_part(rule, ':', 2);
    started timestamptz;
    n bigint;
    q record;
BEGIN
    PERFORM set_config('pg_dof.query_cache_size', CASE cache WHEN 'off' THEN '0' ELSE '1000' END, false);
    IF cache = 'hit' THEN
        PERFORM dof_embed_query(t) FROM queries;
    END IF;
    started := clock_timestamp();
    FOR i IN 1..rounds LOOP
        FOR q IN SELECT * FROM queries LOOP
            IF cache = 'miss' THEN
                PERFORM dof_query_cache_clear();
            END IF;
            IF what = 'hybrid' THEN
                SELECT count(*) INTO n FROM dof_hybrid_search(q.t, 10);
            ELSE
                PERFORM dof_embed_query(q.t);
            END IF;
        END LOOP;
    END LOOP;
    RETURN extract(epoch FROM clock_timestamp() - started) * 1000 / (rounds * (SELECT count(*) FROM queries));
END
$$;
SQL
echo "${LAWS:-30} laws, $(q -c "SELECT count(*) FROM dof_chunks") chunks; 40 queries of $(q -c "SELECT round(avg(length(t))) FROM queries") characters"
echo
echo "| a query (k 10) | query cache on: ms | off: ms | ratio |"
echo "|---|---|---|---|"
for what in hybrid embed; do
  for cache in hit miss; do
    read -r on off < <(interleaved_medians "$what:$cache" "$what:off" NULL 1 1 3)
    echo "| $what, $([ "$cache" = hit ] && echo "searched again (a hit)" || echo "new to the backend (a miss)") | $on | $off | $(echo "scale=3; $on / $off" | bc) |"
  done
done
