-- Documents in, chunks out: the one writer of dof_chunks (dof_index_document), the
-- triggers that call it or queue the document, and the queue.

-- What the text leg searches: the heading path and the document's identifier (the
-- metadata's "identifier", which YAML front matter such as legalize-pe's gives: DS-092-2002-EF,
-- a form the body itself may not spell) weighted A (a match there ranks higher), the content
-- B. A function of its own so bulk loads and rebuilds make the same tsvector.
CREATE FUNCTION dof_chunk_tsvector(config regconfig, heading_path text[], content text, metadata jsonb) RETURNS tsvector
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    RETURN setweight(to_tsvector(config, array_to_string(heading_path || (metadata ->> 'identifier'), ' ')), 'A')
           || setweight(to_tsvector(config, content), 'B');

-- (Re)builds the chunks of one document: chunk by its collection's strategy with its stored
-- pattern, embed (late or independent per the collection), store — one Rust call for the
-- first two. Runs as the caller, in the caller's transaction. The only writer of dof_chunks.
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
    DELETE FROM dof_chunks WHERE document_id = doc_id;
    INSERT INTO dof_chunks (document_id, collection, chunk_index, pattern, heading_path, content, token_count,
                            char_start, char_end, table_piece, overlap, split, metadata, embedding, tsv,
                            model, chunker_version, sizer, chunker)
    SELECT doc.id, doc.collection, c.chunk_index, c.pattern, c.heading_path, c.content, c.token_count,
           c.char_start, c.char_end, c.table_piece, c.overlap, c.split, doc.metadata, c.embedding,
           dof_chunk_tsvector(coll.text_search_config, c.heading_path, c.content, doc.metadata),
           model_row.name || '@' || model_row.revision, dof_chunker_version(), c.sizer, c.chunker
    FROM dof_chunk_embed_internal(doc.body, doc.pattern, coll, model_row) c;
    GET DIAGNOSTICS stored = ROW_COUNT;
    RETURN stored;
END
$$;

-- BEFORE: the cheap part (pattern, timestamps). AFTER: chunks, now or through the queue.
--
-- A restore is not an insert: pg_dump and pg_restore set check_function_bodies = off for
-- the whole restore, and the dump holds every document's chunks and queue row. While it is
-- off, documents are stored as they come (their pattern too) and not indexed again, so
-- the restored chunks and queue rows load after them without conflicts or re-embedding.
CREATE FUNCTION dof_restoring() RETURNS boolean
    LANGUAGE sql STABLE PARALLEL SAFE
    RETURN NOT current_setting('check_function_bodies')::boolean;

CREATE FUNCTION dof_documents_before() RETURNS trigger
    LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
DECLARE
    front jsonb;
BEGIN
    IF TG_OP = 'INSERT' AND NEW.pattern IS NOT NULL AND dof_restoring() THEN
        RETURN NEW;
    END IF;
    NEW.pattern := dof_classify(NEW.body);
    IF TG_OP = 'UPDATE' THEN
        NEW.updated_at := now();
    END IF;
    -- YAML front matter is the document's data: its fields go into metadata (over the
    -- metadata given: they are the document's own word, and a new body replaces its old
    -- values), its title into title unless one is given; the chunker leaves it out
    IF starts_with(NEW.body, '---') THEN
        front := dof_front_matter(NEW.body);
        IF front IS NOT NULL THEN
            NEW.metadata := coalesce(NEW.metadata, '{}') || front;
            IF NEW.title IS NULL OR (TG_OP = 'UPDATE' AND NEW.title IS NOT DISTINCT FROM OLD.title) THEN
                NEW.title := coalesce(front->>'title', NEW.title);
            END IF;
        END IF;
    END IF;
    RETURN NEW;
END
$$;

