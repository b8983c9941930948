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
-- a selective lexeme no chunk holds matches nothing: the others are OR'ed without it, and
-- when no chunk holds a selective one, every lexeme a chunk holds, rarest first, within the
-- budget (only then: a common lexeme beside a held selective one only adds to the score)
SELECT dof_any_terms_query('a & b & c', '{a,b,c}', '{6,4,1}', '{0,10,100}') AS absent_rare_dropped,
       dof_any_terms_query('a & b & c', '{a,b,c}', '{6,2,1}', '{0,30,60}') AS none_selective_held,
       dof_any_terms_query('a & b & c', '{a,b,c}', '{6,2,1}', '{0,30,60}', 50) AS none_selective_within_50,
       dof_any_terms_query('a & b', '{a,b}', '{2,1}', '{3000,5000}') AS none_fits;
-- a phrase or an excluded word is what a match must hold beside those lexemes; an or, a
-- part the split on & cannot close (a lexeme holding " & ") or nothing within the budget
-- keeps the query itself
SELECT dof_any_terms_query('a & b & c <-> d', '{a,b,c,d}', '{5,4,3.5,1}', '{10,100,1000,90000}', 150) AS phrase,
       dof_any_terms_query('a & !( b <-> c ) & d & !e', '{a,d}', '{5,4}', '{10,100}') AS excluded,
       dof_any_terms_query('a | b & c', '{a,b,c}', '{5,4,3.5}', '{10,100,1000}') AS with_or;
SELECT dof_any_terms_query($$'x & y' & z <-> w$$, '{x & y,z,w}', '{5,4,3}', '{10,100,1000}') AS unsplittable,
       dof_any_terms_query('a & b <-> c', '{a,b,c}', '{5,4,3}', '{3000,5000,6000}') AS phrase_none_fits;

-- 'any' (default), BM25-ranked: in 63 chunks no lexeme is selective ("aduana" is in 3), so
-- chunks with any of them: the aduana notices first (the heading match, weight A, and the
-- repeated term put aduana-3 first), then the chunks with "ley" alone
SELECT d.source_id, t.rank FROM dof_text_search('ley aduana', 10, 'ranking') t
JOIN dof_chunks c ON c.id = t.chunk_id JOIN dof_documents d ON d.id = c.document_id ORDER BY t.rank;
-- a question in plain words: 'all' finds nothing, 'any' finds the answer
SELECT count(*) AS all_rows FROM dof_text_search('¿qué dice la ley sobre el arancel de mercancías?', 10, 'ranking', match_terms => 'all');
SELECT d.source_id, t.rank FROM dof_text_search('¿qué dice la ley sobre el arancel de mercancías?', 10, 'ranking') t
JOIN dof_chunks c ON c.id = t.chunk_id JOIN dof_documents d ON d.id = c.document_id ORDER BY t.rank;
-- only common lexemes: any of them, within the budget ("ley" is in the 63 chunks, "federal"
-- in 60; every word in one chunk found 60)
SELECT count(*) AS rows FROM dof_text_search('ley federal', 100, 'ranking');
-- a rare word no chunk holds (a typo, a word of another text) does not leave the query
-- unmatched: it found nothing when the absent word was the only selective one
SELECT count(*) AS rows FROM dof_text_search('ley federal pesquería', 100, 'ranking');
-- operators keep websearch semantics: a negation is honoured
SELECT count(*) AS rows FROM dof_text_search('aduana -puerto', 10, 'ranking');
-- a quoted phrase, or an excluded word, beside a word no chunk holds: the chunks with the
-- phrase (without the word), ranked by every word; the query itself (every word in one
-- chunk, 'all') finds nothing
SELECT d.source_id, t.rank FROM dof_text_search('¿qué regula la ley de "entrada de mercancías" en pesquería?', 10, 'ranking') t
JOIN dof_chunks c ON c.id = t.chunk_id JOIN dof_documents d ON d.id = c.document_id ORDER BY t.rank;
SELECT count(*) AS all_rows FROM dof_text_search('¿qué regula la ley de "entrada de mercancías" en pesquería?', 10, 'ranking', match_terms => 'all');
SELECT d.source_id, t.rank FROM dof_text_search('aduana pesquería -puerto', 10, 'ranking') t
JOIN dof_chunks c ON c.id = t.chunk_id JOIN dof_documents d ON d.id = c.document_id ORDER BY t.rank;
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

