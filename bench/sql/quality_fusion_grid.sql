-- The weighted fusion's normalisation, measured with every leg's lists fixed: on a quality
-- database that bench/scripts/retrieval_quality.sh left (pg_dof_quality_<set>, collection
-- eval-independent), each question's vector and text legs (50 candidates each, as
-- dof_hybrid_search asks) are fused here by variants of the normalisation and scored by
-- MRR@10 with the benchmark's rule (a hit touches the question's reference characters).
-- Prints the legs' score spreads, then MRR@10 per variant and alpha:
--   psql -d pg_dof_quality_dof -f bench/sql/quality_fusion_grid.sql
-- minmax is 0.2.0's fusion; floorNN divides the vector leg's scores by max(spread, 0.NN)
-- (0.10 is dof_fusion_vector_min_spread()); zscore normalises both legs by mean and
-- standard deviation (absent: the leg's lowest).
\set ON_ERROR_STOP on
\pset pager off
SET client_min_messages = warning;
CREATE TEMP TABLE grid_relevant AS
SELECT q.id AS question, c.id AS chunk
FROM eval_questions q JOIN dof_documents d ON d.collection = 'eval-independent' AND d.source_id = q.corpus_id
JOIN dof_chunks c ON c.document_id = d.id AND q.reference && int4multirange(int4range(c.char_start, c.char_end));
CREATE TEMP TABLE grid_legs AS
SELECT q.id AS question, 'v'::text AS leg, v.chunk_id AS id, 1 - v.distance AS score
FROM eval_questions q, dof_vector_search(q.question, 50, 'eval-independent', query_embedding => q.embedding) v
UNION ALL
SELECT q.id, 't', t.chunk_id, t.text_score FROM eval_questions q, dof_text_search(q.question, 50, 'eval-independent') t;
CREATE TEMP TABLE grid_scores AS
SELECT question, leg, id, score, min(score) OVER w AS lo, max(score) OVER w AS hi,
       coalesce((score - min(score) OVER w) / nullif(max(score) OVER w - min(score) OVER w, 0), 1) AS mm,
       coalesce((score - avg(score) OVER w) / nullif(stddev_pop(score) OVER w, 0), 0) AS z
FROM grid_legs WINDOW w AS (PARTITION BY question, leg);
SELECT leg, round(avg(hi - lo)::numeric, 3) AS mean_spread,
       round(percentile_cont(0.5) WITHIN GROUP (ORDER BY hi - lo)::numeric, 3) AS median_spread,
       round(min(hi - lo)::numeric, 3) AS least, round(max(hi - lo)::numeric, 3) AS most
FROM (SELECT DISTINCT question, leg, lo, hi FROM grid_scores) s GROUP BY leg ORDER BY leg;
-- MRR@10 of one fusion: `expr` over t (the text leg's row, NULL when absent), v (the
-- vector leg's), p.alpha and i.question
CREATE FUNCTION pg_temp.grid_mrr(expr text, alpha float8) RETURNS float8 LANGUAGE plpgsql AS $f$
DECLARE result float8;
BEGIN
  EXECUTE format($q$
    WITH ids AS (SELECT DISTINCT question, id FROM grid_scores),
    fused AS (
      SELECT i.question, i.id, %1$s AS score
      FROM ids i
      LEFT JOIN grid_scores t ON t.question = i.question AND t.id = i.id AND t.leg = 't'
      LEFT JOIN grid_scores v ON v.question = i.question AND v.id = i.id AND v.leg = 'v'
      CROSS JOIN (SELECT %2$s::float8 AS alpha) p),
    ranked AS (SELECT question, id, row_number() OVER (PARTITION BY question ORDER BY score DESC, id) AS r FROM fused)
    SELECT avg(coalesce(h.rr, 0)) FROM eval_questions q
    LEFT JOIN (SELECT question, 1.0 / min(r) AS rr FROM ranked
               WHERE r <= 10 AND (question, id) IN (SELECT question, chunk FROM grid_relevant) GROUP BY question) h
      ON h.question = q.id $q$, expr, alpha) INTO result;
  RETURN result;
END $f$;
SELECT a AS alpha,
  round(pg_temp.grid_mrr('p.alpha * coalesce(t.mm, 0) + (1 - p.alpha) * coalesce(v.mm, 0)', a)::numeric, 3) AS minmax,
  round(pg_temp.grid_mrr('p.alpha * coalesce(t.mm, 0) + (1 - p.alpha) * coalesce((v.score - v.lo) / greatest(v.hi - v.lo, 0.05), 0)', a)::numeric, 3) AS floor05,
  round(pg_temp.grid_mrr('p.alpha * coalesce(t.mm, 0) + (1 - p.alpha) * coalesce((v.score - v.lo) / greatest(v.hi - v.lo, 0.1), 0)', a)::numeric, 3) AS floor10,
  round(pg_temp.grid_mrr('p.alpha * coalesce(t.mm, 0) + (1 - p.alpha) * coalesce((v.score - v.lo) / greatest(v.hi - v.lo, 0.15), 0)', a)::numeric, 3) AS floor15,
  round(pg_temp.grid_mrr('p.alpha * coalesce(t.mm, 0) + (1 - p.alpha) * coalesce((v.score - v.lo) / greatest(v.hi - v.lo, 0.2), 0)', a)::numeric, 3) AS floor20,
  round(pg_temp.grid_mrr('p.alpha * coalesce(t.mm, 0) + (1 - p.alpha) * coalesce((v.score - v.lo) / greatest(v.hi - v.lo, 0.3), 0)', a)::numeric, 3) AS floor30,
  round(pg_temp.grid_mrr('p.alpha * coalesce(t.z, (SELECT min(m.z) FROM grid_scores m WHERE m.question = i.question AND m.leg = ''t''))
                          + (1 - p.alpha) * coalesce(v.z, (SELECT min(m.z) FROM grid_scores m WHERE m.question = i.question AND m.leg = ''v''))', a)::numeric, 3) AS zscore
FROM unnest(ARRAY[0.5, 0.6, 0.7, 0.8]) a;
