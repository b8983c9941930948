-- A pg_dof database as one shard of several: what the coordinator (the pg_dof_coordinator
-- extension, PL/Proxy) calls on each shard. Every function here is also usable on a
-- single server; none holds state beyond dof_shard_identity.

-- Which shard this database is: ids of documents and chunks are congruent to `shard`
-- modulo `max_shards`, so no two shards hand out the same id (a coordinator merges ids
-- from every shard, and dedup_by_source compares document ids).
CREATE TABLE dof_shard_identity (
    singleton  boolean PRIMARY KEY DEFAULT true CHECK (singleton),
    shard      integer NOT NULL CHECK (shard >= 0),
    max_shards integer NOT NULL CHECK (max_shards >= 1 AND shard < max_shards)
);
SELECT pg_catalog.pg_extension_config_dump('dof_shard_identity', '');
COMMENT ON TABLE dof_shard_identity IS 'This database''s shard number and the most shards its cluster may have (dof_shard_configure); empty on a single server';

-- Makes this database shard `shard` (0-based) of at most `max_shards`: the identity
-- sequences of dof_documents and dof_chunks restart at the next free id congruent to
-- `shard` and step by `max_shards`. Refused when it already holds ids of another shard's
-- class (configure a shard before loading it).
CREATE FUNCTION dof_shard_configure(shard integer, max_shards integer) RETURNS void
    LANGUAGE plpgsql VOLATILE SET search_path FROM CURRENT AS $$
DECLARE
    relation text;
    highest bigint;
    next_id bigint;
BEGIN
    IF shard IS NULL OR max_shards IS NULL OR max_shards < 1 OR max_shards > 1024 OR shard < 0 OR shard >= max_shards THEN
        RAISE EXCEPTION 'shard must be between 0 and max_shards - 1 and max_shards between 1 and 1024 (got shard %, max_shards %)',
                        coalesce(shard::text, 'NULL'), coalesce(max_shards::text, 'NULL')
            USING ERRCODE = 'invalid_parameter_value', HINT = 'e.g. SELECT dof_shard_configure(0, 64) on the first of up to 64 shards';
    END IF;
    FOREACH relation IN ARRAY ARRAY['dof_documents', 'dof_chunks'] LOOP
        EXECUTE format('SELECT max(id) FROM %I WHERE id %% %s <> %s', relation, max_shards, shard) INTO highest;
        IF highest IS NOT NULL THEN
            RAISE EXCEPTION '% already holds ids of another shard than % (id % is % modulo %)', relation, shard, highest, highest % max_shards, max_shards
                USING ERRCODE = 'object_not_in_prerequisite_state',
                      HINT = 'configure a shard before loading documents into it';
        END IF;
        EXECUTE format('SELECT coalesce(max(id), 0) FROM %I', relation) INTO highest;
        next_id := highest + 1 + ((shard - (highest + 1)) % max_shards + max_shards) % max_shards;
        EXECUTE format('ALTER TABLE %I ALTER COLUMN id SET INCREMENT BY %s RESTART WITH %s', relation, max_shards, next_id);
    END LOOP;
    INSERT INTO dof_shard_identity (shard, max_shards) VALUES (dof_shard_configure.shard, dof_shard_configure.max_shards)
    ON CONFLICT (singleton) DO UPDATE SET shard = excluded.shard, max_shards = excluded.max_shards;
END
$$;

-- Stores a document idempotently: added when its (collection, source_id) is new, updated
-- when its body (by content hash, the dof_documents.content_sha256 column), title or
-- metadata changed, and 'unchanged' (nothing written, nothing indexed) otherwise, so
-- sending it again is safe. The metadata given replaces the stored (the BEFORE trigger
-- merges the body's front matter over it, and EXCLUDED holds that merge, so a resend of a
-- body with front matter compares equal). What stores documents: dof load calls it for
-- each document of a batch, a coordinator routes it to one shard, and dof_shard_import
-- stores an unindexed moved document through it (an indexed one it restores as given, with
-- its chunks, as pg_restore would); regress 01 lists every function that writes the table.
CREATE FUNCTION dof_put_document(collection text, source_id text, title text, body text, metadata jsonb DEFAULT '{}')
    RETURNS TABLE (document_id bigint, action text)
    LANGUAGE plpgsql VOLATILE SET search_path FROM CURRENT AS $$
DECLARE
    collection_name text := (dof_collection(collection)).name;
