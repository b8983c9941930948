-- The deferred queue: the wake on commit, batches claimed with SKIP LOCKED, the drain
-- procedure, and requeueing a collection.

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

-- The advisory-lock class a queue batch holds for each document it claims (the key is the
-- document id modulo 2^31 - 1), which dof_queue_progress reads to show the claimed
-- documents as running; one definition for both.
CREATE FUNCTION dof_queue_lock_class() RETURNS integer
    IMMUTABLE PARALLEL SAFE LANGUAGE sql RETURN 1885824102;
COMMENT ON FUNCTION dof_queue_lock_class() IS 'The advisory-lock class (pg_locks.classid) of a queue batch''s claimed documents, read by dof_queue_progress';

-- The queue's arguments, one rule for dof_process_queue_batch, dof_process_queue and
-- dof_backfill, checked before anything is claimed or queued (dof_backfill's bad batch_size
-- was refused by dof_process_queue only after its requeue had committed, leaving every
-- document queued): batch_size and max_attempts at least 1, max_batches NULL (until the
-- queue is empty) or not negative. The error names the first argument that is wrong.
CREATE FUNCTION dof_check_queue_arguments(batch_size integer, max_batches integer DEFAULT NULL,
                                          max_attempts integer DEFAULT 1) RETURNS void
    LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE SET search_path FROM CURRENT AS $$
BEGIN
    IF batch_size IS NULL OR batch_size < 1 THEN
        RAISE EXCEPTION 'batch_size must be at least 1 (got %)', coalesce(batch_size::text, 'NULL')
            USING ERRCODE = 'invalid_parameter_value', HINT = 'the default is 10 documents a batch';
    ELSIF max_batches < 0 THEN
        RAISE EXCEPTION 'max_batches must not be negative (got %)', max_batches
            USING ERRCODE = 'invalid_parameter_value', HINT = 'the default, NULL, processes batches until the queue is empty';
    ELSIF max_attempts IS NULL OR max_attempts < 1 THEN
        RAISE EXCEPTION 'max_attempts must be at least 1 (got %)', coalesce(max_attempts::text, 'NULL')
            USING ERRCODE = 'invalid_parameter_value', HINT = 'the default is 1: a failed document is not tried again';
    END IF;
END
$$;
COMMENT ON FUNCTION dof_check_queue_arguments(integer, integer, integer) IS 'Refuses a queue argument out of range (22023), naming it: batch_size and max_attempts at least 1, max_batches NULL or not negative; what dof_process_queue_batch, dof_process_queue and dof_backfill check before they claim or queue anything';

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
    PERFORM @extschema@.dof_check_queue_arguments(batch_size, max_attempts => max_attempts);
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
        PERFORM pg_advisory_xact_lock(@extschema@.dof_queue_lock_class(), (item.document_id % 2147483647)::integer);
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
    PERFORM @extschema@.dof_check_queue_arguments(batch_size, max_batches);
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

-- dof_requeue, then the queue processed batch by batch in this session; batch_size is
-- checked before the requeue (dof_check_queue_arguments).
CREATE PROCEDURE dof_backfill(collection_name text DEFAULT NULL, batch_size integer DEFAULT 10)
    LANGUAGE plpgsql AS $$
BEGIN
    PERFORM @extschema@.dof_check_queue_arguments(batch_size);
    PERFORM @extschema@.dof_requeue(collection_name);
    COMMIT;
    CALL @extschema@.dof_process_queue(batch_size);
END
$$;
COMMENT ON PROCEDURE dof_process_queue(integer, integer) IS 'Indexes queued documents in batches, committing after each and reporting progress; failures are recorded and skipped';
COMMENT ON FUNCTION dof_process_queue_batch(integer, integer) IS 'One batch of the deferred queue in the caller''s transaction (what dof_process_queue and the background workers run): claims up to batch_size queued documents, then failed ones under max_attempts after a pause that doubles per attempt, with FOR UPDATE SKIP LOCKED, and indexes them';
COMMENT ON FUNCTION dof_requeue(text) IS 'Queues every document of a collection (all when NULL) for re-indexing and returns how many: the background workers, or CALL dof_process_queue(), index them (dof_queue_progress shows how far)';
COMMENT ON PROCEDURE dof_backfill(text, integer) IS 'Queues and re-indexes every document of a collection (or all)';
