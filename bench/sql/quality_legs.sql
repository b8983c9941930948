-- What the fusion experiments fuse again (quality_fusion_grid.sql, quality_piece_vectors.sql,
-- quality_passage_scores.sql),
-- on a quality database that bench/scripts/retrieval_quality.sh left: each question's
-- vector and text legs on the independent collection, 50 candidates each as
-- dof_hybrid_search asks (grid_legs: question, leg 'v' or 't', id, score higher-is-better,
-- rank), and the chunks that count as its hits, those touching its reference characters
-- (grid_relevant: question, chunk); and pg_temp.first_hit, a list's first rank (1-10) that
-- holds one of them.
CREATE TEMP TABLE grid_relevant AS
SELECT q.id AS question, c.id AS chunk
FROM eval_questions q JOIN dof_documents d ON d.collection = 'eval-independent' AND d.source_id = q.corpus_id
JOIN dof_chunks c ON c.document_id = d.id AND q.reference && int4multirange(int4range(c.char_start, c.char_end));
CREATE TEMP TABLE grid_legs AS
SELECT q.id AS question, 'v'::text AS leg, v.chunk_id AS id, 1 - v.distance AS score, v.rank
FROM eval_questions q, dof_vector_search(q.question, 50, 'eval-independent', query_embedding => q.embedding) v
UNION ALL
SELECT q.id, 't', t.chunk_id, t.text_score, t.rank FROM eval_questions q, dof_text_search(q.question, 50, 'eval-independent') t;

-- the first rank (1-10) of a relevant chunk in a list, or NULL
CREATE FUNCTION pg_temp.first_hit(ids bigint[], relevant bigint[]) RETURNS integer LANGUAGE sql AS $f$
    SELECT min(o) FROM unnest(ids[1:10]) WITH ORDINALITY AS x(id, o) WHERE x.id = ANY (relevant)
$f$;
