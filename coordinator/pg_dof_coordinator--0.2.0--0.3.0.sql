-- pg_dof_coordinator 0.2.0 -> 0.3.0 (ALTER EXTENSION pg_dof_coordinator UPDATE). A fresh
-- CREATE EXTENSION runs the frozen 0.2.0 script and then this one, so a fresh 0.3.0 and an
-- updated one are the same coordinator.
\echo Use "ALTER EXTENSION pg_dof_coordinator UPDATE TO '0.3.0'" to load this file. \quit

-- Safe by default. PL/Proxy connects to a shard as the user mapping of the calling role
-- says, and any role with USAGE on the foreign server may create a mapping for itself:
-- with USAGE granted to PUBLIC (0.2.0), any role that could log in mapped itself to
-- `user 'postgres'` and ran SQL as a superuser on every shard. Now:
--   - USAGE on dof_shards is granted to named roles only (GRANT USAGE ON FOREIGN SERVER
--     dof_shards TO ...), never to PUBLIC;
--   - a role that does not own dof_shards may map itself only to its own name (and give
--     a password): dof_cluster_user_mapping_guard below refuses anything else;
--   - the administration functions are not executable by PUBLIC;
--   - a shard's connection string may not name user= or password= (every role would run
--     as that user, and every role can read the strings).
-- Whether a libpq connection string (key=value or URI) names a user or a password.
CREATE FUNCTION dof_cluster_names_credentials(connection text) RETURNS boolean
    LANGUAGE sql IMMUTABLE
BEGIN ATOMIC
    SELECT connection ~ '(^|\s)(user|password)\s*='
        OR (connection ~* '^postgres(ql)?://' AND (connection ~ '^[^:]*://[^/?]*@' OR connection ~ '[?&](user|password)='));
END;

DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_catalog.pg_foreign_server WHERE srvname = 'dof_shards') THEN
        REVOKE USAGE ON FOREIGN SERVER dof_shards FROM PUBLIC;
        IF EXISTS (SELECT 1 FROM pg_catalog.pg_foreign_server s, unnest(s.srvoptions) o
                   WHERE s.srvname = 'dof_shards' AND o ~ '^p[0-9]+=' AND dof_cluster_names_credentials(substr(o, strpos(o, '=') + 1))) THEN
            RAISE WARNING 'a shard connection string of dof_shards names user= or password=: every role that may search runs on the shards as that user'
                USING HINT = 'call dof_cluster_set_shards again without them, and give each role a USER MAPPING on dof_shards (or ~/.pgpass of the coordinator''s server)';
        END IF;
    END IF;
END
$$;

REVOKE EXECUTE ON FUNCTION dof_cluster_execute(text) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION dof_cluster_set_shards(text[], integer) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION dof_cluster_rebalance(integer) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION dof_cluster_import(text, text, jsonb, jsonb) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION dof_cluster_forget(integer, integer, text[], text[]) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION dof_cluster_export_misplaced(integer, integer, integer) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION dof_cluster_configure_shard(integer, integer) FROM PUBLIC;

-- The shards' connection strings, in shard order (none when not set up), any password
-- hidden: every role may read them.
CREATE OR REPLACE FUNCTION dof_cluster_connections() RETURNS text[]
    LANGUAGE sql STABLE
BEGIN ATOMIC
    SELECT coalesce(array_agg(regexp_replace(substr(o.option, strpos(o.option, '=') + 1),
                                             'password\s*=\s*(''(\\.|[^''])*''|\S+)', 'password=***', 'g')
                              ORDER BY substr(o.option, 2, strpos(o.option, '=') - 2)::integer), '{}')
    FROM pg_foreign_server s, unnest(s.srvoptions) AS o(option)
    WHERE s.srvname = 'dof_shards' AND o.option ~ '^p[0-9]+=';
END;

