-- Fusion choices in dof_hybrid_search: weighted min-max scores (the default; alpha = the
-- text share), RRF with per-leg weights, and what is refused.
CREATE EXTENSION pg_dof CASCADE;
\set SHOW_CONTEXT never
SET client_min_messages = warning;
INSERT INTO dof_collections (name, model, late_chunking) VALUES ('fusion', 'hash-384', false);
INSERT INTO dof_documents (collection, source_id, body)
SELECT 'fusion', 'doc-' || g, format(E'# Aviso %s\n\nLa dependencia %s publica reglas de comercio exterior y aranceles número %s.', g, g % 3, g)
FROM generate_series(1, 12) g;
ANALYZE dof_chunks;

-- the extremes reproduce one leg: alpha 0 is the vector leg's order, alpha 1 the text
-- leg's (ids it did not return come after, with score 0); a text weight of 0 leaves RRF
-- with the vector leg's order
WITH v AS (SELECT array_agg(chunk_id ORDER BY rank) AS ids FROM dof_vector_search('reglas de comercio exterior', 12, 'fusion')),
     t AS (SELECT array_agg(chunk_id ORDER BY rank) AS ids FROM dof_text_search('reglas de comercio exterior', 12, 'fusion')),
     w0 AS (SELECT array_agg(chunk_id ORDER BY score DESC, chunk_id) AS ids FROM dof_hybrid_search('reglas de comercio exterior', 12, 'fusion', fusion => 'weighted', alpha => 0)),
     w1 AS (SELECT array_agg(chunk_id ORDER BY score DESC, chunk_id) AS ids FROM dof_hybrid_search('reglas de comercio exterior', 12, 'fusion', fusion => 'weighted', alpha => 1)),
     r0 AS (SELECT array_agg(chunk_id ORDER BY score DESC, chunk_id) AS ids FROM dof_hybrid_search('reglas de comercio exterior', 12, 'fusion', fusion => 'rrf', text_weight => 0))
SELECT w0.ids = v.ids AS alpha_0_is_the_vector_leg,
       w1.ids[1:cardinality(t.ids)] = t.ids AS alpha_1_starts_with_the_text_leg,
       r0.ids = v.ids AS text_weight_0_is_the_vector_leg,
       cardinality(t.ids) > 0 AS text_leg_matched
FROM v, t, w0, w1, r0;

-- weighted scores lie in 0..1 and the best chunk of an even mix is found by both legs
SELECT min(score) >= 0 AND max(score) <= 1 AS scores_in_range, count(*) AS rows
FROM dof_hybrid_search('aranceles número 7', 5, 'fusion', fusion => 'weighted');
SELECT vector_rank IS NOT NULL AND text_rank IS NOT NULL AS best_is_in_both_legs
FROM dof_hybrid_search('aranceles número 7', 1, 'fusion', fusion => 'weighted');

-- refused, before any leg runs
SELECT * FROM dof_hybrid_search('aranceles', fusion => 'borda');
SELECT * FROM dof_hybrid_search('aranceles', fusion => 'weighted', alpha => 1.5);
SELECT * FROM dof_hybrid_search('aranceles', vector_weight => -1);
SELECT * FROM dof_fuse('weighted', ARRAY[1, 2], ARRAY[0.9, 0.1], ARRAY[2], ARRAY[3.0], alpha => 0.5);
-- the vector leg's spread counts as at least dof_fusion_vector_min_spread(): similarities
-- 0.84, 0.83, 0.82 (0.02 apart) weigh 0.2, 0.1 and 0 of the leg, not 1, 0.5 and 0; a wider
-- spread is plain min-max, and the text leg is never floored
SELECT dof_fusion_vector_min_spread() AS min_spread;
SELECT id, round(score::numeric, 3) AS score FROM dof_weighted_fusion('{1,2,3}', '{0.84,0.83,0.82}', '{}', '{}', 0);
SELECT id, round(score::numeric, 3) AS score FROM dof_weighted_fusion('{1,2}', '{0.9,0.5}', '{}', '{}', 0);
SELECT id, round(score::numeric, 3) AS score FROM dof_weighted_fusion('{}', '{}', '{4,5}', '{2.02,2.0}', 1);
