-- pg_dof_coordinator 0.2.0: pg_dof over several PostgreSQL servers. This database holds no
-- chunks and no model: PL/Proxy routes each document to one pg_dof shard by a hash of its
-- source_id, and dof_hybrid_search asks every shard in parallel, with the cluster's BM25
-- statistics, for ids and scores only, merges and fuses them here, and fetches the content
-- of the final k. The shards' side is pg_dof's own sql/shard.sql.
\echo Use "CREATE EXTENSION pg_dof_coordinator CASCADE" to load this file. \quit

-- The cluster is the PL/Proxy SQL/MED server dof_shards: partitions p0, p1, ... are the
-- shards' connection strings, mapped by modulus (modular_mapping), so any number of
-- shards works: a document belongs to shard abs(hashtext(source_id) % shards).

-- The shards' connection strings, in shard order (none when not set up).
CREATE FUNCTION dof_cluster_connections() RETURNS text[]
    LANGUAGE sql STABLE
BEGIN ATOMIC
    SELECT coalesce(array_agg(substr(o.option, strpos(o.option, '=') + 1) ORDER BY substr(o.option, 2, strpos(o.option, '=') - 2)::integer), '{}')
    FROM pg_foreign_server s, unnest(s.srvoptions) AS o(option)
    WHERE s.srvname = 'dof_shards' AND o.option ~ '^p[0-9]+=';
END;

-- Which shard holds (or will hold) a document: PL/Proxy's own mapping of RUN ON
-- hashtext(source_id) with modular_mapping. The loader asks this to write to shards directly.
CREATE FUNCTION dof_shard_of(source_id text) RETURNS integer
    LANGUAGE plpgsql STABLE SET search_path FROM CURRENT AS $$
DECLARE
    shards integer := cardinality(dof_cluster_connections());
BEGIN
    IF shards = 0 THEN
        RAISE EXCEPTION 'no shards are set up' USING ERRCODE = 'object_not_in_prerequisite_state',
            HINT = 'SELECT dof_cluster_set_shards(ARRAY[''host=... dbname=...'', ...])';
    END IF;
    RETURN abs(hashtext(source_id) % shards);
END
$$;

-- PL/Proxy calls, one per shard-side function (sql/shard.sql in pg_dof). RUN ON ALL runs
-- on every shard in parallel; a shard that cannot be reached fails the call with its
-- connection string in the message; cancelling the call (or statement_timeout) cancels
-- the shards' queries.
CREATE FUNCTION dof_cluster_configure_shard(shard_number integer, max_shards integer) RETURNS void
    LANGUAGE plproxy AS $$
    CLUSTER 'dof_shards';
    RUN ON shard_number;
    SELECT dof_shard_configure(shard_number, max_shards);
$$;

CREATE FUNCTION dof_put_document(collection text, source_id text, title text, body text, metadata jsonb DEFAULT '{}')
    RETURNS TABLE (document_id bigint, action text)
    LANGUAGE plproxy AS $$
    CLUSTER 'dof_shards';
    RUN ON hashtext(source_id);
$$;

CREATE FUNCTION dof_cluster_prepare(query text, collection text, embed_shard integer)
    RETURNS TABLE (query_embedding vector, lexemes text[], chunks bigint[], total_chunks bigint, total_tokens bigint,
                   version text, shard integer)
    LANGUAGE plproxy AS $$
    CLUSTER 'dof_shards';
    RUN ON ALL;
    SELECT * FROM dof_shard_prepare(query, collection, embed_shard);
$$;

CREATE FUNCTION dof_cluster_legs(query text, candidates integer, collection text, filter jsonb, query_embedding vector,
                                 ranking text, match_terms text, lexemes text[], chunks double precision[],
                                 total_chunks double precision, average_length double precision)
    RETURNS TABLE (leg text, chunk_id bigint, score double precision)
    LANGUAGE plproxy AS $$
    CLUSTER 'dof_shards';
    RUN ON ALL;
    SELECT * FROM dof_shard_legs(query, candidates, collection, filter, query_embedding, ranking, match_terms,
                                 lexemes, chunks, total_chunks, average_length);