-- Neighbouring words: the text leg scores BM25 plus, for each two neighbouring words of the
-- query that a chunk has as neighbours at the same distance, dof_bm25_pair_weight() (0.5)
-- x their mean IDF. Two
-- chunks with the same words, one saying "protección de datos personales": it comes first
-- (a third has two of the words together)
INSERT INTO dof_documents (collection, source_id, body) VALUES
 ('ranking', 'datos-juntos', E'# Registro\n\nProtección de datos personales en la aduana: la aduana los garantiza.'),
 ('ranking', 'datos-sueltos', E'# Registro\n\nPersonales son los datos que la aduana da en protección a la aduana.'),
 ('ranking', 'datos-parte', E'# Registro\n\nLos datos personales del registro.');
SELECT d.source_id, t.rank FROM dof_text_search('protección de datos personales', 10, 'ranking') t
JOIN dof_chunks c ON c.id = t.chunk_id JOIN dof_documents d ON d.id = c.document_id ORDER BY t.rank;
-- The query's words together: dof_bm25_window()'s weight (0.25) x the most IDF of distinct
-- query words within its 30 positions. Two chunks with the same words and no pair of
-- them as neighbours, the same length, so the same BM25 (the one stored first would rank
-- first on the tie): the one with them in one sentence comes first, the one with them
-- spread over 70 positions second
INSERT INTO dof_documents (collection, source_id, body) VALUES
 ('ranking', 'ventana-suelta', E'# Trámite\n\nLa devolución del impuesto se pide ' || repeat('otro texto sin relación alguna con nada ', 4)
                               || 'en la aduana ' || repeat('otro texto sin relación alguna con nada ', 4) || 'dentro del plazo');
INSERT INTO dof_documents (collection, source_id, body) VALUES
 ('ranking', 'ventana-junta', E'# Trámite\n\nLa devolución del impuesto se pide en la aduana dentro del plazo '
                              || repeat('otro texto sin relación alguna con nada ', 8));
SELECT * FROM dof_bm25_window();
WITH q AS (SELECT * FROM dof_bm25_terms(dof_query_tsquery('spanish', 'devolución aduana plazo'), 'ranking'))
SELECT d.source_id, t.rank,
       rank() OVER (ORDER BY dof_bm25_score_internal(c.tsv, c.token_count, q.lexemes, q.idfs, q.average_length) DESC) AS bm25_alone_rank
FROM dof_text_search('devolución aduana plazo', 10, 'ranking') t CROSS JOIN q
JOIN dof_chunks c ON c.id = t.chunk_id JOIN dof_documents d ON d.id = c.document_id
WHERE d.source_id LIKE 'ventana-%' ORDER BY t.rank;
-- on every chunk, the score equals BM25 plus the pairs PostgreSQL's own phrase operator
-- finds (protección <2> datos, datos <1> personales, personales <3> aduana) plus the best
-- window, every window that starts at a query word's position tried; a NULL query vector
-- (or a stripped tsvector, which has no positions) scores BM25 alone
WITH q AS (SELECT b.*, dof_query_vector('spanish', 'protección de datos personales en la aduana') AS qv
           FROM dof_bm25_terms(dof_query_tsquery('spanish', 'protección de datos personales en la aduana'), 'ranking') b),
words AS (SELECT u.lexeme, p AS position FROM q, unnest(q.qv) u, unnest(u.positions) p),
pairs AS (SELECT DISTINCT first, second, gap
          FROM (SELECT lexeme AS first, lead(lexeme) OVER (ORDER BY position) AS second,
                       lead(position) OVER (ORDER BY position) - position AS gap FROM words) w
          WHERE second IS NOT NULL AND second <> first),
