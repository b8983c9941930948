-- BM25's statistics per collection: exact after inserts, updates, deletes, rollbacks and a
-- configuration change, folded by dof_compact_stats without changing the counts, and each
-- collection's IDFs its own.
CREATE EXTENSION pg_dof CASCADE;
\set SHOW_CONTEXT never
SET client_min_messages = warning;
-- the statistics against a recount from the stored chunks: rows that disagree
CREATE VIEW stats_errors AS
WITH truth AS (SELECT c.collection, l.lexeme, count(*) AS n FROM dof_chunks c, unnest(c.tsv) l GROUP BY 1, 2),
     kept AS (SELECT s.collection, s.lexeme, sum(s.chunks) AS n FROM dof_term_stats s GROUP BY 1, 2 HAVING sum(s.chunks) <> 0),
     totals_truth AS (SELECT collection, count(*) AS chunks, sum(token_count) AS tokens FROM dof_chunks GROUP BY 1),
     totals_kept AS (SELECT collection, sum(chunks) AS chunks, sum(tokens) AS tokens FROM dof_collection_stats GROUP BY 1 HAVING sum(chunks) <> 0)
SELECT (SELECT count(*) FROM truth t FULL JOIN kept k USING (collection, lexeme) WHERE t.n IS DISTINCT FROM k.n)
     + (SELECT count(*) FROM totals_truth t FULL JOIN totals_kept k USING (collection)
        WHERE t.chunks IS DISTINCT FROM k.chunks OR t.tokens IS DISTINCT FROM k.tokens) AS wrong;

INSERT INTO dof_collections (name, model, late_chunking, max_tokens) VALUES
    ('aduanas', 'hash-384', false, 32), ('salud', 'hash-384', false, 32);
INSERT INTO dof_documents (collection, source_id, body)
SELECT 'aduanas', 'a-' || g, format(E'# Regla %s\n\nLa aduana revisa el pedimento de importación número %s y cobra el arancel.', g, g)
FROM generate_series(1, 20) g;
INSERT INTO dof_documents (collection, source_id, body)
SELECT 'salud', 's-' || g, format(E'# Aviso %s\n\nLa aduana sanitaria revisa medicamentos y vacunas del lote %s.', g, g)
FROM generate_series(1, 5) g;
SELECT 'after inserts' AS step, wrong FROM stats_errors;

UPDATE dof_documents SET body = E'# Regla nueva\n\nUn texto distinto sin las palabras de antes.' WHERE source_id = 'a-1';
SELECT 'after an update' AS step, wrong FROM stats_errors;
DELETE FROM dof_documents WHERE source_id IN ('a-2', 's-3');
SELECT 'after deletes' AS step, wrong FROM stats_errors;
BEGIN;
INSERT INTO dof_documents (collection, source_id, body) VALUES ('salud', 's-x', E'# Vacunas\n\nCampaña de vacunación.');
ROLLBACK;
SELECT 'after a rollback' AS step, wrong FROM stats_errors;
UPDATE dof_collections SET text_search_config = 'spanish' WHERE name = 'salud';
SELECT 'after a configuration change' AS step, wrong FROM stats_errors;

-- folding keeps the counts and leaves one row per lexeme
SELECT dof_compact_stats() > 0 AS folded;
SELECT (SELECT wrong FROM stats_errors) AS wrong,
       (SELECT count(*) = count(DISTINCT (collection, lexeme)) FROM dof_term_stats) AS one_row_per_lexeme;