BEGIN
    IF source_id IS NULL OR body IS NULL THEN
        RAISE EXCEPTION 'source_id and body must not be NULL' USING ERRCODE = 'null_value_not_allowed';
    END IF;
    IF metadata IS NOT NULL AND jsonb_typeof(metadata) <> 'object' THEN
        RAISE EXCEPTION 'metadata must be a JSON object, got %', jsonb_typeof(metadata) USING ERRCODE = 'invalid_parameter_value';
    END IF;
    RETURN QUERY
    INSERT INTO dof_documents AS d (collection, source_id, title, body, metadata)
    VALUES (collection_name, dof_put_document.source_id, dof_put_document.title, dof_put_document.body, coalesce(metadata, '{}'))
    -- excluded.content_sha256: the generated column of the proposed row, hashed once
    ON CONFLICT ON CONSTRAINT dof_documents_collection_source_id_key DO UPDATE
        SET title = excluded.title, metadata = excluded.metadata,
            body = CASE WHEN d.content_sha256 IS DISTINCT FROM excluded.content_sha256 THEN excluded.body ELSE d.body END
        WHERE d.content_sha256 IS DISTINCT FROM excluded.content_sha256
           OR d.metadata IS DISTINCT FROM excluded.metadata OR d.title IS DISTINCT FROM excluded.title
    RETURNING d.id, CASE WHEN d.xmax = 0 THEN 'added' ELSE 'updated' END;
    IF NOT FOUND THEN
        RETURN QUERY SELECT d.id, 'unchanged'::text FROM dof_documents d
                     WHERE d.collection = collection_name AND d.source_id = dof_put_document.source_id;
    END IF;
END
$$;

-- A query as the coordinator needs it, from every shard in one call: its lexemes in the
-- collection's text search configuration (the same on every shard), this shard's part of
-- the collection's BM25 statistics for them (in their order), its pg_dof version and shard
-- number, and, on the shard numbered `embed_shard` only, the query's embedding (one shard
-- embeds; the coordinator picks it by its session's process id). PL/pgSQL, not a SQL
-- body: a SQL function plans once with the collection unknown, and
-- `collection IS NULL OR ...` then reads every statistics row (measured 46 ms against
-- 0.9 ms at 170,000 delta rows). The search's own arguments are checked here, as one
-- server checks them (the coordinator has no pg_dof; this call is its first on every
-- search); a 0.2.0 coordinator's three-argument call gets the defaults.
CREATE FUNCTION dof_shard_prepare(query text, collection text, embed_shard integer, k integer DEFAULT 10,
                                  candidate_pool integer DEFAULT 50, dedup_by_source boolean DEFAULT false,
                                  ranking text DEFAULT 'bm25', match_terms text DEFAULT 'any')
    RETURNS TABLE (query_embedding vector, lexemes text[], chunks bigint[], total_chunks bigint, total_tokens bigint,
                   version text, shard integer)
    LANGUAGE plpgsql STABLE SET search_path FROM CURRENT AS $$
DECLARE
    settings dof_collections := dof_collection(collection);
    here integer := (SELECT i.shard FROM dof_shard_identity i);
    query_terms tsquery;
    terms text[];
BEGIN
    IF query IS NULL THEN
        RAISE EXCEPTION 'query must not be NULL' USING ERRCODE = 'null_value_not_allowed';
    END IF;
    -- before it is parsed, over 64 KB too (it failed with "stack depth limit exceeded")
    PERFORM dof_check_query(query);
    PERFORM dof_check_hybrid_arguments(k, candidate_pool, dedup_by_source);
    PERFORM dof_check_text_arguments(ranking, match_terms);
    query_terms := dof_query_tsquery(settings.text_search_config, query);
    PERFORM dof_check_query_terms(query, query_terms);
    terms := dof_query_lexemes(query_terms);
    RETURN QUERY
    SELECT CASE WHEN here IS NOT DISTINCT FROM embed_shard THEN dof_embed_query(query, settings.model) END,
           terms,
           ARRAY(SELECT t.chunks FROM dof_term_stats(dof_shard_prepare.collection, terms) t),
           s.chunks, s.tokens,
           (SELECT e.extversion::text FROM pg_extension e WHERE e.extname = 'pg_dof'),
           here
    FROM dof_collection_stats(dof_shard_prepare.collection) s;
END
$$;

