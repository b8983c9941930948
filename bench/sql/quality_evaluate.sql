-- The same questions through dof_evaluate, the product's own scorer (what a user runs on
-- their questions): every leg, both fusions and the weighted fusion's alpha around the
-- default, on the independent collection. psql variable: set_name.
\pset footer off
SET client_min_messages = warning;
\pset tuples_only on
SELECT format('| %s, dof_evaluate | method | MRR@10 | R@1 | R@5 | nDCG@10 | recall@10 | mean ms |', :'set_name');
SELECT '|---|---|---|---|---|---|---|---|';
SELECT format('| | %s | %s | %s | %s | %s | %s | %s |', method, round(mrr::numeric, 3), round(r_at_1::numeric, 3), round(r_at_5::numeric, 3),
              round(ndcg::numeric, 3), round(recall::numeric, 3), round(mean_ms::numeric, 2))
FROM dof_evaluate($$SELECT question, corpus_id AS source_id, reference AS answer FROM eval_questions$$, 'eval-independent',
                  methods => ARRAY['vector', 'text', 'hybrid', 'hybrid:fusion=rrf', 'hybrid:alpha=0.5', 'hybrid:alpha=0.6',
                                   'hybrid:alpha=0.8', 'hybrid:candidate_pool=100']);
-- Per kind of question, where the set says (legalize-pe: natural, paraphrase, keywords,
-- lookup and the front matter's own): each leg and both fusions.
SELECT '';
SELECT format('| %s, per kind (dof_evaluate) | questions | vector | text | hybrid | hybrid rrf |', :'set_name')
WHERE EXISTS (SELECT FROM eval_questions WHERE kind IS NOT NULL);
SELECT '|---|---|---|---|---|---|' WHERE EXISTS (SELECT FROM eval_questions WHERE kind IS NOT NULL);
SELECT format('| %s | %s | %s |', k.kind, k.n,
              (SELECT string_agg(round(e.mrr::numeric, 3)::text, ' | ' ORDER BY e.ord)
               FROM dof_evaluate(format($$SELECT question, corpus_id AS source_id, reference AS answer FROM eval_questions WHERE kind = %L$$, k.kind),
                                 'eval-independent', methods => ARRAY['vector', 'text', 'hybrid', 'hybrid:fusion=rrf'])
                    WITH ORDINALITY AS e(method, questions_scored, mrr, r_at_1, r_at_5, ndcg, recall, mean_ms, ord)))
FROM (SELECT kind, count(*) AS n FROM eval_questions WHERE kind IS NOT NULL GROUP BY kind ORDER BY kind) k;