$$;

-- pg_dof's own fusion (dof_fuse), run on any shard: one definition of RRF and weighted
-- fusion for one server and for the cluster.
CREATE FUNCTION dof_cluster_fuse(fusion text, vector_ids bigint[], vector_scores double precision[],
                                 text_ids bigint[], text_scores double precision[], rrf_k integer,
                                 alpha double precision, vector_weight double precision, text_weight double precision)
    RETURNS TABLE (id bigint, score double precision, vector_rank integer, text_rank integer)
    LANGUAGE plproxy AS $$
    CLUSTER 'dof_shards';
    RUN ON ANY;
    SELECT * FROM dof_fuse(fusion, vector_ids, vector_scores, text_ids, text_scores, rrf_k, alpha, vector_weight, text_weight);
$$;

CREATE FUNCTION dof_cluster_chunks(ids bigint[], with_content boolean)
    RETURNS TABLE (chunk_id bigint, document_id bigint, source_id text, heading_path text[], content text)
    LANGUAGE plproxy AS $$
    CLUSTER 'dof_shards';
    RUN ON ALL;
    SELECT * FROM dof_shard_chunks(ids, with_content);
$$;

CREATE FUNCTION dof_cluster_shard_status(shard_number integer)
    RETURNS TABLE (shard integer, max_shards integer, version text, documents bigint, chunks bigint,
                   queued bigint, failed bigint)
    LANGUAGE plproxy AS $$
    CLUSTER 'dof_shards';
    RUN ON shard_number;
    SELECT * FROM dof_shard_status();
$$;

CREATE FUNCTION dof_cluster_export_misplaced(shard_number integer, shards integer, batch_size integer)
    RETURNS TABLE (collection text, source_id text, document jsonb, chunks jsonb)
    LANGUAGE plproxy AS $$
    CLUSTER 'dof_shards';
    RUN ON shard_number;
    SELECT * FROM dof_shard_export_misplaced(shards, batch_size);
$$;

CREATE FUNCTION dof_cluster_import(collection text, source_id text, document jsonb, chunks jsonb) RETURNS text
    LANGUAGE plproxy AS $$
    CLUSTER 'dof_shards';
    RUN ON hashtext(source_id);
    SELECT dof_shard_import(collection, source_id, document, chunks);
$$;

CREATE FUNCTION dof_cluster_forget(shard_number integer, shards integer, collections text[], source_ids text[]) RETURNS bigint
    LANGUAGE plproxy AS $$
    CLUSTER 'dof_shards';
    RUN ON shard_number;
    SELECT dof_shard_forget(shards, collections, source_ids);
$$;

-- One SQL command on every shard, in parallel, each in its own transaction (PL/Proxy has
-- no two-phase commit: when one shard fails, the others may have committed; the command
-- should be safe to run again, e.g. CREATE ... IF NOT EXISTS, ALTER EXTENSION pg_dof
-- UPDATE). Returns each shard's processed row count. Needs EXECUTE on the shards'
-- dof_shard_execute.
CREATE FUNCTION dof_cluster_execute(command text) RETURNS SETOF bigint
    LANGUAGE plproxy AS $$
    CLUSTER 'dof_shards';
    RUN ON ALL;
    SELECT dof_shard_execute(command);
$$;

-- Defines the cluster: shard i is connections[i + 1] (libpq connection strings; without
-- user=, PL/Proxy connects as the calling role), and numbers each shard (its ids become
-- congruent to i modulo max_shards, so ids stay unique when shards are added, up to
-- max_shards). Adding a shard is calling this again with the list extended; then
-- dof_cluster_rebalance() moves the documents whose owner changed.
CREATE FUNCTION dof_cluster_set_shards(connections text[], max_shards integer DEFAULT 64) RETURNS integer
    LANGUAGE plpgsql VOLATILE SET search_path FROM CURRENT AS $$
DECLARE
    options text;
    previous integer;