-- Both legs on this shard, ids and scores only: the vector leg's `candidates` nearest
-- chunks (score = cosine distance) and the text leg's `candidates` best (score = BM25 or
-- ts_rank_cd) under the statistics given, the whole cluster's (counts per lexeme in
-- dof_shard_prepare's order, chunk count, mean length), so every shard scores as one server
-- holding all the chunks would. The arguments are dof_hybrid_search's, checked there.
CREATE FUNCTION dof_shard_legs(query text, candidates integer, collection text, filter jsonb, query_embedding vector,
                               ranking text, match_terms text, lexemes text[], chunks double precision[],
                               total_chunks double precision, average_length double precision)
    RETURNS TABLE (leg text, chunk_id bigint, score double precision)
    LANGUAGE plpgsql STABLE SET search_path FROM CURRENT AS $$
DECLARE
    settings dof_collections := dof_collection(collection);
BEGIN
    RETURN QUERY SELECT 'vector'::text, v.chunk_id, v.distance
                 FROM dof_vector_search(query, candidates, collection, filter, query_embedding) v;
    RETURN QUERY SELECT 'text'::text, t.chunk_id, t.text_score
                 FROM dof_text_leg_internal(dof_query_tsquery(settings.text_search_config, query), candidates,
                                            collection, filter, ranking, match_terms, lexemes,
                                            dof_bm25_idfs(chunks, total_chunks), chunks, average_length,
                                            CASE WHEN ranking = 'bm25' THEN dof_query_vector(settings.text_search_config, query) END) t;
END
$$;

-- A coordinator's order within a document (document_order.sql): the text scores within
-- their documents of this shard's candidates, from the query's lexemes and the cluster's
-- statistics, as one server's dof_hybrid_search computes them from its own.
CREATE FUNCTION dof_shard_document_text_scores(query text, collection text, ids bigint[], k integer, lexemes text[],
                                               chunks double precision[], total_chunks double precision,
                                               average_length double precision)
    RETURNS TABLE (chunk_id bigint, document_id bigint, text_score double precision)
    LANGUAGE sql STABLE SET search_path FROM CURRENT
BEGIN ATOMIC
    SELECT * FROM dof_document_text_scores(ids, k, lexemes, dof_bm25_idfs(chunks, total_chunks), average_length,
                                           dof_query_vector((dof_collection(collection)).text_search_config, query),
                                           definition_term => dof_definition_term(query));
END;

-- The chunks of `ids` this shard holds, with their document; the content only when asked
-- (a coordinator fetches the content of its final k only).
CREATE FUNCTION dof_shard_chunks(ids bigint[], with_content boolean)
    RETURNS TABLE (chunk_id bigint, document_id bigint, source_id text, heading_path text[], content text)
    LANGUAGE sql STABLE SET search_path FROM CURRENT
BEGIN ATOMIC
    SELECT c.id, c.document_id, d.source_id, c.heading_path, CASE WHEN with_content THEN c.content END
    FROM dof_chunks c JOIN dof_documents d ON d.id = c.document_id
    WHERE c.id = ANY (ids);
END;

