-- BM25's statistics follow every change of dof_chunks, in the same transaction (so a
-- rollback takes them back): one delta row per collection and lexeme per statement.
CREATE FUNCTION dof_chunks_stats_added() RETURNS trigger
    LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
    INSERT INTO dof_term_stats (collection, lexeme, chunks)
    SELECT a.collection, l.lexeme, count(*) FROM added a, unnest(a.tsv) l GROUP BY 1, 2;
    INSERT INTO dof_collection_stats (collection, chunks, tokens)
    SELECT a.collection, count(*), sum(a.token_count) FROM added a GROUP BY 1;
    PERFORM dof_fold_stats_when_due(ARRAY(SELECT DISTINCT a.collection FROM added a));
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
    PERFORM dof_fold_stats_when_due(ARRAY(SELECT DISTINCT r.collection FROM removed r));
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
    PERFORM dof_fold_stats_when_due(ARRAY(SELECT a.collection FROM added a UNION SELECT r.collection FROM removed r));
    RETURN NULL;
END
$$;
CREATE TRIGGER dof_chunks_stats_added AFTER INSERT ON dof_chunks
    REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION dof_chunks_stats_added();
CREATE TRIGGER dof_chunks_stats_removed AFTER DELETE ON dof_chunks
    REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION dof_chunks_stats_removed();
CREATE TRIGGER dof_chunks_stats_changed AFTER UPDATE ON dof_chunks
    REFERENCING OLD TABLE AS removed NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION dof_chunks_stats_changed();

-- The advisory-lock class of a collection's fold (the key is hashtext of its name): a
-- collection is folded by one transaction at a time, and a fold never waits for another.
-- Waiting would last until the other transaction ends (a load's, a trigger's fold inside a
-- user's long transaction), and two folds deleting the same rows in different orders could
-- deadlock. One definition for dof_compact_stats and its test.
CREATE FUNCTION dof_stats_lock_class() RETURNS integer
    IMMUTABLE PARALLEL SAFE LANGUAGE sql RETURN 1885824103;

-- Folds a collection's (or every collection's) statistics deltas into one row per lexeme;
-- returns the number of rows removed. Exact at any time; folding only keeps reads short.
-- Only the lexemes with more than one row are rewritten: rewriting every row, as it did, cost
-- as much as the statistics are large at every fold (a queue drain's, a load's), however few
-- deltas there were to fold (bench/scripts/term_stats_reads.sh). Rows a concurrent writer
-- has not committed are not seen, so not deleted: they stay deltas for the next fold. A
-- collection another transaction is folding is left to it (dof_stats_lock_class): NULL when
-- the collection named is.
CREATE FUNCTION dof_compact_stats(collection text DEFAULT NULL) RETURNS bigint
    LANGUAGE plpgsql VOLATILE SET search_path FROM CURRENT AS $$
DECLARE
    removed bigint;
    candidates text[] := ARRAY[dof_compact_stats.collection];
    candidate text;
    folding text[] := '{}';
BEGIN
    IF dof_compact_stats.collection IS NULL THEN
        -- every collection: those defined, and names whose rows outlived them (renamed, dropped)
        candidates := ARRAY(SELECT k.name FROM dof_collections k UNION SELECT s.collection FROM dof_collection_stats s);
    END IF;
    FOREACH candidate IN ARRAY candidates LOOP
        IF pg_try_advisory_xact_lock(dof_stats_lock_class(), hashtext(candidate)) THEN
            folding := folding || candidate;
        END IF;
    END LOOP;
    IF dof_compact_stats.collection IS NOT NULL AND cardinality(folding) = 0 THEN
        RETURN NULL;
    END IF;
    WITH unfolded AS (
        SELECT s.collection, s.lexeme FROM dof_term_stats s WHERE s.collection = ANY (folding)
        GROUP BY 1, 2 HAVING count(*) > 1
    ), moved AS (
        DELETE FROM dof_term_stats s USING unfolded u WHERE s.collection = u.collection AND s.lexeme = u.lexeme
        RETURNING s.collection, s.lexeme, s.chunks
    ), kept AS (
        INSERT INTO dof_term_stats (collection, lexeme, chunks)
        SELECT m.collection, m.lexeme, sum(m.chunks) FROM moved m GROUP BY 1, 2 HAVING sum(m.chunks) <> 0
        RETURNING 1
    )
    SELECT (SELECT count(*) FROM moved) - (SELECT count(*) FROM kept) INTO removed;
    WITH moved AS (
        DELETE FROM dof_collection_stats s WHERE s.collection = ANY (folding)
        RETURNING s.collection, s.chunks, s.tokens
    )
    INSERT INTO dof_collection_stats (collection, chunks, tokens)
    SELECT m.collection, sum(m.chunks), sum(m.tokens) FROM moved m GROUP BY 1 HAVING sum(m.chunks) <> 0 OR sum(m.tokens) <> 0;
    RETURN removed;
