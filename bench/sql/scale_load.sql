-- Loads the scale collection through the product's writer of chunks (dof_index_document,
-- drained from the queue), then gives its chunks their real vectors
-- and builds the HNSW index once (timed). psql variables: docs, chunks (CSV paths from
-- embed_corpus), max_tokens.
--
-- Embedding the 11M tokens again would take 1-1.5 h on two cores, so the writer runs with
-- a hash model that names e5's tokenizer: it cuts exactly the chunks e5 would (the same
-- chunker embed_corpus ran), and the real vectors embed_corpus computed with the same
-- dof_core embedder are then matched to them by document, chunk index and content. A
-- chunk left without its real vector stops the benchmark.
\set ON_ERROR_STOP on
SET client_min_messages = warning;
CREATE UNLOGGED TABLE stage_documents (source_id text, body text);
CREATE UNLOGGED TABLE stage_chunks (source_id text, chunk_index integer, pattern text, heading_path jsonb, content text,
                                    token_count integer, char_start integer, char_end integer, embedding vector);
COPY stage_documents FROM :'docs' (FORMAT csv);  -- server side: psql's \copy takes no variables
COPY stage_chunks FROM :'chunks' (FORMAT csv);
INSERT INTO dof_models (name, kind, tokenizer_file, dimension)
SELECT 'scale-e5-tokens', 'hash', tokenizer_file, dimension FROM dof_models WHERE name = 'multilingual-e5-small';
INSERT INTO dof_collections (name, model, deferred, late_chunking, max_tokens)
VALUES ('scale', 'scale-e5-tokens', true, false, :max_tokens);
INSERT INTO dof_documents (collection, source_id, body, metadata)
SELECT 'scale', source_id, body, jsonb_build_object('corpus', split_part(source_id, '/', 1)) FROM stage_documents;
-- the HNSW index is built once, after the load
DROP INDEX dof_passages_embedding_384;
\set load_start `date +%s.%N`
CALL dof_process_queue(200);
\set load_end `date +%s.%N`
UPDATE dof_chunks c
SET embedding = s.embedding, model = (SELECT name || '@' || revision FROM dof_models WHERE name = 'multilingual-e5-small')
FROM stage_chunks s JOIN dof_documents d ON d.collection = 'scale' AND d.source_id = s.source_id
WHERE c.document_id = d.id AND c.chunk_index = s.chunk_index AND c.content = s.content;
DO $$
DECLARE
    unmatched bigint := (SELECT count(*) FROM dof_chunks WHERE collection = 'scale' AND model NOT LIKE 'multilingual-e5-small@%');
    staged bigint := (SELECT count(*) FROM stage_chunks);
    stored bigint := (SELECT count(*) FROM dof_chunks WHERE collection = 'scale');
BEGIN
    IF unmatched > 0 OR staged <> stored THEN
        RAISE EXCEPTION 'the writer cut % chunks, embed_corpus % (% without their real vector): the chunkers disagree', stored, staged, unmatched
            USING HINT = 'delete the scale data folder so that embed_corpus runs again with this build''s chunker';
    END IF;
END
$$;
-- embed_corpus computed one vector per chunk: each chunk becomes its own single passage
-- (as the upgrade from 0.2.0 stores existing chunks), so the vector leg walks one
-- vector per chunk here, not the several passages a 0.3.0 collection cuts
DELETE FROM dof_passages p USING dof_chunks c WHERE c.id = p.chunk_id AND c.collection = 'scale';
INSERT INTO dof_passages (chunk_id, passage, char_start, char_end, token_count, embedding)
SELECT id, 0, 0, char_length(content), token_count, embedding FROM dof_chunks WHERE collection = 'scale';
UPDATE dof_collections SET model = 'multilingual-e5-small' WHERE name = 'scale';
DROP TABLE stage_documents, stage_chunks;
VACUUM FULL dof_chunks;  -- the vector update left a dead copy of every row
VACUUM FULL dof_passages;
\set hnsw_start `date +%s.%N`
SET maintenance_work_mem = '2GB';
SELECT dof_vector_index(384) AS hnsw_index \gset
\set hnsw_end `date +%s.%N`
VACUUM ANALYZE dof_chunks;
VACUUM ANALYZE dof_passages;
VACUUM ANALYZE dof_documents;
CREATE TABLE bench_facts (fact text PRIMARY KEY, value double precision);
INSERT INTO bench_facts VALUES ('hnsw_build_s', :hnsw_end - :hnsw_start), ('writer_load_s', :load_end - :load_start);
-- the load, VACUUM FULL and the index build left ~600 MB of dirty buffers: written now,
-- not by the checkpointer while the searches are timed
CHECKPOINT;
