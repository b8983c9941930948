-- The text leg: BM25 from exact per-collection statistics, 'any' vs 'all' matching, and the
-- Rust reader of stored tsvectors checked against PostgreSQL's own unnest(tsvector).
CREATE EXTENSION pg_dof CASCADE;
\set SHOW_CONTEXT never
SET client_min_messages = warning;
INSERT INTO dof_collections (name, model) VALUES ('ranking', 'hash-384');
-- "ley" is in every document, "aduana" in two, "arancel" in one: IDF must order them
INSERT INTO dof_documents (collection, source_id, body)
SELECT 'ranking', 'ley-' || g, format(E'# Ley número %s\n\nLa ley establece disposiciones generales de la ley federal número %s.', g, g)
FROM generate_series(1, 60) g;
INSERT INTO dof_documents (collection, source_id, body) VALUES
 ('ranking', 'aduana-1', E'# Aduanas\n\nLa ley aduanera regula la entrada de mercancías por la aduana y su arancel.'),
 ('ranking', 'aduana-2', E'# Comercio exterior\n\nTrámites en la aduana del puerto, conforme a la ley.'),
 ('ranking', 'aduana-3', E'# Aduana\n\nAduana, aduana y más aduana: una ley corta.');
ANALYZE dof_chunks;
-- a caller who may not see the statistics (pg_stats hides them) gets every IDF 1
CREATE ROLE regress_dof_no_stats;
SET ROLE regress_dof_no_stats;
SELECT lexemes, idfs, chunks FROM dof_bm25_terms(to_tsquery('spanish', 'ley & aduana'));
RESET ROLE;
DROP ROLE regress_dof_no_stats;
SELECT lexemes, idfs[1] > idfs[2] AS rare_weighs_more, chunks[1] < chunks[2] AS rare_in_fewer_chunks,
       round(average_length) > 0 AS has_length
FROM dof_bm25_terms(to_tsquery('spanish', 'ley & aduana'));
-- 'any' keeps the rarest lexemes within the budget of estimated matches; none fits: the query
SELECT dof_any_terms_query('a & b & c & d', '{a,b,c,d}', '{5,4,3.5,1}', '{10,100,1000,90000}', 150) AS within_150,
       dof_any_terms_query('a & b & c & d', '{a,b,c,d}', '{5,4,3.5,1}', '{10,100,1000,90000}', 1) AS within_1,
       dof_any_terms_query('a & b & c & d', '{a,b,c,d}', '{5,4,3.5,1}', '{10,100,1000,90000}') AS within_default,
       dof_any_terms_query('a & !b', '{a}', '{5}', '{10}') AS with_operators,
       dof_any_terms_query('a & b', '{a,b}', '{1,1}', NULL) AS no_statistics;

-- 'any' (default): chunks with a selective lexeme ("aduana"), BM25-ranked; the heading
-- match (weight A) and repeated term put aduana-3 first
SELECT d.source_id, t.rank FROM dof_text_search('ley aduana', 10, 'ranking') t
JOIN dof_chunks c ON c.id = t.chunk_id JOIN dof_documents d ON d.id = c.document_id ORDER BY t.rank;
-- a question in plain words: 'all' finds nothing, 'any' finds the answer
SELECT count(*) AS all_rows FROM dof_text_search('¿qué dice la ley sobre el arancel de mercancías?', 10, 'ranking', match_terms => 'all');
SELECT d.source_id, t.rank FROM dof_text_search('¿qué dice la ley sobre el arancel de mercancías?', 10, 'ranking') t
JOIN dof_chunks c ON c.id = t.chunk_id JOIN dof_documents d ON d.id = c.document_id ORDER BY t.rank;
-- only common lexemes: 'any' behaves as 'all'
SELECT count(*) AS rows FROM dof_text_search('ley federal', 100, 'ranking');
-- operators keep websearch semantics: a negation is honoured
SELECT count(*) AS rows FROM dof_text_search('aduana -puerto', 10, 'ranking');
-- ts_rank_cd is still available, over the same matches
SELECT count(*) AS rows, bool_and(text_score > 0) AS scored FROM dof_text_search('ley aduana', 10, 'ranking', ranking => 'ts_rank_cd');