CREATE FUNCTION dof_documents_after() RETURNS trigger
    LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
    IF TG_OP = 'INSERT' AND dof_restoring() THEN
        RETURN NULL;  -- its chunks and queue row come from the dump
    END IF;
    IF TG_OP = 'UPDATE' AND NEW.body = OLD.body AND NEW.collection = OLD.collection THEN
        -- metadata only; a new identifier is searchable text (dof_chunk_tsvector)
        UPDATE dof_chunks c SET metadata = NEW.metadata,
               tsv = CASE WHEN OLD.metadata ->> 'identifier' IS DISTINCT FROM NEW.metadata ->> 'identifier'
                          THEN dof_chunk_tsvector((SELECT k.text_search_config FROM dof_collections k WHERE k.name = NEW.collection),
                                                  c.heading_path, c.content, NEW.metadata)
                          ELSE c.tsv END
        WHERE c.document_id = NEW.id;
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

-- A collection's text search configuration changed: its chunks' tsvectors follow, so the
-- stored side and the query side (which reads the setting) agree.
CREATE FUNCTION dof_collections_after() RETURNS trigger
    LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
    UPDATE dof_chunks SET tsv = dof_chunk_tsvector(NEW.text_search_config, heading_path, content, metadata)
    WHERE collection = NEW.name;
    RETURN NULL;
END
$$;
CREATE TRIGGER dof_collections_after AFTER UPDATE OF text_search_config ON dof_collections
    FOR EACH ROW WHEN (OLD.text_search_config IS DISTINCT FROM NEW.text_search_config)
    EXECUTE FUNCTION dof_collections_after();

-- pg_restore meets the rows CREATE EXTENSION made (the 'default' collection, the built-in
-- default model): a restored row takes their place instead of failing its table's COPY,
-- which would lose every row of it.
CREATE FUNCTION dof_collections_restore() RETURNS trigger
    LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
    IF dof_restoring() THEN
        DELETE FROM dof_collections WHERE name = NEW.name;
    END IF;
    RETURN NEW;
END
$$;
CREATE TRIGGER dof_collections_restore BEFORE INSERT ON dof_collections
    FOR EACH ROW EXECUTE FUNCTION dof_collections_restore();
CREATE FUNCTION dof_models_restore() RETURNS trigger
    LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
    IF dof_restoring() AND NEW.is_default THEN
        UPDATE dof_models SET is_default = false WHERE is_default AND name <> NEW.name;
    END IF;
    RETURN NEW;
END
$$;
CREATE TRIGGER dof_models_restore BEFORE INSERT ON dof_models
    FOR EACH ROW EXECUTE FUNCTION dof_models_restore();

-- BM25's statistics follow every change of dof_chunks, in the same transaction (so a
-- rollback takes them back): one delta row per collection and lexeme per statement.
CREATE FUNCTION dof_chunks_stats_added() RETURNS trigger
    LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
    INSERT INTO dof_term_stats (collection, lexeme, chunks)
    SELECT a.collection, l.lexeme, count(*) FROM added a, unnest(a.tsv) l GROUP BY 1, 2;
    INSERT INTO dof_collection_stats (collection, chunks, tokens)
    SELECT a.collection, count(*), sum(a.token_count) FROM added a GROUP BY 1;
    RETURN NULL;
END
$$;
CREATE FUNCTION dof_chunks_stats_removed() RETURNS trigger
    LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
    INSERT INTO dof_term_stats (collection, lexeme, chunks)
    SELECT r.collection, l.lexeme, -count(*) FROM removed r, unnest(r.tsv) l GROUP BY 1, 2;
    INSERT INTO dof_collection_stats (collection, chunks, tokens)
    SELECT r.collection, -count(*), -sum(r.token_count) FROM removed r GROUP BY 1;
    RETURN NULL;
END
$$;
CREATE FUNCTION dof_chunks_stats_changed() RETURNS trigger
    LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
    INSERT INTO dof_term_stats (collection, lexeme, chunks)
    SELECT c.collection, c.lexeme, sum(c.delta)
    FROM (SELECT a.collection, l.lexeme, 1 AS delta FROM added a, unnest(a.tsv) l
          UNION ALL
          SELECT r.collection, l.lexeme, -1 FROM removed r, unnest(r.tsv) l) c
    GROUP BY 1, 2 HAVING sum(c.delta) <> 0;
    INSERT INTO dof_collection_stats (collection, chunks, tokens)
    SELECT c.collection, sum(c.chunks), sum(c.tokens)
    FROM (SELECT a.collection, 1 AS chunks, a.token_count AS tokens FROM added a
          UNION ALL
          SELECT r.collection, -1, -r.token_count FROM removed r) c
    GROUP BY 1 HAVING sum(c.chunks) <> 0 OR sum(c.tokens) <> 0;
    RETURN NULL;
