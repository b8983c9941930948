-- Retrieval quality on the chunking-evaluation set (five English corpora, 472 questions
-- whose answers are character ranges of the corpora): documents go in through the
-- product's triggers (chunking, embedding) in two collections, late and independent
-- embedding; every leg and ranking answers every question; a question's recall@k is the
-- share of its reference characters inside the k chunks returned, hit@k whether any
-- reference is touched. psql variables: corpus (folder of .md files), questions (CSV),
-- max_tokens, k.
\set ON_ERROR_STOP on
SET client_min_messages = warning;
INSERT INTO dof_collections (name, late_chunking, max_tokens, text_search_config)
VALUES ('eval-late', true, :max_tokens, 'english'), ('eval-independent', false, :max_tokens, 'english');
SET eval.k = :k;
CREATE TABLE eval_documents (source_id text, body text);
SELECT format('INSERT INTO eval_documents VALUES (%L, pg_read_file(%L))', regexp_replace(f, '^.*/|\.md$', '', 'g'), :'corpus' || '/' || f)
FROM pg_ls_dir(:'corpus') f WHERE f LIKE '%.md' ORDER BY f \gexec
\set ingest_start `date +%s.%N`
INSERT INTO dof_documents (collection, source_id, body) SELECT 'eval-late', source_id, body FROM eval_documents;
\set late_end `date +%s.%N`
INSERT INTO dof_documents (collection, source_id, body) SELECT 'eval-independent', source_id, body FROM eval_documents;
\set independent_end `date +%s.%N`
ANALYZE dof_chunks;

CREATE TABLE eval_questions (question text, refs jsonb, corpus_id text);
COPY eval_questions FROM :'questions' (FORMAT csv, HEADER true);
ALTER TABLE eval_questions ADD COLUMN id serial, ADD COLUMN embedding vector(384),
    ADD COLUMN reference int4multirange;
UPDATE eval_questions SET embedding = dof_embed_query(question),
    reference = (SELECT range_agg(int4range((r ->> 'start_index')::int, (r ->> 'end_index')::int)) FROM jsonb_array_elements(refs) r);

CREATE TABLE eval_runs (method text, collection text, question integer, ids bigint[], ms double precision);
DO $$
DECLARE
  q record; coll text; t0 timestamptz; ids bigint[]; k constant integer := current_setting('eval.k')::integer;
BEGIN
  FOR q IN SELECT * FROM eval_questions ORDER BY id LOOP
    FOREACH coll IN ARRAY ARRAY['eval-late', 'eval-independent'] LOOP
      t0 := clock_timestamp();
      SELECT array_agg(chunk_id ORDER BY rank) INTO ids FROM dof_vector_search(q.question, k, coll, query_embedding => q.embedding);
      INSERT INTO eval_runs VALUES ('vector leg', coll, q.id, ids, extract(epoch FROM clock_timestamp() - t0) * 1000);
      t0 := clock_timestamp();
      SELECT array_agg(chunk_id ORDER BY score DESC, chunk_id) INTO ids FROM dof_hybrid_search(q.question, k, coll, query_embedding => q.embedding);
      INSERT INTO eval_runs VALUES ('hybrid, BM25 any', coll, q.id, ids, extract(epoch FROM clock_timestamp() - t0) * 1000);
      t0 := clock_timestamp();
      SELECT array_agg(chunk_id ORDER BY score DESC, chunk_id) INTO ids FROM dof_hybrid_search(q.question, k, coll, query_embedding => q.embedding, ranking => 'ts_rank_cd', match_terms => 'all');
      INSERT INTO eval_runs VALUES ('hybrid, ts_rank_cd all', coll, q.id, ids, extract(epoch FROM clock_timestamp() - t0) * 1000);
    END LOOP;
    -- the text leg does not depend on the embedding: one collection is enough
    FOREACH coll IN ARRAY ARRAY['bm25/any', 'bm25/all', 'ts_rank_cd/any', 'ts_rank_cd/all'] LOOP
      t0 := clock_timestamp();
      SELECT array_agg(chunk_id ORDER BY rank) INTO ids
      FROM dof_text_search(q.question, k, 'eval-late', ranking => split_part(coll, '/', 1), match_terms => split_part(coll, '/', 2));
      INSERT INTO eval_runs VALUES ('text leg, ' || replace(coll, '/', ' '), 'eval-late', q.id, ids, extract(epoch FROM clock_timestamp() - t0) * 1000);
    END LOOP;
  END LOOP;
END
$$;

CREATE TABLE eval_facts (fact text, value double precision);
INSERT INTO eval_facts VALUES ('late_ingest_s', :late_end - :ingest_start), ('independent_ingest_s', :independent_end - :late_end);
