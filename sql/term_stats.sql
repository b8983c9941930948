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
-- Only the lexemes with more than one row are rewritten: rewriting every row, as it did, cost
-- as much as the statistics are large at every fold (a queue drain's, a load's), however few
-- deltas there were to fold (bench/scripts/term_stats_reads.sh). Rows a concurrent writer
-- has not committed are not seen, so not deleted: they stay deltas for the next fold.
CREATE FUNCTION dof_compact_stats(collection text DEFAULT NULL) RETURNS bigint
    LANGUAGE plpgsql VOLATILE SET search_path FROM CURRENT AS $$
DECLARE
    removed bigint;
BEGIN
    WITH unfolded AS (
        SELECT s.collection, s.lexeme FROM dof_term_stats s
        WHERE dof_compact_stats.collection IS NULL OR s.collection = dof_compact_stats.collection
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
        DELETE FROM dof_collection_stats s WHERE dof_compact_stats.collection IS NULL OR s.collection = dof_compact_stats.collection
        RETURNING s.collection, s.chunks, s.tokens
    )
    INSERT INTO dof_collection_stats (collection, chunks, tokens)
    SELECT m.collection, sum(m.chunks), sum(m.tokens) FROM moved m GROUP BY 1 HAVING sum(m.chunks) <> 0 OR sum(m.tokens) <> 0;
    RETURN removed;
END
$$;

COMMENT ON FUNCTION dof_chunks_stats_added() IS 'Trigger: BM25 statistics deltas for inserted chunks';
COMMENT ON FUNCTION dof_chunks_stats_removed() IS 'Trigger: BM25 statistics deltas for deleted chunks';
COMMENT ON FUNCTION dof_chunks_stats_changed() IS 'Trigger: BM25 statistics deltas for updated chunks';
COMMENT ON FUNCTION dof_compact_stats(text) IS 'Folds BM25 statistics deltas into one row per lexeme (for a collection or all); returns the rows removed';
