-- What pg_dof relies on in pgvector, pinned so that moving to a newer pgvector is one test
-- run away: `scripts/test.sh regress` runs this against the installed pgvector alone (no
-- pg_dof). Each block names the pg_dof file that depends on it.
\set SHOW_CONTEXT never
CREATE EXTENSION vector;
SELECT extversion FROM pg_extension WHERE extname = 'vector';

-- casts: real[] -> vector (dof_embed, dof_index_document store real[] from Rust), the
-- text form, vector -> vector(n) (the vector leg's float distance) and vector ->
-- halfvec(n) (the per-dimension index expression), which refuse another dimension: the
-- partial index predicate must keep such rows out of the cast
SELECT ARRAY[1, 2, 3]::real[]::vector AS from_real_array, '[1,2,3]'::vector::vector(3) AS typmod_cast,
       '[1,2.0001,3]'::vector::halfvec(3) AS halfvec_cast;
SELECT '[1,2]'::vector::vector(3);
SELECT '[1,2]'::vector::halfvec(3);
-- vector_dims (the partial index predicate), vector_norm (zero query vectors are refused)
SELECT vector_dims('[1,2,3]'::vector) AS dims, vector_norm('[3,4]'::vector) AS norm;
-- cosine distance: <=> with vector_cosine_ops; the zero vector gives NaN (dof_vector_search refuses it)
SELECT round(('[1,0]'::vector <=> '[0,1]'::vector)::numeric, 6) AS orthogonal,
       round(('[1,1]'::vector <=> '[2,2]'::vector)::numeric, 6) AS parallel,
       ('[0,0]'::vector <=> '[1,1]'::vector)::text AS zero;
SELECT '[1,NaN]'::vector;

-- an untyped vector column (dof_chunks.embedding) with one partial HNSW expression index
-- on halfvec per dimension (sql/tables.sql, dof_vector_index), and the query shape that
-- uses it (src/api/vector_search.rs: walk the halfvec index, re-rank by the float distance)
CREATE TABLE items (id int PRIMARY KEY, category text, embedding vector);
INSERT INTO items
SELECT g, CASE WHEN g % 2 = 0 THEN 'even' ELSE 'odd' END,
       CASE WHEN g <= 200 THEN ARRAY[cos(g / 10.0), sin(g / 10.0), 0.5]::real[]::vector
            ELSE ARRAY[cos(g / 10.0), sin(g / 10.0)]::real[]::vector END
FROM generate_series(1, 300) g;
CREATE INDEX items_embedding_3 ON items USING hnsw ((embedding::halfvec(3)) halfvec_cosine_ops)
    WITH (m = 16, ef_construction = 128) WHERE vector_dims(embedding) = 3;
CREATE INDEX items_embedding_2 ON items USING hnsw ((embedding::halfvec(2)) halfvec_cosine_ops)
    WITH (m = 16, ef_construction = 128) WHERE vector_dims(embedding) = 2;
ANALYZE items;
SET enable_seqscan = off;
EXPLAIN (COSTS OFF)
SELECT id FROM items WHERE vector_dims(embedding) = 3 ORDER BY embedding::halfvec(3) <=> '[1,0,0.5]'::vector::halfvec(3) LIMIT 5;
EXPLAIN (COSTS OFF)
SELECT id FROM items WHERE vector_dims(embedding) = 2 ORDER BY embedding::halfvec(2) <=> '[1,0]'::vector::halfvec(2) LIMIT 5;
-- the float distance (the re-ranking) is not an index order: a float ORDER BY scans
EXPLAIN (COSTS OFF)
SELECT id FROM items WHERE vector_dims(embedding) = 3 ORDER BY embedding::vector(3) <=> '[1,0,0.5]' LIMIT 5;
-- the index, re-ranked by the float distance, answers what an exact scan answers
SELECT array_agg(id ORDER BY d, id) AS hnsw FROM (
    SELECT id, embedding::vector(3) <=> '[1,0,0.5]' AS d FROM items
    WHERE vector_dims(embedding) = 3 ORDER BY embedding::halfvec(3) <=> '[1,0,0.5]'::vector::halfvec(3) LIMIT 5) s;
RESET enable_seqscan;
SET enable_indexscan = off;
SELECT array_agg(id ORDER BY d, id) AS exact FROM (
    SELECT id, embedding::vector(3) <=> '[1,0,0.5]' AS d FROM items
    WHERE vector_dims(embedding) = 3 ORDER BY embedding::vector(3) <=> '[1,0,0.5]' LIMIT 5) s;
RESET enable_indexscan;

-- iterative scans (dof_vector_search sets both per function): a filter that keeps few rows
-- still gets k of them (relaxed order: the vector leg sorts them again); without, the
-- scan stops at ef_search candidates and the filter starves the result
SET enable_seqscan = off;
SET hnsw.ef_search = 10;
SET hnsw.iterative_scan = 'relaxed_order';
SELECT count(*) AS filtered_rows FROM (
    SELECT id FROM items WHERE vector_dims(embedding) = 3 AND category = 'even' AND id % 10 = 0
    ORDER BY embedding::halfvec(3) <=> '[1,0,0.5]'::vector::halfvec(3) LIMIT 15) s;
SET hnsw.iterative_scan = 'off';
SELECT count(*) < 15 AS starved_without_iterative_scan FROM (
    SELECT id FROM items WHERE vector_dims(embedding) = 3 AND category = 'even' AND id % 10 = 0
    ORDER BY embedding::halfvec(3) <=> '[1,0,0.5]'::vector::halfvec(3) LIMIT 15) s;
SET hnsw.iterative_scan = 'no_such_mode';
SET hnsw.ef_search = 400;
SHOW hnsw.ef_search;
DROP TABLE items;
-- HNSW on halfvec indexes up to 4000 dimensions (dof_vector_index's and
-- dof_register_model's limit)
CREATE TABLE wide (embedding vector);
CREATE INDEX wide_4000 ON wide USING hnsw ((embedding::halfvec(4000)) halfvec_cosine_ops) WHERE vector_dims(embedding) = 4000;
CREATE INDEX wide_4001 ON wide USING hnsw ((embedding::halfvec(4001)) halfvec_cosine_ops) WHERE vector_dims(embedding) = 4001;
DROP TABLE wide;
DROP EXTENSION vector;