-- Refuses a user mapping on dof_shards, made by a role that does not own the server, that
-- maps to another user name or sets anything but a password: PL/Proxy would connect as
-- that user (with the coordinator's ~/.pgpass, even a password-protected one).
CREATE FUNCTION dof_cluster_user_mapping_guard() RETURNS event_trigger
    LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
DECLARE
    mapping record;
BEGIN
    FOR mapping IN
        SELECT m.usename, o.option
        FROM pg_event_trigger_ddl_commands() c
        JOIN pg_catalog.pg_user_mappings m ON m.umid = c.objid
        JOIN pg_catalog.pg_foreign_server s ON s.oid = m.srvid
        CROSS JOIN LATERAL unnest(m.umoptions) AS o(option)
        WHERE c.classid = 'pg_catalog.pg_user_mapping'::regclass AND s.srvname = 'dof_shards'
          AND NOT pg_catalog.pg_has_role(s.srvowner, 'USAGE')  -- true for a superuser
          AND NOT (o.option LIKE 'password=%' OR o.option = 'user=' || m.usename)
    LOOP
        RAISE EXCEPTION 'a user mapping on dof_shards may map role "%" only to its own user name, got option "%"',
                        mapping.usename, split_part(mapping.option, '=', 1) || '=' || CASE WHEN mapping.option LIKE 'password=%' THEN '***' ELSE substr(mapping.option, strpos(mapping.option, '=') + 1) END
            USING ERRCODE = 'insufficient_privilege',
                  HINT = 'only the owner of dof_shards (or a superuser) maps roles to other users on the shards';
    END LOOP;
END
$$;
CREATE EVENT TRIGGER dof_cluster_user_mapping_guard ON ddl_command_end
    WHEN TAG IN ('CREATE USER MAPPING', 'ALTER USER MAPPING')
    EXECUTE FUNCTION dof_cluster_user_mapping_guard();
ALTER EVENT TRIGGER dof_cluster_user_mapping_guard ENABLE ALWAYS;

-- Defines the cluster: shard i is connections[i + 1] (libpq connection strings without
-- user= or password=: PL/Proxy connects as the calling role, or as its USER MAPPING on
-- dof_shards says), and numbers each shard (its ids become congruent to i modulo
-- max_shards, so ids stay unique when shards are added, up to max_shards). Adding a shard
-- is calling this again with the list extended; then dof_cluster_rebalance() moves the
-- documents whose owner changed. A shorter list is refused while a shard it leaves out
-- holds documents (they would vanish from every search). USAGE on dof_shards is granted to
-- no one: GRANT USAGE ON FOREIGN SERVER dof_shards TO the roles that search and write.
CREATE OR REPLACE FUNCTION dof_cluster_set_shards(connections text[], max_shards integer DEFAULT 64) RETURNS integer
    LANGUAGE plpgsql VOLATILE SET search_path FROM CURRENT AS $$
DECLARE
    options text;
    previous integer;
    left_out record;
BEGIN
    IF connections IS NULL OR cardinality(connections) < 1 OR array_position(connections, NULL) IS NOT NULL
       OR max_shards IS NULL OR cardinality(connections) > max_shards
       OR (SELECT count(DISTINCT c) FROM unnest(connections) c) <> cardinality(connections) THEN
        RAISE EXCEPTION 'connections must name 1 to max_shards (%) distinct shards, got %', coalesce(max_shards::text, 'NULL'), connections
            USING ERRCODE = 'invalid_parameter_value', HINT = 'e.g. ARRAY[''host=shard0 dbname=pg_dof'', ''host=shard1 dbname=pg_dof'']';
    END IF;
    IF EXISTS (SELECT 1 FROM unnest(connections) c WHERE dof_cluster_names_credentials(c)) THEN
        RAISE EXCEPTION 'a shard connection string must not name user= or password='
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'every role would run on the shards as that user, and every role can read the strings; give a role a USER MAPPING FOR it SERVER dof_shards OPTIONS (user ..., password ...), or use ~/.pgpass of the coordinator''s server';
    END IF;
    previous := cardinality(dof_cluster_connections());
    FOR i IN cardinality(connections) .. previous - 1 LOOP
        BEGIN
            SELECT * INTO STRICT left_out FROM dof_cluster_shard_status(i);
        EXCEPTION WHEN OTHERS THEN
            RAISE EXCEPTION 'shard % would be left out of the cluster, and it cannot be reached to check it is empty: %', i, SQLERRM
                USING ERRCODE = 'object_not_in_prerequisite_state', HINT = 'removing shards is supported only for empty shards';
        END;
        IF left_out.documents > 0 THEN
            RAISE EXCEPTION 'shard % would be left out of the cluster while it holds % documents', i, left_out.documents
                USING ERRCODE = 'object_not_in_prerequisite_state',
                      HINT = 'its documents would vanish from every search; removing shards is supported only for empty shards';
        END IF;
    END LOOP;
    IF NOT EXISTS (SELECT 1 FROM pg_foreign_server WHERE srvname = 'dof_shards') THEN
        SELECT string_agg(format('p%s %L', i - 1, c), ', ' ORDER BY i) INTO options
        FROM unnest(connections) WITH ORDINALITY AS u(c, i);
        EXECUTE format('CREATE SERVER dof_shards FOREIGN DATA WRAPPER plproxy OPTIONS (modular_mapping %L, connection_lifetime %L, %s)',
                       '1', '1800', options);
        CREATE USER MAPPING FOR PUBLIC SERVER dof_shards;
    ELSE
        -- altered in place, so user mappings (passwords) and grants stay
        SELECT string_agg(CASE WHEN i <= previous THEN format('SET p%s %L', i - 1, c) ELSE format('ADD p%s %L', i - 1, c) END, ', ' ORDER BY i)
        INTO options
        FROM unnest(connections) WITH ORDINALITY AS u(c, i);
        options := options || coalesce((SELECT ', ' || string_agg(format('DROP p%s', j - 1), ', ')
                                         FROM generate_series(cardinality(connections) + 1, previous) j), '');
        EXECUTE format('ALTER SERVER dof_shards OPTIONS (%s)', options);
    END IF;
    FOR i IN 0 .. cardinality(connections) - 1 LOOP
        PERFORM dof_cluster_configure_shard(i, max_shards);
    END LOOP;
    RETURN cardinality(connections);
END
$$;

-- The shards check the search's arguments in the call that prepares it (pg_dof 0.3.0's
-- dof_shard_prepare takes them), with one server's checks.
DROP FUNCTION dof_cluster_prepare(text, text, integer);
CREATE FUNCTION dof_cluster_prepare(query text, collection text, embed_shard integer, k integer, candidate_pool integer,
                                    dedup_by_source boolean, ranking text, match_terms text)
    RETURNS TABLE (query_embedding vector, lexemes text[], chunks bigint[], total_chunks bigint, total_tokens bigint,
                   version text, shard integer)
    LANGUAGE plproxy AS $$
    CLUSTER 'dof_shards';
    RUN ON ALL;
    SELECT * FROM dof_shard_prepare(query, collection, embed_shard, k, candidate_pool, dedup_by_source, ranking, match_terms);
