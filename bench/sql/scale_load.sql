-- Loads embed_corpus's output (real chunks of the shared corpora with their real vectors)
-- into collection 'scale', the way dof_index_document stores chunks, then builds the
-- HNSW index once. psql variables: docs, chunks (CSV paths), max_tokens.
-- table_piece / overlap / split are not in the CSV and are stored as false: the search
-- never reads them.
\set ON_ERROR_STOP on
SET client_min_messages = warning;
CREATE UNLOGGED TABLE stage_documents (source_id text, body text);
CREATE UNLOGGED TABLE stage_chunks (source_id text, chunk_index integer, pattern text, heading_path jsonb, content text,
                                    token_count integer, char_start integer, char_end integer, embedding vector(384));
COPY stage_documents FROM :'docs' (FORMAT csv);  -- server side: psql's \copy takes no variables
COPY stage_chunks FROM :'chunks' (FORMAT csv);
INSERT INTO dof_collections (name, deferred, late_chunking, max_tokens) VALUES ('scale', true, false, :max_tokens);
-- deferred: the AFTER trigger only queues; the chunks come from the stage instead
INSERT INTO dof_documents (collection, source_id, body, metadata)
SELECT 'scale', source_id, body, jsonb_build_object('corpus', split_part(source_id, '/', 1)) FROM stage_documents;
DELETE FROM dof_queue q USING dof_documents d WHERE d.id = q.document_id AND d.collection = 'scale';
-- the product's HNSW definition, rebuilt once after the load (timed)
SELECT pg_get_indexdef('dof_chunks_embedding_idx'::regclass) AS hnsw_definition \gset
DROP INDEX dof_chunks_embedding_idx;
INSERT INTO dof_chunks (document_id, collection, chunk_index, pattern, heading_path, content, token_count,
                        char_start, char_end, table_piece, overlap, split, metadata, embedding, tsv, model, chunker_version, sizer)
SELECT d.id, 'scale', s.chunk_index, s.pattern, ARRAY(SELECT jsonb_array_elements_text(s.heading_path)), s.content,
       s.token_count, s.char_start, s.char_end, false, false, false, d.metadata, s.embedding,
       dof_chunk_tsvector('spanish', ARRAY(SELECT jsonb_array_elements_text(s.heading_path)), s.content),
       'multilingual-e5-small@embed_corpus', dof_chunker_version(), 'tokenizer'
FROM stage_chunks s JOIN dof_documents d ON d.collection = 'scale' AND d.source_id = s.source_id;
DROP TABLE stage_documents, stage_chunks;
\set hnsw_start `date +%s.%N`
SET maintenance_work_mem = '2GB';
:hnsw_definition;
\set hnsw_end `date +%s.%N`
VACUUM ANALYZE dof_chunks;
VACUUM ANALYZE dof_documents;
CREATE TABLE bench_facts (fact text PRIMARY KEY, value double precision);
INSERT INTO bench_facts VALUES ('hnsw_build_s', :hnsw_end - :hnsw_start);
