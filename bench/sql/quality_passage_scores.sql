-- How the vector leg should score a chunk from its passages, measured with the text leg's
-- lists fixed: on a quality database that bench/scripts/retrieval_quality.sh left
-- (pg_dof_quality_<set>, collection eval-independent), each question's 200 nearest
-- passages (exact, no index; tables of contents left out as the product leaves them)
-- are grouped by chunk and each chunk scored by a rule over its passages' similarities
-- (best first); the best 50 chunks by that rule are fused with the text leg's 50
-- (quality_legs.sql) by the product's own dof_fuse (weighted, with the query's full-match
-- score as dof_hybrid_search passes it). `best` is the product's rule; the others add
-- evidence from a chunk's other passages. Prints MRR@10 of the hybrid and of the vector
-- leg alone per rule, over every question and, where the set has kinds, per kind:
--   psql -d pg_dof_quality_mixed -f bench/sql/quality_passage_scores.sql
\set ON_ERROR_STOP on
\pset pager off
SET client_min_messages = warning;
\ir quality_legs.sql
CREATE TEMP TABLE nearest AS
SELECT q.id AS question, p.chunk_id AS id, array_agg(p.similarity ORDER BY p.similarity DESC) AS similarities
FROM eval_questions q CROSS JOIN LATERAL (
    SELECT x.chunk_id, 1 - (x.embedding <=> q.embedding) AS similarity
    FROM dof_passages x JOIN dof_chunks c ON c.id = x.chunk_id
    WHERE c.collection = 'eval-independent' AND NOT dof_contents(c.heading_path, c.content)
    ORDER BY x.embedding <=> q.embedding LIMIT 200) p
GROUP BY 1, 2;
-- the rules, each an expression over `similarities` (a chunk's passages among the 200, best first)
CREATE TEMP TABLE rules (ord integer, rule text, expr text);
INSERT INTO rules VALUES
    (1, 'best', 'similarities[1]'),
    (2, 'best + 0.1 x second', 'similarities[1] + 0.1 * coalesce(similarities[2], 0)'),
    (3, 'best + 0.25 x second', 'similarities[1] + 0.25 * coalesce(similarities[2], 0)'),
    (4, 'best + 0.002 x passages', 'similarities[1] + 0.002 * cardinality(similarities)'),
    (5, 'mean of the best two', '(similarities[1] + coalesce(similarities[2], similarities[1] - 0.05)) / 2'),
    (6, 'log-sum-exp, 20', 'ln((SELECT sum(exp(20 * s)) FROM unnest(similarities) s)) / 20'),
    (7, 'log-sum-exp, 50', 'ln((SELECT sum(exp(50 * s)) FROM unnest(similarities) s)) / 50');
CREATE TEMP TABLE text_legs AS
SELECT q.id AS question, q.kind,
       (SELECT array_agg(r.chunk) FROM grid_relevant r WHERE r.question = q.id) AS relevant,
       (SELECT array_agg(g.id ORDER BY g.rank) FROM grid_legs g WHERE g.question = q.id AND g.leg = 't') AS ids,
       (SELECT array_agg(g.score ORDER BY g.rank) FROM grid_legs g WHERE g.question = q.id AND g.leg = 't') AS scores,
       (SELECT sum(i) FROM unnest(b.idfs) i) AS full_match
FROM eval_questions q,
     dof_bm25_terms(dof_query_tsquery((dof_collection('eval-independent')).text_search_config, q.question), 'eval-independent') b;
CREATE TEMP TABLE ranks (rule text, ord integer, kind text, vector integer, hybrid integer);
DO $$
DECLARE r record;
BEGIN
    FOR r IN SELECT * FROM rules ORDER BY ord LOOP
        EXECUTE format($q$
            INSERT INTO ranks
            SELECT %L, %s, t.kind, pg_temp.first_hit(v.ids, t.relevant),
                   pg_temp.first_hit((SELECT array_agg(f.id ORDER BY f.score DESC, f.id)
                                      FROM dof_fuse('weighted', v.ids, v.scores, t.ids, t.scores, text_full_match => t.full_match) f), t.relevant)
            FROM text_legs t,
            LATERAL (SELECT array_agg(s.id ORDER BY s.score DESC, s.id) AS ids, array_agg(s.score ORDER BY s.score DESC, s.id) AS scores
                     FROM (SELECT n.id, %s AS score FROM nearest n WHERE n.question = t.question ORDER BY 2 DESC, 1 LIMIT 50) s) v
        $q$, r.rule, r.ord, r.expr);
    END LOOP;
END
$$;
SELECT coalesce(kind, 'all') AS questions, string_agg(format('%s %s / %s', rule, hybrid, vector), ' | ' ORDER BY ord) AS "rule hybrid / vector"
FROM (SELECT rule, ord, kind, round(avg(coalesce(1.0 / hybrid, 0)), 3) AS hybrid, round(avg(coalesce(1.0 / vector, 0)), 3) AS vector
      FROM ranks GROUP BY GROUPING SETS ((rule, ord), (rule, ord, kind)) HAVING kind IS NOT NULL OR GROUPING(kind) = 1) s
GROUP BY kind ORDER BY kind NULLS FIRST;
