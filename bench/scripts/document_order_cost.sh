#!/usr/bin/env bash
# What the order within a document (sql/document_order.sql) costs a hybrid search: on a
# quality database that retrieval_quality.sh left (DB, default pg_dof_quality_dof, whose
# documents are whole DOF editions; pg_dof_quality_mixed_long after SETS=mixed-long),
# every question of eval_questions through this tree's dof_hybrid_search and through the
# definition of git revision BEFORE (default 1deb56a8, the last without it, installed
# beside it as dof_hybrid_search_before), the two alternating per question, each question's
# query embedding given (the model is not what is measured); ROUNDS rounds (default 3).
# Prints each round's p50 and p90 and the ratio of the medians, and how many chunks the
# documents reordered hold. The extra function is dropped at the end.
set -euo pipefail
. "$(dirname "$0")/common.bash"
export PG_DOF_DB="${DB:-pg_dof_quality_dof}"
BEFORE="${BEFORE:-1deb56a8}"
ROUNDS="${ROUNDS:-3}"
repo="$(cd "$here/.." && pwd)"
(cd "$repo" && cargo run --release -q -p dof_bench --bin cpu)
q -c "SELECT 1 FROM eval_questions LIMIT 1" >/dev/null 2>&1 || { echo "no quality data in $PG_DOF_DB: run retrieval_quality.sh first" >&2; exit 2; }
git -C "$repo" show "$BEFORE:sql/fusion.sql" | definition dof_hybrid_search dof_hybrid_search_before | q
trap 'q -c "DROP FUNCTION IF EXISTS dof_hybrid_search_before" >/dev/null' EXIT
q <<SQL
SET client_min_messages = warning;
DROP TABLE IF EXISTS order_cost;
CREATE TABLE order_cost (round integer, state text, question integer, ms double precision);
DO \$\$
DECLARE
  q record; t0 timestamptz; n bigint;
BEGIN
  FOR r IN 1..$ROUNDS LOOP
    FOR q IN SELECT id, question, embedding FROM eval_questions ORDER BY id LOOP
      t0 := clock_timestamp();
      SELECT count(*) INTO n FROM dof_hybrid_search_before(q.question, 10, 'eval-independent', query_embedding => q.embedding);
      INSERT INTO order_cost VALUES (r, 'before', q.id, extract(epoch FROM clock_timestamp() - t0) * 1000);
      t0 := clock_timestamp();
      SELECT count(*) INTO n FROM dof_hybrid_search(q.question, 10, 'eval-independent', query_embedding => q.embedding);
      INSERT INTO order_cost VALUES (r, 'after', q.id, extract(epoch FROM clock_timestamp() - t0) * 1000);
    END LOOP;
  END LOOP;
END
\$\$;
SQL
echo "| hybrid search on $PG_DOF_DB ($(q -c "SELECT count(*) FROM eval_questions") questions, $(q -c "SELECT count(*) FROM dof_chunks WHERE collection = 'eval-independent'") chunks), query embedding given, $ROUNDS rounds | without the order within a document ($BEFORE): p50 / p90 per round | with it: p50 / p90 per round | ratio of the median p50s |"
echo "|---|---|---|---|"
q -c "WITH rounds AS (
        SELECT state, round, percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) AS p50, percentile_cont(0.9) WITHIN GROUP (ORDER BY ms) AS p90
        FROM order_cost GROUP BY state, round),
      lists AS (
        SELECT state, percentile_cont(0.5) WITHIN GROUP (ORDER BY p50) AS median,
               string_agg(round(p50::numeric, 2) || ' / ' || round(p90::numeric, 2) || ' ms', ', ' ORDER BY round) AS list
        FROM rounds GROUP BY state)
      SELECT format('| dof_hybrid_search, k 10 | %s | %s | %s× |', b.list, a.list, round((a.median / b.median)::numeric, 2))
      FROM lists b, lists a WHERE b.state = 'before' AND a.state = 'after'"
# how much the order reads: the chunks of the documents it scores, per question (its
# candidates taken as the hybrid search's first 50, the fused list's best)
q -c "SELECT format('| chunks read for the order within a document, per question | p50 %s, p90 %s, max %s (largest document: %s chunks) | | |',
                    round(percentile_cont(0.5) WITHIN GROUP (ORDER BY n)), round(percentile_cont(0.9) WITHIN GROUP (ORDER BY n)), max(n),
                    (SELECT max(c) FROM (SELECT count(*) AS c FROM dof_chunks WHERE collection = 'eval-independent' GROUP BY document_id) d))
      FROM (SELECT e.id, (SELECT count(*) FROM dof_chunks c WHERE c.document_id IN (
                SELECT DISTINCT s.document_id FROM dof_document_text_scores(
                    (SELECT array_agg(h.chunk_id ORDER BY h.n) FROM dof_hybrid_search(e.question, 50, 'eval-independent', query_embedding => e.embedding)
                            WITH ORDINALITY AS h(chunk_id, document_id, source_id, heading_path, content, score, vector_rank, text_rank, n)),
                    10, t.lexemes, t.idfs, t.average_length, t.query_vector) s)) AS n
            FROM eval_questions e, dof_text_query(e.question, 'eval-independent', 'bm25', 'any') t) per_question"
q -c "DROP TABLE order_cost"