END
$$;
CREATE TRIGGER dof_chunks_stats_added AFTER INSERT ON dof_chunks
    REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION dof_chunks_stats_added();
CREATE TRIGGER dof_chunks_stats_removed AFTER DELETE ON dof_chunks
    REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION dof_chunks_stats_removed();
CREATE TRIGGER dof_chunks_stats_changed AFTER UPDATE ON dof_chunks
    REFERENCING OLD TABLE AS removed NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION dof_chunks_stats_changed();

-- Folds a collection's (or every collection's) statistics deltas into one row per lexeme;
-- returns the number of rows removed. Exact at any time; folding only keeps reads short.
CREATE FUNCTION dof_compact_stats(collection text DEFAULT NULL) RETURNS bigint
    LANGUAGE plpgsql VOLATILE SET search_path FROM CURRENT AS $$
DECLARE
    before bigint;
    after bigint;
BEGIN
    SELECT count(*) INTO before FROM dof_term_stats s WHERE dof_compact_stats.collection IS NULL OR s.collection = dof_compact_stats.collection;
    WITH moved AS (
        DELETE FROM dof_term_stats s WHERE dof_compact_stats.collection IS NULL OR s.collection = dof_compact_stats.collection
        RETURNING s.collection, s.lexeme, s.chunks
    )
    INSERT INTO dof_term_stats (collection, lexeme, chunks)
    SELECT m.collection, m.lexeme, sum(m.chunks) FROM moved m GROUP BY 1, 2 HAVING sum(m.chunks) <> 0;
    WITH moved AS (
        DELETE FROM dof_collection_stats s WHERE dof_compact_stats.collection IS NULL OR s.collection = dof_compact_stats.collection
        RETURNING s.collection, s.chunks, s.tokens
    )
    INSERT INTO dof_collection_stats (collection, chunks, tokens)
    SELECT m.collection, sum(m.chunks), sum(m.tokens) FROM moved m GROUP BY 1 HAVING sum(m.chunks) <> 0 OR sum(m.tokens) <> 0;
    SELECT count(*) INTO after FROM dof_term_stats s WHERE dof_compact_stats.collection IS NULL OR s.collection = dof_compact_stats.collection;
    RETURN before - after;
END
$$;

-- A transaction that queues documents wakes the background queue workers of this database
-- when it commits (without this they look again only after pg_dof.queue_naptime).
CREATE FUNCTION dof_queue_wake() RETURNS trigger
    LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
    IF EXISTS (SELECT 1 FROM changed WHERE changed.status = 'queued') THEN
        PERFORM dof_queue_wake_internal();
    END IF;
    RETURN NULL;
END
$$;
CREATE TRIGGER dof_queue_wake_inserted AFTER INSERT ON dof_queue REFERENCING NEW TABLE AS changed
    FOR EACH STATEMENT EXECUTE FUNCTION dof_queue_wake();
CREATE TRIGGER dof_queue_wake_updated AFTER UPDATE ON dof_queue REFERENCING NEW TABLE AS changed
    FOR EACH STATEMENT EXECUTE FUNCTION dof_queue_wake();
COMMENT ON FUNCTION dof_queue_wake() IS 'Trigger: newly queued documents wake the queue workers when the transaction commits';
COMMENT ON FUNCTION dof_queue_wake_internal() IS 'Internal: wakes this database''s queue workers when the current transaction commits (once per transaction)';