BEGIN
    IF connections IS NULL OR cardinality(connections) < 1 OR array_position(connections, NULL) IS NOT NULL
       OR max_shards IS NULL OR cardinality(connections) > max_shards
       OR (SELECT count(DISTINCT c) FROM unnest(connections) c) <> cardinality(connections) THEN
        RAISE EXCEPTION 'connections must name 1 to max_shards (%) distinct shards, got %', coalesce(max_shards::text, 'NULL'), connections
            USING ERRCODE = 'invalid_parameter_value', HINT = 'e.g. ARRAY[''host=shard0 dbname=pg_dof'', ''host=shard1 dbname=pg_dof'']';
    END IF;
    IF NOT EXISTS (SELECT 1 FROM pg_foreign_server WHERE srvname = 'dof_shards') THEN
        SELECT string_agg(format('p%s %L', i - 1, c), ', ' ORDER BY i) INTO options
        FROM unnest(connections) WITH ORDINALITY AS u(c, i);
        EXECUTE format('CREATE SERVER dof_shards FOREIGN DATA WRAPPER plproxy OPTIONS (modular_mapping %L, connection_lifetime %L, %s)',
                       '1', '1800', options);
        CREATE USER MAPPING FOR PUBLIC SERVER dof_shards;
        GRANT USAGE ON FOREIGN SERVER dof_shards TO PUBLIC;
    ELSE
        -- altered in place, so user mappings (passwords) and grants stay
        previous := cardinality(dof_cluster_connections());
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

-- Moves every document to the shard that owns it under the current mapping, after
-- dof_cluster_set_shards added shards: a batch at a time per shard, each document stored
-- on its owner with its chunks and vectors as they were (nothing re-embedded; one not yet
-- indexed is indexed there), then deleted from where it was. Each step commits on its
-- shard on its own, and each is safe to repeat: a rebalance stopped midway (or failed)
-- is finished by calling it again. While it runs a moved document can show up twice in a
-- search (both copies found). Returns the documents moved from each shard.
CREATE FUNCTION dof_cluster_rebalance(batch_size integer DEFAULT 50)
    RETURNS TABLE (shard integer, moved bigint)
    LANGUAGE plpgsql VOLATILE SET search_path FROM CURRENT AS $$
DECLARE
    shards integer := cardinality(dof_cluster_connections());
    collections text[];
    source_ids text[];
    outcomes text[];
BEGIN
    IF batch_size IS NULL OR batch_size < 1 THEN
        RAISE EXCEPTION 'batch_size must be at least 1, got %', coalesce(batch_size::text, 'NULL') USING ERRCODE = 'invalid_parameter_value';
    END IF;
    FOR i IN 0 .. shards - 1 LOOP
        shard := i;
        moved := 0;
        LOOP
            -- stored on the owner first (every outcome read, so every call runs), then forgotten here
            SELECT array_agg(m.collection), array_agg(m.source_id), array_agg(m.outcome) INTO collections, source_ids, outcomes
            FROM (SELECT e.collection, e.source_id, dof_cluster_import(e.collection, e.source_id, e.document, e.chunks) AS outcome
                  FROM dof_cluster_export_misplaced(i, shards, batch_size) e) m;
            EXIT WHEN collections IS NULL;
            moved := moved + dof_cluster_forget(i, shards, collections, source_ids);
        END LOOP;
        RETURN NEXT;
    END LOOP;
END
$$;

-- Every shard's state, one row each, in shard order: its connection (password hidden),
-- whether it answered (error says why not), its pg_dof version, documents, chunks and
-- queue. A shard that is down shows here instead of failing the whole view.
CREATE FUNCTION dof_cluster_status()
    RETURNS TABLE (shard integer, connection text, reachable boolean, error text, version text,
                   documents bigint, chunks bigint, queued bigint, failed bigint)
    LANGUAGE plpgsql VOLATILE SET search_path FROM CURRENT AS $$
DECLARE
    connections text[] := dof_cluster_connections();
    status record;