-- BM25 is dof_core::bm25's (one owner): Lucene's k1 and b, a heading match counting twice,
-- Lucene's IDF (a NULL count or total gives NULL), ln 20 as the selective IDF
SELECT * FROM dof_bm25_parameters();
SELECT (SELECT bool_and(abs(i - e) < 1e-12)
        FROM unnest(dof_bm25_idfs('{1,100}', 100), ARRAY[ln(1 + 99.5 / 1.5), ln(1 + 0.5 / 100.5)]) u(i, e)) AS lucene_idf,
       (dof_bm25_idfs('{1,NULL}', 100))[2] IS NULL AS null_count, dof_bm25_idfs('{1}', NULL) AS null_total,
       dof_bm25_idfs(NULL, 100) AS no_counts, dof_bm25_selective_idf() = ln(20) AS selective_is_ln_20;
-- BM25 from the Rust tsvector reader equals BM25 computed in SQL from unnest(tsvector) with
-- those parameters, on every chunk, for stored (positions and weights) and stripped tsvectors
WITH q AS (SELECT * FROM dof_bm25_terms(to_tsquery('spanish', 'ley & aduana & arancel & mercancía'))),
p AS (SELECT * FROM dof_bm25_parameters()),
chunk_terms AS (
  SELECT c.id, c.token_count, c.tsv, u.lexeme,
         coalesce((SELECT sum(CASE WHEN w = 'A' THEN p.heading_weight ELSE 1 END) FROM unnest(u.weights) w), 1) AS tf
  FROM dof_chunks c CROSS JOIN p, unnest(c.tsv) u WHERE c.collection = 'ranking'),
by_sql AS (
  SELECT c.id, sum(t.idf * ct.tf * (p.k1 + 1) / (ct.tf + p.k1 * (1 - p.b + p.b * c.token_count / q.average_length))) AS score
  FROM dof_chunks c CROSS JOIN q CROSS JOIN p CROSS JOIN unnest(q.lexemes, q.idfs) t(lexeme, idf)
  JOIN chunk_terms ct ON ct.id = c.id AND ct.lexeme = t.lexeme
  WHERE c.collection = 'ranking' GROUP BY c.id)
SELECT count(*) AS chunks,
       count(s.id) AS scored,
       count(*) FILTER (WHERE abs(coalesce(s.score, 0) - dof_bm25_score_internal(c.tsv, c.token_count, q.lexemes, q.idfs, q.average_length)) > 1e-9) AS mismatches
FROM dof_chunks c CROSS JOIN q LEFT JOIN by_sql s ON s.id = c.id WHERE c.collection = 'ranking';
WITH q AS (SELECT * FROM dof_bm25_terms(to_tsquery('spanish', 'ley & aduana')))
SELECT count(*) FILTER (WHERE abs(dof_bm25_score_internal(strip(c.tsv), c.token_count, q.lexemes, q.idfs, NULL)
                                  - (SELECT sum(idf) FROM unnest(q.idfs) idf WHERE c.tsv @@ to_tsquery('spanish', 'ley & aduana'))) > 1e-9
                             AND c.tsv @@ to_tsquery('spanish', 'ley & aduana')) AS stripped_mismatches
FROM dof_chunks c CROSS JOIN q WHERE c.collection = 'ranking';

-- bad arguments
SELECT * FROM dof_text_search('ley', ranking => 'tf-idf');
SELECT * FROM dof_text_search('ley', match_terms => 'some');
SELECT * FROM dof_text_search(NULL);
SELECT * FROM dof_hybrid_search(NULL, collection => 'ranking');
-- with its vector given, the text leg still needs the query's words
SELECT * FROM dof_hybrid_search(NULL, collection => 'ranking', query_embedding => dof_embed_query('ley', (dof_collection('ranking')).model));
SELECT dof_embed_query(NULL) IS NULL AS null_in_null_out;
SELECT dof_bm25_score_internal(42, 1, '{a}', '{1}', NULL);
SELECT dof_bm25_score_internal('a:1'::tsvector, 1, '{a,b}', '{1}', NULL);
DELETE FROM dof_documents WHERE collection = 'ranking';
DELETE FROM dof_collections WHERE name = 'ranking';
