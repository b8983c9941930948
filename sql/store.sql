-- Documents in, chunks out: collections, documents, chunks, the queue, and the triggers
-- that keep chunks and embeddings current.

CREATE TABLE dof_collections (
    name               text PRIMARY KEY,
    model              text NOT NULL DEFAULT 'multilingual-e5-small' REFERENCES dof_models (name) ON UPDATE CASCADE,
    late_chunking      boolean NOT NULL DEFAULT true,
    max_tokens         integer NOT NULL DEFAULT 800 CHECK (max_tokens >= 16),
    overlap_tokens     integer NOT NULL DEFAULT 50 CHECK (overlap_tokens >= 0),
    text_search_config regconfig NOT NULL DEFAULT 'spanish',
    deferred           boolean NOT NULL DEFAULT false
);
INSERT INTO dof_collections (name) VALUES ('default');
SELECT pg_catalog.pg_extension_config_dump('dof_collections', 'WHERE name <> ''default''');

CREATE TABLE dof_documents (
    id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    collection text NOT NULL DEFAULT 'default' REFERENCES dof_collections (name) ON UPDATE CASCADE,
    source_id  text NOT NULL,
    title      text,
    body       text NOT NULL,
    metadata   jsonb NOT NULL DEFAULT '{}',
    pattern    text,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    UNIQUE (collection, source_id)
);
SELECT pg_catalog.pg_extension_config_dump('dof_documents', '');
SELECT pg_catalog.pg_extension_config_dump('dof_documents_id_seq', '');

-- The embedding column is vector(384), the default model's dimension: one HNSW index serves
-- every collection. A collection whose model has another dimension is refused (see
-- dof_index_document).
CREATE TABLE dof_chunks (
    id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    document_id     bigint NOT NULL REFERENCES dof_documents (id) ON DELETE CASCADE,
    collection      text NOT NULL,
    chunk_index     integer NOT NULL,
    pattern         text NOT NULL,
    heading_path    text[] NOT NULL,
    content         text NOT NULL,
    token_count     integer NOT NULL,
    char_start      integer NOT NULL,
    char_end        integer NOT NULL,
    table_piece     boolean NOT NULL,
    overlap         boolean NOT NULL,
    split           boolean NOT NULL,
    metadata        jsonb NOT NULL DEFAULT '{}',
    embedding       vector(384),
    tsv             tsvector NOT NULL,
    model           text NOT NULL,
    chunker_version text NOT NULL,
    sizer           text NOT NULL,
    UNIQUE (document_id, chunk_index)
);
-- ef_construction 128 rather than pgvector's 64: e5 embeddings crowd into a narrow cone
-- (cosine similarities mostly 0.7-0.9) and the corpora hold near-duplicates, so a denser
-- graph was worth its doubled build time in recall (bench/sql/scale_search.sql; m 32 was
-- slower for the same recall).
CREATE INDEX dof_chunks_embedding_idx ON dof_chunks USING hnsw (embedding vector_cosine_ops)
    WITH (m = 16, ef_construction = 128);
CREATE INDEX dof_chunks_tsv_idx ON dof_chunks USING gin (tsv);
CREATE INDEX dof_chunks_metadata_idx ON dof_chunks USING gin (metadata jsonb_path_ops);
CREATE INDEX dof_chunks_collection_idx ON dof_chunks (collection);
SELECT pg_catalog.pg_extension_config_dump('dof_chunks', '');
SELECT pg_catalog.pg_extension_config_dump('dof_chunks_id_seq', '');

CREATE TABLE dof_queue (
    document_id  bigint PRIMARY KEY REFERENCES dof_documents (id) ON DELETE CASCADE,
    status       text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'done', 'failed')),
    error        text,
    attempts     integer NOT NULL DEFAULT 0,
    queued_at    timestamptz NOT NULL DEFAULT now(),
    processed_at timestamptz
);
CREATE INDEX dof_queue_queued_idx ON dof_queue (queued_at) WHERE status = 'queued';
-- A role sees the queue rows (and their errors) of the documents it can see: row-level
-- security on dof_documents carries over. The table owner is not subject to it.
ALTER TABLE dof_queue ENABLE ROW LEVEL SECURITY;
CREATE POLICY dof_queue_follows_documents ON dof_queue
    USING (EXISTS (SELECT 1 FROM dof_documents d WHERE d.id = dof_queue.document_id));
COMMENT ON POLICY dof_queue_follows_documents ON dof_queue IS
    'A role sees the queue rows (and errors) of the documents it can see in dof_documents';
SELECT pg_catalog.pg_extension_config_dump('dof_queue', '');

-- What the text leg searches: the heading path weighted A (a match in a title ranks
-- higher), the content B. A function of its own so bulk loads build the same tsvector.
CREATE FUNCTION dof_chunk_tsvector(config regconfig, heading_path text[], content text) RETURNS tsvector
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    RETURN setweight(to_tsvector(config, array_to_string(heading_path, ' ')), 'A')
           || setweight(to_tsvector(config, content), 'B');