BEGIN
    FOR i IN 0 .. cardinality(connections) - 1 LOOP
        shard := i;
        connection := regexp_replace(connections[i + 1], 'password\s*=\s*(''(\\.|[^''])*''|\S+)', 'password=***', 'g');
        BEGIN
            SELECT * INTO STRICT status FROM dof_cluster_shard_status(i);
            reachable := true;
            error := CASE WHEN status.shard IS DISTINCT FROM i THEN format('configured as shard %s', coalesce(status.shard::text, 'none')) END;
            version := status.version;
            documents := status.documents;
            chunks := status.chunks;
            queued := status.queued;
            failed := status.failed;
        EXCEPTION WHEN OTHERS THEN
            reachable := false;
            error := SQLERRM;
            version := NULL; documents := NULL; chunks := NULL; queued := NULL; failed := NULL;
        END;
        RETURN NEXT;
    END LOOP;
END
$$;
CREATE VIEW dof_cluster_status AS SELECT * FROM dof_cluster_status();

-- Hybrid search over every shard, with the same signature, columns and answers as pg_dof's
-- dof_hybrid_search on one server holding all the chunks:
--   1. every shard parses the query in the collection's configuration and returns its
--      statistics for the query's lexemes (one shard, this session's, also embeds the
--      query); added up, they are exactly one server's (per-collection counts are exact),
--      so IDFs, the mean length and match_terms => 'any' are the same;
--   2. every shard returns each leg's candidate_pool best (ids and scores, no content),
--      scored with those statistics; merged here (distance ascending, BM25 descending,
--      ties on id), the best candidate_pool of each are one server's lists;
--   3. fused by pg_dof's dof_fuse; deduplicated by document when asked; the content of
--      the final k fetched from the shards holding it.
-- Refused when the shards run different pg_dof versions.
CREATE FUNCTION dof_hybrid_search(query text, k integer DEFAULT 10, collection text DEFAULT NULL,
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
    final_ids bigint[];
BEGIN
    IF k IS NULL OR k < 1 OR candidate_pool IS NULL OR candidate_pool < 1 OR candidate_pool > 100000
       OR dedup_by_source IS NULL THEN
        RAISE EXCEPTION 'k must be at least 1, candidate_pool between 1 and 100000 and dedup_by_source not NULL (got k %, candidate_pool %, dedup_by_source %)',
                        coalesce(k::text, 'NULL'), coalesce(candidate_pool::text, 'NULL'), coalesce(dedup_by_source::text, 'NULL')
            USING ERRCODE = 'invalid_parameter_value', HINT = 'the defaults are k 10, candidate_pool 50';
    END IF;
    IF ranking IS NULL OR ranking NOT IN ('bm25', 'ts_rank_cd') OR match_terms IS NULL OR match_terms NOT IN ('any', 'all') THEN
        RAISE EXCEPTION 'unknown ranking "%" or match_terms "%"', ranking, match_terms USING ERRCODE = 'invalid_parameter_value',
            HINT = 'ranking: ''bm25'' or ''ts_rank_cd''; match_terms: ''any'' or ''all''';
    END IF;
    -- one call to every shard: the lexemes, the statistics (added up here), the versions,
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
                                               THEN pg_backend_pid() % greatest(cardinality(dof_cluster_connections()), 1) ELSE -1 END))
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
    FROM dof_cluster_fuse(fusion, vector_ids, vector_scores, text_ids, text_scores, rrf_k, alpha, vector_weight, text_weight) f;
    IF dedup_by_source THEN
        -- the best chunk of each document: the documents of every fused candidate first
        final_ids := ARRAY(SELECT best.id FROM (
                               SELECT DISTINCT ON (c.document_id) f.id, f.score
                               FROM unnest(fused_ids, fused_scores) AS f(id, score)
                               JOIN dof_cluster_chunks(fused_ids, false) c ON c.chunk_id = f.id
                               ORDER BY c.document_id, f.score DESC, f.id) best
                           ORDER BY best.score DESC, best.id LIMIT k);
    ELSE
        final_ids := fused_ids[1:k];
    END IF;
    RETURN QUERY
    SELECT c.chunk_id, c.document_id, c.source_id, c.heading_path, c.content, f.score, f.vector_rank, f.text_rank
    FROM dof_cluster_chunks(final_ids, true) c
    JOIN unnest(fused_ids, fused_scores, fused_vector_ranks, fused_text_ranks) AS f(id, score, vector_rank, text_rank)
      ON f.id = c.chunk_id
    ORDER BY f.score DESC, f.id;