idf AS (SELECT t.lexeme, t.idf FROM q, unnest(q.lexemes, q.idfs) t(lexeme, idf)),
windows AS (
  SELECT c.id, max((SELECT sum(i.idf) FROM idf i JOIN unnest(c.tsv) u ON u.lexeme = i.lexeme
                    WHERE EXISTS (SELECT FROM unnest(u.positions) x WHERE x >= s.start AND x < s.start + w.positions))) AS best
  FROM dof_chunks c CROSS JOIN dof_bm25_window() w,
       LATERAL (SELECT x AS start FROM idf i JOIN unnest(c.tsv) u ON u.lexeme = i.lexeme, unnest(u.positions) x) s
  WHERE c.collection = 'ranking' GROUP BY c.id),
expected AS (
  SELECT c.id, dof_bm25_score_internal(c.tsv, c.token_count, q.lexemes, q.idfs, q.average_length)
               + coalesce((SELECT sum(dof_bm25_pair_weight() * (f.idf + s.idf) / 2) FROM pairs p JOIN idf f ON f.lexeme = p.first JOIN idf s ON s.lexeme = p.second
                           WHERE c.tsv @@ tsquery_phrase(quote_literal(p.first)::tsquery, quote_literal(p.second)::tsquery, p.gap)), 0)
               + coalesce((SELECT w.weight * x.best FROM dof_bm25_window() w, windows x WHERE x.id = c.id), 0) AS score,
         (SELECT x.best FROM windows x WHERE x.id = c.id) AS window_idf,
         (SELECT count(*) FROM pairs p WHERE c.tsv @@ tsquery_phrase(quote_literal(p.first)::tsquery, quote_literal(p.second)::tsquery, p.gap)) AS pairs
  FROM dof_chunks c CROSS JOIN q WHERE c.collection = 'ranking')
SELECT dof_bm25_pair_weight() AS pair_weight, (SELECT string_agg(format('%s <%s> %s', first, gap, second), ', ' ORDER BY first) FROM pairs) AS query_pairs,
       count(*) AS chunks, count(*) FILTER (WHERE e.pairs > 0) AS with_pairs,
       count(*) FILTER (WHERE e.window_idf > (SELECT max(idf) FROM idf)) AS with_two_words_together,
       count(*) FILTER (WHERE abs(e.score - dof_text_score_internal(c.tsv, c.token_count, q.lexemes, q.idfs, q.average_length, q.qv)) > 1e-9) AS mismatches,
       count(*) FILTER (WHERE dof_text_score_internal(c.tsv, c.token_count, q.lexemes, q.idfs, q.average_length, NULL)
                              <> dof_bm25_score_internal(c.tsv, c.token_count, q.lexemes, q.idfs, q.average_length)) AS null_vector_not_bm25,
       count(*) FILTER (WHERE dof_text_score_internal(strip(c.tsv), c.token_count, q.lexemes, q.idfs, q.average_length, q.qv)
                              <> dof_bm25_score_internal(strip(c.tsv), c.token_count, q.lexemes, q.idfs, q.average_length)) AS stripped_not_bm25
FROM dof_chunks c CROSS JOIN q JOIN expected e ON e.id = c.id WHERE c.collection = 'ranking';
-- the query's words as the text leg reads them: a hyphen inside a word separates words
SELECT dof_query_words('NOM-035-STPS-2018 y DS-092') AS words, dof_query_vector('spanish', 'NOM-035-STPS-2018') AS vector;
-- a dash between spaces separates words (titles, ranges); -word still excludes
SELECT dof_query_tsquery('spanish', 'plan 2017 - 2022') AS spaced_dash, dof_query_tsquery('spanish', 'Ley 28804 -- ley que regula') AS two_dashes,
       dof_query_tsquery('spanish', 'ley -derogada') AS negation, dof_query_tsquery('spanish', '"ley 28804" - reglamento') AS quoted;