-- (Re)builds the chunks of one document: classify, chunk, embed (late or independent per
-- its collection), store. Runs as the caller, in the caller's transaction.
CREATE FUNCTION dof_index_document(doc_id bigint) RETURNS integer
    LANGUAGE plpgsql VOLATILE SET search_path FROM CURRENT AS $$
DECLARE
    doc dof_documents;
    coll dof_collections;
    model_row dof_models;
    stored integer;
BEGIN
    -- The row lock orders this with concurrent writers of the same document: a queue
    -- drainer reads the newest committed body and metadata, and a writer that comes later
    -- waits, then updates the chunks written here (or queues the document again).
    SELECT * INTO doc FROM dof_documents WHERE id = doc_id FOR UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'document % does not exist', doc_id USING ERRCODE = 'no_data_found';
    END IF;
    SELECT * INTO coll FROM dof_collections WHERE name = doc.collection;
    model_row := dof_model(coll.model);
    IF model_row.dimension <> 384 THEN
        RAISE EXCEPTION 'model "%" has % dimensions but dof_chunks.embedding is vector(384)', model_row.name, model_row.dimension
            USING ERRCODE = 'data_exception',
                  HINT = 'give the collection a 384-dimension model (dof_models lists them)';
    END IF;
    DELETE FROM dof_chunks WHERE document_id = doc_id;
    WITH chunks AS MATERIALIZED (
        SELECT * FROM dof_chunk(doc.body, coll.max_tokens, coll.overlap_tokens, NULL, coll.model)
    ), batch AS (
        SELECT array_agg(content ORDER BY chunk_index) AS contents,
               array_agg(array_to_string(heading_path[1:2], E'\n') ORDER BY chunk_index) AS front_matter
        FROM chunks
    ), embedded AS (
        SELECT e.ordinality, e.embedding
        FROM batch, dof_embed_late(batch.contents, batch.front_matter, coll.model) e
        WHERE coll.late_chunking AND batch.contents IS NOT NULL
        UNION ALL
        SELECT e.ordinality, e.embedding
        FROM batch, dof_embed(batch.contents, coll.model) e
        WHERE NOT coll.late_chunking AND batch.contents IS NOT NULL
    )
    INSERT INTO dof_chunks (document_id, collection, chunk_index, pattern, heading_path, content, token_count,
                            char_start, char_end, table_piece, overlap, split, metadata, embedding, tsv,
                            model, chunker_version, sizer)
    SELECT doc.id, doc.collection, c.chunk_index, c.pattern, c.heading_path, c.content, c.token_count,
           c.char_start, c.char_end, c.table_piece, c.overlap, c.split, doc.metadata, e.embedding,
           dof_chunk_tsvector(coll.text_search_config, c.heading_path, c.content),
           model_row.name || '@' || model_row.revision, dof_chunker_version(), c.sizer
    FROM chunks c JOIN embedded e ON e.ordinality = c.chunk_index + 1;
    GET DIAGNOSTICS stored = ROW_COUNT;
    RETURN stored;
END
$$;

-- BEFORE: the cheap part (pattern, timestamps). AFTER: chunks, now or through the queue.
CREATE FUNCTION dof_documents_before() RETURNS trigger
    LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
    NEW.pattern := dof_classify(NEW.body);
    IF TG_OP = 'UPDATE' THEN
        NEW.updated_at := now();
    END IF;
    RETURN NEW;
END
$$;

CREATE FUNCTION dof_documents_after() RETURNS trigger
    LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
    IF TG_OP = 'UPDATE' AND NEW.body = OLD.body AND NEW.collection = OLD.collection THEN
        UPDATE dof_chunks SET metadata = NEW.metadata WHERE document_id = NEW.id;  -- metadata only
        RETURN NULL;
    END IF;
    IF (SELECT deferred FROM dof_collections WHERE name = NEW.collection) THEN
        INSERT INTO dof_queue (document_id) VALUES (NEW.id)
        ON CONFLICT (document_id) DO UPDATE SET status = 'queued', error = NULL, queued_at = now(), processed_at = NULL;
    ELSE
        IF octet_length(NEW.body) > 1000000 THEN
            -- embedding is ~2,000 tokens/s per core: a large body holds the transaction for minutes
            RAISE NOTICE 'indexing a % MB document inside this transaction', round(octet_length(NEW.body) / 1e6, 1)
                USING HINT = 'a deferred collection (dof_collections.deferred) indexes it later with CALL dof_process_queue(), committing per batch';
        END IF;
        PERFORM dof_index_document(NEW.id);
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER dof_documents_before BEFORE INSERT OR UPDATE OF body, collection ON dof_documents
    FOR EACH ROW EXECUTE FUNCTION dof_documents_before();
