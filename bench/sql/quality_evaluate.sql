-- The same questions through dof_evaluate, the product's own scorer (what a user runs on
-- their questions): every leg, both fusions and the weighted fusion's alpha around the
-- default, on the independent collection; where the set has kinds of question, each leg and
-- both fusions per kind, and whether the hybrid's misses rank the question's own document
-- first. psql variable: set_name.
\pset footer off
SET client_min_messages = warning;
\pset tuples_only on
-- The default hybrid comes first, so every other method is compared with it on the same
-- questions: better / worse and the sign test's p-value (dof_evaluate's own columns); the
-- document MRR counts the question's document first, whatever its chunk.
SELECT format('| %s, dof_evaluate | method | MRR@10 | ± (95%%) | R@1 | R@5 | nDCG@10 | recall@10 | document MRR@10 | mean ms | vs hybrid: better / worse | p |', :'set_name');
SELECT '|---|---|---|---|---|---|---|---|---|---|---|---|';
-- One run of every question through every method: the rows over every question (kind NULL)
-- make this table, the rows per kind the next.
CREATE TEMP TABLE scored AS
SELECT * FROM dof_evaluate($$SELECT question, corpus_id AS source_id, reference AS answer, kind FROM eval_questions$$, 'eval-independent',
                           methods => ARRAY['hybrid', 'vector', 'text', 'hybrid:fusion=rrf', 'hybrid:alpha=0.5', 'hybrid:alpha=0.6',
                                            'hybrid:alpha=0.8', 'hybrid:candidate_pool=100']) WITH ORDINALITY AS e(method, kind, questions_scored,
               mrr, mrr_margin, r_at_1, r_at_5, ndcg, recall, document_mrr, mean_ms, better, worse, p_value, place);
SELECT format('| | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |', method, round(mrr::numeric, 3), round(mrr_margin::numeric, 3),
              round(r_at_1::numeric, 3), round(r_at_5::numeric, 3), round(ndcg::numeric, 3), round(recall::numeric, 3),
              round(document_mrr::numeric, 3), round(mean_ms::numeric, 2), coalesce(better || ' / ' || worse, ''), coalesce(round(p_value::numeric, 3)::text, ''))
FROM scored WHERE kind IS NULL ORDER BY place;
-- Per kind of question, where the set says (legalize-pe: natural, paraphrase, keywords,
-- lookup and the front matter's own): each leg and both fusions, from the run above, which
-- dof_evaluate scores per kind too: the hybrid's MRR with its 95% margin, and each other
-- method's against it on the same questions (+ better, − worse, the sign test's p).
SELECT EXISTS (SELECT FROM eval_questions WHERE kind IS NOT NULL) AS has_kinds \gset
\if :has_kinds
SELECT '';
SELECT format('| %s, per kind (dof_evaluate) | questions | hybrid ± 95%% | vector (vs hybrid) | text (vs hybrid) | hybrid rrf (vs hybrid) |', :'set_name');
SELECT '|---|---|---|---|---|---|';
CREATE TEMP TABLE per_kind AS
SELECT * FROM scored WHERE kind IS NOT NULL AND method IN ('hybrid', 'vector', 'text', 'hybrid:fusion=rrf');
SELECT format('| %s | %s | %s ± %s | %s |', h.kind, h.questions_scored, round(h.mrr::numeric, 3), round(h.mrr_margin::numeric, 3),
              (SELECT string_agg(format('%s (+%s −%s, p %s)', round(o.mrr::numeric, 3), o.better, o.worse, round(o.p_value::numeric, 3)), ' | '
                                 ORDER BY array_position(ARRAY['vector', 'text', 'hybrid:fusion=rrf'], o.method))
               FROM per_kind o WHERE o.kind = h.kind AND o.method <> 'hybrid'))
FROM per_kind h WHERE h.method = 'hybrid' ORDER BY h.kind;
CREATE TEMP TABLE per_question AS
SELECT e.kind, e.method, e.first_hit, e.document_hit = 1 AS right_document_first
FROM dof_evaluate_questions($$SELECT question, corpus_id AS source_id, reference AS answer, kind FROM eval_questions WHERE kind IS NOT NULL$$,
                            'eval-independent', methods => ARRAY['hybrid']) e;
-- Where the default hybrid misses first place, per kind: does its first chunk come from the
-- question's own document (ranking within the document) or from another (finding it)?
SELECT '';
SELECT format('| %s, hybrid, where first place is missed | questions | first | right document first | another document first |', :'set_name');
SELECT '|---|---|---|---|---|';
SELECT format('| %s | %s | %s | %s | %s |', p.kind, count(*), count(*) FILTER (WHERE p.first_hit = 1),
              count(*) FILTER (WHERE p.first_hit IS DISTINCT FROM 1 AND p.right_document_first),
              count(*) FILTER (WHERE p.first_hit IS DISTINCT FROM 1 AND NOT coalesce(p.right_document_first, false)))
FROM per_question p WHERE p.method = 'hybrid' GROUP BY p.kind ORDER BY p.kind;
\endif