-- the words a question frames itself with that the Spanish stop list lacks once unaccented
-- (según, tras, hacia, mediante, cuánto, cuáles, adónde) are not searched for, in any case;
-- words that hold them (extras, cuantía) are, and so is a quoted phrase as written
SELECT dof_query_stopwords('¿Cuántos días, SEGÚN el convenio, tras la firma? Hacia, MEDIANTE, cuánta, CUÁNTO; ¿Cuáles? ¿ADÓNDE? extras, cuantía') AS blanked;
SELECT dof_query_tsquery('dof_spanish', '¿Qué objeto tiene el convenio según la ley?') AS unquoted,
       dof_query_vector('dof_spanish', '¿Cuántos días tras la firma?') AS vector,
       dof_query_tsquery('dof_spanish', '"según el convenio"') AS quoted;
-- outside double quotes a query's words are read as any query's, inside as written
SELECT dof_query_tsquery('dof_spanish', 'DS-092-2002-EF "NOM-035-STPS" según "setiembre" 12/04/2024') AS quoted_and_not,
       dof_query_phrases('DS-092 "NOM-035 según" según') AS phrases;

-- bad arguments
SELECT * FROM dof_text_search('ley', ranking => 'tf-idf');
SELECT * FROM dof_text_search('ley', match_terms => 'some');
SELECT * FROM dof_text_search(NULL);
SELECT * FROM dof_hybrid_search(NULL, collection => 'ranking');
-- with its vector given, the text leg still needs the query's words
SELECT * FROM dof_hybrid_search(NULL, collection => 'ranking', query_embedding => dof_embed_query('ley', (dof_collection('ranking')).model));
-- an empty query, or one of blanks, is refused by every search: embedded, it would list k
-- arbitrary chunks with scores
SELECT * FROM dof_text_search('', collection => 'ranking');
SELECT * FROM dof_vector_search(E' \t\n', collection => 'ranking');
SELECT * FROM dof_hybrid_search('   ', collection => 'ranking');
SELECT * FROM dof_hybrid_search('', collection => 'ranking', query_embedding => dof_embed_query('ley', (dof_collection('ranking')).model));
-- with its vector given, the vector leg needs no text
SELECT count(*) > 0 AS found FROM dof_vector_search('', collection => 'ranking', query_embedding => dof_embed_query('ley', (dof_collection('ranking')).model));
-- a query of stopwords alone is not empty: the text leg finds nothing, the vector leg still answers
SELECT count(*) AS text_rows FROM dof_text_search('de la', collection => 'ranking');
SELECT count(*) > 0 AS hybrid_found FROM dof_hybrid_search('de la', collection => 'ranking');
-- a query whose words are all excluded, or an or with an exclusion, names nothing to find:
-- it matched nearly every chunk, each with score 0, and listed k arbitrary ones; a word to
-- find with it, or the dash in double quotes, is a search
SELECT * FROM dof_text_search('-ley', collection => 'ranking');
SELECT * FROM dof_hybrid_search('-ley -aduana', collection => 'ranking');
SELECT * FROM dof_text_search('aduana or -ley', collection => 'ranking');
SELECT (SELECT count(*) FROM dof_text_search('aduana', collection => 'ranking'))
       - (SELECT count(*) FROM dof_text_search('aduana -arancel', collection => 'ranking')) AS left_out_by_arancel,
       (SELECT count(*) FROM dof_text_search('aduana -arancel', collection => 'ranking')) AS aduana_without_arancel;
SELECT count(*) > 0 AS quoted_dash_found FROM dof_text_search('"-ley"', collection => 'ranking');
-- a long query: its error quotes its first 100 characters, not the whole query
SELECT * FROM dof_text_search(repeat('-ley ', 1000), collection => 'ranking');
-- over the bytes a search reads (64 KB), every search refuses the query before it parses
-- it (the text leg took any length: 900 KB spent 42 s in dof_query_tsquery); under it, a
-- query of more words and operators than dof_query_max_nodes() is refused too (20,000
-- words failed with "stack depth limit exceeded" in querytree()), and one under both is
-- searched
SELECT * FROM dof_text_search(repeat('ab ', 30000), collection => 'ranking');
SELECT * FROM dof_vector_search(repeat('ab ', 30000), collection => 'ranking');
SELECT * FROM dof_hybrid_search(repeat('ab ', 20000), collection => 'ranking');
SELECT * FROM dof_text_search(repeat('1-', 30000), collection => 'ranking');
SELECT dof_query_max_nodes() AS max_nodes,
       numnode(dof_query_tsquery('dof_spanish', repeat('aduana ', 8192))) AS nodes_of_8192_words,
       (SELECT count(*) FROM dof_text_search(repeat('aduana ', 8192), collection => 'ranking')) > 0 AS found_8192_words;
