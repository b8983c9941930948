-- The weighted fusion's normalisation, measured with every leg's lists fixed: on a quality
-- database that bench/scripts/retrieval_quality.sh left (pg_dof_quality_<set>, collection
-- eval-independent), each question's vector and text legs (quality_legs.sql: 50
-- candidates each, as dof_hybrid_search asks) are fused here by variants of the
-- normalisation and scored by MRR@10 with the benchmark's rule (a hit touches the
-- question's reference characters).
-- Prints the legs' score spreads, then MRR@10 per variant and alpha:
--   psql -d pg_dof_quality_dof -f bench/sql/quality_fusion_grid.sql
-- minmax is 0.2.0's fusion; floorNN divides the vector leg's scores by max(spread, 0.NN)
-- (0.10 is dof_fusion_vector_min_spread()); zscore normalises both legs by mean and
-- standard deviation (absent: the leg's lowest).
-- Then, per subset of the questions (all, each kind, those with ? or ¿ and the rest), the
-- product's fusion (floor10) at alphas 0.4-0.8 against fusions that adapt: form (one alpha
-- for a question with ? or ¿, another for the rest), confidence (0.5 shifted towards the
-- leg whose best stands further above its next nine: ct / (ct + cv), grid_confidence) and
-- text_max (the text leg divided by its best, not min-max); and coverage (the text leg's
-- share scaled by how much of the query its best chunk matches: its BM25 over the query's
-- full-match score, the sum of its lexemes' IDFs, which a chunk of average length holding
-- each lexeme once scores; capped at 1) at the full-match score × 1 and × 1.5.
-- Last, per subset, the product's fusion (floor10 with coverage, dof_fuse) against three
-- more: terms (alpha 0.6 for a query of up to 4 lexemes, 0.35 from 9, linear between),
-- text_floor (the text leg's spread counted as at least half the full-match score, as the
-- vector leg's is floored) and ranks (the product's fused ranks and RRF's, each 1 / (60 +
-- rank), summed).
\set ON_ERROR_STOP on
\pset pager off
SET client_min_messages = warning;
\ir quality_legs.sql
CREATE TEMP TABLE grid_scores AS
SELECT question, leg, id, score, min(score) OVER w AS lo, max(score) OVER w AS hi,
       coalesce((score - min(score) OVER w) / nullif(max(score) OVER w - min(score) OVER w, 0), 1) AS mm,
       coalesce((score - avg(score) OVER w) / nullif(stddev_pop(score) OVER w, 0), 0) AS z,
       row_number() OVER (PARTITION BY question, leg ORDER BY score DESC, id) AS rank
FROM grid_legs WINDOW w AS (PARTITION BY question, leg);
-- a leg's confidence for a question: 1 - the mean normalised score of its ranks 2-10
-- (1 when it found one candidate, 0 when none)
CREATE FUNCTION pg_temp.grid_confidence(question integer, leg text) RETURNS float8 LANGUAGE sql AS $f$
    SELECT coalesce(1 - avg(s.mm) FILTER (WHERE s.rank BETWEEN 2 AND 10), least(count(*), 1))
    FROM grid_scores s WHERE s.question = grid_confidence.question AND s.leg = grid_confidence.leg
$f$;
-- per question: whether it asks (? or ¿), and each leg's confidence (ct, cv)
CREATE TEMP TABLE grid_questions AS
SELECT q.id AS question, q.question ~ '[?¿]' AS asks,
       pg_temp.grid_confidence(q.id, 't') AS ct, pg_temp.grid_confidence(q.id, 'v') AS cv,
       (SELECT max(s.score) FROM grid_scores s WHERE s.question = q.id AND s.leg = 't') AS thi,
       (SELECT sum(i) FROM unnest(b.idfs) i) AS ideal, cardinality(b.lexemes) AS terms
FROM eval_questions q,
     dof_bm25_terms(dof_query_tsquery((dof_collection('eval-independent')).text_search_config, q.question), 'eval-independent') b;
