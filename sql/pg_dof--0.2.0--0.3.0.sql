-- pg_dof 0.2.0 -> 0.3.0 (ALTER EXTENSION pg_dof UPDATE TO '0.3.0').
-- Every statement here leaves the catalog as a fresh 0.3.0 install has it; the upgrade
-- test (tests/integration/upgrade.sh) checks that and that stored documents stay searchable.
-- Stored documents, chunks and embeddings are not touched.
\echo Use "ALTER EXTENSION pg_dof UPDATE TO '0.3.0'" to load this file. \quit

-- The DROP guard also refuses DROP EXTENSION plpgsql CASCADE (and any CASCADE that reaches
-- pg_dof through pg_depend), DROP OWNED BY pg_dof's owner, and fires in replica mode.
DROP EVENT TRIGGER dof_drop_guard;
CREATE EVENT TRIGGER dof_drop_guard ON ddl_command_start
    WHEN TAG IN ('DROP EXTENSION', 'DROP SCHEMA', 'DROP OWNED', 'DROP LANGUAGE', 'DROP TYPE', 'DROP DOMAIN',
                 'DROP FUNCTION', 'DROP PROCEDURE', 'DROP ROUTINE', 'DROP AGGREGATE', 'DROP OPERATOR',
                 'DROP OPERATOR CLASS', 'DROP OPERATOR FAMILY', 'DROP ACCESS METHOD', 'DROP CAST', 'DROP COLLATION',
                 'DROP TEXT SEARCH CONFIGURATION', 'DROP TEXT SEARCH DICTIONARY', 'DROP TEXT SEARCH PARSER',
                 'DROP TEXT SEARCH TEMPLATE')
    EXECUTE FUNCTION dof_drop_guard();
ALTER EVENT TRIGGER dof_drop_guard ENABLE ALWAYS;
COMMENT ON EVENT TRIGGER dof_drop_guard IS 'Refuses, while documents are stored, every DROP that would take pg_dof with it (DROP EXTENSION pg_dof, a CASCADE reaching it, DROP OWNED BY its owner), in any session_replication_role, unless SET pg_dof.allow_drop = on';

-- The report views read the tables with the caller's rights, so row-level security on
-- dof_documents and dof_queue applies to them (they showed every role's collections,
-- patterns and queue errors).
ALTER VIEW dof_pattern_stats SET (security_invoker = true);
ALTER VIEW dof_chunk_stats SET (security_invoker = true);
ALTER VIEW dof_token_stats SET (security_invoker = true);
ALTER VIEW dof_queue_status SET (security_invoker = true);
ALTER VIEW dof_queue_progress SET (security_invoker = true);

-- A command run on every shard may not change the pooled session's settings.
CREATE OR REPLACE FUNCTION dof_shard_execute(command text) RETURNS bigint
    LANGUAGE plpgsql VOLATILE SET search_path FROM CURRENT AS $$
DECLARE
    processed bigint;
    settings_before text[] := ARRAY(SELECT s.name || '=' || s.setting FROM pg_catalog.pg_settings s
                                    WHERE s.source = 'session' ORDER BY s.name);
BEGIN
    EXECUTE command;
    GET DIAGNOSTICS processed = ROW_COUNT;
    IF ARRAY(SELECT s.name || '=' || s.setting FROM pg_catalog.pg_settings s WHERE s.source = 'session' ORDER BY s.name)
       IS DISTINCT FROM settings_before THEN
        RAISE EXCEPTION 'a command run on every shard must not change session settings'
            USING ERRCODE = 'feature_not_supported',
                  HINT = 'the coordinator reuses its connections to the shards, so a SET would apply to later calls; use ALTER DATABASE ... SET or ALTER ROLE ... SET';
    END IF;
    RETURN processed;
END
$$;

-- A rebalance sends a document still waiting in the queue without its stale chunks.
CREATE OR REPLACE FUNCTION dof_shard_export_misplaced(shards integer, batch_size integer)
    RETURNS TABLE (collection text, source_id text, document jsonb, chunks jsonb)
    LANGUAGE plpgsql STABLE SET search_path FROM CURRENT AS $$
DECLARE
    here integer := (SELECT i.shard FROM dof_shard_identity i);
BEGIN
    IF here IS NULL OR shards IS NULL OR shards < 1 OR batch_size IS NULL OR batch_size < 1 THEN
        RAISE EXCEPTION 'this database is not a configured shard, or shards (%) or batch_size (%) is below 1',
                        coalesce(shards::text, 'NULL'), coalesce(batch_size::text, 'NULL')
            USING ERRCODE = 'invalid_parameter_value', HINT = 'dof_shard_configure(shard, max_shards) numbers a shard';
    END IF;
    RETURN QUERY
    SELECT d.collection, d.source_id, to_jsonb(d) - 'id',
           -- a document waiting in the queue (or failed there) has the chunks of a body it
           -- no longer has: sent without them, its new owner indexes it
           CASE WHEN EXISTS (SELECT 1 FROM dof_queue q WHERE q.document_id = d.id AND q.status <> 'done') THEN '[]'
                ELSE coalesce((SELECT jsonb_agg(to_jsonb(c) - 'id' - 'document_id' ORDER BY c.chunk_index)
                               FROM dof_chunks c WHERE c.document_id = d.id), '[]') END
    FROM dof_documents d
    WHERE abs(hashtext(d.source_id) % shards) <> here
    ORDER BY d.id
    LIMIT batch_size;
END
$$;

-- dof_requeue refuses a collection that does not exist (it queued nothing and returned 0).
CREATE OR REPLACE FUNCTION dof_requeue(collection_name text DEFAULT NULL) RETURNS bigint
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
