-- Retrieval quality on one evaluation set (eval_documents, eval_questions with reference
-- character ranges, loaded by quality_load_*.sql): the product's triggers ingest the
-- documents (real model) into two collections, late and independent embedding; every
-- leg and fusion answers every question with its 10 best chunks. quality_report.sql
-- scores them. psql variables: max_tokens, config (text search configuration), chunker,
-- options (its chunker_options), model (the registered model both collections embed with),
-- late (on: both collections; off: the independent one only, for comparing models),
-- passage_tokens (empty: the collections' default).
\set ON_ERROR_STOP on
SET client_min_messages = warning;
INSERT INTO dof_collections (name, model, late_chunking, max_tokens, text_search_config, chunker, chunker_options)
VALUES ('eval-late', :'model', true, :max_tokens, :'config', :'chunker', :'options'),
       ('eval-independent', :'model', false, :max_tokens, :'config', :'chunker', :'options');
UPDATE dof_collections SET passage_tokens = nullif(:'passage_tokens', '')::integer
WHERE name LIKE 'eval-%' AND nullif(:'passage_tokens', '') IS NOT NULL;
SET eval.late = :'late';
\set ingest_start `date +%s.%N`
\if :late
INSERT INTO dof_documents (collection, source_id, body) SELECT 'eval-late', source_id, body FROM eval_documents;
\endif
\set late_end `date +%s.%N`
INSERT INTO dof_documents (collection, source_id, body) SELECT 'eval-independent', source_id, body FROM eval_documents;
\set independent_end `date +%s.%N`
ANALYZE dof_chunks;
ALTER TABLE eval_questions ADD COLUMN embedding vector;
UPDATE eval_questions SET embedding = dof_embed_query(question, :'model');

CREATE TABLE eval_runs (method text, collection text, question integer, ids bigint[], ms double precision);
DO $$
DECLARE
  q record; coll text; variant text; t0 timestamptz; ids bigint[];
BEGIN
  FOR q IN SELECT * FROM eval_questions ORDER BY id LOOP
    FOREACH coll IN ARRAY CASE WHEN current_setting('eval.late')::boolean THEN ARRAY['eval-late', 'eval-independent']
                               ELSE ARRAY['eval-independent'] END LOOP
      t0 := clock_timestamp();
      SELECT array_agg(chunk_id ORDER BY rank) INTO ids FROM dof_vector_search(q.question, 10, coll, query_embedding => q.embedding);
      INSERT INTO eval_runs VALUES ('vector leg', coll, q.id, ids, extract(epoch FROM clock_timestamp() - t0) * 1000);
      FOREACH variant IN ARRAY ARRAY['rrf', 'weighted'] LOOP
        t0 := clock_timestamp();
        SELECT array_agg(chunk_id ORDER BY score DESC, chunk_id) INTO ids
        FROM dof_hybrid_search(q.question, 10, coll, query_embedding => q.embedding, fusion => variant);
        INSERT INTO eval_runs VALUES ('hybrid, ' || variant, coll, q.id, ids, extract(epoch FROM clock_timestamp() - t0) * 1000);
      END LOOP;
    END LOOP;
    -- the text leg does not depend on the embedding (both collections chunk alike): one is enough
    FOREACH variant IN ARRAY ARRAY['bm25/any', 'bm25/all', 'ts_rank_cd/all'] LOOP
      t0 := clock_timestamp();
      SELECT array_agg(chunk_id ORDER BY rank) INTO ids
      FROM dof_text_search(q.question, 10, 'eval-independent', ranking => split_part(variant, '/', 1), match_terms => split_part(variant, '/', 2));
      INSERT INTO eval_runs VALUES ('text leg, ' || replace(variant, '/', ' '), 'eval-independent', q.id, ids, extract(epoch FROM clock_timestamp() - t0) * 1000);
    END LOOP;
  END LOOP;
END
$$;

CREATE TABLE eval_facts (fact text, value double precision);
INSERT INTO eval_facts VALUES ('late_ingest_s', :late_end - :ingest_start), ('independent_ingest_s', :independent_end - :late_end);