SELECT leg, round(avg(hi - lo)::numeric, 3) AS mean_spread,
       round(percentile_cont(0.5) WITHIN GROUP (ORDER BY hi - lo)::numeric, 3) AS median_spread,
       round(min(hi - lo)::numeric, 3) AS least, round(max(hi - lo)::numeric, 3) AS most
FROM (SELECT DISTINCT question, leg, lo, hi FROM grid_scores) s GROUP BY leg ORDER BY leg;
-- MRR@10 of one fusion: `expr` over t (the text leg's row, NULL when absent), v (the
-- vector leg's), p.alpha, i.question and g (the question's grid_questions row), over the
-- questions that `questions` (a condition on eval_questions q) keeps
CREATE FUNCTION pg_temp.grid_mrr(expr text, alpha float8, questions text DEFAULT 'true') RETURNS float8 LANGUAGE plpgsql AS $f$
DECLARE result float8;
BEGIN
  EXECUTE format($q$
    WITH ids AS (SELECT DISTINCT question, id FROM grid_scores),
    fused AS (
      SELECT i.question, i.id, %1$s AS score
      FROM ids i
      LEFT JOIN grid_scores t ON t.question = i.question AND t.id = i.id AND t.leg = 't'
      LEFT JOIN grid_scores v ON v.question = i.question AND v.id = i.id AND v.leg = 'v'
      JOIN grid_questions g ON g.question = i.question
      CROSS JOIN (SELECT %2$s::float8 AS alpha) p),
    ranked AS (SELECT question, id, row_number() OVER (PARTITION BY question ORDER BY score DESC, id) AS r FROM fused)
    SELECT avg(coalesce(h.rr, 0)) FROM eval_questions q
    LEFT JOIN (SELECT question, 1.0 / min(r) AS rr FROM ranked
               WHERE r <= 10 AND (question, id) IN (SELECT question, chunk FROM grid_relevant) GROUP BY question) h
      ON h.question = q.id WHERE %3$s $q$, expr, alpha, questions) INTO result;
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
-- the product's fusion (floor10) with alpha as given, or adapted (a = the alpha to use)
CREATE FUNCTION pg_temp.grid_weighted(a text, v text DEFAULT 'coalesce((v.score - v.lo) / greatest(v.hi - v.lo, 0.1), 0)',
                                      t text DEFAULT 'coalesce(t.mm, 0)') RETURNS text LANGUAGE sql AS