SELECT * FROM dof_text_search(repeat('aduana ', 8193), collection => 'ranking');
-- dashes in a row: each was a "not" waiting for its word, and 32 of them (together, or with
-- blanks or the characters websearch skips between) failed inside PostgreSQL with "tsquery
-- stack too small"; now two or more together separate words, and of a run only the last
-- dash may exclude
SELECT q AS query, dof_query_tsquery('dof_spanish', q) AS terms
FROM (VALUES ('aduana--arancel'), ('aduana ' || repeat('-', 40) || 'arancel'), ('aduana ' || repeat('-(', 40) || 'arancel'),
             ('aduana ' || repeat('- !', 40) || 'arancel'), ('aduana -- -arancel'), ('"aduana ' || repeat('-', 40) || 'arancel"')) v(q);
SELECT count(*) > 0 AS run_of_dashes_searched FROM dof_text_search('aduana ' || repeat('-', 40) || 'arancel', collection => 'ranking');
-- runs of 1 to 80 dashes, each followed by nothing, a blank, a character websearch skips,
-- a dot, a quote, a word or an "or": none may fail to parse (the previous rule failed on 23)
CREATE FUNCTION pg_temp.tsquery_parses(query text) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
    PERFORM dof_query_tsquery('dof_spanish', query);
    RETURN true;
EXCEPTION WHEN OTHERS THEN
    RETURN false;
END
$$;
SELECT count(*) AS generated_runs, count(*) FILTER (WHERE NOT parsed) AS failed
FROM (SELECT i, pg_temp.tsquery_parses('aduana ' || string_agg('-' || (ARRAY['', ' ', '(', '!', '&', '|', '<', ')', '  ', '.', '"', 'a', ' or '])[1 + (i * 7 + j * 13 + i * j) % 13], '' ORDER BY j) || 'arancel') AS parsed
      FROM generate_series(1, 500) i, LATERAL generate_series(1, 1 + i % 80) j GROUP BY i) runs;
-- a filter that is not a JSON object, or a query vector of another dimension than the
-- collection's model's, matched nothing and returned no row: now each is an error
SELECT * FROM dof_hybrid_search('ley', collection => 'ranking', filter => '[1]');
SELECT * FROM dof_text_search('ley', collection => 'ranking', filter => '"vigente"');
SELECT * FROM dof_vector_search('ley', collection => 'ranking', filter => 'null');
SELECT count(*) AS empty_object_filters_nothing FROM dof_text_search('ley', collection => 'ranking', filter => '{}');
SELECT * FROM dof_hybrid_search('ley', collection => 'ranking', query_embedding => '[1,2,3]');
SELECT * FROM dof_vector_search(NULL, collection => 'ranking', query_embedding => '[1,2,3]');
SELECT dof_embed_query(NULL) IS NULL AS null_in_null_out;
SELECT dof_bm25_score_internal(42, 1, '{a}', '{1}', NULL);
SELECT dof_bm25_score_internal('a:1'::tsvector, 1, '{a,b}', '{1}', NULL);
SELECT dof_text_score_internal(42, 1, '{a}', '{1}', NULL, 7);
SELECT dof_text_score_internal('a:1'::tsvector, 1, '{a,b}', '{1}', NULL, 'a:1 b:2'::tsvector);
DELETE FROM dof_documents WHERE collection = 'ranking';
DELETE FROM dof_collections WHERE name = 'ranking';