-- each collection's own statistics: 'aduan' is in every chunk of both collections, so its
-- IDF is low in each; with all collections together the counts add up
SELECT t.lexeme, a.chunks AS in_aduanas, s.chunks AS in_salud, t.chunks AS in_all
FROM dof_term_stats(NULL, ARRAY['aduan', 'arancel', 'vacun']) t
JOIN dof_term_stats('aduanas', ARRAY['aduan', 'arancel', 'vacun']) a USING (lexeme)
JOIN dof_term_stats('salud', ARRAY['aduan', 'arancel', 'vacun']) s USING (lexeme);
SELECT 'aduanas' AS collection, * FROM dof_collection_stats('aduanas')
UNION ALL SELECT 'salud', * FROM dof_collection_stats('salud');
-- all collections' counts are each collection's looked up and added, also after a rename
-- (the chunks' deltas move to the new name, and the old name's rows sum to 0): the counts
-- the stored chunks give
BEGIN;
UPDATE dof_collections SET name = 'sanidad' WHERE name = 'salud';
SELECT 'after a rename' AS step, wrong FROM stats_errors;
SELECT t.lexeme, t.chunks AS in_all, (SELECT count(*) FROM dof_chunks c, unnest(c.tsv) l WHERE l.lexeme = t.lexeme) AS stored,
       s.chunks AS in_sanidad
FROM dof_term_stats(NULL, ARRAY['aduan', 'arancel', 'vacun']) t JOIN dof_term_stats('sanidad', ARRAY['aduan', 'arancel', 'vacun']) s USING (lexeme);
ROLLBACK;
SELECT collection, lexemes, chunks, round(average_length::numeric, 2) AS average_length,
       (SELECT array_agg(round(i::numeric, 3)) FROM unnest(idfs) i) AS idfs
FROM (VALUES ('aduanas'), ('salud')) c(collection), dof_bm25_terms(to_tsquery('spanish', 'vacunas & arancel'), collection);

-- a role that may read chunks but not the statistics ranks without IDF instead of failing
CREATE ROLE dof_stats_reader;
GRANT SELECT ON dof_chunks, dof_collections, dof_documents TO dof_stats_reader;
SET ROLE dof_stats_reader;
SELECT idfs, chunks, average_length FROM dof_bm25_terms(to_tsquery('spanish', 'arancel'), 'aduanas');
SELECT count(*) > 0 AS text_leg_works FROM dof_text_search('arancel', 5, 'aduanas');
RESET ROLE;
REVOKE ALL ON dof_chunks, dof_collections, dof_documents FROM dof_stats_reader;
DROP ROLE dof_stats_reader;

-- the statistics count every chunk of a collection, whatever row-level security hides: a
-- role that reads them can list the words of documents it cannot see. Documents for
-- different audiences go in different collections, and a policy per collection on the
-- statistics (docs/reference.md's recipe) hides the others' words while each collection's own
-- BM25 stays exact
CREATE ROLE dof_stats_alice;
CREATE ROLE dof_salud_readers;
GRANT SELECT ON dof_chunks, dof_collections, dof_documents, dof_term_stats, dof_collection_stats TO dof_stats_alice;
SET ROLE dof_stats_alice;
SELECT count(*) > 0 AS salud_lexemes_seen_without_a_policy FROM dof_term_stats WHERE collection = 'salud';
RESET ROLE;
ALTER TABLE dof_term_stats ENABLE ROW LEVEL SECURITY;
ALTER TABLE dof_collection_stats ENABLE ROW LEVEL SECURITY;
CREATE POLICY stats_by_collection ON dof_term_stats
    USING (collection <> 'salud' OR pg_has_role('dof_salud_readers', 'MEMBER')) WITH CHECK (true);
CREATE POLICY stats_by_collection ON dof_collection_stats
    USING (collection <> 'salud' OR pg_has_role('dof_salud_readers', 'MEMBER')) WITH CHECK (true);
CREATE TABLE owner_scores AS SELECT chunk_id, text_score FROM dof_text_search('arancel', 5, 'aduanas');
GRANT SELECT ON owner_scores TO dof_stats_alice;
SET ROLE dof_stats_alice;
SELECT count(*) AS salud_lexemes_seen FROM dof_term_stats WHERE collection = 'salud';
SELECT count(*) > 0 AS aduanas_lexemes_seen FROM dof_term_stats WHERE collection = 'aduanas';
SELECT (SELECT array_agg(chunk_id || ':' || round(text_score::numeric, 6) ORDER BY chunk_id) FROM dof_text_search('arancel', 5, 'aduanas'))
     = (SELECT array_agg(chunk_id || ':' || round(text_score::numeric, 6) ORDER BY chunk_id) FROM owner_scores) AS own_collection_scores_exact;
RESET ROLE;
DROP POLICY stats_by_collection ON dof_term_stats;
DROP POLICY stats_by_collection ON dof_collection_stats;
ALTER TABLE dof_term_stats DISABLE ROW LEVEL SECURITY;
ALTER TABLE dof_collection_stats DISABLE ROW LEVEL SECURITY;
REVOKE ALL ON dof_chunks, dof_collections, dof_documents, dof_term_stats, dof_collection_stats FROM dof_stats_alice;
DROP TABLE owner_scores;
DROP ROLE dof_stats_alice;
DROP ROLE dof_salud_readers;

-- the triggers fold a collection's deltas once it holds more than pg_dof.stats_fold_every
-- statements' (a user's own INSERTs, one document each, left a row per lexeme per document
-- that every search read): the rows stay bounded and the counts exact. Not with 0, not under
-- REPEATABLE READ, and not for a role that may not delete the statistics' rows, whose
-- statements still succeed
CREATE VIEW avisos_rows AS
SELECT (SELECT wrong FROM stats_errors) AS wrong,
       (SELECT count(*) FROM dof_collection_stats WHERE collection = 'avisos') AS statement_rows,
       (SELECT max(n) FROM (SELECT count(*) AS n FROM dof_term_stats WHERE collection = 'avisos' GROUP BY lexeme) r) AS most_rows_a_lexeme;