CREATE TRIGGER dof_documents_after AFTER INSERT OR UPDATE OF body, collection, metadata ON dof_documents
    FOR EACH ROW EXECUTE FUNCTION dof_documents_after();

-- Processes queued documents, committing after each batch; a failing document is marked
-- failed with its error and the next one goes on. CALL it outside a transaction block.
-- (Procedures that COMMIT cannot have a SET clause, so names are schema-qualified.)
CREATE PROCEDURE dof_process_queue(batch_size integer DEFAULT 10, max_batches integer DEFAULT NULL)
    LANGUAGE plpgsql AS $$
DECLARE
    item record;
    batches integer := 0;
    done integer := 0;
    failed integer := 0;
    remaining bigint;
BEGIN
    IF batch_size IS NULL OR batch_size < 1 OR max_batches < 0 THEN
        RAISE EXCEPTION 'batch_size must be at least 1 and max_batches not negative (got %, %)',
                        coalesce(batch_size::text, 'NULL'), coalesce(max_batches::text, 'NULL')
            USING ERRCODE = 'invalid_parameter_value', HINT = 'the defaults are batch_size 10, max_batches NULL (until the queue is empty)';
    END IF;
    LOOP
        EXIT WHEN max_batches IS NOT NULL AND batches >= max_batches;
        PERFORM 1 FROM @extschema@.dof_queue WHERE status = 'queued' LIMIT 1;
        EXIT WHEN NOT FOUND;
        FOR item IN SELECT document_id FROM @extschema@.dof_queue WHERE status = 'queued' ORDER BY queued_at, document_id LIMIT batch_size LOOP
            BEGIN
                PERFORM @extschema@.dof_index_document(item.document_id);
                UPDATE @extschema@.dof_queue SET status = 'done', error = NULL, attempts = attempts + 1, processed_at = now()
                WHERE document_id = item.document_id;
                done := done + 1;
            EXCEPTION WHEN query_canceled THEN
                RAISE;
            WHEN OTHERS THEN
                UPDATE @extschema@.dof_queue SET status = 'failed', error = SQLERRM, attempts = attempts + 1, processed_at = now()
                WHERE document_id = item.document_id;
                failed := failed + 1;
            END;
        END LOOP;
        batches := batches + 1;
        COMMIT;
        SELECT count(*) INTO remaining FROM @extschema@.dof_queue WHERE status = 'queued';
        RAISE NOTICE 'dof_process_queue: batch %, % done, % failed, % queued', batches, done, failed, remaining;
    END LOOP;
    IF done > 0 THEN
        ANALYZE @extschema@.dof_chunks;  -- the text leg's BM25 reads IDFs from these statistics
    END IF;
END
$$;

-- Queues every document of a collection (all when NULL) for re-indexing, e.g. after
-- changing its model or chunking settings, then processes the queue batch by batch.
CREATE PROCEDURE dof_backfill(collection_name text DEFAULT NULL, batch_size integer DEFAULT 10)
    LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO @extschema@.dof_queue (document_id)
    SELECT id FROM @extschema@.dof_documents WHERE collection_name IS NULL OR collection = collection_name
    ON CONFLICT (document_id) DO UPDATE SET status = 'queued', error = NULL, queued_at = now(), processed_at = NULL;
    COMMIT;
    CALL @extschema@.dof_process_queue(batch_size);
END
$$;

COMMENT ON FUNCTION dof_chunk_tsvector(regconfig, text[], text) IS 'The tsvector stored for a chunk: heading path weighted A, content B, in the given text search configuration';
COMMENT ON TABLE dof_collections IS 'Per-collection settings: embedding model, late or independent embedding, chunk limits, text search configuration, deferred indexing';
COMMENT ON TABLE dof_documents IS 'Markdown documents; inserting, updating or deleting one keeps its chunks current (triggers)';
COMMENT ON TABLE dof_chunks IS 'Chunks of dof_documents with their embedding (HNSW, cosine) and tsvector (GIN); model and chunker_version record their producer';
COMMENT ON TABLE dof_queue IS 'Documents of deferred collections waiting for dof_process_queue, with failures and their errors';
COMMENT ON FUNCTION dof_index_document(bigint) IS 'Rebuilds one document''s chunks: classify, chunk, embed, store; returns the number of chunks';
COMMENT ON FUNCTION dof_documents_before() IS 'Trigger: classifies the document';
COMMENT ON FUNCTION dof_documents_after() IS 'Trigger: indexes the document now, or queues it for a deferred collection';
COMMENT ON PROCEDURE dof_process_queue(integer, integer) IS 'Indexes queued documents in batches, committing after each and reporting progress; failures are recorded and skipped';
COMMENT ON PROCEDURE dof_backfill(text, integer) IS 'Queues and re-indexes every document of a collection (or all)';
COMMENT ON FUNCTION dof_chunker_version() IS 'Version of the chunking rules; stored on every chunk so re-chunking can target older ones';