-- Moving documents when shards are added (the coordinator's dof_cluster_rebalance): the
-- documents here that belong to another shard once the cluster has `shards` shards, each
-- with its chunks (vectors and passages included) as JSON, a batch at a time.
CREATE FUNCTION dof_shard_export_misplaced(shards integer, batch_size integer)
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
                ELSE coalesce((SELECT jsonb_agg(to_jsonb(c) - 'id' - 'document_id'
                                                || jsonb_build_object('passages',
                                                       (SELECT jsonb_agg(to_jsonb(p) - 'chunk_id' ORDER BY p.passage)
                                                        FROM dof_passages p WHERE p.chunk_id = c.id))
                                                ORDER BY c.chunk_index)
                               FROM dof_chunks c WHERE c.document_id = d.id), '[]') END
    FROM dof_documents d
    WHERE abs(hashtext(d.source_id) % shards) <> here
    ORDER BY d.id
    LIMIT batch_size;
END
$$;

-- Stores a document moved from another shard as it was there: its chunks, passages and
-- vectors as given, nothing re-embedded (the triggers' restore path, as pg_restore does). A document
-- that was not indexed yet (no chunks) goes through dof_put_document instead. Returns
-- 'moved', 'indexed' or 'unchanged' (the same content is already here: a retried move).
CREATE FUNCTION dof_shard_import(collection text, source_id text, document jsonb, chunks jsonb) RETURNS text
    LANGUAGE plpgsql VOLATILE SET search_path FROM CURRENT AS $$
DECLARE
    existing dof_documents;
    doc dof_documents := jsonb_populate_record(NULL::dof_documents, document);
    new_id bigint;
    checking text := current_setting('check_function_bodies');
BEGIN
    SELECT * INTO existing FROM dof_documents d WHERE d.collection = dof_shard_import.collection AND d.source_id = dof_shard_import.source_id;
    IF FOUND AND existing.body = doc.body AND existing.metadata = doc.metadata AND existing.title IS NOT DISTINCT FROM doc.title THEN
        RETURN 'unchanged';
    END IF;
    -- a blank body (stored before 0.3.0 refused one) has no chunks to send: it moves as
    -- stored, as pg_restore keeps it, and is not refused on its way
    IF jsonb_array_length(coalesce(chunks, '[]')) = 0 AND NOT dof_blank_body(doc.body) THEN
        PERFORM dof_put_document(collection, source_id, doc.title, doc.body, doc.metadata);
        RETURN 'indexed';
    END IF;
    DELETE FROM dof_documents d WHERE d.id = existing.id;
    PERFORM set_config('check_function_bodies', 'off', true);  -- dof_restoring(): stored as given
    INSERT INTO dof_documents (collection, source_id, title, body, metadata, pattern, created_at, updated_at)
    VALUES (collection, source_id, doc.title, doc.body, doc.metadata, doc.pattern, doc.created_at, doc.updated_at)
    RETURNING id INTO new_id;
    PERFORM set_config('check_function_bodies', checking, true);
    INSERT INTO dof_chunks (document_id, collection, chunk_index, pattern, heading_path, content, token_count,
                            char_start, char_end, table_piece, overlap, split, metadata, embedding, tsv,
                            model, chunker_version, sizer, chunker, contents)
    SELECT new_id, c.collection, c.chunk_index, c.pattern, c.heading_path, c.content, c.token_count,
           c.char_start, c.char_end, c.table_piece, c.overlap, c.split, c.metadata, c.embedding, c.tsv,
           c.model, c.chunker_version, c.sizer, c.chunker, dof_contents(c.heading_path, c.content)
    FROM jsonb_array_elements(chunks) AS g(value), jsonb_populate_record(NULL::dof_chunks, g.value) c;
    -- the passages as given, in a statement of their own (dof_passages' INSERT policy
    -- checks that the caller sees the chunk, which the chunks' insert in the same statement
    -- would hide from it); a chunk from a shard that stores none (0.2.0) is its own one
    -- passage, as the update to 0.3.0 makes it
    WITH given AS MATERIALIZED (
        SELECT c.*, g.value -> 'passages' AS passages
        FROM jsonb_array_elements(chunks) AS g(value), jsonb_populate_record(NULL::dof_chunks, g.value) c
    ), stored AS (
        SELECT c.id, c.chunk_index FROM dof_chunks c WHERE c.document_id = new_id
    )
    INSERT INTO dof_passages (chunk_id, passage, char_start, char_end, token_count, embedding)
    SELECT s.id, p.passage, p.char_start, p.char_end, p.token_count, p.embedding
    FROM stored s JOIN given g ON g.chunk_index = s.chunk_index,
         jsonb_populate_recordset(NULL::dof_passages, g.passages) p
    WHERE jsonb_typeof(g.passages) = 'array'
    UNION ALL
    SELECT s.id, 0, 0, char_length(g.content), g.token_count, g.embedding
    FROM stored s JOIN given g ON g.chunk_index = s.chunk_index
    WHERE jsonb_typeof(g.passages) IS DISTINCT FROM 'array' AND g.embedding IS NOT NULL;
    RETURN 'moved';
END
$$;

-- Deletes the documents named (collection and source_id pairs) that do not belong here
-- once the cluster has `shards` shards: the last step of a move, after the new owner
-- stored them. A document that belongs here is never deleted.
CREATE FUNCTION dof_shard_forget(shards integer, collections text[], source_ids text[]) RETURNS bigint
    LANGUAGE sql VOLATILE SET search_path FROM CURRENT
BEGIN ATOMIC
    WITH gone AS (
        DELETE FROM dof_documents d
        USING unnest(collections, source_ids) AS f(collection, source_id), dof_shard_identity i
        WHERE d.collection = f.collection AND d.source_id = f.source_id
          AND abs(hashtext(d.source_id) % shards) <> i.shard
        RETURNING 1)
    SELECT count(*) FROM gone;
END;

-- One row about this shard: its number, pg_dof version, documents, chunks and queue.
CREATE FUNCTION dof_shard_status()
    RETURNS TABLE (shard integer, max_shards integer, version text, documents bigint, chunks bigint,
                   queued bigint, failed bigint)
    LANGUAGE sql STABLE SET search_path FROM CURRENT
BEGIN ATOMIC
    SELECT (SELECT i.shard FROM dof_shard_identity i), (SELECT i.max_shards FROM dof_shard_identity i),
           (SELECT e.extversion FROM pg_extension e WHERE e.extname = 'pg_dof'),
           (SELECT count(*) FROM dof_documents), (SELECT count(*) FROM dof_chunks),
           (SELECT count(*) FROM dof_queue q WHERE q.status = 'queued'),
           (SELECT count(*) FROM dof_queue q WHERE q.status = 'failed');
END;

-- Runs one SQL command here, as the caller: how a coordinator's dof_cluster_execute runs
-- DDL, collection and model changes and ALTER EXTENSION ... UPDATE on every shard.
-- Returns the rows it processed. Only for roles granted EXECUTE (none but the owner by
-- default); it gives no privilege the caller lacks. A command that changes a setting of
-- the session (SET, set_config, RESET) is refused and rolled back: PL/Proxy keeps its
-- connections to the shards open, so the setting would stay in force for every later
-- search and call that reuses the connection (SET pg_dof.allow_drop = on, a
-- statement_timeout, default_transaction_read_only).
CREATE FUNCTION dof_shard_execute(command text) RETURNS bigint
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
REVOKE ALL ON FUNCTION dof_shard_execute(text) FROM PUBLIC;

COMMENT ON FUNCTION dof_shard_configure(integer, integer) IS 'Makes this database shard number shard (0-based) of at most max_shards: document and chunk ids become congruent to shard modulo max_shards, unique across shards';
COMMENT ON FUNCTION dof_put_document(text, text, text, text, jsonb) IS 'Stores a document idempotently by (collection, source_id) and content hash (content_sha256): added, updated (the metadata given replaces the stored) or unchanged (nothing written); what dof load calls and a coordinator routes to one shard';
COMMENT ON FUNCTION dof_shard_prepare(text, text, integer, integer, integer, boolean, text, text) IS 'For a coordinator: checks the search''s arguments as one server does, then the query''s lexemes, this shard''s BM25 statistics for them, its pg_dof version and number, and the query''s embedding on the shard numbered embed_shard';
COMMENT ON FUNCTION dof_shard_legs(text, integer, text, jsonb, vector, text, text, text[], double precision[], double precision, double precision) IS 'For a coordinator: both legs'' candidates on this shard (ids and scores only), the text leg scored with the cluster''s statistics';
COMMENT ON FUNCTION dof_shard_chunks(bigint[], boolean) IS 'For a coordinator: the chunks of ids this shard holds, with document and source, content when asked';
COMMENT ON FUNCTION dof_shard_document_text_scores(text, text, bigint[], integer, text[], double precision[], double precision, double precision) IS 'For a coordinator: the text scores within their documents of this shard''s candidates among ids (dof_document_text_scores), from the cluster''s statistics';
COMMENT ON FUNCTION dof_shard_status() IS 'This shard''s number, pg_dof version, documents, chunks, queued and failed documents';
COMMENT ON FUNCTION dof_shard_execute(text) IS 'Runs one SQL command as the caller (a coordinator''s dof_cluster_execute); EXECUTE is not granted to PUBLIC';
COMMENT ON FUNCTION dof_shard_export_misplaced(integer, integer) IS 'For a coordinator''s rebalance: a batch of the documents here that belong to another shard of a cluster of shards shards, with their chunks, passages and vectors as JSON';
COMMENT ON FUNCTION dof_shard_import(text, text, jsonb, jsonb) IS 'For a coordinator''s rebalance: stores a document moved from another shard with its chunks, passages and vectors as given (nothing re-embedded); moved, indexed or unchanged';
COMMENT ON FUNCTION dof_shard_forget(integer, text[], text[]) IS 'For a coordinator''s rebalance: deletes the named documents that do not belong here (never one that does); returns how many';
