-- A document's other chunks as evidence for each of its chunks, measured and not kept
-- (docs/measurements.md, "Document evidence"). On a quality database that
-- bench/scripts/retrieval_quality.sh left (pg_dof_quality_<set>, collection eval-independent),
-- each question's legs fixed as quality_legs.sql builds them and fused as dof_fuse does
-- (the vector leg's spread floored at dof_fusion_vector_min_spread(), the text share scaled
-- by the text leg's coverage, alpha 0.5), without the order within a document; then each
-- chunk's fused score plus a share of its document's: others, the sum of the document's
-- other chunks' scores in the list; oc, the same at most the document's best; voc, the
-- others' vector parts at most the best; dm, the document's best. Prints MRR@10 of the
-- product's fused list and of each variant:
--   psql -d pg_dof_quality_mixed -f bench/sql/quality_document_evidence.sql
\set ON_ERROR_STOP on
\pset pager off
SET client_min_messages = warning;
\ir quality_legs.sql
CREATE TEMP TABLE grid_scores AS
SELECT question, leg, id, score, min(score) OVER w AS lo, max(score) OVER w AS hi,
       coalesce((score - min(score) OVER w) / nullif(max(score) OVER w - min(score) OVER w, 0), 1) AS mm,
       row_number() OVER (PARTITION BY question, leg ORDER BY score DESC, id) AS rank
FROM grid_legs WINDOW w AS (PARTITION BY question, leg);
CREATE TEMP TABLE grid_questions AS
SELECT q.id AS question, (SELECT max(s.score) FROM grid_scores s WHERE s.question = q.id AND s.leg = 't') AS thi,
       (SELECT sum(i) FROM unnest(b.idfs) i) AS ideal
FROM eval_questions q,
     dof_bm25_terms(dof_query_tsquery((dof_collection('eval-independent')).text_search_config, q.question), 'eval-independent') b;
CREATE TEMP TABLE fused AS
WITH ids AS (SELECT DISTINCT question, id FROM grid_scores),
share AS (SELECT g.question, dof_fusion_text_share(0.5, g.thi, g.ideal) AS a FROM grid_questions g)
SELECT i.question, i.id, c.document_id AS doc,
       (1 - s.a) * coalesce((v.score - v.lo) / greatest(v.hi - v.lo, dof_fusion_vector_min_spread()), 0) + s.a * coalesce(t.mm, 0) AS score,
       (1 - s.a) * coalesce((v.score - v.lo) / greatest(v.hi - v.lo, dof_fusion_vector_min_spread()), 0) AS vpart, s.a * coalesce(t.mm, 0) AS tpart
FROM ids i JOIN dof_chunks c ON c.id = i.id JOIN share s ON s.question = i.question
LEFT JOIN grid_scores t ON t.question = i.question AND t.id = i.id AND t.leg = 't'
LEFT JOIN grid_scores v ON v.question = i.question AND v.id = i.id AND v.leg = 'v';
CREATE TEMP TABLE fused_doc AS
SELECT f.*, row_number() OVER (PARTITION BY question, doc ORDER BY score DESC, id) AS inrank,
  sum(score) OVER (PARTITION BY question, doc) - max(score) OVER (PARTITION BY question, doc) AS others,
  count(*) OVER (PARTITION BY question, doc) AS n,
  max(score) OVER (PARTITION BY question, doc) AS docmax,
  (sum(vpart) OVER (PARTITION BY question, doc) - max(vpart) OVER (PARTITION BY question, doc)) AS vothers
FROM fused f;
CREATE FUNCTION pg_temp.m(expr text) RETURNS float8 LANGUAGE plpgsql AS $f$
DECLARE result float8;
BEGIN
  EXECUTE format($q$
    WITH ranked AS (SELECT question, id, row_number() OVER (PARTITION BY question ORDER BY %s DESC, id) AS r FROM fused_doc f)
    SELECT avg(coalesce(h.rr, 0)) FROM eval_questions q
    LEFT JOIN (SELECT question, 1.0 / min(r) AS rr FROM ranked
               WHERE r <= 10 AND (question, id) IN (SELECT question, chunk FROM grid_relevant) GROUP BY question) h
      ON h.question = q.id $q$, expr) INTO result;
  RETURN result;
END $f$;
SELECT round(pg_temp.m('score')::numeric,3) product,
 round(pg_temp.m('score + 0.1 * others')::numeric,3) o01,
 round(pg_temp.m('score + 0.2 * others')::numeric,3) o02,
 round(pg_temp.m('score + 0.1 * least(others, docmax)')::numeric,3) oc01,
 round(pg_temp.m('score + 0.2 * least(others, docmax)')::numeric,3) oc02,
 round(pg_temp.m('score + 0.3 * least(others, docmax)')::numeric,3) oc03,
 round(pg_temp.m('score + 0.2 * least(vothers, docmax)')::numeric,3) voc02,
 round(pg_temp.m('score + 0.1 * docmax')::numeric,3) dm01,
 round(pg_temp.m('score + 0.3 * docmax')::numeric,3) dm03;