-- One batch of the deferred queue, in the caller's transaction: up to batch_size queued
-- documents (then failed ones with fewer than max_attempts attempts, each after a pause
-- that doubles per attempt) claimed with FOR UPDATE SKIP LOCKED — rows another drain has
-- claimed in its open batch are passed over, so any number of sessions and background
-- workers drain the queue without indexing a document twice (a row another drain has
-- meanwhile finished no longer matches when locked); each failure is recorded.
CREATE FUNCTION dof_process_queue_batch(batch_size integer DEFAULT 10, max_attempts integer DEFAULT 1,
                                        OUT claimed integer, OUT done integer, OUT failed integer)
    LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
DECLARE
    item record;
BEGIN
    claimed := 0; done := 0; failed := 0;
    IF batch_size IS NULL OR batch_size < 1 OR max_attempts IS NULL OR max_attempts < 1 THEN
        RAISE EXCEPTION 'batch_size and max_attempts must be at least 1 (got %, %)',
                        coalesce(batch_size::text, 'NULL'), coalesce(max_attempts::text, 'NULL')
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    -- the document row is claimed with its queue row: a writer that holds a document and
    -- waits for its queue row (the trigger re-queues it) is skipped, never waited for (a
    -- drain holding the queue row and waiting for the document would deadlock with it);
    -- queued rows first
    FOR item IN SELECT q.document_id FROM @extschema@.dof_queue q JOIN @extschema@.dof_documents d ON d.id = q.document_id
                WHERE q.status = 'queued'
                   OR (q.status = 'failed' AND q.attempts < max_attempts
                       AND q.processed_at < now() - make_interval(secs => 10 * 2 ^ (q.attempts - 1)))
                ORDER BY q.status <> 'queued', q.queued_at, q.document_id
                LIMIT batch_size FOR UPDATE OF q, d SKIP LOCKED LOOP
        claimed := claimed + 1;
        -- shown as running in dof_queue_progress until this batch commits (row locks are
        -- not in pg_locks; this transaction-level advisory lock is)
        PERFORM pg_advisory_xact_lock(1885824102, (item.document_id % 2147483647)::integer);
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
END
$$;

-- Processes queued documents, committing after each batch; a failing document is marked
-- failed with its error and the next one goes on. CALL it outside a transaction block.
-- (Procedures that COMMIT cannot have a SET clause, so names are schema-qualified.)
CREATE PROCEDURE dof_process_queue(batch_size integer DEFAULT 10, max_batches integer DEFAULT NULL)
    LANGUAGE plpgsql AS $$
DECLARE
    batch record;
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
        SELECT * INTO batch FROM @extschema@.dof_process_queue_batch(batch_size);
        EXIT WHEN batch.claimed = 0;  -- nothing queued, or everything left is claimed by other drains
        done := done + batch.done;
        failed := failed + batch.failed;
        batches := batches + 1;
        COMMIT;
        SELECT count(*) INTO remaining FROM @extschema@.dof_queue WHERE status = 'queued';
        RAISE NOTICE 'dof_process_queue: batch %, % done, % failed, % queued', batches, done, failed, remaining;
    END LOOP;
    IF done > 0 THEN
        ANALYZE @extschema@.dof_chunks;
        PERFORM @extschema@.dof_compact_stats();  -- BM25's statistics: fold the deltas of the drain
    END IF;
END
$$;