$f$ SELECT format('(%1$s) * %3$s + (1 - (%1$s)) * %2$s', a, v, t) $f$;
-- per subset of the questions (all; each kind where the set has kinds; those that ask,
-- with ? or ¿, and the rest): fixed alphas around the default (0.5), the form rule at
-- two alphas (questions that ask / the rest), and the text leg divided by its best
CREATE TEMP TABLE grid_subsets AS
SELECT 'all' AS over, 'true' AS questions
UNION ALL SELECT 'kind ' || kind, format('q.kind = %L', kind) FROM (SELECT DISTINCT kind FROM eval_questions WHERE kind IS NOT NULL) k
UNION ALL SELECT 'asks (? or ¿)', $$q.question ~ '[?¿]'$$
UNION ALL SELECT 'no ? or ¿', $$q.question !~ '[?¿]'$$;
SELECT s.over,
  round(pg_temp.grid_mrr(pg_temp.grid_weighted('p.alpha'), 0.4, s.questions)::numeric, 3) AS a04,
  round(pg_temp.grid_mrr(pg_temp.grid_weighted('p.alpha'), 0.5, s.questions)::numeric, 3) AS a05,
  round(pg_temp.grid_mrr(pg_temp.grid_weighted('p.alpha'), 0.6, s.questions)::numeric, 3) AS a06,
  round(pg_temp.grid_mrr(pg_temp.grid_weighted('p.alpha'), 0.7, s.questions)::numeric, 3) AS a07,
  round(pg_temp.grid_mrr(pg_temp.grid_weighted('p.alpha'), 0.8, s.questions)::numeric, 3) AS a08,
  round(pg_temp.grid_mrr(pg_temp.grid_weighted('CASE WHEN g.asks THEN 0.5 ELSE 0.7 END'), 0.5, s.questions)::numeric, 3) AS form_05_07,
  round(pg_temp.grid_mrr(pg_temp.grid_weighted('CASE WHEN g.asks THEN 0.5 ELSE 0.8 END'), 0.5, s.questions)::numeric, 3) AS form_05_08,
  round(pg_temp.grid_mrr(pg_temp.grid_weighted('CASE WHEN g.asks THEN 0.4 ELSE 0.7 END'), 0.5, s.questions)::numeric, 3) AS form_04_07,
  round(pg_temp.grid_mrr(pg_temp.grid_weighted('CASE WHEN g.asks THEN 0.4 ELSE 0.6 END'), 0.5, s.questions)::numeric, 3) AS form_04_06,
  round(pg_temp.grid_mrr(pg_temp.grid_weighted('coalesce(0.5 * g.ct / nullif(0.5 * g.ct + 0.5 * g.cv, 0), 0.5)'), 0.5, s.questions)::numeric, 3) AS confidence,
  round(pg_temp.grid_mrr(pg_temp.grid_weighted('p.alpha', t => 'coalesce(t.score / nullif(t.hi, 0), 0)'), 0.5, s.questions)::numeric, 3) AS text_max,
  round(pg_temp.grid_mrr(pg_temp.grid_weighted('p.alpha', t => 'coalesce(t.mm, 0) * least(1, g.thi / nullif(g.ideal, 0))'), 0.5, s.questions)::numeric, 3) AS coverage,
  round(pg_temp.grid_mrr(pg_temp.grid_weighted('p.alpha', t => 'coalesce(t.mm, 0) * least(1, g.thi / nullif(1.5 * g.ideal, 0))'), 0.5, s.questions)::numeric, 3) AS coverage15
FROM grid_subsets s ORDER BY s.over;
-- the product's fusion (dof_fuse: floor10, the text share scaled by coverage) against
-- fusions that adapt to the query's length, floor the text leg's spread, or add RRF's ranks
CREATE FUNCTION pg_temp.grid_product(a text DEFAULT 'p.alpha', t_spread text DEFAULT 't.hi - t.lo') RETURNS text LANGUAGE sql AS
$f$ SELECT pg_temp.grid_weighted(a, t => format('CASE WHEN t.id IS NULL THEN 0 ELSE coalesce((t.score - t.lo) / nullif(%s, 0), 1) END * least(1, g.thi / nullif(g.ideal, 0))', t_spread)) $f$;
SELECT s.over,
  round(pg_temp.grid_mrr(pg_temp.grid_product(), 0.5, s.questions)::numeric, 3) AS product,
  round(pg_temp.grid_mrr(pg_temp.grid_product('CASE WHEN g.terms <= 4 THEN 0.6 WHEN g.terms >= 9 THEN 0.35 ELSE 0.6 - 0.05 * (g.terms - 4) END'),
                         0.5, s.questions)::numeric, 3) AS terms,
  round(pg_temp.grid_mrr(pg_temp.grid_product(t_spread => 'greatest(t.hi - t.lo, 0.5 * g.ideal)'), 0.5, s.questions)::numeric, 3) AS text_floor,
  round(pg_temp.grid_mrr(format('1.0 / (60 + row_number() OVER (PARTITION BY i.question ORDER BY %s DESC, i.id))
                                 + 1.0 / (60 + row_number() OVER (PARTITION BY i.question ORDER BY coalesce(1.0 / (60 + t.rank), 0) + coalesce(1.0 / (60 + v.rank), 0) DESC, i.id))',
                                pg_temp.grid_product()), 0.5, s.questions)::numeric, 3) AS ranks
FROM grid_subsets s ORDER BY s.over;