CREATE PROCEDURE insert_avisos(first integer, last integer) LANGUAGE plpgsql AS $$
BEGIN
    FOR g IN first..last LOOP  -- a statement per document
        INSERT INTO dof_documents (collection, source_id, body)
        VALUES ('avisos', 'v-' || g, format(E'# Aviso %s\n\nEl aviso de la aduana número %s.', g, g));
    END LOOP;
END
$$;
INSERT INTO dof_collections (name, model, late_chunking, max_tokens) VALUES ('avisos', 'hash-384', false, 32);
SET pg_dof.stats_fold_every = 3;
CALL insert_avisos(1, 10);
SELECT 'every 3 statements' AS step, * FROM avisos_rows;
SET pg_dof.stats_fold_every = 0;
CALL insert_avisos(11, 15);
SELECT 'never' AS step, * FROM avisos_rows;
SET pg_dof.stats_fold_every = 2147483647;  -- the most: counted up to without overflowing
CALL insert_avisos(25, 25);
SELECT 'at most' AS step, * FROM avisos_rows;
SET pg_dof.stats_fold_every = 3;
BEGIN ISOLATION LEVEL REPEATABLE READ;
CALL insert_avisos(16, 17);
SELECT 'repeatable read' AS step, * FROM avisos_rows;
COMMIT;
CALL insert_avisos(18, 18);
SELECT 'read committed again' AS step, * FROM avisos_rows;
CREATE ROLE dof_stats_writer;
GRANT SELECT, INSERT, UPDATE ON ALL TABLES IN SCHEMA public TO dof_stats_writer;
GRANT DELETE ON dof_documents, dof_chunks, dof_passages TO dof_stats_writer;
GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO dof_stats_writer;
SET ROLE dof_stats_writer;
CALL insert_avisos(19, 24);
RESET ROLE;
SELECT 'a role without DELETE on the statistics' AS step, * FROM avisos_rows;
REVOKE ALL ON ALL TABLES IN SCHEMA public FROM dof_stats_writer;
REVOKE ALL ON ALL SEQUENCES IN SCHEMA public FROM dof_stats_writer;
DROP ROLE dof_stats_writer;
SELECT dof_compact_stats('avisos') > 0 AS folded;
SELECT 'folded' AS step, * FROM avisos_rows;
RESET pg_dof.stats_fold_every;
DROP PROCEDURE insert_avisos(integer, integer);
DROP VIEW avisos_rows;