-- Queues every document of a collection (all when NULL) for re-indexing, e.g. after
-- changing its model or chunking settings: the background workers (or a CALL of
-- dof_process_queue) take it from there. A collection that does not exist is an error
-- (dof_collection's), not 0 documents queued.
CREATE FUNCTION dof_requeue(collection_name text DEFAULT NULL) RETURNS bigint
    LANGUAGE sql SET search_path FROM CURRENT
BEGIN ATOMIC
    WITH target AS MATERIALIZED (
        SELECT CASE WHEN collection_name IS NOT NULL THEN (dof_collection(collection_name)).name END AS name
    ), queued AS (
        INSERT INTO dof_queue (document_id)
        SELECT d.id FROM dof_documents d, target t WHERE t.name IS NULL OR d.collection = t.name
        ON CONFLICT (document_id) DO UPDATE SET status = 'queued', error = NULL, attempts = 0, queued_at = now(), processed_at = NULL
        RETURNING 1)
    SELECT count(*) FROM queued;
END;

-- dof_requeue, then the queue processed batch by batch in this session.
CREATE PROCEDURE dof_backfill(collection_name text DEFAULT NULL, batch_size integer DEFAULT 10)
    LANGUAGE plpgsql AS $$
BEGIN
    PERFORM @extschema@.dof_requeue(collection_name);
    COMMIT;
    CALL @extschema@.dof_process_queue(batch_size);
END
$$;

COMMENT ON FUNCTION dof_chunk_tsvector(regconfig, text[], text, jsonb) IS 'The tsvector stored for a chunk: heading path and the metadata''s identifier weighted A, content B, in the given text search configuration';
COMMENT ON FUNCTION dof_index_document(bigint) IS 'Rebuilds one document''s chunks (the only writer of dof_chunks): chunk by the collection''s strategy, embed, store; returns the number of chunks';
COMMENT ON FUNCTION dof_restoring() IS 'True while check_function_bodies is off, as pg_dump and pg_restore set it: the triggers then store inserted documents without classifying or indexing them (their chunks come from the dump)';
COMMENT ON FUNCTION dof_documents_before() IS 'Trigger: classifies the document (a restored one keeps its stored pattern) and makes its YAML front matter its metadata and title';
COMMENT ON FUNCTION dof_front_matter(text) IS 'The fields of the YAML front matter (a block between --- lines at the start) of a body, as jsonb; NULL when there is none; a block that is not a YAML mapping is text (a WARNING says why)';
COMMENT ON FUNCTION dof_documents_after() IS 'Trigger: indexes the document now, or queues it for a deferred collection (not during a restore: see dof_restoring)';
COMMENT ON PROCEDURE dof_process_queue(integer, integer) IS 'Indexes queued documents in batches, committing after each and reporting progress; failures are recorded and skipped';
COMMENT ON FUNCTION dof_process_queue_batch(integer, integer) IS 'One batch of the deferred queue in the caller''s transaction (what dof_process_queue and the background workers run): claims up to batch_size queued documents, then failed ones under max_attempts after a pause that doubles per attempt, with FOR UPDATE SKIP LOCKED, and indexes them';
COMMENT ON FUNCTION dof_requeue(text) IS 'Queues every document of a collection (all when NULL) for re-indexing and returns how many: the background workers, or CALL dof_process_queue(), index them (dof_queue_progress shows how far)';
COMMENT ON PROCEDURE dof_backfill(text, integer) IS 'Queues and re-indexes every document of a collection (or all)';
COMMENT ON FUNCTION dof_chunker_version() IS 'Version of the chunking rules; stored on every chunk so re-chunking can target older ones';
COMMENT ON FUNCTION dof_chunk_embed_internal(text, text, dof_collections, dof_models) IS 'Internal: chunks a document by its collection''s strategy and embeds the chunks with the model (one call); dof_index_document stores the rows';
COMMENT ON FUNCTION dof_collections_after() IS 'Trigger: a collection''s new text_search_config rebuilds its chunks'' tsvectors';
COMMENT ON FUNCTION dof_collections_restore() IS 'Trigger: during pg_restore, a restored collection replaces the row CREATE EXTENSION made';
COMMENT ON FUNCTION dof_models_restore() IS 'Trigger: during pg_restore, a restored default model takes the default from the built-in one';
COMMENT ON FUNCTION dof_chunks_stats_added() IS 'Trigger: BM25 statistics deltas for inserted chunks';
COMMENT ON FUNCTION dof_chunks_stats_removed() IS 'Trigger: BM25 statistics deltas for deleted chunks';
COMMENT ON FUNCTION dof_chunks_stats_changed() IS 'Trigger: BM25 statistics deltas for updated chunks';
COMMENT ON FUNCTION dof_compact_stats(text) IS 'Folds BM25 statistics deltas into one row per lexeme (for a collection or all); returns the rows removed';