$$;
COMMENT ON FUNCTION dof_cluster_prepare(text, text, integer, integer, integer, boolean, text, text) IS 'Internal: every shard checks the search''s arguments and returns its lexemes, BM25 statistics, version and number, and the query''s embedding from the shard numbered embed_shard';

-- pg_dof 0.3.0's weighted fusion scales the text share by the text leg's coverage of the
-- query, measured against its full-match BM25: the shard that fuses computes it from the
-- global statistics (dof_bm25_idfs of the lexemes' chunk counts summed over the shards),
-- as one server does from its own, so the answers stay one server's.
DROP FUNCTION dof_cluster_fuse(text, bigint[], double precision[], bigint[], double precision[], integer, double precision, double precision, double precision);
CREATE FUNCTION dof_cluster_fuse(fusion text, vector_ids bigint[], vector_scores double precision[],
                                 text_ids bigint[], text_scores double precision[], rrf_k integer,
                                 alpha double precision, vector_weight double precision, text_weight double precision,
                                 ranking text, lexeme_chunks double precision[], total_chunks double precision)
    RETURNS TABLE (id bigint, score double precision, vector_rank integer, text_rank integer)
    LANGUAGE plproxy AS $$
    CLUSTER 'dof_shards';
    RUN ON ANY;
    SELECT * FROM dof_fuse(fusion, vector_ids, vector_scores, text_ids, text_scores, rrf_k, alpha, vector_weight, text_weight,
                           CASE WHEN ranking = 'bm25' THEN dof_bm25_full_match(dof_bm25_idfs(lexeme_chunks, total_chunks)) END);
$$;
COMMENT ON FUNCTION dof_cluster_fuse(text, bigint[], double precision[], bigint[], double precision[], integer, double precision, double precision, double precision, text, double precision[], double precision) IS 'Internal: pg_dof''s dof_fuse, run on any shard, with the query''s full-match BM25 from the global statistics when ranking is bm25';

-- pg_dof 0.3.0 reorders each document's chunks among the ranks the weighted fusion gives
-- the document (pg_dof's document_order.sql): each shard scores its own candidates within
-- their documents, from the cluster's statistics, and one shard reorders the fused list.
CREATE FUNCTION dof_cluster_document_text_scores(query text, collection text, ids bigint[], k integer, lexemes text[],
                                                 lexeme_chunks double precision[], total_chunks double precision,
                                                 average_length double precision)
    RETURNS TABLE (chunk_id bigint, document_id bigint, text_score double precision)
    LANGUAGE plproxy AS $$
    CLUSTER 'dof_shards';
    RUN ON ALL;
    SELECT * FROM dof_shard_document_text_scores(query, collection, ids, k, lexemes, lexeme_chunks, total_chunks, average_length);
$$;
CREATE FUNCTION dof_cluster_document_order(ids bigint[], scores double precision[], vector_ids bigint[],
                                           vector_scores double precision[], alpha double precision,
                                           best_text_score double precision, lexeme_chunks double precision[],
                                           total_chunks double precision, chunk_ids bigint[], document_ids bigint[],
                                           text_scores double precision[])
    RETURNS TABLE (id bigint, score double precision, rank integer)
    LANGUAGE plproxy AS $$
    CLUSTER 'dof_shards';
    RUN ON ANY;
    SELECT * FROM dof_document_order(ids, scores, vector_ids, vector_scores,
                                     dof_fusion_text_share(alpha, best_text_score,
                                                           dof_bm25_full_match(dof_bm25_idfs(lexeme_chunks, total_chunks))),
                                     chunk_ids, document_ids, text_scores);
$$;
COMMENT ON FUNCTION dof_cluster_document_text_scores(text, text, bigint[], integer, text[], double precision[], double precision, double precision) IS 'Internal: every shard''s candidates among ids scored within their documents (pg_dof''s dof_shard_document_text_scores), from the cluster''s statistics';
COMMENT ON FUNCTION dof_cluster_document_order(bigint[], double precision[], bigint[], double precision[], double precision, double precision, double precision[], double precision, bigint[], bigint[], double precision[]) IS 'Internal: pg_dof''s dof_document_order, run on any shard, with the weighted fusion''s text share from the global statistics';

-- The hybrid search's defaults are one server's (alpha 0.5, by measurement: pg_dof's
-- CHANGELOG 0.3.0), and a query over 64 KB is refused by the shards before they parse it
-- (it failed there with "stack depth limit exceeded").
CREATE OR REPLACE FUNCTION dof_hybrid_search(query text, k integer DEFAULT 10, collection text DEFAULT NULL,
                                  filter jsonb DEFAULT NULL, candidate_pool integer DEFAULT 50,
                                  rrf_k integer DEFAULT 60, dedup_by_source boolean DEFAULT false,
                                  query_embedding vector DEFAULT NULL, ranking text DEFAULT 'bm25',
                                  match_terms text DEFAULT 'any', fusion text DEFAULT 'weighted',
                                  alpha double precision DEFAULT 0.5, vector_weight double precision DEFAULT 1,
                                  text_weight double precision DEFAULT 1)
    RETURNS TABLE (chunk_id bigint, document_id bigint, source_id text, heading_path text[], content text,
                   score double precision, vector_rank integer, text_rank integer)
    LANGUAGE plpgsql VOLATILE SET search_path FROM CURRENT AS $$
DECLARE
    pool integer := greatest(candidate_pool, k);
    embedded vector;
    lexemes text[];
    versions text[];
    lexeme_chunks double precision[];
    total_chunks double precision;
    total_tokens double precision;
    vector_ids bigint[];
    vector_scores double precision[];
    text_ids bigint[];
    text_scores double precision[];
    fused_ids bigint[];
    fused_scores double precision[];
    fused_vector_ranks integer[];
    fused_text_ranks integer[];
    ordered_ids bigint[];
    ordered_scores double precision[];
    final_ids bigint[];
BEGIN
    -- the search's own arguments (k, candidate_pool, dedup_by_source, ranking, match_terms,
    -- the query's length) are checked by the shards, with one server's checks, in this
    -- first call (this coordinator has no pg_dof to call; it kept a copy of them before).
    -- One call to every shard: the lexemes, the statistics (added up here), the versions,
    -- and the embedding from one shard: the same one for the whole of this session (chosen
    -- by its process id, so sessions spread over the shards), so one shard backend per
    -- session loads the model, and on a shared machine the model's threads of another
    -- shard's backend are not still spinning (alternating shards per query measured 27.9 ms
    -- per prepare call against 11.4 ms always on one).
    -- The fusion's arguments are checked by the fusion itself, on a shard, after the legs:
    -- a separate check first would cost a round trip on every search.
    WITH prepared AS MATERIALIZED (
        SELECT * FROM dof_cluster_prepare(query, collection,
                                          CASE WHEN query_embedding IS NULL
                                               THEN pg_backend_pid() % greatest(cardinality(dof_cluster_connections()), 1) ELSE -1 END,
                                          k, candidate_pool, dedup_by_source, ranking, match_terms))
    SELECT (SELECT p.query_embedding FROM prepared p WHERE p.query_embedding IS NOT NULL LIMIT 1),
           (SELECT p.lexemes FROM prepared p LIMIT 1),
           (SELECT array_agg(DISTINCT coalesce(p.version, 'none')) FROM prepared p),
           (SELECT sum(p.total_chunks) FROM prepared p), (SELECT sum(p.total_tokens) FROM prepared p),
           ARRAY(SELECT sum(u.n)::double precision FROM prepared p, unnest(p.chunks) WITH ORDINALITY AS u(n, i)
                 GROUP BY u.i ORDER BY u.i)
    INTO embedded, lexemes, versions, total_chunks, total_tokens, lexeme_chunks;
    IF cardinality(versions) > 1 OR 'none' = ANY (versions) THEN
        RAISE EXCEPTION 'the shards run different pg_dof versions: %', versions USING ERRCODE = 'object_not_in_prerequisite_state',
            HINT = 'SELECT dof_cluster_execute(''ALTER EXTENSION pg_dof UPDATE''); SELECT * FROM dof_cluster_status shows each shard''s';
    END IF;

    WITH legs AS MATERIALIZED (
        SELECT * FROM dof_cluster_legs(query, pool, collection, filter, coalesce(query_embedding, embedded),
                                       ranking, match_terms, lexemes, lexeme_chunks, total_chunks,
                                       total_tokens / nullif(total_chunks, 0))
    )
    SELECT (SELECT array_agg(v.chunk_id ORDER BY v.score, v.chunk_id)
            FROM (SELECT * FROM legs WHERE legs.leg = 'vector' ORDER BY legs.score, legs.chunk_id LIMIT pool) v),
           (SELECT array_agg(1 - v.score ORDER BY v.score, v.chunk_id)
            FROM (SELECT * FROM legs WHERE legs.leg = 'vector' ORDER BY legs.score, legs.chunk_id LIMIT pool) v),
           (SELECT array_agg(t.chunk_id ORDER BY t.score DESC, t.chunk_id)
            FROM (SELECT * FROM legs WHERE legs.leg = 'text' ORDER BY legs.score DESC, legs.chunk_id LIMIT pool) t),
           (SELECT array_agg(t.score ORDER BY t.score DESC, t.chunk_id)
            FROM (SELECT * FROM legs WHERE legs.leg = 'text' ORDER BY legs.score DESC, legs.chunk_id LIMIT pool) t)
    INTO vector_ids, vector_scores, text_ids, text_scores;

    SELECT array_agg(f.id ORDER BY f.score DESC, f.id), array_agg(f.score ORDER BY f.score DESC, f.id),
           array_agg(f.vector_rank ORDER BY f.score DESC, f.id), array_agg(f.text_rank ORDER BY f.score DESC, f.id)
    INTO fused_ids, fused_scores, fused_vector_ranks, fused_text_ranks
    FROM dof_cluster_fuse(fusion, vector_ids, vector_scores, text_ids, text_scores, rrf_k, alpha, vector_weight, text_weight,
                          ranking, lexeme_chunks, total_chunks) f;
    ordered_ids := fused_ids;
    ordered_scores := fused_scores;
    IF ranking = 'bm25' AND fusion = 'weighted' AND fused_ids IS NOT NULL THEN
        -- each document's chunks reordered among its ranks, as on one server
        SELECT array_agg(o.id ORDER BY o.rank), array_agg(o.score ORDER BY o.rank) INTO ordered_ids, ordered_scores
        FROM (SELECT array_agg(s.chunk_id) AS ids, array_agg(s.document_id) AS documents, array_agg(s.text_score) AS scores
              FROM dof_cluster_document_text_scores(query, collection, fused_ids,
                                                    CASE WHEN dedup_by_source THEN cardinality(fused_ids) ELSE k END,
                                                    lexemes, lexeme_chunks, total_chunks,
                                                    total_tokens / nullif(total_chunks, 0)) s) within,
             dof_cluster_document_order(fused_ids, fused_scores, vector_ids, vector_scores, alpha,
                                        (SELECT max(t) FROM unnest(text_scores) t), lexeme_chunks, total_chunks,
                                        within.ids, within.documents, within.scores) o;
    END IF;
    IF dedup_by_source THEN
        -- the best chunk of each document: the documents of every fused candidate first
        final_ids := ARRAY(SELECT best.id FROM (
                               SELECT DISTINCT ON (c.document_id) f.id, f.rank
                               FROM unnest(ordered_ids) WITH ORDINALITY AS f(id, rank)
                               JOIN dof_cluster_chunks(ordered_ids, false) c ON c.chunk_id = f.id
                               ORDER BY c.document_id, f.rank) best
                           ORDER BY best.rank LIMIT k);
    ELSE
        final_ids := ordered_ids[1:k];
    END IF;
    RETURN QUERY
    SELECT c.chunk_id, c.document_id, c.source_id, c.heading_path, c.content, o.score, f.vector_rank, f.text_rank
    FROM dof_cluster_chunks(final_ids, true) c
    JOIN unnest(ordered_ids, ordered_scores) WITH ORDINALITY AS o(id, score, rank) ON o.id = c.chunk_id
    JOIN unnest(fused_ids, fused_vector_ranks, fused_text_ranks) AS f(id, vector_rank, text_rank) ON f.id = c.chunk_id
    ORDER BY o.rank;
END
$$;

COMMENT ON FUNCTION dof_cluster_names_credentials(text) IS 'Whether a libpq connection string names user= or password= (refused in a shard''s connection string)';
COMMENT ON FUNCTION dof_cluster_connections() IS 'The shards'' connection strings in shard order (the dof_shards PL/Proxy server''s partitions), passwords hidden';
COMMENT ON FUNCTION dof_cluster_user_mapping_guard() IS 'Event trigger: a role that does not own dof_shards may map itself on it only to its own user name';
COMMENT ON EVENT TRIGGER dof_cluster_user_mapping_guard IS 'Refuses a USER MAPPING on dof_shards by a non-owner that maps to another user name (PL/Proxy would connect as that user)';
COMMENT ON FUNCTION dof_cluster_set_shards(text[], integer) IS 'Defines the cluster (the dof_shards PL/Proxy server) from the shards'' connection strings (no user= or password=) and numbers each shard (ids unique up to max_shards shards); refuses to leave out a shard that holds documents. Administration: not executable by PUBLIC';
COMMENT ON FUNCTION dof_cluster_execute(text) IS 'Runs one SQL command on every shard in parallel, each in its own transaction (a command that changes session settings is refused); returns each shard''s processed rows. Administration: not executable by PUBLIC';
COMMENT ON FUNCTION dof_cluster_rebalance(integer) IS 'Moves every document to the shard that owns it under the current mapping (after adding shards), with its chunks and vectors, nothing re-embedded (a document waiting in a queue is indexed on its new shard); safe to run again; returns the documents moved from each shard. Administration: not executable by PUBLIC';
