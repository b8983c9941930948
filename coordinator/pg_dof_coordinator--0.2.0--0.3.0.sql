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

COMMENT ON FUNCTION dof_cluster_names_credentials(text) IS 'Whether a libpq connection string names user= or password= (refused in a shard''s connection string)';
COMMENT ON FUNCTION dof_cluster_connections() IS 'The shards'' connection strings in shard order (the dof_shards PL/Proxy server''s partitions), passwords hidden';
COMMENT ON FUNCTION dof_cluster_user_mapping_guard() IS 'Event trigger: a role that does not own dof_shards may map itself on it only to its own user name';
COMMENT ON EVENT TRIGGER dof_cluster_user_mapping_guard IS 'Refuses a USER MAPPING on dof_shards by a non-owner that maps to another user name (PL/Proxy would connect as that user)';
COMMENT ON FUNCTION dof_cluster_set_shards(text[], integer) IS 'Defines the cluster (the dof_shards PL/Proxy server) from the shards'' connection strings (no user= or password=) and numbers each shard (ids unique up to max_shards shards); refuses to leave out a shard that holds documents. Administration: not executable by PUBLIC';
COMMENT ON FUNCTION dof_cluster_execute(text) IS 'Runs one SQL command on every shard in parallel, each in its own transaction (a command that changes session settings is refused); returns each shard''s processed rows. Administration: not executable by PUBLIC';
COMMENT ON FUNCTION dof_cluster_rebalance(integer) IS 'Moves every document to the shard that owns it under the current mapping (after adding shards), with its chunks and vectors, nothing re-embedded (a document waiting in a queue is indexed on its new shard); safe to run again; returns the documents moved from each shard. Administration: not executable by PUBLIC';