END
$$;

COMMENT ON FUNCTION dof_cluster_connections() IS 'The shards'' connection strings in shard order (the dof_shards PL/Proxy server''s partitions)';
COMMENT ON FUNCTION dof_shard_of(text) IS 'The shard (0-based) that holds a document with this source_id: PL/Proxy''s abs(hashtext(source_id) % shards)';
COMMENT ON FUNCTION dof_cluster_configure_shard(integer, integer) IS 'Internal: runs dof_shard_configure on one shard';
COMMENT ON FUNCTION dof_put_document(text, text, text, text, jsonb) IS 'Stores a document on its shard (by hashtext(source_id)), idempotently: added, updated or unchanged; the shard indexes it (inline or through its queue)';
COMMENT ON FUNCTION dof_cluster_prepare(text, text, integer) IS 'Internal: every shard''s lexemes, BM25 statistics, version and number, and the query''s embedding from the shard numbered embed_shard';
COMMENT ON FUNCTION dof_cluster_legs(text, integer, text, jsonb, vector, text, text, text[], double precision[], double precision, double precision) IS 'Internal: every shard''s candidates of both legs, ids and scores, under the cluster''s statistics';
COMMENT ON FUNCTION dof_cluster_fuse(text, bigint[], double precision[], bigint[], double precision[], integer, double precision, double precision, double precision) IS 'Internal: pg_dof''s dof_fuse, run on any shard';
COMMENT ON FUNCTION dof_cluster_chunks(bigint[], boolean) IS 'Internal: the chunks of ids from the shards holding them, content when asked';
COMMENT ON FUNCTION dof_cluster_shard_status(integer) IS 'Internal: dof_shard_status() of one shard';
COMMENT ON FUNCTION dof_cluster_export_misplaced(integer, integer, integer) IS 'Internal: a batch of one shard''s documents that belong elsewhere, with chunks and vectors';
COMMENT ON FUNCTION dof_cluster_import(text, text, jsonb, jsonb) IS 'Internal: stores a moved document on its owner shard';
COMMENT ON FUNCTION dof_cluster_forget(integer, integer, text[], text[]) IS 'Internal: deletes moved documents from the shard they left';
COMMENT ON FUNCTION dof_cluster_rebalance(integer) IS 'Moves every document to the shard that owns it under the current mapping (after adding shards), with its chunks and vectors, nothing re-embedded; safe to run again; returns the documents moved from each shard';
COMMENT ON FUNCTION dof_cluster_execute(text) IS 'Runs one SQL command on every shard in parallel, each in its own transaction; returns each shard''s processed rows';
COMMENT ON FUNCTION dof_cluster_set_shards(text[], integer) IS 'Defines the cluster (the dof_shards PL/Proxy server) from the shards'' connection strings and numbers each shard (ids unique up to max_shards shards)';
COMMENT ON FUNCTION dof_cluster_status() IS 'Every shard''s connection (password hidden), reachability, pg_dof version, documents, chunks and queue';
COMMENT ON VIEW dof_cluster_status IS 'Every shard''s connection (password hidden), reachability, pg_dof version, documents, chunks and queue';
COMMENT ON FUNCTION dof_hybrid_search(text, integer, text, jsonb, integer, integer, boolean, vector, text, text, text, double precision, double precision, double precision) IS
    'Hybrid search over every shard with one server''s signature and answers: global BM25 statistics, each leg merged over the shards, pg_dof''s fusion, the content of the final k fetched';