END
$$;

-- Called by the statistics triggers after each statement's deltas: a collection whose
-- dof_collection_stats holds more than pg_dof.stats_fold_every rows (about one a statement
-- since its last fold) is folded by this statement, so that a search's reads stay bounded
-- however documents are written: the queue and dof load fold at their end, but a user's own
-- INSERTs, one document a statement, left a row per lexeme per document that every search
-- then read (bench/scripts/stats_fold_every.sh). Skipped where a fold could fail the
-- statement: under REPEATABLE READ or SERIALIZABLE (deleting rows another transaction
-- folded since the snapshot is a serialization failure), and for a role that may not
-- rewrite the statistics (the fold's DELETE would be refused; searches are exact either way).
CREATE FUNCTION dof_fold_stats_when_due(collections text[]) RETURNS void
    LANGUAGE plpgsql VOLATILE SET search_path FROM CURRENT AS $$
DECLARE
    every integer := dof_stats_fold_every();
    candidate text;
BEGIN
    IF every = 0 OR current_setting('transaction_isolation') <> 'read committed'
       OR NOT (has_table_privilege('dof_term_stats', 'SELECT') AND has_table_privilege('dof_term_stats', 'DELETE')
               AND has_table_privilege('dof_collection_stats', 'SELECT') AND has_table_privilege('dof_collection_stats', 'DELETE')) THEN
        RETURN;
    END IF;
    FOREACH candidate IN ARRAY collections LOOP
        IF (SELECT count(*) FROM (SELECT FROM dof_collection_stats s WHERE s.collection = candidate LIMIT every::bigint + 1) d) > every THEN
            PERFORM dof_compact_stats(candidate);
        END IF;
    END LOOP;
END
$$;

COMMENT ON FUNCTION dof_chunks_stats_added() IS 'Trigger: BM25 statistics deltas for inserted chunks';
COMMENT ON FUNCTION dof_chunks_stats_removed() IS 'Trigger: BM25 statistics deltas for deleted chunks';
COMMENT ON FUNCTION dof_chunks_stats_changed() IS 'Trigger: BM25 statistics deltas for updated chunks';
COMMENT ON FUNCTION dof_compact_stats(text) IS 'Folds BM25 statistics deltas into one row per lexeme (for a collection or all); returns the rows removed, NULL when another transaction is folding the collection named (one it is folding is skipped when all are)';
COMMENT ON FUNCTION dof_stats_lock_class() IS 'The advisory-lock class (pg_locks.classid) a transaction folding a collection''s BM25 statistics holds, keyed by hashtext of the collection''s name';
COMMENT ON FUNCTION dof_stats_fold_every() IS 'The setting pg_dof.stats_fold_every, as the statistics triggers read it: statements'' deltas a collection gathers before the next statement that writes its chunks folds them (0: never)';
COMMENT ON FUNCTION dof_fold_stats_when_due(text[]) IS 'Internal, run by the statistics triggers: folds each collection named that has gathered more than pg_dof.stats_fold_every statements'' deltas (under READ COMMITTED, for a role that may rewrite the statistics)';
