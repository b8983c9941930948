-- pg_dof 0.2.0 -> 0.3.0 (ALTER EXTENSION pg_dof UPDATE TO '0.3.0').
-- Every statement here leaves the catalog as a fresh 0.3.0 install has it; the upgrade
-- test (tests/integration/upgrade.sh) checks that and that stored documents stay searchable.
-- Stored documents and embeddings are not touched; the tsvectors of chunks with a signed
-- number (below) are rebuilt. Needs dict_int (contrib): CREATE EXTENSION dict_int first.
\echo Use "ALTER EXTENSION pg_dof UPDATE TO '0.3.0'" to load this file. \quit

-- Identifiers match however they are typed: the -035 of NOM-035-STPS-2018 is 035.
CREATE TEXT SEARCH DICTIONARY dof_integer (TEMPLATE = intdict_template, MAXLEN = 32, ABSVAL = true);
COMMENT ON TEXT SEARCH DICTIONARY dof_integer IS
    'Integers without their sign (dict_int, absval): the -035 of NOM-035-STPS-2018 is indexed and searched as 035';
ALTER TEXT SEARCH CONFIGURATION dof_spanish ALTER MAPPING FOR int, uint WITH dof_integer;
COMMENT ON TEXT SEARCH CONFIGURATION dof_spanish IS
    'Spanish without accents: unaccent, then the Spanish stemmer; numbers without their sign (dof_integer), so NOM-035-STPS-2018 and "nom 035 stps 2018" match (the default text_search_config of collections)';

DROP FUNCTION dof_chunk_tsvector(regconfig, text[], text);
-- A tsvector has no constructor with positions but its text form, so lexemes added at
-- another lexeme's positions (dof_word_parts, dof_number_variants, dof_spelling_variants,
-- dof_article_numbers) are written as entries ('lexeme':3A,7B) and added to the tsvector by
-- dof_tsvector_add, which reads its text and theirs back as one; entries for the same
-- lexeme merge.
CREATE FUNCTION dof_tsvector_entry(lexeme text, positions smallint[], weights text[]) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    RETURN '''' || replace(replace(lexeme, '\', '\\'), '''', '''''') || ''''
           || coalesce(':' || (SELECT string_agg(p.position || p.weight, ',') FROM unnest(positions, weights) AS p(position, weight)), '');
COMMENT ON FUNCTION dof_tsvector_entry(text, smallint[], text[]) IS 'One lexeme with its positions and weights (as unnest(tsvector) gives them) in a tsvector''s text form, ''lexeme'':3A,7B: the entries dof_tsvector_add adds';
-- The tsvector with the entries (dof_tsvector_entry, separated by spaces) added; NULL entries
-- (a rule that adds nothing to this chunk) leave it as it is.
CREATE FUNCTION dof_tsvector_add(tsv tsvector, entries text) RETURNS tsvector
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    RETURN coalesce((tsv::text || ' ' || entries)::tsvector, tsv);
COMMENT ON FUNCTION dof_tsvector_add(tsvector, text) IS 'A tsvector with entries in its text form (dof_tsvector_entry, separated by spaces) added, a lexeme''s positions merged; NULL entries add nothing: how dof_word_parts, dof_number_variants, dof_spelling_variants and dof_article_numbers add lexemes at another''s positions';

-- Spanish words with two spellings the RAE accepts, written the one way: Peru's laws date
-- "30 de setiembre" and number "Sétima Disposición Complementaria Final" (206 and 155 times
-- in the shared legalize-pe sample, against 289 and 110 in the other spelling), Mexico's DOF
-- writes septiembre and séptima, and a user types either. setiembre and sétimo/sétima (and
-- their stems setiembr, setim) become septiembre and séptimo/séptima. A query's words are
-- read with it (dof_query_words, and a query's quoted phrases in dof_query_tsquery), and a
-- stored chunk's lexemes are also indexed in it (dof_spelling_variants), so either spelling
-- finds both. Lookups built from the mixed set's dates and ordinals, typed in the other
-- spelling: hybrid MRR@10 0.116 -> 0.820 (dates, 44) and 0.565 -> 0.833 (ordinals, 12);
-- every set's own questions unchanged (docs/measurements.md, "Two spellings of one word").
-- É is named: a database whose ctype is C folds the case of ASCII letters only.
CREATE FUNCTION dof_spelling(words text) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    RETURN regexp_replace(words, '\m(s[eéÉ])(t(?:iembr|im))', '\1p\2', 'gi');
COMMENT ON FUNCTION dof_spelling(text) IS 'Words with two accepted Spanish spellings written the one way: setiembre as septiembre, sétimo and sétima as séptimo and séptima (their lexemes setiembr and setim as septiembr and septim); how dof_query_words reads a query and dof_spelling_variants indexes a chunk';

-- A date written in figures is read as its words: day/month/year with slashes, dots or
-- hyphens (12/04/2024, 12.04.2024, 12-04-2024) and year-month-day (2024-04-12) become "12 de
-- abril de 2024", as the laws and the DOF write most dates (5,875 times in the shared
-- corpora, against 2,314 with slashes and 436 with dots), so either form finds the other: a
-- query's words are read with it (dof_query_words), and so is a stored chunk's date joined by
-- slashes or dots (dof_word_parts), which keeps the date as written. A month over 12 is no
-- date, and so are figures inside a longer identifier (02-31-01-2020, 05-12-2019-EF). A
-- day's leading zero goes (05/03/2021 is 5 de marzo): a query's numbers are read as typed,
-- and 05 does not match the 5 of "5 de marzo". The month's name goes in place of its figure:
-- kept beside it, the figure matched every other date of that month ("12/09/2013" typed for
-- "12 de setiembre de 2013": 0.517 against 0.768). A date joined by dots, which the parser
-- reads as one word (a version number), is kept before its words: a body that writes it so
-- matches it whole (replaced, the dotted dates as written fell, hybrid 0.722 -> 0.653, their
-- words common to other dates). The mixed set's
-- dates in words typed in figures: hybrid MRR@10 0.207 -> 0.774; in figures typed in words
-- 0.274 -> 0.753; every set's own questions unchanged (docs/measurements.md, "A date in
-- figures or in words"). The month's figure is marked with U+0001 and named after the split
-- (a query's own U+0001 is a space first). Each form is built from the same pieces: a date
-- opens and closes where no identifier goes on (open, close), a day, a month (two figures in
-- ISO's form) and a year.
CREATE FUNCTION dof_date_words(words text) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    RETURN (SELECT string_agg(CASE WHEN t.i % 2 = 0
                                   THEN (ARRAY['enero', 'febrero', 'marzo', 'abril', 'mayo', 'junio', 'julio', 'agosto', 'septiembre',
                                               'octubre', 'noviembre', 'diciembre'])[t.part::integer]
                                   ELSE t.part END, '' ORDER BY t.i)
            FROM (SELECT '(?<![[:alnum:]][-/.])\m' AS open, '\M(?![-/.][[:alnum:]])' AS close,
                         '0?([1-9]|[12][0-9]|3[01])' AS day, '(0?[1-9]|1[0-2])' AS month, '([12][0-9]{3})' AS year) p,
                 regexp_split_to_table(
                     regexp_replace(regexp_replace(regexp_replace(replace(words, E'\x01', ' '),
                                                                  p.open || p.year || '-(0[1-9]|1[0-2])-' || p.day || p.close,
                                                                  E'\\3 de \x01\\2\x01 de \\1', 'g'),
                                                   p.open || p.day || '[/-]' || p.month || '[/-]' || p.year || p.close,
                                                   E'\\1 de \x01\\2\x01 de \\3', 'g'),
                                    p.open || p.day || '\.' || p.month || '\.' || p.year || p.close,
                                    E'\\& \\1 de \x01\\2\x01 de \\3', 'g'),
                     E'\x01') WITH ORDINALITY AS t(part, i));
COMMENT ON FUNCTION dof_date_words(text) IS 'Text with each date written in figures (12/04/2024, 12.04.2024, 12-04-2024, 2024-04-12; day, month, year, or ISO''s year, month, day) as its words, 12 de abril de 2024: how dof_query_words reads a query and dof_word_parts a stored date joined by slashes or dots, so a date typed either way finds the other';

-- The words of a search: a hyphen or a slash between letters or digits separates words, and
-- so does a dot after a letter or before one (D.S., G.R.PASCO; not 4.1 or 1.500.000).
-- PostgreSQL's parser reads DS-092-2002-EF as the phrase 'ds' <-> '092' <-> '2002' <-> 'ef'
-- (which a body saying "Nº 092-2002-EF" fails), and GR CUSCO/GR, INE/CG280/2024,
-- 097-2024-G.R.PASCO/CR or 12/04/2024 as one lexeme each (a path, a URL, a host), which
-- "cusco gr" or the front matter's identifier 097-2024-GR-PASCO-CR does not match. A
-- number glued to its number sign (Nº27056, which the parser reads as one word, as it reads
-- º as a letter) is followed by the number alone: a body that spaces it ("Nº 27056") is
-- found, and one that glues it too still matches the word as typed (left out, the glued
-- word no longer told that body apart: lookups as written, text 0.929 -> 0.345 on the
-- mixed-long set). A date in figures is read as its words (dof_date_words), and a word
-- with two spellings in the one (dof_spelling). A query is read with this rule
-- (dof_query_tsquery, dof_query_vector), and so are a stored chunk's joined lexemes
-- (dof_word_parts): identifiers match however they are typed.
CREATE FUNCTION dof_query_words(query text) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    RETURN dof_spelling(regexp_replace(regexp_replace(regexp_replace(regexp_replace(regexp_replace(dof_date_words(query), '(^|[^[:alnum:]])([Nn]º)([0-9]+)', '\1\2\3 \3', 'g'),
                                                                                    '°(?=[[:digit:]])', '° ', 'g'),
                                                                     '([,;])(?=[[:alpha:]])|([[:alpha:]][,;])(?=[[:digit:]])', '\1\2 ', 'g'),
                                                      '([[:alnum:]])(?:-|/+)(?=[[:alnum:]])', '\1 ', 'g'),
                                       '([[:alpha:]])\.(?=[[:alnum:]])|([[:digit:]])\.(?=[[:alpha:]])', '\1\2 ', 'g'));
COMMENT ON FUNCTION dof_query_words(text) IS 'A search''s words as the text leg reads them: a hyphen or slash between letters or digits, and a dot after or before a letter, separates words (DS-092-2002-EF is ds 092 2002 ef, GR CUSCO/GR is gr cusco gr, G.R.PASCO is g r pasco), a number glued to its number sign is followed by the number alone (Nº27056 is Nº27056 27056) and one glued to a degree sign is spaced (N°27056 is N° 27056), as are words joined by a comma or semicolon without a space (vedas,camaron is vedas, camaron; 1,500 stays), a date in figures is its words (dof_date_words: 12/04/2024 is 12 de abril de 2024), and words with two spellings are written the one way (dof_spelling: setiembre is septiembre); a query and a stored chunk''s joined lexemes (dof_word_parts) are read alike';

-- A lexeme that joins words with a slash or a dot (cusco/gr, ine/cg280/2024,
-- 097-2024-g.r.pasco/cr, the URL path /grl) is also indexed as the words dof_query_words
-- makes of it, at its positions and weights, so a query typed with spaces, hyphens or the
-- same slashes finds it (a query's slashes and dots separate its words too; split there
-- alone, without the parts here, the identifiers typed with them lost: text 0.827 ->
-- 0.744). The joined lexeme stays: a query in double quotes matches it as written. The
-- mixed set's 40 questions holding such an identifier as written: hybrid MRR@10 0.946 ->
-- 0.975, text 0.831 -> 0.931, the other 540 0.953 -> 0.952; the PDF converters' DOF
-- editions lose a little, their file numbers' and URLs' words now counted (docling's
-- hybrid 0.768 -> 0.760; docs/measurements.md, "Identifiers joined by slashes and dots").
-- So is a date joined by dots (12.04.2024, which the parser reads as a version number):
-- whether figures joined by dots are a date, and its words, are dof_date_words' to say.
CREATE FUNCTION dof_word_parts(config regconfig, tsv tsvector) RETURNS tsvector
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    RETURN dof_tsvector_add(tsv, (SELECT string_agg(dof_tsvector_entry(w.lexeme, u.positions, u.weights), ' ')
                                  FROM unnest(tsv) u, unnest(to_tsvector(config, dof_query_words(btrim(u.lexeme, '/.')))) w
                                  WHERE (u.lexeme ~ '/|[[:alpha:]]\.|\.[[:alpha:]]'
                                         OR (u.lexeme ~ '^[0-9]+\.[0-9]+\.[0-9]+$' AND dof_date_words(u.lexeme) <> u.lexeme))
                                    AND w.lexeme <> u.lexeme));
COMMENT ON FUNCTION dof_word_parts(regconfig, tsvector) IS 'A tsvector with each lexeme that joins words with a slash or a dot (cusco/gr, 12/04/2024, g.r.pasco, a date such as 12.04.2024) also as the words dof_query_words makes of it in the given configuration, at the same positions and weights: what dof_chunk_tsvector stores, so an identifier typed with spaces or hyphens matches';

-- Numbers however they are typed, zeros first or not: the Nº 092-2002-EF of a decree, the
-- 0004 of an ordinance and the 08 of "08 de abril" are also indexed as 92, 4 and 8, at the
-- same positions (so neighbouring words stay neighbours). The query is read as typed: "ds
-- 92 2002 ef" finds the decree, and "0004" still matches only 0004 (stripped on the
-- query's side too, it matched every 4 and a padded number lost its rarity: an ordinance
-- "nro 0004" fell out of the first ten). The variants are added (dof_tsvector_add) only in
-- chunks holding such a number.
-- Typed without their zeros, the mixed set's 194 questions with a padded number found
-- their passage at hybrid MRR@10 0.900 -> 0.967, every question as typed unchanged
-- (docs/measurements.md, "Numbers typed without their zeros"). So is a number with an
-- ordinal sign, which the parser reads as a word of its own: Peru's "Artículo 1º.-", the
-- DOF's "Artículo 5o.", 2da, 10A are also indexed as 1, 5, 2 and 10, and "articulo 1 ley
-- 27785" finds the article (article lookups built from the mixed set's laws, typed without
-- the sign: hybrid 0.524 -> 0.825; every set's own questions unchanged; "Ordinal numbers
-- typed as numbers"). And a number glued to its number sign, which the parser reads as one
-- word (Nº27056, as 26 times in the shared corpora), is also indexed as the number: 27056.
CREATE FUNCTION dof_number_variants(tsv tsvector) RETURNS tsvector
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    RETURN dof_tsvector_add(tsv, (SELECT string_agg(DISTINCT dof_tsvector_entry(n.number, u.positions, u.weights), ' ')
                                  FROM unnest(tsv) u,
                                       LATERAL (SELECT regexp_replace(u.lexeme, '^nº', '') AS bare) b,
                                       LATERAL (VALUES (b.bare),
                                                       (regexp_replace(regexp_replace(b.bare, '(º|ª|o|a|er|ero|era|ro|ra|do|da|to|ta|vo|va|no|na|mo|ma)$', ''),
                                                                       '^0+([0-9])', '\1'))) n(number)
                                  WHERE b.bare ~ '^[0-9]' AND n.number ~ '^[0-9]+$' AND n.number <> u.lexeme));
COMMENT ON FUNCTION dof_number_variants(tsvector) IS 'A tsvector with each number written with leading zeros, an ordinal sign or a number sign glued before it also as the number alone, at the same positions and weights (0092 also as 92, 1º as 1, 5o as 5, nº27056 as 27056): what dof_chunk_tsvector stores, so a number typed without its zeros or its sign matches';

-- A chunk's lexemes in a spelling dof_spelling writes the other way (setiembr, setim) are
-- also indexed in that spelling (septiembr, septim), at the same positions and weights; the
-- lexeme as written stays.
CREATE FUNCTION dof_spelling_variants(tsv tsvector) RETURNS tsvector
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    RETURN dof_tsvector_add(tsv, (SELECT string_agg(dof_tsvector_entry(s.lexeme, u.positions, u.weights), ' ')
                                  FROM unnest(tsv) u, LATERAL (SELECT dof_spelling(u.lexeme) AS lexeme) s
                                  WHERE s.lexeme <> u.lexeme));
COMMENT ON FUNCTION dof_spelling_variants(tsvector) IS 'A tsvector with each lexeme that dof_spelling writes another way (setiembr, setim) also in that spelling (septiembr, septim), at the same positions and weights: what dof_chunk_tsvector stores, so a query in either spelling matches';

-- An article numbered in words ("ARTÍCULO PRIMERO.-", as Peru's regional agreements and
-- ordinances and the DOF's decrees number their own) is also indexed as the figure, and one
-- numbered in figures ("Artículo 1.-", "Artículo 1º.-") also as the word, at the same
-- position and weight: "acuerdo 2448-2025 artículo 1" finds "ARTÍCULO PRIMERO" and
-- "ley 27683 artículo primero" finds "Artículo 1.-". Only a document's own articles, those
-- that open a line (after markdown's marks) or a heading: a citation inside a sentence ("el
-- artículo 2 de la Ley 27867") keeps its one form; given to every "artículo N" instead,
-- "artículo segundo" of an agreement found the citations of its preamble (lookups as
-- written, hybrid 0.946 -> 0.868 on the mixed set). One to nine, in the Spanish stemmer's
-- lexemes (sétimo is séptimo: dof_spelling); compound ordinals (décimo primero) are left
-- alone. Lookups built from the mixed set's own articles, typed the other way: hybrid MRR@10
-- 0.440 -> 0.829 (words typed as figures, 307) and 0.399 -> 0.893 (figures typed as words,
-- 111); as written 0.972 -> 0.967 and 0.778 -> 0.752, where a document numbers its own
-- articles both ways (an ordinance and its annexed rules); every set's own questions
-- unchanged (docs/measurements.md, "An article's number in words and in figures").
CREATE FUNCTION dof_article_numbers(config regconfig, tsv tsvector, heading_path text[], content text) RETURNS tsvector
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    RETURN dof_tsvector_add(tsv, (
        WITH pair(figure, word) AS (VALUES ('1', 'primer'), ('2', 'segund'), ('3', 'tercer'), ('4', 'cuart'), ('5', 'quint'),
                                           ('6', 'sext'), ('7', 'septim'), ('8', 'octav'), ('9', 'noven')),
             own(lexeme) AS (SELECT l.lexeme
                             FROM regexp_matches(coalesce(array_to_string(heading_path, E'\n'), '') || E'\n' || content,
                                                 '(?:^|\n)[[:space:]#*_>-]*art[iíÍ]culo[[:space:]]+([1-9](?=[º°ª]?(?![[:alnum:]]))|[[:alpha:]]+)', 'gi') m,
                                  unnest(to_tsvector(config, dof_spelling(m[1]))) l),
             article(position) AS (SELECT p.position FROM unnest(tsv) u, unnest(u.positions) p(position) WHERE u.lexeme = 'articul')
        SELECT string_agg(DISTINCT dof_tsvector_entry(CASE WHEN u.lexeme = pair.figure THEN pair.word ELSE pair.figure END,
                                                      ARRAY[p.position], ARRAY[p.weight]), ' ')
        FROM unnest(tsv) u JOIN pair ON u.lexeme IN (pair.figure, pair.word), unnest(u.positions, u.weights) p(position, weight)
        WHERE u.lexeme IN (SELECT lexeme FROM own) AND p.position - 1 IN (SELECT position FROM article)));
COMMENT ON FUNCTION dof_article_numbers(regconfig, tsvector, text[], text) IS 'A tsvector with the number of each of a document''s own articles (a line or heading that opens with "Artículo", one to nine) also in its other form, at the same position and weight: PRIMERO also as 1, 1 (or 1º) also as primero; a citation inside a sentence keeps its one form: what dof_chunk_tsvector stores, so "artículo 1" finds "ARTÍCULO PRIMERO" and the reverse';

-- The lexemes the rules add to a chunk's parsed tsvector, in their order: lexemes joined by
-- slashes or dots also as their words (dof_word_parts), then numbers also without their
-- leading zeros (dof_number_variants: the 0079 of a.r.0079.2025 too), words with two
-- spellings also in the one (dof_spelling_variants) and the document's own articles' numbers
-- also in their other form (dof_article_numbers). One function, so dof_chunk_tsvector and the
-- upgrade script's test of which stored tsvectors lack a rule apply the same chain.
CREATE FUNCTION dof_tsvector_rules(config regconfig, tsv tsvector, heading_path text[], content text) RETURNS tsvector
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    RETURN dof_article_numbers(config, dof_spelling_variants(dof_number_variants(dof_word_parts(config, tsv))), heading_path, content);
COMMENT ON FUNCTION dof_tsvector_rules(regconfig, tsvector, text[], text) IS 'A chunk''s parsed tsvector with the lexemes each rule adds, in order: dof_word_parts, dof_number_variants, dof_spelling_variants, dof_article_numbers (given the chunk''s heading path and content); what dof_chunk_tsvector applies';

-- What the text leg searches: the heading path and the document's identifier (the
-- metadata's "identifier", which YAML front matter such as legalize-pe's gives: DS-092-2002-EF,
-- a form the body itself may not spell) weighted A (a match there ranks higher), the content
-- B, with the lexemes the rules add (dof_tsvector_rules). A function of its own so bulk loads
-- and rebuilds make the same tsvector. STABLE, as array_to_string is: so the
-- planner inlines it into the statement that calls it, and the functions it calls keep their
-- plans across rows (declared IMMUTABLE, it ran as a function of its own that planned them
-- again for each chunk: 1.4x the time). A chunk's tsvector takes 3.9-4.3x what to_tsvector
-- alone does, 0.51-0.73 ms more per chunk (DOF set 183 -> 712 ms for 1,040 chunks, mixed
-- set 405 -> 1,733 ms for 1,825; 2.4-2.7x before the spelling, article and date rules),
-- against the hundreds of milliseconds its embedding takes.
CREATE FUNCTION dof_chunk_tsvector(config regconfig, heading_path text[], content text, metadata jsonb) RETURNS tsvector
    LANGUAGE sql STABLE PARALLEL SAFE
    RETURN dof_tsvector_rules(config, setweight(to_tsvector(config, array_to_string(heading_path || (metadata ->> 'identifier'), ' ')), 'A')
                                      || setweight(to_tsvector(config, content), 'B'),
                              heading_path, content);
COMMENT ON FUNCTION dof_chunk_tsvector(regconfig, text[], text, jsonb) IS 'The tsvector stored for a chunk: heading path and the metadata''s identifier weighted A, content B, in the given text search configuration, lexemes joined by slashes or dots also as their words (dof_word_parts), numbers also without their leading zeros, ordinal sign or glued number sign (dof_number_variants), words with two spellings also in the one dof_spelling writes (dof_spelling_variants), the number of an article of the document''s own also in its other form, words or figures (dof_article_numbers)';
-- The vector leg ranks a chunk by its best passage: each chunk is cut into passages of at
-- most its collection's passage_tokens tokens (120 by default), each with its own vector
-- (dof_passages). Stored chunks keep their one vector as their one passage, so searches
-- answer as before until their documents are indexed again (SELECT dof_requeue()); the
-- HNSW indexes move from dof_chunks to dof_passages (built once here, over one passage
-- per chunk). A role granted a privilege on dof_chunks gets it on dof_passages too.
ALTER TABLE dof_collections ADD COLUMN passage_tokens integer NOT NULL DEFAULT 120 CHECK (passage_tokens >= 16);
COMMENT ON COLUMN dof_collections.passage_tokens IS 'The most tokens of one passage (dof_passages): chunks are cut into passages of at most this many, each embedded, and the vector leg ranks a chunk by its best; a value over max_tokens gives one passage per chunk. Late-chunked collections keep one passage per chunk';
CREATE TABLE dof_passages (
    chunk_id    bigint NOT NULL REFERENCES dof_chunks (id) ON DELETE CASCADE,
    passage     integer NOT NULL,
    char_start  integer NOT NULL,
    char_end    integer NOT NULL,
    token_count integer NOT NULL,
    embedding   vector NOT NULL,
    PRIMARY KEY (chunk_id, passage)
);
SELECT pg_catalog.pg_extension_config_dump('dof_passages', '');
ALTER TABLE dof_passages ENABLE ROW LEVEL SECURITY;
CREATE POLICY dof_passages_follow_chunks ON dof_passages FOR SELECT
    USING (EXISTS (SELECT 1 FROM dof_chunks c WHERE c.id = dof_passages.chunk_id));
CREATE POLICY dof_passages_written_with_chunks ON dof_passages FOR INSERT
    WITH CHECK (EXISTS (SELECT 1 FROM dof_chunks c WHERE c.id = dof_passages.chunk_id));
COMMENT ON POLICY dof_passages_follow_chunks ON dof_passages IS
    'A role reads the passages of the chunks it can see in dof_chunks';
COMMENT ON POLICY dof_passages_written_with_chunks ON dof_passages IS
    'A role granted INSERT stores passages of the chunks it can see in dof_chunks (dof_index_document does, as its caller, after storing the chunks), not of another role''s';
COMMENT ON TABLE dof_passages IS 'What the vector leg searches: each chunk''s passages of at most its collection''s passage_tokens tokens (char_start, char_end in the chunk''s content), each with its vector (any dimension; one HNSW cosine index per dimension, dof_vector_index); a chunk ranks by its best passage';
COMMENT ON TABLE dof_chunks IS 'Chunks of dof_documents with their embedding (the mean of their passages'' vectors, dof_passages) and tsvector (GIN); model, chunker and chunker_version record their producer';
INSERT INTO dof_passages (chunk_id, passage, char_start, char_end, token_count, embedding)
SELECT id, 0, 0, char_length(content), token_count, embedding FROM dof_chunks WHERE embedding IS NOT NULL;
DO $$
DECLARE
    grant_row record;
    index_name text;
BEGIN
    FOR grant_row IN SELECT a.privilege_type, a.grantee FROM pg_class c, aclexplode(c.relacl) a
                     WHERE c.oid = 'dof_chunks'::regclass AND a.grantee <> c.relowner
                       AND a.privilege_type IN ('SELECT', 'INSERT', 'UPDATE', 'DELETE', 'TRUNCATE', 'REFERENCES', 'TRIGGER')
    LOOP
        EXECUTE format('GRANT %s ON dof_passages TO %s', grant_row.privilege_type,
                       CASE WHEN grant_row.grantee = 0 THEN 'PUBLIC' ELSE quote_ident(grant_row.grantee::regrole::text) END);
    END LOOP;
    FOR index_name IN SELECT i.relname FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid
                      WHERE x.indrelid = 'dof_chunks'::regclass AND i.relname LIKE 'dof\_chunks\_embedding\_%'
    LOOP
        EXECUTE format('DROP INDEX %I', index_name);
    END LOOP;
END
$$;
DROP FUNCTION dof_chunk_embed_internal(text, text, dof_collections, dof_models);
CREATE  FUNCTION "dof_chunk_passages_internal"(
	"body" TEXT, /* Option < & str > */
	"pattern" TEXT, /* Option < & str > */
	"collection" dof_collections, /* Option < :: pgrx :: heap_tuple :: PgHeapTuple < '_, :: pgrx :: pgbox ::
AllocatedByRust > > */
	"model" dof_models /* Option < :: pgrx :: heap_tuple :: PgHeapTuple < '_, :: pgrx :: pgbox ::
AllocatedByRust > > */
) RETURNS TABLE (
	"chunk_index" INT,  /* i32 */
	"pattern" TEXT,  /* & '_ str */
	"heading_path" TEXT[],  /* Vec < String > */
	"content" TEXT,  /* String */
	"token_count" INT,  /* i32 */
	"char_start" INT,  /* i32 */
	"char_end" INT,  /* i32 */
	"table_piece" bool,  /* bool */
	"overlap" bool,  /* bool */
	"split" bool,  /* bool */
	"sizer" TEXT,  /* & '_ str */
	"chunker" TEXT,  /* & '_ str */
	"embedding" real[],  /* Vec < f32 > */
	"passage_starts" INT[],  /* Vec < i32 > */
	"passage_ends" INT[],  /* Vec < i32 > */
	"passage_tokens" INT[],  /* Vec < i32 > */
	"passage_embeddings" real[]  /* Vec < f32 > */
)
STABLE PARALLEL SAFE
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'dof_chunk_passages_internal_wrapper';
COMMENT ON FUNCTION dof_chunk_passages_internal(text, text, dof_collections, dof_models) IS 'Internal: chunks a document by its collection''s strategy, cuts the chunks into passages and embeds them with the model (one call); dof_index_document stores the rows';
CREATE FUNCTION dof_passage_vector(vectors real[], passages integer, n integer) RETURNS vector
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    RETURN (vectors[(n - 1) * (cardinality(vectors) / passages) + 1 : n * (cardinality(vectors) / passages)])::vector;
COMMENT ON FUNCTION dof_passage_vector(real[], integer, integer) IS 'Internal: the n-th of several vectors laid one after another in one array (how dof_chunk_passages_internal returns a chunk''s passage vectors)';
DROP FUNCTION dof_nearest_internal(anyelement, integer, text, text, bigint);
CREATE  FUNCTION "dof_nearest_passages_internal"(
	"query" anyelement, /* AnyElement */
	"dimension" INT, /* i32 */
	"collection" TEXT, /* Option < String > */
	"filter" TEXT, /* Option < String > */
	"wanted" bigint, /* i64 */
	"model" TEXT /* Option < String > */
) RETURNS TABLE (
	"ids" bigint[],  /* :: std :: option :: Option < Vec < i64 > > */
	"distances" double precision[]  /* :: std :: option :: Option < Vec < f64 > > */
)
STABLE
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'dof_nearest_passages_internal_wrapper';
COMMENT ON FUNCTION dof_nearest_passages_internal(anyelement, integer, text, text, bigint, text) IS 'Internal: the vector leg''s HNSW query for one dimension (ids and distances of the nearest chunks by their best passage, ties by id; of one collection and one model when named), planned once per dimension, arguments given (collection, filter, model) and backend; used by dof_vector_search';
COMMENT ON FUNCTION dof_vector_search(text, integer, text, jsonb, vector) IS 'Vector leg alone: the k nearest chunks, each by its nearest passage''s cosine distance (dof_passages; HNSW with iterative scan, so filters still return k rows); query_embedding skips embedding the query by the collection''s model; with collection NULL, every collection; chunks are compared with the query embedded by the model that embedded them (collections of several models, a collection re-indexed for a new model, of the same dimension or another); a query_embedding given without a text only with chunks of its dimension';
COMMENT ON FUNCTION dof_vector_index(integer) IS 'Creates (if missing) the HNSW cosine index of one embedding dimension on dof_passages: a partial expression index on embedding::halfvec(dimension) (the vector leg re-ranks its candidates by the float distance); returns its name';

CREATE OR REPLACE FUNCTION dof_index_document(doc_id bigint) RETURNS integer
    LANGUAGE plpgsql VOLATILE SET search_path FROM CURRENT AS $$
DECLARE
    doc dof_documents;
    coll dof_collections;
    model_row dof_models;
    stored integer;
    passage_chunks bigint[];
    passage_numbers integer[];
    passage_starts integer[];
    passage_ends integer[];
    passage_tokens integer[];
    passage_vectors vector[];
BEGIN
    -- The row lock orders this with concurrent writers of the same document: a queue
    -- drainer reads the newest committed body and metadata, and a writer that comes later
    -- waits, then updates the chunks written here (or queues the document again).
    SELECT * INTO doc FROM dof_documents WHERE id = doc_id FOR UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'document % does not exist', doc_id USING ERRCODE = 'no_data_found';
    END IF;
    SELECT * INTO coll FROM dof_collections WHERE name = doc.collection;
    model_row := dof_model(coll.model);
    DELETE FROM dof_chunks WHERE document_id = doc_id;  -- and their passages (ON DELETE CASCADE)
    -- The passages are stored by a second statement: dof_passages' INSERT policy checks that
    -- the caller sees the passage's chunk, and a statement's checks do not see the rows its
    -- own CTEs inserted.
    WITH built AS MATERIALIZED (
        SELECT * FROM dof_chunk_passages_internal(doc.body, doc.pattern, coll, model_row)
    ), chunks AS (
        INSERT INTO dof_chunks (document_id, collection, chunk_index, pattern, heading_path, content, token_count,
                                char_start, char_end, table_piece, overlap, split, metadata, embedding, tsv,
                                model, chunker_version, sizer, chunker, contents)
        SELECT doc.id, doc.collection, c.chunk_index, c.pattern, c.heading_path, c.content, c.token_count,
               c.char_start, c.char_end, c.table_piece, c.overlap, c.split, doc.metadata, c.embedding,
               dof_chunk_tsvector(coll.text_search_config, c.heading_path, c.content, doc.metadata),
               model_row.name || '@' || model_row.revision, dof_chunker_version(), c.sizer, c.chunker,
               dof_contents(c.heading_path, c.content)
        FROM built c
        RETURNING id, chunk_index
    )
    SELECT (SELECT count(*) FROM chunks), array_agg(s.id), array_agg(p.n::integer - 1), array_agg(p.char_start),
           array_agg(p.char_end), array_agg(p.token_count),
           array_agg(dof_passage_vector(b.passage_embeddings, cardinality(b.passage_starts), p.n::integer))
    INTO stored, passage_chunks, passage_numbers, passage_starts, passage_ends, passage_tokens, passage_vectors
    FROM chunks s JOIN built b ON b.chunk_index = s.chunk_index,
         unnest(b.passage_starts, b.passage_ends, b.passage_tokens) WITH ORDINALITY AS p(char_start, char_end, token_count, n);
    INSERT INTO dof_passages (chunk_id, passage, char_start, char_end, token_count, embedding)
    SELECT * FROM unnest(passage_chunks, passage_numbers, passage_starts, passage_ends, passage_tokens, passage_vectors);
    RETURN stored;
END
$$;
CREATE OR REPLACE FUNCTION dof_collections_after() RETURNS trigger
    LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
    UPDATE dof_chunks SET tsv = dof_chunk_tsvector(NEW.text_search_config, heading_path, content, metadata)
    WHERE collection = NEW.name;
    RETURN NULL;
END
$$;
-- Whether an UPDATE of a document leaves its chunks as they are: the body is as it was, and
-- so is the collection, or the collection was renamed. A rename cascades to the documents
-- (ON UPDATE CASCADE), and the old name is then no collection's; the settings are the same
-- row's, so the chunks and vectors stay and take the new name (the triggers indexed every
-- document again: 35.5 s to rename a collection of 8 laws, 583 KB). A new source_id or
-- metadata alone keeps them too; a document moved to another collection is indexed again,
-- by that one's settings. The one rule of both document triggers.
-- (Scalars, not the table's row type: a function of it would block every ALTER TABLE.)
CREATE FUNCTION dof_keeps_chunks(old_body text, new_body text, old_collection text, new_collection text) RETURNS boolean
    LANGUAGE sql STABLE PARALLEL SAFE
    RETURN new_body = old_body
           AND (new_collection = old_collection
                OR NOT EXISTS (SELECT FROM dof_collections c WHERE c.name = old_collection));
COMMENT ON FUNCTION dof_keeps_chunks(text, text, text, text) IS 'True when an UPDATE of a document from its old body and collection to its new ones leaves the document''s chunks as they are: the same body, in the same collection or in its collection renamed (no collection has the old name), so they are relabelled instead of indexed again (dof_documents_before, dof_documents_after)';

CREATE OR REPLACE FUNCTION dof_documents_after() RETURNS trigger
    LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
    IF TG_OP = 'INSERT' AND dof_restoring() THEN
        RETURN NULL;  -- its chunks and queue row come from the dump
    END IF;
    IF TG_OP = 'UPDATE' AND dof_keeps_chunks(OLD.body, NEW.body, OLD.collection, NEW.collection) THEN
        -- metadata, or the collection's new name; a new identifier is searchable text
        -- (dof_chunk_tsvector); BM25's statistics follow the chunks (dof_chunks_stats_changed)
        UPDATE dof_chunks c SET collection = NEW.collection, metadata = NEW.metadata,
               tsv = CASE WHEN OLD.metadata ->> 'identifier' IS DISTINCT FROM NEW.metadata ->> 'identifier'
                          THEN dof_chunk_tsvector((SELECT k.text_search_config FROM dof_collections k WHERE k.name = NEW.collection),
                                                  c.heading_path, c.content, NEW.metadata)
                          ELSE c.tsv END
        WHERE c.document_id = NEW.id;
        RETURN NULL;
    END IF;
    IF (SELECT deferred FROM dof_collections WHERE name = NEW.collection) THEN
        INSERT INTO dof_queue (document_id) VALUES (NEW.id)
        ON CONFLICT (document_id) DO UPDATE SET status = 'queued', error = NULL, queued_at = now(), processed_at = NULL;
    ELSE
        IF octet_length(NEW.body) > 1000000 THEN
            -- embedding is ~2,000 tokens/s per core: a large body holds the transaction for minutes
            RAISE NOTICE 'indexing a % MB document inside this transaction', round(octet_length(NEW.body) / 1e6, 1)
                USING HINT = 'a deferred collection (dof_collections.deferred) indexes it later with CALL dof_process_queue(), committing per batch';
        END IF;
        PERFORM dof_index_document(NEW.id);
    END IF;
    RETURN NULL;
END
$$;

-- the chunks indexed with a signed number, a lexeme joined by a slash or a dot, a number
-- with leading zeros, a word in a spelling dof_spelling writes the other way or an article of
-- the document's own numbered in words or figures (those whose tsvector dof_word_parts,
-- dof_number_variants, dof_spelling_variants and dof_article_numbers change) or an
-- identifier in their metadata: their tsvectors as the new mapping and
-- dof_chunk_tsvector build them (the statistics triggers follow); other chunks' lexemes are
-- unchanged by either
UPDATE dof_chunks c SET tsv = dof_chunk_tsvector(k.text_search_config, c.heading_path, c.content, c.metadata)
FROM dof_collections k
WHERE k.name = c.collection
  AND (c.metadata ? 'identifier'
       OR c.tsv IS DISTINCT FROM dof_tsvector_rules(k.text_search_config, c.tsv, c.heading_path, c.content)
       OR (k.text_search_config = 'dof_spanish'::regconfig AND EXISTS (SELECT 1 FROM unnest(c.tsv) l WHERE l.lexeme ~ '^[-+][0-9]')));

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

-- A rebalance sends a document still waiting in the queue without its stale chunks, and
-- every chunk's passages with it (dof_shard_import stores them).
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

-- dof_process_queue checks its arguments by the queue's one rule (dof_check_queue_arguments).
CREATE OR REPLACE PROCEDURE dof_process_queue(batch_size integer DEFAULT 10, max_batches integer DEFAULT NULL)
    LANGUAGE plpgsql AS $$
DECLARE
    batch record;
    batches integer := 0;
    done integer := 0;
    failed integer := 0;
    remaining bigint;
BEGIN
    PERFORM @extschema@.dof_check_queue_arguments(batch_size, max_batches);
    LOOP
        EXIT WHEN max_batches IS NOT NULL AND batches >= max_batches;
        SELECT * INTO batch FROM @extschema@.dof_process_queue_batch(batch_size);
        EXIT WHEN batch.claimed = 0;  -- nothing queued, or everything left is claimed by other drains
        done := done + batch.done;
        failed := failed + batch.failed;
        batches := batches + 1;
        COMMIT;
        SELECT count(*) INTO remaining FROM @extschema@.dof_queue WHERE status = 'queued';
        RAISE NOTICE 'dof_process_queue: batch %, % done, % failed, % queued', batches, done, failed, remaining;
    END LOOP;
    IF done > 0 THEN
        ANALYZE @extschema@.dof_chunks;
        PERFORM @extschema@.dof_compact_stats();  -- BM25's statistics: fold the deltas of the drain
    END IF;
END
$$;

-- dof_requeue, then the queue processed batch by batch in this session; batch_size is
-- checked before the requeue (dof_check_queue_arguments).
CREATE OR REPLACE PROCEDURE dof_backfill(collection_name text DEFAULT NULL, batch_size integer DEFAULT 10)
    LANGUAGE plpgsql AS $$
BEGIN
    PERFORM @extschema@.dof_check_queue_arguments(batch_size);
    PERFORM @extschema@.dof_requeue(collection_name);
    COMMIT;
    CALL @extschema@.dof_process_queue(batch_size);
END
$$;

-- A text that holds nothing but whitespace (or nothing): the one rule for a blank search
-- query (dof_check_query; dof_vector_search, where a blank query_embedding's text leaves
-- that vector to stand for every model) and a blank document id (dof_documents_before).
-- NULL gives NULL: each caller says what NULL means for it. (A document's body has its own
-- rule, dof_blank_body: a byte order mark and front matter count as blank there.)
CREATE FUNCTION dof_blank_text(value text) RETURNS boolean
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    RETURN value !~ '[^[:space:]]';
COMMENT ON FUNCTION dof_blank_text(text) IS 'Whether a text holds only whitespace or nothing (NULL: NULL): what a blank search query and a blank document source_id are';

-- YAML front matter is data: the trigger makes its fields the document's metadata and its
-- title the document's title, and the chunker (this library) leaves the block out of every
-- chunk. Documents stored before keep their chunks until they are indexed again
-- (dof_requeue).
CREATE FUNCTION "dof_front_matter"("body" TEXT) RETURNS jsonb
IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'dof_front_matter_wrapper';
-- A body with nothing to index (blank, or front matter only) is refused: one rule
-- (dof_blank_body) for the trigger, dof_shard_import and dof load.
CREATE FUNCTION "dof_blank_body"("body" TEXT) RETURNS bool
IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'dof_blank_body_wrapper';
CREATE OR REPLACE FUNCTION dof_documents_before() RETURNS trigger
    LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
DECLARE
    front jsonb;
BEGIN
    IF TG_OP = 'INSERT' AND NEW.pattern IS NOT NULL AND dof_restoring() THEN
        RETURN NEW;
    END IF;
    -- a document is indexed from its text: a body with none (blank, or front matter only)
    -- would be a row no search can find (dof load refuses such a file by the same rule); a
    -- restored one is kept as it was stored
    IF dof_blank_body(NEW.body) THEN
        RAISE EXCEPTION 'document "%" has an empty body', NEW.source_id USING ERRCODE = 'invalid_parameter_value',
            HINT = 'a document is indexed from its body''s text, what follows any front matter: give it some (DELETE the row to remove the document)';
    END IF;
    -- a source_id is checked where it is given, by an INSERT or an UPDATE that changes it
    -- (a row stored before a check came keeps taking updates of its body and metadata):
    IF (CASE WHEN TG_OP = 'INSERT' THEN true ELSE NEW.source_id IS DISTINCT FROM OLD.source_id END) THEN
        -- a blank one names no document: a search's results and dof_evaluate's questions name
        -- documents by it (dof load makes each from a file's path, never blank)
        IF dof_blank_text(NEW.source_id) THEN
            RAISE EXCEPTION 'document source_id is empty' USING ERRCODE = 'invalid_parameter_value',
                HINT = 'give each document an id of its own: a file''s path, a DOF note''s number';
        END IF;
        -- it is a key of the unique (collection, source_id) index, whose entries hold at most
        -- 2,704 bytes: a longer id failed with PostgreSQL's "index row size … exceeds btree
        -- version 4 maximum", whose hint (an index of its MD5) is for the schema's author
        IF octet_length(NEW.source_id) > 2048 THEN
            RAISE EXCEPTION 'document source_id is % bytes, over the 2048 a source_id may hold', octet_length(NEW.source_id)
                USING ERRCODE = 'program_limit_exceeded',
                      HINT = 'give a shorter id (a path relative to the corpus, or a hash of the long one) and keep the long one in metadata';
        END IF;
    END IF;
    -- a new source_id alone (the trigger fires for it to check it, above), or the
    -- collection's new name: the pattern and the front matter are the body's, as it was
    IF TG_OP = 'UPDATE' AND dof_keeps_chunks(OLD.body, NEW.body, OLD.collection, NEW.collection) THEN
        RETURN NEW;
    END IF;
    NEW.pattern := dof_classify(NEW.body);
    IF TG_OP = 'UPDATE' THEN
        NEW.updated_at := now();
    END IF;
    -- YAML front matter is the document's data: its fields go into metadata (over the
    -- metadata given: they are the document's own word, and a new body replaces its old
    -- values), its title into title unless one is given; the chunker leaves it out. A
    -- file saved on Windows may start with a byte order mark before it (dof_front_matter
    -- reads past one)
    IF starts_with(NEW.body, '---') OR starts_with(NEW.body, E'\uFEFF---') THEN
        front := dof_front_matter(NEW.body);
        IF front IS NOT NULL THEN
            NEW.metadata := coalesce(NEW.metadata, '{}') || front;
            IF NEW.title IS NULL OR (TG_OP = 'UPDATE' AND NEW.title IS NOT DISTINCT FROM OLD.title) THEN
                NEW.title := coalesce(front->>'title', NEW.title);
            END IF;
        END IF;
    END IF;
    RETURN NEW;
END
$$;
COMMENT ON FUNCTION dof_documents_before() IS 'Trigger: refuses a blank body (22023), and a source_id where one is given (an INSERT, or an UPDATE that changes it) that is blank (22023) or over 2048 bytes (54000, the unique index''s entries hold 2,704), classifies the document (a restored one keeps its stored pattern and body) and makes its YAML front matter its metadata and title';
-- The trigger checks a new source_id given by an UPDATE too (dof_documents_before, above)
DROP TRIGGER dof_documents_before ON dof_documents;
CREATE TRIGGER dof_documents_before BEFORE INSERT OR UPDATE OF body, collection, source_id ON dof_documents
    FOR EACH ROW EXECUTE FUNCTION dof_documents_before();
COMMENT ON FUNCTION dof_blank_body(text) IS 'True when a body holds nothing to index: only whitespace after its byte order mark and YAML front matter (such a body gives no chunk; the trigger refuses it)';
COMMENT ON FUNCTION dof_front_matter(text) IS 'The fields of the YAML front matter (a block between --- lines at the start, after a byte order mark if there is one) of a body, as jsonb; NULL when there is none; a block that is not a YAML mapping is text (a WARNING says why)';

-- Words a Spanish question frames itself with that PostgreSQL's Spanish stop list lacks once
-- the accents go (dof_spanish unaccents first): the prepositions "según", "tras", "hacia",
-- "mediante" ("¿Qué objeto tiene IMSS-BIENESTAR según el convenio?") and the interrogatives
-- that are no stopwords, "cuánto", "cuáles", "adónde" ("qué", "cuál", "quién", "quiénes",
-- "cuándo", "dónde", "cómo" are).
-- A search's unquoted words are read without them (dof_query_tsquery, dof_query_vector); the
-- stored chunks keep them. Over the eight sets' questions nothing falls, in either leg
-- (bench/sql/quality_query_stopwords.sql): "según el convenio" had the text leg prefer the
-- chunks saying "según", and "¿Qué objeto tiene IMSS-BIENESTAR según el convenio?" rises to
-- first in the hybrid (DOF set 0.842 -> 0.847, docling's editions 0.761 -> 0.770), the text
-- leg one question more on four sets. The modal verbs "debe", "puede" were measured too and
-- not kept (outline laws 0.970 -> 0.966: "se puede presentar" finds "puede presentarse").
-- Spelled letter by letter so that capitals with accents match whatever the database's locale.
CREATE FUNCTION dof_query_stopwords(query text) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    RETURN regexp_replace(query, '\m([Ss][Ee][Gg][UuÚú][Nn]|[Tt][Rr][Aa][Ss]|[Hh][Aa][Cc][Ii][Aa]|[Mm][Ee][Dd][Ii][Aa][Nn][Tt][Ee]|[Cc][Uu][AaÁá][Nn][Tt][OoAa][Ss]?|[Cc][Uu][AaÁá][Ll][Ee][Ss]|[Aa][Dd][OoÓó][Nn][Dd][Ee])\M', ' ', 'g');

-- A query with double quotes: its quoted phrases as written, but for the one spelling of a
-- word (dof_spelling: the stored chunk holds both), and its words outside them as any
-- query's (dof_query_words, less dof_query_stopwords). A quote anywhere had the whole
-- query read as written: DS-092-2002-EF beside a quoted name was one phrase. A function
-- of its own so that dof_query_tsquery, without a subquery, is inlined: a query without
-- quotes costs what it did.
CREATE FUNCTION dof_query_phrases(query text) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    RETURN (SELECT string_agg(CASE WHEN s.i % 2 = 1 THEN dof_query_words(dof_query_stopwords(s.part)) ELSE dof_spelling(s.part) END, '"' ORDER BY s.i)
            FROM regexp_split_to_table(query, '"') WITH ORDINALITY AS s(part, i));
COMMENT ON FUNCTION dof_query_phrases(text) IS 'A query with double quotes as dof_query_tsquery reads it: its quoted phrases as written but for dof_spelling, its words outside them as dof_query_words reads them, less dof_query_stopwords';

-- A search's words are read by dof_query_words (a hyphen, a slash or a dot inside an
-- identifier separates words), the query's own tsvector (dof_query_vector) too; a query
-- with double quotes by dof_query_phrases (its phrases as written). A dash
-- between spaces separates, as in titles and ranges ("PLANEA 2017 - 2022"), where
-- websearch_to_tsquery read it as "not" the next word; -word still excludes. Two dashes or
-- more together separate words too, and of dashes with only blanks or ! & | ( ) < between
-- them only the last may exclude: 32 "not"s in a row overflowed PostgreSQL's parser.
CREATE FUNCTION dof_query_tsquery(config regconfig, query text) RETURNS tsquery
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    RETURN websearch_to_tsquery(config, regexp_replace(regexp_replace(regexp_replace(
               CASE WHEN strpos(query, '"') > 0 THEN dof_query_phrases(query) ELSE dof_query_words(dof_query_stopwords(query)) END,
               '-{2,}', ' ', 'g'), '-(?=[[:space:]!&|()<]*-)', ' ', 'g'), '(^|[[:space:]])-+(?=[[:space:]]|$)', '\1', 'g'));

-- The query's own tsvector, its words read as dof_query_tsquery reads them: where each of
-- its lexemes stands, so the text leg knows which words are neighbours
-- (dof_text_score_internal adds the pairs a chunk has as neighbours too).
CREATE FUNCTION dof_query_vector(config regconfig, query text) RETURNS tsvector
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    RETURN to_tsvector(config, dof_query_words(dof_query_stopwords(query)));
CREATE OR REPLACE FUNCTION dof_shard_legs(query text, candidates integer, collection text, filter jsonb, query_embedding vector,
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
COMMENT ON FUNCTION dof_query_tsquery(regconfig, text) IS 'The tsquery of a search (websearch syntax), its words read by dof_query_words without dof_query_stopwords (DS-092-2002-EF matches as ds 092 2002 ef, CUSCO/GR as cusco gr) outside double quotes; a quoted phrase is read as written but for dof_spelling (setiembre is septiembre); a dash between spaces, or two or more together, separates words (PLANEA 2017 - 2022, ley--decreto), -word excludes, and of dashes with only blanks or ! & | ( ) < between them only the last';
COMMENT ON FUNCTION dof_query_stopwords(text) IS 'A query with the words a Spanish question frames itself with that the Spanish stop list lacks once unaccented blanked: según, tras, hacia, mediante, cuánto (cuánta, cuántos, cuántas), cuáles, adónde, in any case; what dof_query_tsquery (unquoted) and dof_query_vector read';
COMMENT ON FUNCTION dof_query_vector(regconfig, text) IS 'The query''s own tsvector (its words as dof_query_words reads them): where its lexemes stand, so the text leg can score the neighbouring words a chunk has as neighbours';

-- The queue's advisory-lock class defined once (it was a literal in the batch and in
-- dof_queue_progress); the batch takes it from the function.
CREATE FUNCTION dof_queue_lock_class() RETURNS integer
    IMMUTABLE PARALLEL SAFE LANGUAGE sql RETURN 1885824102;
COMMENT ON FUNCTION dof_queue_lock_class() IS 'The advisory-lock class (pg_locks.classid) of a queue batch''s claimed documents, read by dof_queue_progress';

-- The queue's arguments, one rule for dof_process_queue_batch, dof_process_queue and
-- dof_backfill, checked before anything is claimed or queued (dof_backfill's bad batch_size
-- was refused by dof_process_queue only after its requeue had committed, leaving every
-- document queued): batch_size and max_attempts at least 1, max_batches NULL (until the
-- queue is empty) or not negative. The error names the first argument that is wrong.
CREATE FUNCTION dof_check_queue_arguments(batch_size integer, max_batches integer DEFAULT NULL,
                                          max_attempts integer DEFAULT 1) RETURNS void
    LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE SET search_path FROM CURRENT AS $$
BEGIN
    IF batch_size IS NULL OR batch_size < 1 THEN
        RAISE EXCEPTION 'batch_size must be at least 1 (got %)', coalesce(batch_size::text, 'NULL')
            USING ERRCODE = 'invalid_parameter_value', HINT = 'the default is 10 documents a batch';
    ELSIF max_batches < 0 THEN
        RAISE EXCEPTION 'max_batches must not be negative (got %)', max_batches
            USING ERRCODE = 'invalid_parameter_value', HINT = 'the default, NULL, processes batches until the queue is empty';
    ELSIF max_attempts IS NULL OR max_attempts < 1 THEN
        RAISE EXCEPTION 'max_attempts must be at least 1 (got %)', coalesce(max_attempts::text, 'NULL')
            USING ERRCODE = 'invalid_parameter_value', HINT = 'the default is 1: a failed document is not tried again';
    END IF;
END
$$;
COMMENT ON FUNCTION dof_check_queue_arguments(integer, integer, integer) IS 'Refuses a queue argument out of range (22023), naming it: batch_size and max_attempts at least 1, max_batches NULL or not negative; what dof_process_queue_batch, dof_process_queue and dof_backfill check before they claim or queue anything';

CREATE OR REPLACE FUNCTION dof_process_queue_batch(batch_size integer DEFAULT 10, max_attempts integer DEFAULT 1,
                                        OUT claimed integer, OUT done integer, OUT failed integer)
    LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
DECLARE
    item record;
BEGIN
    claimed := 0; done := 0; failed := 0;
    PERFORM @extschema@.dof_check_queue_arguments(batch_size, max_attempts => max_attempts);
    -- the document row is claimed with its queue row: a writer that holds a document and
    -- waits for its queue row (the trigger re-queues it) is skipped, never waited for (a
    -- drain holding the queue row and waiting for the document would deadlock with it);
    -- queued rows first
    FOR item IN SELECT q.document_id FROM @extschema@.dof_queue q JOIN @extschema@.dof_documents d ON d.id = q.document_id
                WHERE q.status = 'queued'
                   OR (q.status = 'failed' AND q.attempts < max_attempts
                       AND q.processed_at < now() - make_interval(secs => 10 * 2 ^ (q.attempts - 1)))
                ORDER BY q.status <> 'queued', q.queued_at, q.document_id
                LIMIT batch_size FOR UPDATE OF q, d SKIP LOCKED LOOP
        claimed := claimed + 1;
        -- shown as running in dof_queue_progress until this batch commits (row locks are
        -- not in pg_locks; this transaction-level advisory lock is)
        PERFORM pg_advisory_xact_lock(@extschema@.dof_queue_lock_class(), (item.document_id % 2147483647)::integer);
        BEGIN
            PERFORM @extschema@.dof_index_document(item.document_id);
            UPDATE @extschema@.dof_queue SET status = 'done', error = NULL, attempts = attempts + 1, processed_at = now()
            WHERE document_id = item.document_id;
            done := done + 1;
        EXCEPTION WHEN query_canceled THEN
            RAISE;
        WHEN OTHERS THEN
            UPDATE @extschema@.dof_queue SET status = 'failed', error = SQLERRM, attempts = attempts + 1, processed_at = now()
            WHERE document_id = item.document_id;
            failed := failed + 1;
        END;
    END LOOP;
END
$$;

-- dof_queue_progress: the rate between the batches of the last minute, not over a whole
-- minute (the first minute of a run showed an ETA up to 60 times too long).
CREATE OR REPLACE VIEW dof_queue_progress AS
WITH queued_documents AS (
    SELECT d.collection, q.status, q.processed_at, octet_length(d.body) AS bytes,
           (SELECT sum(c.token_count) FROM dof_chunks c WHERE c.document_id = d.id) AS tokens,
           q.status = 'done' AND q.processed_at > now() - interval '1 minute' AS recent,
           -- claimed by a batch not yet committed (dof_process_queue_batch's advisory lock)
           q.status <> 'done' AND EXISTS (SELECT 1 FROM pg_locks l
                                          WHERE l.locktype = 'advisory' AND l.classid = dof_queue_lock_class() AND l.objsubid = 2
                                            AND l.objid = (q.document_id % 2147483647)::oid AND l.granted) AS running
    FROM dof_queue q JOIN dof_documents d ON d.id = q.document_id
), timed AS (
    SELECT queued_documents.*,
           recent AND processed_at = min(processed_at) FILTER (WHERE recent) OVER (PARTITION BY collection) AS first_batch
    FROM queued_documents
), per_collection AS (
    SELECT collection,
           count(*) FILTER (WHERE status = 'queued' AND NOT running) AS queued,
           count(*) FILTER (WHERE running) AS running,
           count(*) FILTER (WHERE status = 'done') AS done,
           count(*) FILTER (WHERE status = 'failed') AS failed,
           sum(tokens) FILTER (WHERE recent AND NOT first_batch)
               / nullif(extract(epoch FROM max(processed_at) FILTER (WHERE recent) - min(processed_at) FILTER (WHERE recent)), 0)
               AS rate,
           sum(bytes) FILTER (WHERE status = 'queued') AS queued_bytes,
           sum(tokens) FILTER (WHERE status = 'done')::double precision
               / nullif(sum(bytes) FILTER (WHERE status = 'done' AND tokens IS NOT NULL), 0) AS tokens_per_byte
    FROM timed GROUP BY collection
)
SELECT collection, queued, running, done, failed, round(rate, 1) AS tokens_per_second,
       CASE WHEN rate > 0 AND queued + running > 0
            THEN make_interval(secs => round(queued_bytes * tokens_per_byte / rate::double precision)) END AS eta
FROM per_collection;
ALTER VIEW dof_queue_progress SET (security_invoker = true);
COMMENT ON VIEW dof_queue_progress IS 'Deferred indexing per collection: queued, running, done, failed, tokens per second between the batches done in the last minute (NULL until two are), and the estimated time left at that rate';

-- The weighted fusion's alpha (the text leg's share) defaults to 0.5, and the vector leg's
-- spread counts as at least dof_fusion_vector_min_spread() (0.1), by measurement.
CREATE FUNCTION "dof_fusion_vector_min_spread"() RETURNS double precision
IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'dof_fusion_vector_min_spread_wrapper';
-- One rule normalises each leg for the weighted fusion and for the order within a document
-- (dof_fusion_normalise).
CREATE FUNCTION dof_fusion_normalise(ids bigint[], scores double precision[], min_spread double precision)
    RETURNS TABLE (id bigint, value double precision, rank integer)
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
BEGIN ATOMIC
    WITH entries AS (
        SELECT DISTINCT ON (e.id) e.id, e.score, e.rank
        FROM unnest(ids, scores) WITH ORDINALITY AS e(id, score, rank)
        WHERE e.id IS NOT NULL AND e.score IS NOT NULL
        ORDER BY e.id, e.rank
    )
    SELECT entries.id,
           coalesce((entries.score - min(entries.score) OVER ())
                    / nullif(greatest(max(entries.score) OVER () - min(entries.score) OVER (), min_spread), 0), 1),
           entries.rank::integer
    FROM entries;
END;
COMMENT ON FUNCTION dof_fusion_normalise(bigint[], double precision[], double precision) IS 'Internal: one scored list normalised as the weighted fusion normalises each leg: (s - min) / max(max - min, min_spread), 1 when all are equal and min_spread is 0; an id''s first entry, entries without a score skipped';
CREATE OR REPLACE FUNCTION dof_weighted_fusion(vector_ids bigint[], vector_scores double precision[],
                                    text_ids bigint[], text_scores double precision[],
                                    alpha double precision DEFAULT 0.5)
    RETURNS TABLE (id bigint, score double precision, vector_rank integer, text_rank integer)
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
BEGIN ATOMIC
    WITH normalised AS (
        SELECT 'vector' AS leg, v.id, v.value, v.rank
        FROM dof_fusion_normalise(vector_ids, vector_scores, dof_fusion_vector_min_spread()) v
        UNION ALL
        SELECT 'text', t.id, t.value, t.rank FROM dof_fusion_normalise(text_ids, text_scores, 0) t
    )
    SELECT normalised.id,
           sum(CASE WHEN normalised.leg = 'text' THEN alpha ELSE 1 - alpha END * normalised.value) AS score,
           min(normalised.rank) FILTER (WHERE normalised.leg = 'vector'),
           min(normalised.rank) FILTER (WHERE normalised.leg = 'text')
    FROM normalised
    GROUP BY normalised.id
    ORDER BY score DESC, normalised.id;
END;
-- dof_fuse takes the query's full-match BM25 (text_full_match): the weighted fusion's text
-- share is scaled by the text leg's coverage of the query.
CREATE FUNCTION "dof_fusion_text_share"("alpha" double precision, "best_text_score" double precision, "full_match_score" double precision) RETURNS double precision
IMMUTABLE PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'dof_fusion_text_share_wrapper';
CREATE FUNCTION "dof_bm25_full_match"("idfs" double precision[]) RETURNS double precision
IMMUTABLE PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'dof_bm25_full_match_wrapper';
DROP FUNCTION dof_fuse(text, bigint[], double precision[], bigint[], double precision[], integer, double precision, double precision, double precision);
CREATE FUNCTION dof_fuse(fusion text, vector_ids bigint[], vector_scores double precision[],
                         text_ids bigint[], text_scores double precision[], rrf_k integer DEFAULT 60,
                         alpha double precision DEFAULT 0.5, vector_weight double precision DEFAULT 1,
                         text_weight double precision DEFAULT 1, text_full_match double precision DEFAULT NULL)
    RETURNS TABLE (id bigint, score double precision, vector_rank integer, text_rank integer)
    LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE SET search_path FROM CURRENT AS $$
BEGIN
    -- every argument is checked, whichever fusion runs: a wrong one is a mistake either way.
    -- A weight is a finite number: NaN passed "< 0" (PostgreSQL orders NaN above every
    -- number) and made the leg's scores NaN, and Infinity tied every chunk of the leg
    IF rrf_k IS NULL OR rrf_k < 0 OR rrf_k > 1000000
       OR vector_weight IS NULL OR NOT (vector_weight >= 0 AND vector_weight < 'Infinity')
       OR text_weight IS NULL OR NOT (text_weight >= 0 AND text_weight < 'Infinity') THEN
        RAISE EXCEPTION 'rrf_k must be between 0 and 1000000 and the weights finite and at least 0 (got rrf_k %, vector_weight %, text_weight %)',
                        coalesce(rrf_k::text, 'NULL'), coalesce(vector_weight::text, 'NULL'), coalesce(text_weight::text, 'NULL')
            USING ERRCODE = 'invalid_parameter_value', HINT = 'the defaults are rrf_k 60 and weights 1';
    END IF;
    IF alpha IS NULL OR alpha < 0 OR alpha > 1 THEN
        RAISE EXCEPTION 'alpha (the text leg''s share) must be between 0 and 1, got %', coalesce(alpha::text, 'NULL')
            USING ERRCODE = 'invalid_parameter_value', HINT = 'the default is 0.5';
    END IF;
    IF fusion = 'rrf' THEN
        RETURN QUERY SELECT * FROM dof_rrf(coalesce(vector_ids, '{}'), coalesce(text_ids, '{}'), rrf_k, vector_weight, text_weight);
    ELSIF fusion = 'weighted' THEN
        RETURN QUERY SELECT * FROM dof_weighted_fusion(coalesce(vector_ids, '{}'), coalesce(vector_scores, '{}'),
                                                       coalesce(text_ids, '{}'), coalesce(text_scores, '{}'),
                                                       dof_fusion_text_share(alpha, (SELECT max(s) FROM unnest(text_scores) s),
                                                                             text_full_match));
    ELSE
        RAISE EXCEPTION 'unknown fusion "%"', fusion USING ERRCODE = 'invalid_parameter_value',
            HINT = 'use ''rrf'' (reciprocal rank fusion, per-leg weights) or ''weighted'' (min-max normalised scores, alpha = the text share)';
    END IF;
END
$$;

-- A chunk's model as registered: dof_chunks.model is the registry name and its revision,
-- "name@revision" (dof_index_document), and a name holds no "@" (dof_models' CHECK).
CREATE FUNCTION dof_chunk_model_name(model text) RETURNS text
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    RETURN split_part(model, '@', 1);
COMMENT ON FUNCTION dof_chunk_model_name(text) IS 'The registry name (dof_models.name) of a chunk''s model, from its dof_chunks.model ("name@revision")';

-- dof_token_stats counts the chunks embedded before 0.3.0 whose vector saw only their start.
CREATE OR REPLACE VIEW dof_token_stats AS
SELECT c.collection, c.pattern, count(*) AS chunks,
       round(avg(c.token_count), 1) AS mean_tokens,
       percentile_cont(0.5) WITHIN GROUP (ORDER BY c.token_count) AS median_tokens,
       max(c.token_count) AS max_tokens,
       count(*) FILTER (WHERE c.token_count > s.max_tokens) AS over_limit,
       count(*) FILTER (WHERE c.chunker_version IN ('1', '2') AND c.token_count > m.max_positions - 2) AS cut_embeddings
FROM dof_chunks c JOIN dof_collections s ON s.name = c.collection
LEFT JOIN dof_models m ON m.name = dof_chunk_model_name(c.model)
GROUP BY c.collection, c.pattern;
ALTER VIEW dof_token_stats SET (security_invoker = true);
COMMENT ON VIEW dof_token_stats IS 'Tokens per chunk by pattern and collection (mean, median, max, chunks over the collection''s limit, chunks embedded before 0.3.0 whose vector saw only the start: re-index them with dof_requeue)';

-- The chunkers' descriptions name what they do, not the documents they came from; the
-- indexing function is the one that builds chunks, not their only writer.
COMMENT ON FUNCTION dof_index_document(bigint) IS 'Rebuilds one document''s chunks and their passages (the one function that builds them; dof_shard_import copies a shard''s): chunk by the collection''s strategy, embed, store; returns the number of chunks';
COMMENT ON FUNCTION dof_classify(text, integer, double precision, integer, integer, integer) IS
    'Structural pattern of a markdown document: small, h2_compound, bold_headers, plain_text or giant_table (the classification rules of dof_classify_features; thresholds are parameters)';
COMMENT ON FUNCTION dof_chunk_semantic(text, text, double precision, integer, integer, integer, integer, text, text) IS
    'Semantic chunks: cut where what precedes a gap stops being similar to what follows (threshold_type percentile, standard_deviation, interquartile or gradient; threshold_amount NULL: 75, 3, 1.5, 95); buffer_size units on each side; groups under min_tokens merge; max_tokens is a hard limit (an oversized group is cut at its weakest similarity); overlap_sentences within the limit; unit paragraph (markdown blocks, a block over the limit by sentences) or sentence. Sentence vectors are cached per backend (dof_sentence_cache())';
COMMENT ON FUNCTION dof_chunk_paragraphs(text[], text, integer, integer, jsonb, integer, text) IS
    'Paragraph chunks (chunk_paragraphs): paragraphs over max_chars cut at sentence ends, short ones merged forward to min_chars; chunk_id {source_id}#{index}; metadata is the given object plus para_count, or split: true; first_paragraph/last_paragraph are array subscripts; with max_tokens no chunk exceeds it in the model''s tokenizer (model NULL: the default model)';

-- The HNSW dimension limit is one number (dof_hnsw_max_dimensions()), which the model
-- registration, the index function and the models trigger read.
CREATE FUNCTION "dof_hnsw_max_dimensions"() RETURNS INT
IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'dof_hnsw_max_dimensions_wrapper';
COMMENT ON FUNCTION dof_hnsw_max_dimensions() IS 'The most dimensions an HNSW index takes (pgvector on halfvec): models over it are searched by scanning every chunk of their dimension';
CREATE OR REPLACE FUNCTION dof_register_model(name text, model_file text, tokenizer_file text,
                                   query_prefix text DEFAULT '', passage_prefix text DEFAULT '',
                                   max_positions integer DEFAULT 512, make_default boolean DEFAULT false)
    RETURNS dof_models
    LANGUAGE plpgsql VOLATILE SET search_path FROM CURRENT AS $$
DECLARE
    probed integer;
    registered dof_models;
BEGIN
    -- the permission check before any file is opened
    IF NOT has_table_privilege('dof_models', 'INSERT, UPDATE') THEN
        RAISE EXCEPTION 'permission denied to register models' USING ERRCODE = 'insufficient_privilege',
            HINT = 'registering a model needs INSERT and UPDATE on dof_models';
    END IF;
    probed := dof_probe_model_internal(name, model_file, tokenizer_file, max_positions);
    IF probed > dof_hnsw_max_dimensions() THEN
        RAISE EXCEPTION 'model "%" has % dimensions, over the % that an HNSW index (on halfvec) supports', name, probed,
                        dof_hnsw_max_dimensions()
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = format('pick a model of at most %s dimensions', dof_hnsw_max_dimensions());
    END IF;
    IF make_default THEN
        UPDATE dof_models SET is_default = false WHERE is_default;
    END IF;
    INSERT INTO dof_models AS m (name, kind, model_file, tokenizer_file, dimension, max_positions,
                                 query_prefix, passage_prefix, revision, is_default)
    VALUES (name, 'onnx', model_file, tokenizer_file, probed, max_positions, query_prefix, passage_prefix,
            to_char(clock_timestamp(), 'YYYYMMDD"T"HH24MISS.US'), make_default)
    ON CONFLICT ON CONSTRAINT dof_models_pkey DO UPDATE
        SET model_file = excluded.model_file, tokenizer_file = excluded.tokenizer_file,
            dimension = excluded.dimension, max_positions = excluded.max_positions,
            query_prefix = excluded.query_prefix, passage_prefix = excluded.passage_prefix,
            revision = excluded.revision, is_default = excluded.is_default OR m.is_default
    RETURNING * INTO registered;
    RETURN registered;
END
$$;
CREATE OR REPLACE FUNCTION dof_vector_index(dimension integer) RETURNS text
    LANGUAGE plpgsql VOLATILE SET search_path FROM CURRENT AS $$
DECLARE
    index_name text := 'dof_passages_embedding_' || dimension;
BEGIN
    IF dimension IS NULL OR dimension < 1 OR dimension > dof_hnsw_max_dimensions() THEN
        RAISE EXCEPTION 'HNSW indexes vectors of 1 to % dimensions (as halfvec), got %', dof_hnsw_max_dimensions(),
                        coalesce(dimension::text, 'NULL')
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'vectors of more dimensions are searched without an index';
    END IF;
    IF to_regclass(index_name) IS NOT NULL THEN
        RETURN index_name;
    END IF;
    EXECUTE format('CREATE INDEX %I ON dof_passages USING hnsw ((embedding::halfvec(%s)) halfvec_cosine_ops) '
                   'WITH (m = 16, ef_construction = 256) WHERE vector_dims(embedding) = %s',
                   index_name, dimension, dimension);
    RETURN index_name;
END
$$;
CREATE OR REPLACE FUNCTION dof_models_vector_index() RETURNS trigger
    LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
    IF NEW.dimension > dof_hnsw_max_dimensions() THEN
        RAISE NOTICE 'model "%" has % dimensions, over the % that HNSW indexes: its searches scan every chunk of that dimension',
                     NEW.name, NEW.dimension, dof_hnsw_max_dimensions();
    ELSE
        -- dof_vector_index returns at once when the index exists
        BEGIN
            PERFORM dof_vector_index(NEW.dimension);
        EXCEPTION WHEN insufficient_privilege THEN
            RAISE WARNING 'no HNSW index for % dimensions yet: searches with model "%" scan every chunk of that dimension', NEW.dimension, NEW.name
                USING HINT = format('the owner of dof_passages can run SELECT dof_vector_index(%s)', NEW.dimension);
        END;
    END IF;
    RETURN NULL;
END
$$;
-- the passages' HNSW index of every registered model's dimension (dof_vector_index above)
SELECT dof_vector_index(m.dimension) FROM (SELECT DISTINCT dimension FROM dof_models WHERE dimension <= dof_hnsw_max_dimensions()) m;

-- A search's query text is not blank: embedded, a blank query is the model's query prefix
-- alone, and its nearest chunks are arbitrary (a search box sent empty listed k unrelated
-- chunks with scores); parsed, it has no words. NULL passes: each search says what NULL
-- means for it. dof_vector_search (without query_embedding), dof_text_query (so
-- dof_text_search and dof_hybrid_search), a coordinator's shards (dof_shard_prepare) and
-- dof_evaluate_questions, for each question before any search (what: how the error names it),
-- check it. Nor is it over the bytes the model embeds (dof_embed_max_bytes, 64 KB), checked
-- here before it is parsed: the text leg alone took any length, and a 900 KB query spent 42 s
-- in dof_query_tsquery before its first check.
CREATE FUNCTION dof_check_query(query text, what text DEFAULT 'query') RETURNS void
    LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE SET search_path FROM CURRENT AS $$
BEGIN
    IF dof_blank_text(query) THEN
        RAISE EXCEPTION '% is empty', what USING ERRCODE = 'invalid_parameter_value',
            HINT = 'pass the words or the question to search for';
    END IF;
    IF octet_length(query) > dof_embed_max_bytes() THEN
        RAISE EXCEPTION '% has % bytes, over the % bytes a search reads', what, octet_length(query), dof_embed_max_bytes()
            USING ERRCODE = 'program_limit_exceeded', HINT = 'a search query is a question or keywords, not a document';
    END IF;
END
$$;
COMMENT ON FUNCTION dof_check_query(text, text) IS 'Raises 22023 when a search''s query text is empty or only blanks (NULL passes), 54000 when it is over dof_embed_max_bytes(), naming it as what says: the check of dof_vector_search, dof_text_search, dof_hybrid_search and each question of dof_evaluate_questions, which a coordinator''s shards run too';

-- A search's words: a query whose words are all excluded (-ley, -ley -decreto), or that a
-- chunk matches by what it lacks alone (decreto or -ley), names nothing to find. Its
-- tsquery matched nearly every chunk and scored each 0, so the text leg listed k arbitrary
-- chunks, and the hybrid ranked them first (a leg's equal scores normalise to 1).
-- dof_text_query (so dof_text_search and dof_hybrid_search) and a coordinator's shards
-- (dof_shard_prepare) check it; a query of stop words alone (an empty tsquery) matches
-- nothing and passes. Nor may the tsquery hold more than dof_query_max_nodes() words and
-- operators: PostgreSQL's querytree() recurses once per node, and a query of 20,000 words
-- (60 KB, under the bytes a search reads) failed with "stack depth limit exceeded". The
-- error quotes at most the query's first 100 characters.
CREATE FUNCTION dof_query_max_nodes() RETURNS integer
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    RETURN 16384;
CREATE FUNCTION dof_check_query_terms(query text, terms tsquery) RETURNS void
    LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE SET search_path FROM CURRENT AS $$
DECLARE
    nodes constant integer := numnode(terms);
BEGIN
    IF nodes > dof_query_max_nodes() THEN
        RAISE EXCEPTION 'query has % words and operators once parsed, over the % a search reads', nodes, dof_query_max_nodes()
            USING ERRCODE = 'program_limit_exceeded', HINT = 'a search query is a question or keywords, not a document: search with its main words';
    END IF;
    IF nodes > 0 AND querytree(terms) = 'T' THEN
        RAISE EXCEPTION 'query "%" names no word a chunk must hold',
                        CASE WHEN length(query) > 100 THEN left(query, 100) || '…' ELSE query END
            USING ERRCODE = 'invalid_parameter_value',
            HINT = 'a -word only excludes the chunks that hold it: add a word to search for (decreto -derogado); in double quotes a dash is part of the word ("-H713875-1973")';
    END IF;
END
$$;
COMMENT ON FUNCTION dof_query_max_nodes() IS 'The most words and operators (numnode) a search''s tsquery may hold (16384): PostgreSQL''s querytree() recurses once per node, and 20,000 words exceeded the stack';
COMMENT ON FUNCTION dof_check_query_terms(text, tsquery) IS 'Raises 22023 when a search''s tsquery (dof_query_tsquery of query) names no word a chunk must hold, only words to exclude (-ley) or an or with one (decreto or -ley), which matched nearly every chunk with score 0, and 54000 when it holds more than dof_query_max_nodes() words and operators: the check of dof_text_search and dof_hybrid_search, which a coordinator''s shards run too';

-- A search's filter is a JSON object (metadata containment, `{"status": "vigente"}`): an
-- array, string, number or JSON null contains no document's metadata object, and a search
-- with one returned nothing, as if nothing matched. NULL passes (no filter).
CREATE FUNCTION dof_check_filter(filter jsonb) RETURNS void
    LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE SET search_path FROM CURRENT AS $$
BEGIN
    IF jsonb_typeof(filter) <> 'object' THEN
        RAISE EXCEPTION 'filter must be a JSON object, got a JSON %', jsonb_typeof(filter) USING ERRCODE = 'invalid_parameter_value',
            HINT = 'the metadata a document must contain, e.g. ''{"status": "vigente"}''';
    END IF;
END
$$;
COMMENT ON FUNCTION dof_check_filter(jsonb) IS 'Raises 22023 unless a search''s filter is a JSON object (NULL passes): the check of dof_vector_search, dof_text_search and dof_hybrid_search, which a coordinator''s shards run too';

-- A search without a collection, when the default collection was renamed or deleted, names
-- that (it said collection "<NULL>")
CREATE OR REPLACE FUNCTION dof_collection(collection_name text DEFAULT NULL) RETURNS dof_collections
    LANGUAGE plpgsql STABLE PARALLEL SAFE SET search_path FROM CURRENT AS $$
DECLARE
    found_collection dof_collections;
BEGIN
    SELECT * INTO found_collection FROM dof_collections WHERE name = coalesce(collection_name, 'default');
    IF NOT FOUND AND collection_name IS NULL THEN
        -- renamed (dof_documents follow a new name) or deleted: it said collection "<NULL>"
        RAISE EXCEPTION 'no collection was named, and the default collection "default" does not exist'
            USING ERRCODE = 'undefined_object',
                  HINT = 'name a collection (SELECT name FROM dof_collections lists them), or create one named "default": INSERT INTO dof_collections (name) VALUES (''default'')';
    ELSIF NOT FOUND THEN
        RAISE EXCEPTION 'collection "%" does not exist', collection_name
            USING ERRCODE = 'undefined_object', HINT = 'SELECT name FROM dof_collections lists them';
    END IF;
    RETURN found_collection;
END
$$;
COMMENT ON FUNCTION dof_collection(text) IS 'The dof_collections row of a collection; NULL means ''default'' (42704, naming which, when it does not exist)';

-- The vector leg reads the models a collection's chunks hold on every search
-- (dof_collection_chunk_models): an index by collection, and within one by model.
DROP INDEX dof_chunks_collection_idx;
CREATE INDEX dof_chunks_collection_model_idx ON dof_chunks (collection, model);

-- A model whose vectors chunks still hold cannot be deleted or renamed: the chunks keep its
-- name (dof_chunks.model), and the vector leg compares each chunk with the query embedded by
-- that model (dof_vector_search_collections); without the registry row they would be
-- compared with another model's query vector, or left out, until re-indexed. A collection
-- naming the model is already kept by its foreign key; this covers the chunks a collection
-- moved to another model still holds until dof_requeue has re-indexed them.
CREATE FUNCTION dof_models_in_use() RETURNS trigger
    LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
DECLARE
    holding text;
BEGIN
    IF TG_OP = 'UPDATE' AND NEW.name = OLD.name THEN
        RETURN NEW;
    END IF;
    SELECT string_agg(format('"%s"', o.name), ', ' ORDER BY o.name) INTO holding
    FROM dof_collections o
    WHERE EXISTS (SELECT FROM dof_collection_chunk_models(o.name) m(model) WHERE m.model = OLD.name);
    IF holding IS NOT NULL AND TG_OP = 'DELETE' THEN
        RAISE EXCEPTION 'model "%" embedded chunks still stored in collection %', OLD.name, holding
            USING ERRCODE = 'object_in_use',
                  HINT = 'the vector leg searches them with this model: re-index them with the collection''s model first (SELECT dof_requeue(collection), then the queue workers or CALL dof_process_queue())';
    ELSIF holding IS NOT NULL THEN
        RAISE EXCEPTION 'model "%" cannot be renamed: chunks stored in collection % name it', OLD.name, holding
            USING ERRCODE = 'object_in_use',
                  HINT = format('register the same files under the new name (dof_register_model(%L, …)), move the collections to it (UPDATE dof_collections SET model = %L …) and re-index them (dof_requeue)', NEW.name, NEW.name);
    END IF;
    RETURN CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NEW END;
END
$$;
CREATE TRIGGER dof_models_in_use BEFORE DELETE OR UPDATE OF name ON dof_models
    FOR EACH ROW EXECUTE FUNCTION dof_models_in_use();
COMMENT ON FUNCTION dof_models_in_use() IS 'Trigger: refuses (55006) to delete or rename a model whose vectors stored chunks hold (a collection moved to another model and not yet re-indexed), naming the collections';

-- The models a collection's chunks were embedded by, by registry name (dof_chunk_model_name):
-- one, except while the collection is re-indexed after a change of its model (dof_requeue),
-- when its chunks not yet re-indexed still hold the old model's vectors. A skip scan of
-- dof_chunks_collection_model_idx: one index probe per model and revision, and one more.
CREATE FUNCTION dof_collection_chunk_models(collection text) RETURNS SETOF text
    LANGUAGE sql STABLE PARALLEL SAFE
BEGIN ATOMIC
    WITH RECURSIVE held(model) AS (
        SELECT min(c.model) FROM dof_chunks c WHERE c.collection = dof_collection_chunk_models.collection
        UNION ALL
        SELECT (SELECT min(c.model) FROM dof_chunks c
                WHERE c.collection = dof_collection_chunk_models.collection AND c.model > held.model)
        FROM held WHERE held.model IS NOT NULL)
    SELECT DISTINCT dof_chunk_model_name(held.model) FROM held WHERE held.model IS NOT NULL;
END;
COMMENT ON FUNCTION dof_collection_chunk_models(text) IS 'The models (dof_models.name) whose vectors a collection''s chunks hold: its model, and while it is re-indexed after a change of model, the one before';

-- The walks of the vector leg, as dof_nearest_passages_internal takes them: (collection,
-- model), NULL for any. A query vector lies in one model's space, and another model's
-- vectors of the same dimension are points of another space: compared with that one
-- vector, hash-384 chunks beside e5's 384 came 2nd to 5th at a cosine distance of 1.001,
-- noise; a model of another dimension's vectors are not compared at all. That happens with
-- no collection named, when collections have different models (the query is embedded by
-- the default collection's model), and in a collection whose model was changed, until
-- dof_requeue has re-indexed it (its chunks not yet re-indexed hold the old model's
-- vectors: with hash-384 set on an e5 collection, the right chunk fell to the end; with a
-- model of another dimension, they were not found at all). So when the chunks searched
-- hold a model other than the query's, each (collection, model) is walked with the query
-- embedded by that model, as a search of a collection of that model, and the walks are
-- merged by (distance, id) (e5 and its int8 variant are comparable: their vectors of one
-- text are within a small angle). DIMENSION names the only dimension to walk, for a query
-- given only as a vector (one model's, compared with its dimension's chunks); NULL walks
-- every dimension, for a query given as text, which each model embeds. A model is read
-- from the chunks held: an empty collection's model is not run (a collection whose model
-- files are missing holds none), and chunks of a model no longer registered are left out
-- of such walks. Two index probes a collection, its first model and whether it holds
-- another (only then are its models listed, dof_collection_chunk_models; listing every
-- collection's models cost 1.0 ms a search over 100 collections). Its plan is generic: as
-- a SQL function inlined into dof_vector_search's statement, or with custom plans, a table
-- not yet analyzed made PostgreSQL plan it again on every search (0.43 ms a search naming
-- a collection). It takes 0.033 ms a search over 3 collections, 0.027 ms naming one and
-- 0.26 ms over 100, against 0.010, 0.005 and 0.095 ms for one probe a collection, whether
-- it holds chunks, before models were read from them (bench/scripts/vector_walks.sh). With
-- one model in the chunks searched, the usual case, it is one walk of the collection named
-- (NULL: all), as before.
CREATE FUNCTION dof_vector_search_collections(collection text, model text, dimension integer)
    RETURNS TABLE (walk_collection text, walk_model text)
    LANGUAGE plpgsql STABLE PARALLEL SAFE SET search_path FROM CURRENT SET plan_cache_mode = force_generic_plan AS $$
DECLARE
    searched text[] := CASE WHEN collection IS NULL THEN ARRAY(SELECT o.name FROM dof_collections o) ELSE ARRAY[collection] END;
BEGIN
    RETURN QUERY
    WITH firsts AS MATERIALIZED (
             SELECT s.name, f.first_model,
                    (SELECT min(c.model) FROM dof_chunks c WHERE c.collection = s.name AND c.model > f.first_model) IS NOT NULL AS more
             FROM unnest(searched) s(name)
                  CROSS JOIN LATERAL (SELECT min(c.model) AS first_model FROM dof_chunks c WHERE c.collection = s.name) f),
         held AS (SELECT f.name, dof_chunk_model_name(f.first_model) AS model FROM firsts f
                  WHERE f.first_model IS NOT NULL AND NOT f.more
                  UNION ALL
                  SELECT f.name, h.model FROM firsts f CROSS JOIN LATERAL dof_collection_chunk_models(f.name) h(model)
                  WHERE f.more),
         walked AS (SELECT held.name, held.model FROM held JOIN dof_models m ON m.name = held.model
                    WHERE m.dimension = dof_vector_search_collections.dimension OR dof_vector_search_collections.dimension IS NULL),
         mixed AS (SELECT EXISTS (SELECT FROM walked WHERE walked.model IS DISTINCT FROM dof_vector_search_collections.model) AS models)
    SELECT dof_vector_search_collections.collection, NULL::text FROM mixed WHERE NOT mixed.models
    UNION ALL
    SELECT walked.name, walked.model FROM walked, mixed WHERE mixed.models;
END
$$;
COMMENT ON FUNCTION dof_vector_search_collections(text, text, integer) IS 'Internal: the walks of dof_vector_search, as (collection, model), NULL for any: one walk of the collection named (NULL: all), unless the chunks searched hold vectors of another model than the query''s (collections of several models, or one being re-indexed for a new model): then each (collection, model), which dof_vector_search walks with the query embedded by that model; of the dimension given, or of any when it is NULL';

-- The vector leg's comment names its Rust file as renamed (src/api/vector_search.rs), and
-- the leg ranks chunks by their passages (dof_nearest_passages_internal, above).
CREATE OR REPLACE FUNCTION dof_vector_search(query text, k integer DEFAULT 10, collection text DEFAULT NULL,
                                  filter jsonb DEFAULT NULL, query_embedding vector DEFAULT NULL)
    RETURNS TABLE (chunk_id bigint, distance double precision, rank integer)
    LANGUAGE plpgsql STABLE SET search_path FROM CURRENT SET hnsw.iterative_scan = 'off'
    SET hnsw.ef_search = 400 AS $$
DECLARE
    settings dof_collections := dof_collection(collection);
    query_vector vector;
    model_dimension integer;
    -- a query given as text, which each model can embed (not only as query_embedding)
    text_given boolean := NOT coalesce(dof_blank_text(query), true);
    wanted bigint := greatest(k::bigint + least(k, 10), 100);
    ids bigint[];
    distances double precision[];
    searched text[];
    searched_models text[];
    walk_vectors vector[];
    other_models text[];
    other_vectors vector[] := '{}';
    other_model text;
    failed_state text;
    failed_message text;
BEGIN
    IF query_embedding IS NULL THEN
        PERFORM dof_check_query(query);
    END IF;
    query_vector := coalesce(query_embedding, dof_embed_query(query, settings.model));
    IF query_vector IS NULL THEN
        RAISE EXCEPTION 'query must not be NULL' USING ERRCODE = 'null_value_not_allowed',
            HINT = 'pass the query text, or its vector as query_embedding';
    END IF;
    IF k IS NULL OR k < 1 THEN
        RAISE EXCEPTION 'k must be at least 1, got %', coalesce(k::text, 'NULL') USING ERRCODE = 'invalid_parameter_value';
    END IF;
    PERFORM dof_check_filter(filter);
    -- a vector of another dimension than the collection's model's matches no chunk: the
    -- search returned nothing (and a hybrid search its text leg alone), as if nothing were near
    model_dimension := (dof_model(settings.model)).dimension;
    IF vector_dims(query_vector) <> model_dimension THEN
        RAISE EXCEPTION 'query_embedding has % dimensions; collection "%" is embedded by model "%", of % dimensions', vector_dims(query_vector),
                        settings.name, settings.model, model_dimension
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = format('embed the query with the collection''s model: dof_embed_query(query, %L)', settings.model);
    END IF;
    -- cosine distance to the zero vector is NaN: every row would tie, in no order
    -- (pgvector itself refuses NaN and infinite elements)
    IF vector_norm(query_vector) = 0 THEN
        RAISE EXCEPTION 'query_embedding has no direction (its norm is 0)'
            USING ERRCODE = 'invalid_parameter_value', HINT = 'pass a non-zero vector, e.g. dof_embed_query(query)';
    END IF;
    -- The index query is dof_nearest_passages_internal's (src/api/vector_search.rs): the HNSW index of
    -- a dimension is a partial expression index (dof_vector_index), so the query names the
    -- dimension as a literal, and its plan is kept per dimension and arguments given (the
    -- statement names only the conditions given: with "$2 IS NULL OR c.collection = $2",
    -- the plan kept after five searches could scan every passage, 60 ms a search instead
    -- of 6 at 3,186 chunks: bench/scripts/vector_plans.sh). Ties by id, also at the
    -- k-th place: the index gives 10 more than k in its own order (near-duplicate
    -- chunks, e.g. one edition from several converters, have equal distances), and the k
    -- first by (distance, id) are kept, so the answer does not depend on which copy the
    -- graph walk met first (by ids, recall@10 against exact search rose from 0.935 to 0.959
    -- at 120,689 chunks: bench/scripts/vector_grid.sh). And at least 100: the index's own
    -- order is by its halfvec copies, in which near-duplicates differ by rounding, and the
    -- k first by float distance are taken from the first 100 it gives (ef_search 400, 100
    -- queries drawn from a fresh load: recall@10 by ids 0.929 from 20, 0.952 from 60,
    -- 0.963 from 100, 0.971 from 200; each candidate's float vector is read from TOAST,
    -- 100 instead of 20 cost 0.2-1.3 ms over runs: bench/scripts/index_kinds.sh).
    -- One graph walk of ef_search candidates first. Only when it yields fewer than k rows
    -- (a collection or filter that most of the index fails, or k over ef_search) does the
    -- walk go on with pgvector's iterative scan: having it on always cost 1 ms of 6 at
    -- 120,689 chunks (bench/scripts/vector_grid.sh). A short tie margin alone is no reason
    -- to go on: a collection smaller than k + 10 would walk the whole index every time.
    -- A named collection (or NULL: every collection, the usual case) is one walk. When the
    -- chunks searched hold vectors of another model (collections of several models, or one
    -- being re-indexed for a new model, of the same dimension or another), each
    -- (collection, model) is walked with the query embedded by that model (once per model),
    -- and the walks are merged by (distance, id) (dof_vector_search_collections). Merging
    -- every search instead cost 0.1-0.25 ms of 8 (mixed-long, 120 questions, five runs). A
    -- caller's query_embedding is the query by the collection's model (the default
    -- collection's when none is named), whose vector compared with another model's is
    -- noise: another model embeds the query's text, which a coordinator's shards and
    -- dof_evaluate pass with it; without a text it stands for every model of its dimension,
    -- and the chunks of other dimensions are not searched.
    SELECT array_agg(w.walk_collection ORDER BY w.walk_collection, w.walk_model),
           array_agg(w.walk_model ORDER BY w.walk_collection, w.walk_model)
    INTO searched, searched_models
    FROM dof_vector_search_collections(collection, settings.model,
                                       CASE WHEN NOT text_given THEN model_dimension END) w;
    -- each walk's query vector, in searched's order: embedded once per model. A model that
    -- cannot embed it (its files moved or deleted since its chunks were stored) fails the
    -- search with its own error, which named a file and no collection: a search that names
    -- none embeds the query with the model of every collection's chunks, so one collection
    -- whose model's file is gone failed every such search with no word of why. The error
    -- now says which collections need the model, and what a search that names another does
    IF searched_models[1] IS NOT NULL THEN
        other_models := ARRAY(SELECT DISTINCT w.model FROM unnest(searched_models) w(model)
                              WHERE text_given AND w.model <> settings.model ORDER BY w.model);
        FOREACH other_model IN ARRAY other_models LOOP
            BEGIN
                other_vectors := other_vectors || dof_embed_query(query, other_model);
            EXCEPTION WHEN OTHERS THEN
                GET STACKED DIAGNOSTICS failed_state = RETURNED_SQLSTATE, failed_message = MESSAGE_TEXT;
                RAISE EXCEPTION USING ERRCODE = failed_state, MESSAGE = failed_message,
                    DETAIL = (SELECT format('the chunks of %s %s were embedded by model "%s": a search compares them with the query embedded by that model',
                                            CASE WHEN count(*) > 1 THEN 'collections' ELSE 'collection' END,
                                            string_agg(format('"%s"', s.name), ', ' ORDER BY s.name), other_model)
                              FROM unnest(searched, searched_models) s(name, model) WHERE s.model = other_model),
                    HINT = format('restore the files dof_models names for "%s", or move those collections to a model that loads and re-index them (UPDATE dof_collections SET model = …; SELECT dof_requeue(collection)); a search that names another collection does not use it', other_model);
            END;
        END LOOP;
        walk_vectors := ARRAY(SELECT CASE WHEN w.model = settings.model OR NOT text_given THEN query_vector
                                          ELSE other_vectors[array_position(other_models, w.model)] END
                              FROM unnest(searched_models) WITH ORDINALITY w(model, n) ORDER BY w.n);
    END IF;
    FOR walk IN 1..2 LOOP
        IF walk_vectors IS NULL THEN
            SELECT n.ids, n.distances INTO ids, distances
            FROM dof_nearest_passages_internal(query_vector, vector_dims(query_vector), searched[1], filter::text, wanted, NULL) n;
        ELSE
            SELECT array_agg(u.id ORDER BY u.distance, u.id), array_agg(u.distance ORDER BY u.distance, u.id) INTO ids, distances
            FROM (SELECT u.id, u.distance
                  FROM unnest(searched, searched_models, walk_vectors) s(name, model, vector)
                       CROSS JOIN LATERAL dof_nearest_passages_internal(s.vector, vector_dims(s.vector), s.name, filter::text, wanted, s.model) n
                       CROSS JOIN LATERAL unnest(n.ids, n.distances) u(id, distance)
                  ORDER BY u.distance, u.id LIMIT wanted) u;
        END IF;
        EXIT WHEN coalesce(cardinality(ids), 0) >= k OR walk = 2;
        PERFORM set_config('hnsw.iterative_scan', 'relaxed_order', true);  -- until this function returns
    END LOOP;
    RETURN QUERY SELECT u.id, u.distance, u.rank::integer
                 FROM unnest(ids, distances) WITH ORDINALITY AS u(id, distance, rank)
                 WHERE u.rank <= k ORDER BY u.rank;
END
$$;

-- BM25 has one owner, dof_core::bm25: the IDF formula (dof_bm25_idfs, a SQL formula
-- before), the selective IDF (ln 20, written into dof_any_terms_query) and the parameters
-- (written into a comment) come from the library; SQL keeps the statistics.
CREATE OR REPLACE FUNCTION "dof_bm25_idfs"("chunks" double precision[], "total" double precision) RETURNS double precision[]
IMMUTABLE PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'dof_bm25_idfs_wrapper';
CREATE FUNCTION "dof_bm25_selective_idf"() RETURNS double precision
IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'dof_bm25_selective_idf_wrapper';
CREATE FUNCTION "dof_bm25_parameters"() RETURNS TABLE ("k1" double precision, "b" double precision, "heading_weight" double precision)
IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'dof_bm25_parameters_wrapper';
-- match_terms => 'any' keeps a query's phrases and excluded words as what a match must hold
-- beside its selective lexemes: with one, 0.2.0 matched the query itself (text_search.sql).
CREATE OR REPLACE FUNCTION dof_any_terms_query(query tsquery, lexemes text[], idfs double precision[], chunks double precision[],
                                    budget double precision DEFAULT 2000) RETURNS tsquery
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
BEGIN ATOMIC
    -- the query's parts: its lexemes, phrases ('dia' <3> 'cuid') and negations, joined by &
    -- (querytree() would drop a negation); a part with a quote or parenthesis it does not
    -- close is no part (a lexeme holding " & "), and the query itself is kept
    WITH parts AS (SELECT p FROM regexp_split_to_table(query::text, ' & ') AS p),
         required AS (SELECT string_agg(p, ' & ') AS terms FROM parts WHERE p ~ '[!<]'),
         selective AS (SELECT string_agg('''' || replace(replace(s.lexeme, '\', '\\'), '''', '''''') || '''', ' | ')::tsquery AS terms
                       FROM (SELECT t.lexeme, sum(t.chunks) OVER (ORDER BY t.idf DESC, t.lexeme) AS running
                             FROM unnest(lexemes, idfs, chunks) AS t(lexeme, idf, chunks)
                             WHERE t.chunks > 0
                               AND (t.idf >= dof_bm25_selective_idf()
                                    OR NOT EXISTS (SELECT FROM unnest(dof_any_terms_query.idfs, dof_any_terms_query.chunks) AS u(idf, held)
                                                   WHERE u.held > 0 AND u.idf >= dof_bm25_selective_idf()))) s
                       WHERE s.running <= budget)
    SELECT CASE WHEN query::text ~ '\|'
                  OR EXISTS (SELECT FROM parts
                             WHERE length(p) - length(replace(p, '(', '')) <> length(p) - length(replace(p, ')', ''))
                                OR (length(p) - length(replace(p, '''', ''))) % 2 = 1)
                THEN query
                WHEN r.terms IS NULL THEN coalesce(s.terms, query)
                ELSE coalesce(s.terms && r.terms::tsquery, query) END
    FROM required r, selective s;
END;
COMMENT ON FUNCTION dof_bm25_score_internal(anyelement, double precision, text[], double precision[], double precision) IS 'Internal: BM25 of one tsvector with dof_bm25_parameters(); used by the text leg';
COMMENT ON FUNCTION dof_any_terms_query(tsquery, text[], double precision[], double precision[], double precision) IS 'The tsquery of match_terms => ''any'': the selective lexemes (IDF >= dof_bm25_selective_idf()) some chunk holds OR''ed, rarest first within an estimated budget of matching chunks, or, when no chunk holds one, every lexeme some chunk holds, the same way, and the query''s phrases and excluded words with them (( ''a'' | ''b'' ) & ''c'' <-> ''d'' & !''e''); the query itself when it has an or, nothing fits the budget, or no statistics are given';
COMMENT ON FUNCTION dof_bm25_idfs(double precision[], double precision) IS 'Lucene''s BM25 IDF, ln(1 + (total - n + 0.5) / (n + 0.5)), of each count n of chunks holding a lexeme among total chunks';
COMMENT ON FUNCTION dof_bm25_selective_idf() IS 'The IDF from which a lexeme is selective (ln 20: in at most about 5% of chunks): match_terms => ''any'' ORs those some chunk holds (every lexeme some chunk holds when none: dof_any_terms_query)';
COMMENT ON FUNCTION dof_bm25_parameters() IS 'BM25''s parameters as the text leg scores with them: k1, b, and what a match in the heading path (weight A) counts as';

-- The weighted fusion's comment says how it normalises.
COMMENT ON FUNCTION dof_weighted_fusion(bigint[], double precision[], bigint[], double precision[], double precision) IS 'Weighted min-max fusion of two scored lists: each normalised by its spread (the vector leg''s at least dof_fusion_vector_min_spread()), score = (1 - alpha) x vector + alpha x text; ties break on id';
COMMENT ON FUNCTION dof_fusion_vector_min_spread() IS 'The least spread of the vector leg''s similarities that the weighted fusion divides by (0.1): candidates that hardly differ are not stretched to 0..1';

-- The embedding functions take the model's dof_models row, the one way a model becomes a
-- spec (they took its fields one by one): the wrappers call the new ones, then the old go
-- (the library keeps their symbols for databases not yet updated: src/api/release_0_2_0.rs).
CREATE FUNCTION dof_embed_query_internal(query text, model dof_models) RETURNS real[]
    STABLE PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'dof_embed_query_model_wrapper';
CREATE FUNCTION dof_embed_internal(texts text[], model dof_models, as_query bool)
    RETURNS TABLE (ordinality int, embedding real[])
    STABLE PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'dof_embed_model_wrapper';
CREATE FUNCTION dof_embed_late_internal(chunks text[], front_matter text[], model dof_models)
    RETURNS TABLE (ordinality int, embedding real[])
    STABLE PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'dof_embed_late_model_wrapper';
CREATE OR REPLACE FUNCTION dof_embed_query(query text, model text DEFAULT NULL) RETURNS vector
    LANGUAGE sql STABLE PARALLEL SAFE
    RETURN (SELECT dof_embed_query_internal(query, m)::vector FROM dof_model(model) m);

CREATE OR REPLACE FUNCTION dof_embed(texts text[], model text DEFAULT NULL, as_query boolean DEFAULT false)
    RETURNS TABLE (ordinality integer, embedding vector)
    LANGUAGE sql STABLE PARALLEL SAFE
BEGIN ATOMIC
    SELECT e.ordinality, e.embedding::vector
    FROM dof_model(model) m,
         dof_embed_internal(texts, m, as_query) e;
END;

CREATE OR REPLACE FUNCTION dof_embed_late(chunks text[], front_matter text[] DEFAULT NULL, model text DEFAULT NULL)
    RETURNS TABLE (ordinality integer, embedding vector)
    LANGUAGE sql STABLE PARALLEL SAFE
BEGIN ATOMIC
    SELECT e.ordinality, e.embedding::vector
    FROM dof_model(model) m,
         dof_embed_late_internal(chunks, front_matter, m) e;
END;
DROP FUNCTION dof_embed_query_internal(text, text, text, text, text, integer, integer, text, text);
DROP FUNCTION dof_embed_internal(text[], text, text, text, text, integer, integer, text, text);
DROP FUNCTION dof_embed_late_internal(text[], text[], text, text, text, text, integer, integer, text, text);
COMMENT ON FUNCTION dof_embed_query_internal(text, dof_models) IS 'Internal: use dof_embed_query';
COMMENT ON FUNCTION dof_embed_internal(text[], dof_models, boolean) IS 'Internal: use dof_embed';
COMMENT ON FUNCTION dof_embed_late_internal(text[], text[], dof_models) IS 'Internal: use dof_embed_late';

-- The content hash is a column: dof_documents.content_sha256, kept by PostgreSQL from the
-- body. dof_put_document compares it, and dof load reads it (0.2.0 kept the hash in
-- metadata.content_sha256, written by each writer its own way: the loader hashed the file,
-- converted or not). Adding the column rewrites dof_documents once (every body hashed); the
-- old metadata key is left where it is: removing it would rewrite every chunk row (their
-- copy of the metadata) and its HNSW entries. The next write of a document replaces it.
CREATE FUNCTION dof_content_hash(body text) RETURNS text
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    RETURN encode(sha256(convert_to(body, 'UTF8')), 'hex');
ALTER TABLE dof_documents ADD COLUMN content_sha256 text NOT NULL GENERATED ALWAYS AS (dof_content_hash(body)) STORED;
-- A document's metadata is a JSON object (a fresh install's CHECK): 0.2.0 took any JSON by
-- INSERT, and front matter's fields merged into a string or an array made an array. Rows
-- stored before are not changed: the check is validated when every row passes, and
-- otherwise left NOT VALID with a warning that says how many rows to fix.
ALTER TABLE dof_documents ADD CONSTRAINT dof_documents_metadata_check CHECK (jsonb_typeof(metadata) = 'object') NOT VALID;
DO $$
DECLARE
    n bigint := (SELECT count(*) FROM dof_documents WHERE jsonb_typeof(metadata) <> 'object');
BEGIN
    IF n = 0 THEN
        ALTER TABLE dof_documents VALIDATE CONSTRAINT dof_documents_metadata_check;
    ELSE
        RAISE WARNING '% documents have metadata that is not a JSON object; new and changed rows must have one, and a restore from pg_dump refuses these', n
            USING HINT = 'SELECT id, source_id, metadata FROM dof_documents WHERE jsonb_typeof(metadata) <> ''object'' lists them; '
                         'after fixing them: ALTER TABLE dof_documents VALIDATE CONSTRAINT dof_documents_metadata_check';
    END IF;
END
$$;
CREATE OR REPLACE FUNCTION dof_put_document(collection text, source_id text, title text, body text, metadata jsonb DEFAULT '{}')
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
COMMENT ON COLUMN dof_documents.content_sha256 IS 'The body''s SHA-256 (dof_content_hash), kept by PostgreSQL: what dof_put_document and dof load compare to leave an unchanged document alone';
COMMENT ON FUNCTION dof_content_hash(text) IS 'SHA-256 of a text''s UTF-8 bytes, in hex: dof_documents.content_sha256, and the digest dof load computes before sending a file';
COMMENT ON FUNCTION dof_put_document(text, text, text, text, jsonb) IS 'Stores a document idempotently by (collection, source_id) and content hash (content_sha256): added, updated (the metadata given replaces the stored) or unchanged (nothing written); what dof load calls and a coordinator routes to one shard';

-- A coordinator's search arguments are checked by its shards, with one server's checks:
-- dof_check_hybrid_arguments and dof_check_text_arguments (dof_hybrid_search's and
-- dof_text_search's, which call them) and the embedding's length limit
-- (dof_embed_max_bytes()), in dof_shard_prepare, the coordinator's first call of every
-- search (it copied them; a 0.2.0 coordinator's three-argument call still works).
CREATE FUNCTION "dof_embed_max_bytes"() RETURNS INT
IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'dof_embed_max_bytes_wrapper';
COMMENT ON FUNCTION dof_embed_max_bytes() IS 'The longest text, in bytes, the embedding functions take (a search query included)';
CREATE FUNCTION dof_check_hybrid_arguments(k integer, candidate_pool integer, dedup_by_source boolean) RETURNS void
    LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE SET search_path FROM CURRENT AS $$
BEGIN
    IF k IS NULL OR k < 1 OR candidate_pool IS NULL OR candidate_pool < 1 OR candidate_pool > 100000
       OR dedup_by_source IS NULL THEN
        RAISE EXCEPTION 'k must be at least 1, candidate_pool between 1 and 100000 and dedup_by_source not NULL (got k %, candidate_pool %, dedup_by_source %)',
                        coalesce(k::text, 'NULL'), coalesce(candidate_pool::text, 'NULL'), coalesce(dedup_by_source::text, 'NULL')
            USING ERRCODE = 'invalid_parameter_value', HINT = 'the defaults are k 10, candidate_pool 50';
    END IF;
END
$$;
CREATE FUNCTION dof_check_text_arguments(ranking text, match_terms text) RETURNS void
    LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE SET search_path FROM CURRENT AS $$
BEGIN
    IF ranking IS NULL OR ranking NOT IN ('bm25', 'ts_rank_cd') THEN
        RAISE EXCEPTION 'unknown ranking "%"', ranking USING ERRCODE = 'invalid_parameter_value',
            HINT = 'use ''bm25'' or ''ts_rank_cd''';
    END IF;
    IF match_terms IS NULL OR match_terms NOT IN ('any', 'all') THEN
        RAISE EXCEPTION 'unknown match_terms "%"', match_terms USING ERRCODE = 'invalid_parameter_value',
            HINT = 'use ''any'' or ''all''';
    END IF;
END
$$;
COMMENT ON FUNCTION dof_check_hybrid_arguments(integer, integer, boolean) IS 'Raises 22023 unless k >= 1, candidate_pool is 1 to 100000 and dedup_by_source is not NULL: dof_hybrid_search''s check, which a coordinator''s shards run too';
COMMENT ON FUNCTION dof_check_text_arguments(text, text) IS 'Raises 22023 unless ranking is bm25 or ts_rank_cd and match_terms any or all: dof_text_search''s check, which a coordinator''s shards run too';
DROP FUNCTION dof_shard_prepare(text, text, integer);
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
COMMENT ON FUNCTION dof_shard_prepare(text, text, integer, integer, integer, boolean, text, text) IS 'For a coordinator: checks the search''s arguments as one server does, then the query''s lexemes, this shard''s BM25 statistics for them, its pg_dof version and number, and the query''s embedding on the shard numbered embed_shard';

-- A document moved between shards keeps its chunks' passages (a 0.2.0 shard's chunk is
-- its own one passage).
CREATE OR REPLACE FUNCTION dof_shard_import(collection text, source_id text, document jsonb, chunks jsonb) RETURNS text
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
COMMENT ON FUNCTION dof_shard_export_misplaced(integer, integer) IS 'For a coordinator''s rebalance: a batch of the documents here that belong to another shard of a cluster of shards shards, with their chunks, passages and vectors as JSON';
COMMENT ON FUNCTION dof_shard_import(text, text, jsonb, jsonb) IS 'For a coordinator''s rebalance: stores a document moved from another shard with its chunks, passages and vectors as given (nothing re-embedded); moved, indexed or unchanged';

-- Evaluation in SQL: dof_evaluate_questions runs a user's own questions through the search
-- methods, dof_evaluate scores them per method.

-- The query that reads a user's questions: the text itself when it is a query (SELECT,
-- WITH, VALUES or TABLE in any case, after blanks, comments or an opening parenthesis),
-- otherwise every row of the table or view it names. NULL is refused (22004), and a name
-- that is not a table the caller can see keeps its own error with a hint that says what
-- questions may be: a lowercase `select ...` was read as a table name ("invalid name syntax").
CREATE FUNCTION dof_evaluate_source(questions text) RETURNS text
    LANGUAGE plpgsql STABLE SET search_path FROM CURRENT AS $$
DECLARE
    state text;
    message text;
BEGIN
    IF questions IS NULL THEN
        RAISE EXCEPTION 'questions must not be NULL' USING ERRCODE = 'null_value_not_allowed',
            HINT = 'a query such as SELECT q AS question, doc AS source_id FROM my_questions, or a table''s name';
    END IF;
    IF questions ~* '^(\s|--[^\n]*(\n|$)|/\*([^*]|\*+[^*/])*\*+/)*(\(|(SELECT|WITH|VALUES|TABLE)\M)' THEN
        RETURN questions;
    END IF;
    RETURN format('SELECT * FROM %s', questions::regclass);
EXCEPTION WHEN invalid_name OR undefined_table OR invalid_schema_name OR syntax_error OR feature_not_supported THEN
    GET STACKED DIAGNOSTICS state = RETURNED_SQLSTATE, message = MESSAGE_TEXT;
    RAISE EXCEPTION USING ERRCODE = state, MESSAGE = message,
        HINT = 'questions is a query (SELECT, WITH, VALUES or TABLE) or the name of a table or view with the columns question and source_id';
END
$$;
COMMENT ON FUNCTION dof_evaluate_source(text) IS
    'Internal: the query that reads dof_evaluate''s questions: the text when it is a query (SELECT, WITH, VALUES or TABLE, any case), otherwise every row of the table or view it names; NULL or a name that is no visible table is an error with a hint';

CREATE FUNCTION dof_evaluate_questions(questions text, collection text DEFAULT NULL, k integer DEFAULT 10,
                                       methods text[] DEFAULT ARRAY['vector', 'text', 'hybrid', 'hybrid:fusion=rrf'])
    RETURNS TABLE (method text, question_id text, question text, source_id text, first_hit integer,
                   reciprocal_rank double precision, ndcg double precision, recall double precision,
                   relevant_chunks integer, ms double precision, chunk_ids bigint[], first_source_id text, kind text,
                   document_hit integer)
    LANGUAGE plpgsql VOLATILE SET search_path FROM CURRENT AS $$
#variable_conflict use_column
DECLARE
    settings dof_collections := dof_collection(collection);
    -- a collection named: its chunks; none: every collection's, as a search with none named
    -- searches them, so the figures are those of the searches a user runs with the defaults
    -- (the question's document in any collection; the query embedded by the default
    -- collection's model, as a search's is)
    searched text := CASE WHEN collection IS NOT NULL THEN settings.name END;
    source text;
    spec text;
    leg text;
    arguments text;
    named text;
    search text;
    allowed text[];
    pair text;
    argument_name text;
    argument_value text;
    argument_type text;
    given text[];
    item record;
    t0 timestamptz;
    ids bigint[];
    n_missing bigint;
    searches text[] := '{}';
    method_number integer;
    -- the columns the questions' rows are read from; any other is named in a WARNING: a
    -- misnamed answer column (char_range, evidence) scored every chunk of the question's
    -- document as relevant without a word, and a misnamed id numbered the rows
    read_columns CONSTANT text[] := ARRAY['question', 'source_id', 'answer', 'char_start', 'char_end', 'chunk_ids', 'id', 'kind'];
    given_columns text[];
    unread text[];
    -- whether a method searches by vector: text searches alone embed no question (the
    -- mixed set's 580 questions, text leg alone: 6.5 s with their embeddings, 0.7 s without)
    embeds boolean := false;
BEGIN
    source := dof_evaluate_source(questions);
    IF k IS NULL OR k < 1 OR k > 1000 THEN
        RAISE EXCEPTION 'k must be between 1 and 1000, got %', coalesce(k::text, 'NULL') USING ERRCODE = 'invalid_parameter_value';
    END IF;
    -- no method measured nothing, and returned no row as if the questions had none
    IF coalesce(cardinality(methods), 0) = 0 THEN
        RAISE EXCEPTION 'methods names no method' USING ERRCODE = 'invalid_parameter_value',
            HINT = 'e.g. ARRAY[''vector'', ''text'', ''hybrid''], the default adding ''hybrid:fusion=rrf''';
    END IF;
    -- a method named twice runs once: its rows are one method's
    methods := ARRAY(SELECT m FROM unnest(methods) WITH ORDINALITY AS u(m, o) GROUP BY m ORDER BY min(o));
    -- every method is read before any question is embedded or searched: a mistake in the
    -- last one is named at once, not after the searches of the others
    FOREACH spec IN ARRAY methods LOOP
        leg := split_part(spec, ':', 1);
        arguments := nullif(substr(spec, length(leg) + 2), '');
        embeds := embeds OR leg IN ('vector', 'hybrid');
        allowed := CASE leg WHEN 'vector' THEN ARRAY['filter']
                            WHEN 'text' THEN ARRAY['filter', 'ranking', 'match_terms']
                            WHEN 'hybrid' THEN ARRAY['filter', 'candidate_pool', 'rrf_k', 'dedup_by_source', 'ranking', 'match_terms',
                                                     'fusion', 'alpha', 'vector_weight', 'text_weight'] END;
        IF allowed IS NULL THEN
            RAISE EXCEPTION 'unknown method "%"', spec USING ERRCODE = 'invalid_parameter_value',
                HINT = 'vector, text or hybrid, with the search''s arguments after a colon: hybrid:fusion=rrf,alpha=0.3';
        END IF;
        -- the arguments as named arguments of the search function, each value a literal
        -- the function's parameter type reads. An argument named twice, or a value its type
        -- cannot read (alpha=abc), is named here: the search's own error quoted the
        -- statement built below
        named := '';
        given := '{}';
        FOREACH pair IN ARRAY coalesce(string_to_array(arguments, ','), '{}') LOOP
            argument_name := split_part(pair, '=', 1);
            argument_value := substr(pair, strpos(pair, '=') + 1);
            IF argument_name <> ALL (allowed) OR strpos(pair, '=') = 0 THEN
                RAISE EXCEPTION 'method "%": unknown argument "%"', spec, pair
                    USING ERRCODE = 'invalid_parameter_value', HINT = format('%s takes %s', leg, array_to_string(allowed, ', '));
            END IF;
            IF argument_name = ANY (given) THEN
                RAISE EXCEPTION 'method "%": argument % given twice', spec, argument_name
                    USING ERRCODE = 'invalid_parameter_value', HINT = 'give each argument once: hybrid:fusion=rrf,alpha=0.3';
            END IF;
            given := given || argument_name;
            -- the parameter's type, as the search function declares it
            SELECT format_type(a.type, NULL) INTO argument_type
            FROM pg_catalog.pg_proc p, unnest(p.proargnames[1:p.pronargs], p.proargtypes::oid[]) AS a(name, type)
            WHERE p.oid = format('dof_%s_search', leg)::regproc AND a.name = argument_name;
            BEGIN
                EXECUTE format('SELECT %L::%s', argument_value, argument_type);
            EXCEPTION WHEN data_exception THEN
                RAISE EXCEPTION 'method "%": % takes a value of type %, got "%"', spec, argument_name, argument_type, argument_value
                    USING ERRCODE = 'invalid_parameter_value',
                          HINT = 'arguments are name=value, separated by commas without spaces: hybrid:fusion=rrf,alpha=0.3';
            END;
            named := named || format(', %I => %L', argument_name, argument_value);
        END LOOP;
        search := CASE leg
            WHEN 'vector' THEN format('SELECT array_agg(chunk_id ORDER BY rank) FROM dof_vector_search($1, $2, $3, query_embedding => $4%s)', named)
            WHEN 'text' THEN format('SELECT array_agg(chunk_id ORDER BY rank) FROM dof_text_search($1, $2, $3%s)', named)
            ELSE format('SELECT array_agg(chunk_id ORDER BY score DESC, chunk_id) FROM dof_hybrid_search($1, $2, $3, query_embedding => $4%s)', named)
        END;
        searches := searches || search;
    END LOOP;
    -- a second call in one transaction finds them (IF NOT EXISTS would say so in a NOTICE)
    IF to_regclass('pg_temp.dof_evaluate_asked') IS NULL THEN
        CREATE TEMP TABLE dof_evaluate_asked (id integer, question_id text, question text, source_id text,
                                              answer int4multirange, char_start integer, char_end integer,
                                              chunk_ids bigint[], embedding vector, relevant bigint[], kind text,
                                              columns text[])
            ON COMMIT DROP;
    END IF;
    IF to_regclass('pg_temp.dof_evaluate_runs') IS NULL THEN
        CREATE TEMP TABLE dof_evaluate_runs (method text, question integer, ids bigint[], ms double precision) ON COMMIT DROP;
    END IF;
    TRUNCATE dof_evaluate_asked, dof_evaluate_runs;
    -- chunk_ids: an array of chunk ids (or one id); an element that is no id is kept as NULL
    -- for the check below to name. A value its column cannot hold (an answer that is no range,
    -- {[5,2)}; a char_start that is no integer) raised PostgreSQL's own error with this whole
    -- statement as its context: it is named as the questions' now
    BEGIN
        EXECUTE format($q$INSERT INTO dof_evaluate_asked
            SELECT n, coalesce(j->>'id', n::text), j->>'question', j->>'source_id',
                   CASE WHEN j->>'answer' LIKE '{%%' THEN (j->>'answer')::int4multirange
                        WHEN j->>'answer' IS NOT NULL THEN int4multirange((j->>'answer')::int4range) END,
                   (j->>'char_start')::integer, (j->>'char_end')::integer,
                   CASE WHEN jsonb_typeof(j->'chunk_ids') <> 'null'
                        THEN ARRAY(SELECT CASE WHEN e ~ '^[0-9]{1,18}$' THEN e::bigint END
                                   FROM jsonb_array_elements_text(CASE jsonb_typeof(j->'chunk_ids') WHEN 'array' THEN j->'chunk_ids'
                                                                       ELSE jsonb_build_array(j->'chunk_ids') END) e) END,
                   NULL, NULL, j->>'kind',
                   CASE WHEN n = 1 THEN ARRAY(SELECT c FROM jsonb_object_keys(j) c ORDER BY c) END
            FROM (SELECT to_jsonb(q) AS j, row_number() OVER () AS n FROM (%s) q) s$q$, source);
    EXCEPTION WHEN data_exception THEN
        RAISE EXCEPTION 'the questions could not be read: %', SQLERRM USING ERRCODE = 'invalid_parameter_value',
            HINT = 'answer is a range or multirange of the body''s characters (''[120,480)'', ''{[120,480),[900,950)}''), char_start and char_end integers, chunk_ids ids';
    END;
    given_columns := (SELECT q.columns FROM dof_evaluate_asked q WHERE q.id = 1);
    SELECT * INTO item FROM dof_evaluate_asked q WHERE q.question IS NULL OR q.source_id IS NULL ORDER BY q.id LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'every question needs the columns question and source_id'
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = CASE WHEN ARRAY['question', 'source_id'] <@ given_columns
                                THEN format('question %s has no %s', item.question_id, CASE WHEN item.question IS NULL THEN 'question' ELSE 'source_id' END)
                                ELSE format('the questions'' columns are %s', (SELECT string_agg(format('"%s"', c), ', ') FROM unnest(given_columns) c)) END,
                  HINT = 'e.g. SELECT q AS question, doc AS source_id, start AS char_start, stop AS char_end FROM my_questions';
    END IF;
    IF NOT EXISTS (SELECT 1 FROM dof_evaluate_asked) THEN
        RAISE EXCEPTION 'no questions' USING ERRCODE = 'invalid_parameter_value',
            HINT = 'the questions query returned no rows';
    END IF;
    unread := ARRAY(SELECT c FROM unnest(given_columns) c WHERE c <> ALL (read_columns));
    IF cardinality(unread) > 0 THEN
        RAISE WARNING 'the questions have columns dof_evaluate does not read: %', (SELECT string_agg(format('"%s"', c), ', ') FROM unnest(unread) c)
            USING HINT = 'it reads question, source_id, answer (or char_start and char_end), chunk_ids, id and kind; a question without answer, char_start or chunk_ids counts every chunk of its document as relevant';
    END IF;
    SELECT * INTO item FROM dof_evaluate_asked q WHERE q.char_start > q.char_end ORDER BY q.id LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'question %: char_start % is after char_end %', item.question_id, item.char_start, item.char_end
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'char_start and char_end are the answer''s characters in the body, 0-based, end exclusive';
    END IF;
    SELECT * INTO item FROM dof_evaluate_asked q WHERE array_position(q.chunk_ids, NULL) IS NOT NULL ORDER BY q.id LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'question %: chunk_ids holds something that is no chunk id', item.question_id
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'chunk_ids is an array of dof_chunks.id values (or one), e.g. ARRAY[12, 13]';
    END IF;
    UPDATE dof_evaluate_asked q SET answer = int4multirange(int4range(q.char_start, q.char_end))
    WHERE q.answer IS NULL AND q.char_start IS NOT NULL;
    -- a blank question names itself before any search runs (the search's own error would not)
    PERFORM dof_check_query(q.question, format('question %s', q.question_id)) FROM dof_evaluate_asked q ORDER BY q.id;
    -- each question's relevant chunks (of its document in the collection, those that overlap
    -- its answer and are among its chunk_ids where it gives them; all of them without
    -- either), and its vector, once for every method that searches by one
    UPDATE dof_evaluate_asked q
    SET embedding = CASE WHEN embeds THEN dof_embed_query(q.question, settings.model) END,
        relevant = ARRAY(SELECT c.id FROM dof_documents d JOIN dof_chunks c ON c.document_id = d.id
                         WHERE (searched IS NULL OR d.collection = searched) AND d.source_id = q.source_id
                           AND (q.answer IS NULL OR q.answer && int4range(c.char_start, c.char_end))
                           AND (q.chunk_ids IS NULL OR c.id = ANY (q.chunk_ids)));
    FOR method_number IN 1 .. cardinality(methods) LOOP
        spec := methods[method_number];
        search := searches[method_number];
        FOR item IN SELECT * FROM dof_evaluate_asked ORDER BY id LOOP
            t0 := clock_timestamp();
            EXECUTE search INTO ids USING item.question, k, searched, item.embedding;
            INSERT INTO dof_evaluate_runs VALUES (spec, item.id, ids,
                                                  extract(epoch FROM clock_timestamp() - t0) * 1000);
        END LOOP;
    END LOOP;
    n_missing := (SELECT count(*) FROM dof_evaluate_asked q WHERE cardinality(q.relevant) = 0);
    IF n_missing > 0 THEN
        RAISE WARNING '% of % questions have no chunk in % that matches their source_id and answer: they score 0',
                      n_missing, (SELECT count(*) FROM dof_evaluate_asked), coalesce(format('collection "%s"', searched), 'any collection')
            USING HINT = 'dof_evaluate_questions lists them with relevant_chunks = 0: check each source_id against dof_documents.source_id, its range against the body''s length and its chunk_ids against dof_chunks (a document indexed again has new chunk ids)';
    END IF;
    RETURN QUERY
    SELECT r.method, q.question_id, q.question, q.source_id, x.first_hit::integer,
           coalesce(1.0 / x.first_hit, 0)::double precision,
           (CASE WHEN cardinality(q.relevant) = 0 THEN 0
                 ELSE x.dcg / (SELECT sum(1 / log(2, i + 1)) FROM generate_series(1, least(k, cardinality(q.relevant))) i)
            END)::double precision,
           (CASE WHEN cardinality(q.relevant) = 0 THEN 0
                 ELSE x.hits::double precision / least(k, cardinality(q.relevant)) END)::double precision,
           cardinality(q.relevant), r.ms, r.ids, y.first_source_id, q.kind, y.document_hit::integer
    FROM dof_evaluate_runs r
    JOIN dof_evaluate_asked q ON q.id = r.question
    CROSS JOIN LATERAL (  -- the run's returned chunks that are among the question's relevant ones
        SELECT min(u.rank) AS first_hit, coalesce(sum(1 / log(2, u.rank + 1)), 0) AS dcg, count(*) AS hits
        FROM unnest(r.ids) WITH ORDINALITY AS u(chunk, rank) WHERE u.chunk = ANY (q.relevant)) x
    CROSS JOIN LATERAL (  -- the returned chunks' documents, read once: the first chunk's, and the
                          -- place of the first chunk of the question's document, whatever its place in it
        SELECT min(d.source_id) FILTER (WHERE u.rank = 1) AS first_source_id,
               min(u.rank) FILTER (WHERE d.source_id = q.source_id AND (searched IS NULL OR d.collection = searched)) AS document_hit
        FROM unnest(r.ids) WITH ORDINALITY AS u(chunk, rank)
        JOIN dof_chunks c ON c.id = u.chunk JOIN dof_documents d ON d.id = c.document_id) y
    ORDER BY array_position(methods, r.method), q.id;
END
$$;
COMMENT ON FUNCTION dof_evaluate_questions(text, text, integer, text[]) IS
    'Each question through each search method, one row per method and question, in collection (NULL: every collection, as the searches): questions is a query or table with question and source_id (and optionally char_start, char_end or answer: the answer in that document; chunk_ids: the chunks that answer it; id: comes back as question_id); methods are vector, text, hybrid, each with the search''s own arguments after a colon (hybrid:fusion=rrf,alpha=0.3); returns the rank of the first relevant chunk, reciprocal rank, nDCG@k, recall@k, the relevant chunks there are, milliseconds, the chunk ids returned, the first one''s document, the question''s kind (a kind column in the questions, NULL without) and the rank of the first chunk of the question''s document, whatever its place in it (document_hit)';

-- The exact two-sided sign test: the probability, were two methods equally good, that of
-- the better + worse questions where they differ one would win at most min(better, worse)
-- of them (each question a fair coin; ties left out): 2 * sum over i <= min of
-- C(n, i) / 2^n, at most 1. Exact for any number of questions (the binomial terms in
-- logarithms; a term under e^-700, which PostgreSQL's exp() refuses as an underflow,
-- counts as e^-700), and it assumes nothing about how reciprocal ranks are distributed,
-- which a t-test would: on a few dozen questions they are mostly 1 and 0.
CREATE FUNCTION dof_sign_test(better bigint, worse bigint) RETURNS double precision
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
BEGIN ATOMIC
    SELECT CASE WHEN better >= 0 AND worse >= 0
                THEN least(1.0, 2 * sum(exp(greatest(t.log_choose - (better + worse) * ln(2.0::double precision), -700)))) END
    FROM (SELECT sum(CASE WHEN i = 0 THEN 0 ELSE ln((better + worse - i + 1)::double precision) - ln(i::double precision) END)
                     OVER (ORDER BY i) AS log_choose
          FROM generate_series(0, least(better, worse)) i) t;
END;
COMMENT ON FUNCTION dof_sign_test(bigint, bigint) IS
    'The exact two-sided sign test''s p-value for two methods where one ranks better questions higher and worse lower (ties left out): how likely so uneven a split is between two equally good methods; 1 when they never differ, NULL for a negative count: dof_evaluate''s p_value';

-- Per method, the means of dof_evaluate_questions' rows: MRR@k, R@1 and R@5 (a relevant
-- chunk first / in the first 5), nDCG@k, recall@k and mean milliseconds per search, over
-- every question (kind NULL), then per kind of question where the questions name kinds
-- (natural questions, paraphrases, keywords, identifiers...: a change that helps one kind
-- and hurts another shows in one call; a question without a kind counts in the first row).
-- document_mrr is MRR@k of the question's document (dof_evaluate_questions' document_hit):
-- what it is above mrr, ranking within the right documents loses; what it is below 1,
-- finding them. And whether a difference is more than the questions' chance: mrr_margin,
-- the half-width of MRR's 95% confidence interval (normal approximation, 1.96 standard
-- errors: on 50 questions about 0.1, so 0.79 against 0.82 says nothing), and each method
-- against the first of methods on the same questions: on how many it ranks the answer
-- higher (better) and lower (worse) by reciprocal rank, and the sign test's p-value of that
-- split (dof_sign_test); NULL on the first method's rows. Questions are paired by their
-- place in the questions' rows, which dof_evaluate_questions keeps for every method (an id
-- may repeat).
CREATE FUNCTION dof_evaluate(questions text, collection text DEFAULT NULL, k integer DEFAULT 10,
                             methods text[] DEFAULT ARRAY['vector', 'text', 'hybrid', 'hybrid:fusion=rrf'])
    RETURNS TABLE (method text, kind text, questions_scored integer, mrr double precision,
                   mrr_margin double precision, r_at_1 double precision, r_at_5 double precision, ndcg double precision,
                   recall double precision, document_mrr double precision, mean_ms double precision,
                   better integer, worse integer, p_value double precision)
    LANGUAGE sql VOLATILE
BEGIN ATOMIC
    WITH runs AS MATERIALIZED (
             SELECT e.method, e.kind, e.first_hit, e.reciprocal_rank, e.ndcg, e.recall, e.ms, e.document_hit,
                    row_number() OVER (PARTITION BY e.method ORDER BY e.n) AS place
             FROM dof_evaluate_questions(questions, collection, k, methods)
                  WITH ORDINALITY AS e(method, question_id, question, source_id, first_hit, reciprocal_rank, ndcg, recall,
                                       relevant_chunks, ms, chunk_ids, first_source_id, kind, document_hit, n)),
         paired AS (
             SELECT r.*, r.reciprocal_rank - f.reciprocal_rank AS change
             FROM runs r LEFT JOIN runs f ON f.method = methods[1] AND f.place = r.place)
    SELECT p.method, p.kind, count(*)::integer, avg(p.reciprocal_rank), 1.959964 * stddev_samp(p.reciprocal_rank) / sqrt(count(*)),
           avg(coalesce((p.first_hit = 1)::integer, 0))::double precision, avg(coalesce((p.first_hit <= 5)::integer, 0))::double precision,
           avg(p.ndcg), avg(p.recall), avg(coalesce(1.0 / p.document_hit, 0))::double precision, avg(p.ms),
           CASE WHEN p.method <> methods[1] THEN count(*) FILTER (WHERE p.change > 0) END::integer,
           CASE WHEN p.method <> methods[1] THEN count(*) FILTER (WHERE p.change < 0) END::integer,
           CASE WHEN p.method <> methods[1] THEN dof_sign_test(count(*) FILTER (WHERE p.change > 0), count(*) FILTER (WHERE p.change < 0)) END
    FROM paired p
    GROUP BY GROUPING SETS ((p.method), (p.method, p.kind))
    HAVING GROUPING(p.kind) = 1 OR p.kind IS NOT NULL
    ORDER BY array_position(methods, p.method), GROUPING(p.kind) DESC, p.kind;
END;
COMMENT ON FUNCTION dof_evaluate(text, text, integer, text[]) IS
    'Scores search methods on a set of questions, in collection (NULL: every collection, as the searches): questions is a query or table with question and source_id (and optionally char_start, char_end: the answer in that document, or chunk_ids: the chunks that answer it); methods are vector, text, hybrid, each with the search''s own arguments after a colon (hybrid:fusion=rrf,alpha=0.3); returns per method MRR@k (with mrr_margin, the half-width of its 95% confidence interval), R@1, R@5, nDCG@k, recall@k, the MRR@k of the question''s document (document_mrr: its first chunk counts, whatever its place in it) and mean search milliseconds over every question (kind NULL), then, where the questions have a kind column, per method and kind (dof_evaluate_questions gives them per question); and against the first method, on how many questions each other ranks the answer higher (better) and lower (worse), with the sign test''s p-value of that split';

-- Tables of contents are left out of both search legs (sql/contents.sql; the vector leg's
-- query is the library's).
CREATE FUNCTION "dof_contents_path"("heading_path" TEXT[]) RETURNS bool
IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'dof_contents_path_wrapper';
CREATE FUNCTION "dof_listing"("content" TEXT) RETURNS bool
IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'dof_listing_wrapper';
CREATE FUNCTION "dof_paged_listing"("content" TEXT) RETURNS bool
IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'dof_paged_listing_wrapper';
CREATE FUNCTION "dof_outline"("content" TEXT) RETURNS bool
IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'dof_outline_wrapper';
CREATE FUNCTION "dof_contents_margin"() RETURNS integer
IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'dof_contents_margin_wrapper';
-- A document's table of contents (a DOF edition's CONTENIDO and ÍNDICE, a NOM's list of
-- its sections) names what every question about the document asks for and answers none of
-- them: both search legs leave its chunks out (they stay stored, and a SELECT reads them).
-- The rule is the core's (dof_core::contents::is_contents, as dof_contents, in one call
-- that reads a chunk's text once): a listing under a heading that names a table of
-- contents, or under any heading titles led to their pages, by dot leaders or in a table's
-- last column (docling and marker render an edition's closing index under its ministries'
-- headings) or a law's outline (a Peruvian law's index sits under a bold ÍNDICE, which is
-- no heading). Its parts are functions too. Each chunk holds its answer, written when it is
-- stored (dof_chunks.contents), so that a search does not read its candidates' text.
CREATE FUNCTION "dof_contents"("heading_path" TEXT[], "content" TEXT) RETURNS bool
IMMUTABLE PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'dof_contents_wrapper';
COMMENT ON FUNCTION dof_contents(text[], text) IS 'Whether a chunk is a table of contents (its heading path names one, ÍNDICE, Contenido, Sumario..., and its text is a listing; or, under any heading, three in four of its lines are titles led to their pages, or it is a law''s outline): the search legs leave such chunks out; NULLs are none';
-- Each chunk holds the rule's answer, written when it is stored (dof_index_document,
-- dof_shard_import), so that a search does not read its candidates' text to ask. The
-- chunks stored before stay NULL, which the legs test as they read them (as 0.3.0 did
-- before the column): adding a nullable column does not rewrite dof_chunks, and indexing a
-- document again (dof_requeue) fills it.
ALTER TABLE dof_chunks ADD COLUMN contents boolean;
COMMENT ON COLUMN dof_chunks.contents IS 'Whether the chunk is a table of contents (dof_contents(heading_path, content), when it was stored), which both search legs leave out; NULL for a chunk stored before 0.3.0, tested when a search reads it';
COMMENT ON FUNCTION dof_contents_path(text[]) IS 'Whether a heading path puts a chunk in a table of contents: its last heading, the one it sits under, is ÍNDICE, Contenido, Tabla de contenido, Sumario, Table of contents... (any case, with or without accents)';
COMMENT ON FUNCTION dof_listing(text) IS 'Whether a text is a listing: at least three lines, three in four of them list items, headings, page numbers, titles with dot leaders or lines of up to eight words (a bold line is no list item, a table row no short line)';
COMMENT ON FUNCTION dof_paged_listing(text) IS 'Whether a text is a table of contents under any heading, an index of titles led to their pages: three in four of its entries (a line, or the lines up to one with dot leaders, or a table row; headings, lines without a letter and table rows with only a first cell are none) end in dot leaders or are table rows of a title and its page with only empty cells between, the rows'' pages in order, in a table whose header row names no columns; five words or more a title on average (not a form''s blank fields nor a table''s figures)';
COMMENT ON FUNCTION dof_outline(text) IS 'Whether a text is a law''s outline under any heading: at least six lines, at least six and one in four of them division labels (Artículo, Capítulo, Título, Sección, Libro, Parte, Anexo, Disposición, Norma; up to 24 words), at most 16 words per label, and at most one line of prose (over 16 words, ending in . ; : or ,) holding at most a tenth of the words';
COMMENT ON FUNCTION dof_contents_margin() IS 'How many candidates past the k wanted each search leg ranks before it leaves out the tables of contents among them (dof_chunks.contents; for a chunk stored before 0.3.0, dof_contents reads its text: only those are read); a leg returns fewer than k only when more than this many of its best are tables of contents';
-- The text leg adds the query's neighbouring words that a chunk has as neighbours to its
-- BM25 (dof_text_score_internal, given the query's own tsvector: dof_query_vector).
CREATE  FUNCTION "dof_text_score_internal"(
	"tsv" anyelement, /* AnyElement */
	"length" double precision, /* f64 */
	"lexemes" TEXT[], /* Vec < String > */
	"idfs" double precision[], /* Vec < f64 > */
	"average_length" double precision, /* Option < f64 > */
	"query_vector" anyelement /* Option < AnyElement > */
) RETURNS double precision /* f64 */
IMMUTABLE PARALLEL SAFE
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'dof_text_score_internal_wrapper';
CREATE  FUNCTION "dof_bm25_pair_weight"() RETURNS double precision /* f64 */
IMMUTABLE STRICT PARALLEL SAFE
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'dof_bm25_pair_weight_wrapper';
DROP FUNCTION dof_text_leg_internal(tsquery, integer, text, jsonb, text, text, text[], double precision[], double precision[], double precision);
CREATE FUNCTION dof_text_leg_internal(query_terms tsquery, k integer, collection text, filter jsonb, ranking text,
                                      match_terms text, lexemes text[], idfs double precision[],
                                      chunks double precision[], average_length double precision, query_vector tsvector)
    RETURNS TABLE (chunk_id bigint, text_score double precision, rank integer)
    LANGUAGE plpgsql STABLE SET search_path FROM CURRENT AS $$
DECLARE
    match_query tsquery := CASE WHEN match_terms = 'any' THEN dof_any_terms_query(query_terms, lexemes, idfs, chunks)
                                ELSE query_terms END;
BEGIN
    RETURN QUERY
    SELECT hits.id, hits.score, (row_number() OVER (ORDER BY hits.score DESC, hits.id))::integer
    FROM (SELECT best.id, best.score
          FROM (SELECT c.id,
                       CASE WHEN ranking = 'bm25'
                            THEN dof_text_score_internal(c.tsv, c.token_count, lexemes, idfs, average_length, query_vector)
                            ELSE ts_rank_cd(c.tsv, match_query, 1)::double precision END AS score
                FROM dof_chunks c
                WHERE c.tsv @@ match_query
                  AND (dof_text_leg_internal.collection IS NULL OR c.collection = dof_text_leg_internal.collection)
                  AND (filter IS NULL OR c.metadata @> filter)
                ORDER BY score DESC, c.id
                LIMIT k + dof_contents_margin()) best
          -- a table of contents answers nothing: a chunk holds the rule's answer
          -- (dof_chunks.contents); one stored before 0.3.0 is tested here, which reads its
          -- text, so only the best candidates
          JOIN dof_chunks c ON c.id = best.id
          WHERE NOT coalesce(c.contents, dof_contents(c.heading_path, c.content))
          ORDER BY best.score DESC, best.id
          LIMIT k) hits
    ORDER BY hits.score DESC, hits.id;
END
$$;
COMMENT ON FUNCTION dof_text_score_internal(anyelement, double precision, text[], double precision[], double precision, anyelement) IS 'Internal: the text leg''s score of one tsvector, its BM25 plus, for each two neighbouring words of the query (query_vector: dof_query_vector; NULL: BM25 alone) the tsvector has as neighbours at the same distance, dof_bm25_pair_weight() times their mean IDF, plus dof_bm25_window()''s weight times the most IDF of distinct query lexemes within its positions of the tsvector';
CREATE  FUNCTION "dof_bm25_window"() RETURNS TABLE ("positions" INT, "weight" double precision)
IMMUTABLE STRICT PARALLEL SAFE
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'dof_bm25_window_wrapper';
COMMENT ON FUNCTION dof_bm25_window() IS 'How many consecutive positions of a chunk the text leg looks at for the query''s words together (30), and what the best such window''s IDF (its distinct query lexemes'') adds to the score, times it (0.25, by measurement)';
COMMENT ON FUNCTION dof_bm25_pair_weight() IS 'What two neighbouring words of the query that a chunk has as neighbours at the same distance add to the text leg''s score, times their mean IDF (0.5, by measurement)';
COMMENT ON FUNCTION dof_text_leg_internal(tsquery, integer, text, jsonb, text, text, text[], double precision[], double precision[], double precision, tsvector) IS 'Internal: the text leg''s query with its BM25 inputs given (this server''s statistics, or a coordinator''s global ones)';

-- pg_dof.stats_fold_every, read by the statistics triggers (src/api/term_stats.rs)
CREATE  FUNCTION "dof_stats_fold_every"() RETURNS INT
STRICT STABLE PARALLEL SAFE
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'dof_stats_fold_every_wrapper';

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
CREATE OR REPLACE FUNCTION dof_compact_stats(collection text DEFAULT NULL) RETURNS bigint
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

-- The statistics triggers fold a collection's deltas when due (dof_fold_stats_when_due)
CREATE OR REPLACE FUNCTION dof_chunks_stats_added() RETURNS trigger
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
CREATE OR REPLACE FUNCTION dof_chunks_stats_removed() RETURNS trigger
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
CREATE OR REPLACE FUNCTION dof_chunks_stats_changed() RETURNS trigger
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
COMMENT ON FUNCTION dof_compact_stats(text) IS 'Folds BM25 statistics deltas into one row per lexeme (for a collection or all); returns the rows removed, NULL when another transaction is folding the collection named (one it is folding is skipped when all are)';
COMMENT ON FUNCTION dof_stats_lock_class() IS 'The advisory-lock class (pg_locks.classid) a transaction folding a collection''s BM25 statistics holds, keyed by hashtext of the collection''s name';
COMMENT ON FUNCTION dof_stats_fold_every() IS 'The setting pg_dof.stats_fold_every, as the statistics triggers read it: statements'' deltas a collection gathers before the next statement that writes its chunks folds them (0: never)';
COMMENT ON FUNCTION dof_fold_stats_when_due(text[]) IS 'Internal, run by the statistics triggers: folds each collection named that has gathered more than pg_dof.stats_fold_every statements'' deltas (under READ COMMITTED, for a role that may rewrite the statistics)';

-- How many chunks of a collection (NULL: of all collections) hold each lexeme: exact, from
-- dof_term_stats. What a sharded search calls on every shard and adds up. All collections'
-- count is each collection's, looked up by (collection, lexeme) and added (a collection's
-- chunks are renamed with it, so a name no longer in dof_collections sums to 0): summed by
-- lexeme alone, which the index, led by the collection, does not serve, every search that
-- named no collection read the whole table once per lexeme (295 laws' deltas as a load
-- writes them, 71,037 rows: a text search 33.6 ms instead of 4.0, folded 12.6 instead of
-- 2.5; it grows with the table: bench/scripts/term_stats_reads.sh). A collection named keeps
-- its own lookup: through dof_collections, as the all-collections branch goes, a named
-- search's text leg was about 10% slower (the mixed set's 580 questions).
CREATE OR REPLACE FUNCTION dof_term_stats(collection text, lexemes text[])
    RETURNS TABLE (lexeme text, chunks bigint)
    LANGUAGE sql STABLE PARALLEL SAFE
BEGIN ATOMIC
    SELECT l.lexeme,
           coalesce(CASE WHEN dof_term_stats.collection IS NOT NULL
                         THEN (SELECT sum(s.chunks) FROM dof_term_stats s
                               WHERE s.collection = dof_term_stats.collection AND s.lexeme = l.lexeme)
                         ELSE (SELECT sum((SELECT sum(s.chunks) FROM dof_term_stats s WHERE s.collection = k.name AND s.lexeme = l.lexeme))
                               FROM dof_collections k) END, 0)::bigint
    FROM unnest(lexemes) WITH ORDINALITY AS l(lexeme, position)
    ORDER BY l.position;
END;

-- The text leg's query and inputs in one function (dof_text_query) that both searches call
-- (dof_text_search and dof_hybrid_search, re-created here once for this version's changes:
-- their arguments checked as a coordinator's shards check them, the BM25 inputs looked up
-- once, the full-match score of the weighted fusion).
-- A text search's query and BM25 inputs, its arguments checked: what dof_text_search and
-- dof_hybrid_search both run before dof_text_leg_internal (a coordinator's shards check
-- the same arguments in dof_shard_prepare). The tsquery is the collection's configuration's
-- (dof_query_tsquery); the BM25 inputs are dof_bm25_terms' and, with BM25 ranking, the
-- query's own tsvector (dof_query_vector); NULL where neither the ranking nor match_terms
-- uses them (ts_rank_cd with match_terms => 'all').
CREATE FUNCTION dof_text_query(query text, collection text, ranking text, match_terms text)
    RETURNS TABLE (query_terms tsquery, lexemes text[], idfs double precision[], chunks double precision[],
                   average_length double precision, query_vector tsvector)
    LANGUAGE plpgsql STABLE SET search_path FROM CURRENT AS $$
DECLARE
    settings dof_collections := dof_collection(collection);
    terms tsquery;
BEGIN
    IF query IS NULL THEN
        RAISE EXCEPTION 'query must not be NULL' USING ERRCODE = 'null_value_not_allowed',
            HINT = 'the text leg searches the query''s words: pass the query text';
    END IF;
    PERFORM dof_check_query(query);
    PERFORM dof_check_text_arguments(ranking, match_terms);
    terms := dof_query_tsquery(settings.text_search_config, query);
    PERFORM dof_check_query_terms(query, terms);
    IF ranking = 'bm25' OR match_terms = 'any' THEN
        RETURN QUERY SELECT terms, b.lexemes, b.idfs, b.chunks, b.average_length,
                            CASE WHEN ranking = 'bm25' THEN dof_query_vector(settings.text_search_config, query) END
                     FROM dof_bm25_terms(terms, dof_text_query.collection) b;
    ELSE
        RETURN QUERY SELECT terms, NULL::text[], NULL::double precision[], NULL::double precision[], NULL::double precision,
                            NULL::tsvector;
    END IF;
END
$$;
COMMENT ON FUNCTION dof_text_query(text, text, text, text) IS 'A text search''s tsquery in the collection''s configuration and its BM25 inputs (dof_bm25_terms, and with bm25 ranking the query''s own tsvector, dof_query_vector; NULL when neither the ranking nor match_terms uses them), with the query and the text leg''s arguments checked: what dof_text_search and dof_hybrid_search run before the leg';
CREATE OR REPLACE FUNCTION dof_text_search(query text, k integer DEFAULT 10, collection text DEFAULT NULL,
                                filter jsonb DEFAULT NULL, ranking text DEFAULT 'bm25',
                                match_terms text DEFAULT 'any')
    RETURNS TABLE (chunk_id bigint, text_score double precision, rank integer)
    LANGUAGE plpgsql STABLE SET search_path FROM CURRENT AS $$
DECLARE
    query_terms tsquery;
    lexemes text[];
    idfs double precision[];
    chunks double precision[];
    average_length double precision;
    query_vector tsvector;
BEGIN
    SELECT * INTO query_terms, lexemes, idfs, chunks, average_length, query_vector
    FROM dof_text_query(query, dof_text_search.collection, ranking, match_terms);
    IF k IS NULL OR k < 1 THEN
        RAISE EXCEPTION 'k must be at least 1, got %', coalesce(k::text, 'NULL') USING ERRCODE = 'invalid_parameter_value';
    END IF;
    PERFORM dof_check_filter(filter);
    RETURN QUERY SELECT * FROM dof_text_leg_internal(query_terms, k, dof_text_search.collection, filter, ranking,
                                                     match_terms, lexemes, idfs, chunks, average_length, query_vector);
END
$$;
-- The order within a document (document_order.sql) reads each chunk's tsvector once for
-- the lexemes it holds (the step of the aggregate dof_lexemes_held), and weights the
-- query's IDFs within a document, in Rust.
CREATE FUNCTION "dof_lexemes_held_step"("counts" INT[], "tsv" anyelement, "lexemes" TEXT[]) RETURNS INT[]
IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'dof_lexemes_held_step_wrapper';
CREATE FUNCTION "dof_document_idfs"("idfs" double precision[], "holding" double precision[], "chunks" double precision)
RETURNS double precision[]
IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'dof_document_idfs_wrapper';
-- Search, the order within a document (dof_core::document_order): the weighted fusion's
-- list keeps the ranks it gives each document, and a document's chunks take them in the
-- order of the same fusion with the text leg's IDFs weighted by each lexeme's rarity within
-- the document. The words that find a law are often in most of its chunks, and tell them
-- apart no better than a stopword; on the mixed set's natural questions hybrid MRR@10 0.707
-- -> 0.784, DOF editions 0.748 -> 0.776 (docs/measurements.md, "The order within a document").

-- A definition question ("¿Qué es el AIRHSP?", "¿Qué significa CNRTS?", "definición de
-- vehículo no motorizado", "¿Qué se entiende por ausencia?") asks for the chunk that defines
-- its term, and the term is often in most of its document's chunks: BM25 prefers those that
-- repeat it, the glossary entry or the acronym's expansion says it once. So within a document
-- a chunk that defines the term (dof_defines) scores as a hundred times the document's best:
-- the other chunks' text share within the document falls to a hundredth of what it was, and
-- the order puts the definition first unless the vector leg is surer of another by more than
-- the text share. Questions built from the documents' acronyms ("¿Qué significa ABC?"):
-- hybrid MRR@10 0.558 -> 0.881 (DOF set), 0.416 -> 0.546 (mixed), 0.509 -> 0.833 (docling's
-- editions); the DOF set's own nine definition questions 0.513 -> 0.806, mixed's "¿Qué es el
-- AIRHSP?" 8th -> 1st; no other question of the eight sets moved. Twice the best gained less
-- (DOF set 0.790, docling 0.778, English 0.772), 4 and 10 times between; 100 and 1,000 the
-- same on every set (docs/measurements.md, "A definition question's term").
-- The term a definition question asks about: the words after "qué es / son / significa /
-- quiere decir", "qué se entiende (debe entender) por", "cómo se define", "(cuál es la / el)
-- definición / significado / concepto de", "a qué se refiere", or in English "what is / are
-- (meant by)", "definition / meaning of", "define", and between "what does" and "mean /
-- stand for" (and an article, and "el término", "the acronym"), up to a preposition, a second
-- question ("y qué partes tiene", "and how"), a punctuation mark or a word with a figure (an
-- identifier: NOM-004-SEDATU); NULL for any other query, and for a term of more than 12
-- words or 200 characters (no set's is over 11 words or 76 characters: a 63 KB question
-- "¿Qué es el registro registro…?" made an expression too complex for the text's, and the
-- search failed). English questions that ask no definition ("What is the name of…") are read
-- too: a term no chunk defines changes nothing (the English set's 116 "What is / are"
-- questions, hybrid 0.896 either way).
CREATE FUNCTION dof_definition_term(query text) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    RETURN (SELECT CASE WHEN char_length(term.t) <= 200 AND term.t ~ '^\S+(\s+\S+){0,11}$' THEN term.t END
            FROM (SELECT nullif(btrim(regexp_replace(m[1], '\s+\S*[0-9]\S*.*$', '')), '') AS t
            FROM regexp_match(regexp_replace(coalesce((regexp_match(
                     -- "what does X mean / stand for" is read as "what is X"
                     regexp_replace(query, '^\W*what\s+(?:does|do)\s+(.*?)\s+(?:mean|stand\s+for)\M.*$', 'what is \1', 'i'),
                     '^\W*(?:'
                     -- Spanish
                     || 'qu[eé]\s+(?:es|son|significa|significan|quiere\s+decir)|(?:cu[aá]l\s+es\s+(?:la|el)\s+)?(?:definici[oó]n|significado|concepto)\s+de'
                     || '|a\s+qu[eé]\s+se\s+refieren?|qu[eé]\s+se\s+(?:entiende|debe\s+entender)\s+por|c[oó]mo\s+se\s+define'
                     -- English
                     || '|what\s+(?:is|are)(?:\s+meant\s+by)?|(?:definition|meaning)\s+of|define'
                     -- an article, and a word naming the term as a term
                     || ')\s+(?:(?:el|la|los|las|lo|un|una|the|a|an)\s+)?(?:(?:t[eé]rmino|concepto|palabra|sigla|siglas|term|acronym|abbreviation)\s+)?(.*)$',
                     'i'))[1], ''),
                                             -- a preposition or a second question ends the term
                                             '\s+(?:(?:en|seg[uú]n|de|del|para|por|que|con|a|al|dentro|conforme'
                                             || '|of|in|for|to|by|under|according|with|on|from|at|as|that|which)'
                                             || '|(?:y|and)\s+(?:qu[eé]|cu[aá]l|c[oó]mo|d[oó]nde|cu[aá]ndo|qui[eé]n|what|which|how|why|where|when|who))\s.*$',
                                             '', 'i'),
                              '^([^?¿.,;:]+)') m) term);
-- A term as a regular expression that matches it whatever its accents and case: its
-- characters escaped, each vowel and n a class with its accented forms (vehiculo matches
-- Vehículo and VEHÍCULO). Built once per search, not once per chunk, and the text is not
-- unaccented: the DOF set's definition questions take 1.23x the hybrid search's time
-- without the rule (median of 3, 14.70 against 11.96 ms), 1.4x when every candidate's text
-- was unaccented and the term's expression built for each.
CREATE FUNCTION dof_definition_pattern(term text) RETURNS text
    LANGUAGE sql STABLE PARALLEL SAFE
    RETURN (SELECT string_agg(CASE lower(c.c) WHEN 'a' THEN '[aá]' WHEN 'e' THEN '[eé]' WHEN 'i' THEN '[ií]' WHEN 'o' THEN '[oó]'
                                              WHEN 'u' THEN '[uúü]' WHEN 'n' THEN '[nñ]' ELSE c.c END, '' ORDER BY c.i)
            FROM regexp_split_to_table(regexp_replace(unaccent(term), '([.*+?^${}()|\[\]\\])', '\\\1', 'g'), '') WITH ORDINALITY AS c(c, i));
-- Whether a text defines a term (its dof_definition_pattern): a line that opens with the
-- term (after list markers, numbering such as 1.1.12. / III. / a), and bold) and a colon,
-- the term in parentheses after what it abbreviates, or "se entiende / se entenderá /
-- entiéndase por" the term. One
-- expression, so the planner inlines it; a text without the term is rejected first.
CREATE FUNCTION dof_defines(content text, term_pattern text) RETURNS boolean
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    RETURN content ~* term_pattern
           AND (content ~* ('\(\s*' || term_pattern || '\s*\)')
                OR content ~* ('(?:se entiende|se entender[aá]|enti[eé]ndase) por\s+(?:el |la |los |las )?' || term_pattern || '(?![[:alnum:]])')
                OR content ~* ('(?n)^[^[:alnum:]]{0,12}(?:[0-9]+(?:\.[0-9]+)*\.?|[IVXLC]+\.|[a-z][.)])?[^[:alnum:]]{0,6}'
                               || term_pattern || '[^[:alnum:]]{0,4}:'));

-- The candidates' text scores within their documents: for the documents holding one of the
-- first `k` of `ids` (the fused list, best first) and at least one more of them, each of
-- their candidates' text score (dof_text_score_internal) with the query's IDFs weighted
-- within the document (dof_document_idfs, from the document's chunks holding each lexeme:
-- dof_lexemes_held). Other candidates are not returned: their order cannot change what is
-- returned. Nor are those of a document of more than max_chunks chunks: every chunk of a
-- document is read (a hybrid search on DOF editions of up to 890 chunks takes 1.53x
-- the time, bench/scripts/document_order_cost.sh), so a huge one keeps the
-- fused order, and a query without lexemes reorders nothing. Runs as its caller: a
-- document's chunks are those row-level security lets it see.
CREATE FUNCTION dof_document_order_max_chunks() RETURNS integer
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    RETURN 4000;
-- How many of a document's chunks hold each query lexeme: an aggregate, so each chunk's
-- marks are added as it is read rather than unnested into a row per lexeme and summed
-- (one DOF-set question's 1,027 chunks: 5.0 -> 3.2 ms, reading their tsvectors 1.9).
CREATE AGGREGATE dof_lexemes_held(anyelement, text[]) (SFUNC = dof_lexemes_held_step, STYPE = integer[], INITCOND = '{}',
                                                     PARALLEL = SAFE);
CREATE FUNCTION dof_document_text_scores(ids bigint[], k integer, lexemes text[], idfs double precision[],
                                         average_length double precision, query_vector tsvector,
                                         max_chunks integer DEFAULT dof_document_order_max_chunks(),
                                         definition_term text DEFAULT NULL)
    RETURNS TABLE (chunk_id bigint, document_id bigint, text_score double precision)
    LANGUAGE sql STABLE PARALLEL SAFE
BEGIN ATOMIC
    WITH candidates AS (
        SELECT c.id, c.document_id, c.tsv, c.token_count, min(u.rank) AS rank
        FROM unnest(ids) WITH ORDINALITY AS u(id, rank) JOIN dof_chunks c ON c.id = u.id
        GROUP BY c.id
    ), documents AS (
        SELECT candidates.document_id FROM candidates GROUP BY candidates.document_id
        HAVING count(*) > 1 AND min(candidates.rank) <= k AND cardinality(lexemes) > 0
           AND (SELECT count(*) FROM (SELECT FROM dof_chunks c WHERE c.document_id = candidates.document_id
                                      LIMIT max_chunks + 1) counted) <= max_chunks
    ), weighted AS (
        SELECT c.document_id, dof_document_idfs(idfs, dof_lexemes_held(c.tsv, lexemes)::double precision[], count(*)) AS idfs
        FROM dof_chunks c
        WHERE c.document_id IN (SELECT documents.document_id FROM documents)
        GROUP BY c.document_id
    )
    , scored AS (
        SELECT candidates.id, candidates.document_id,
               dof_text_score_internal(candidates.tsv, candidates.token_count, lexemes, weighted.idfs, average_length, query_vector) AS score,
               -- the content is read only for a definition question
               definition_term IS NOT NULL
               AND dof_defines((SELECT c.content FROM dof_chunks c WHERE c.id = candidates.id),
                               (SELECT dof_definition_pattern(definition_term))) AS defines
        FROM candidates JOIN weighted ON weighted.document_id = candidates.document_id
    )
    SELECT scored.id, scored.document_id,
           CASE WHEN scored.defines THEN 100 * max(scored.score) OVER (PARTITION BY scored.document_id) ELSE scored.score END
    FROM scored;
END;

-- The fused list (ids and scores, best first) with each document's chunks reordered among
-- the ranks they hold: by (1 - text_share) x vector + text_share x text, the vector leg's
-- similarity normalised as the weighted fusion normalises it (dof_fusion_normalise, its
-- spread at least dof_fusion_vector_min_spread()), the text score within the document
-- (dof_document_text_scores: chunk_ids, document_ids, text_scores) over its document's
-- best; ties keep the fused order. A chunk takes the rank (1-based) it moves to and that
-- rank's score, so the list stays ordered by score; chunks without a text score within
-- their document keep theirs. A document's order depends on its own chunks alone: which
-- other documents are reordered (those holding one of a search's first k) changes nothing
-- in it, so a search's first results are the same whatever k it asks for (over the best of
-- all reordered documents, the mixed set's first result differed between k 1 and k 10 on 5
-- of its 580 questions, and its first three between k 3 and k 10 on 22).
CREATE FUNCTION dof_document_order(ids bigint[], scores double precision[], vector_ids bigint[],
                                   vector_scores double precision[], text_share double precision,
                                   chunk_ids bigint[], document_ids bigint[], text_scores double precision[])
    RETURNS TABLE (id bigint, score double precision, rank integer)
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
BEGIN ATOMIC
    WITH fused AS (
        SELECT f.id, f.score, f.rank FROM unnest(ids, scores) WITH ORDINALITY AS f(id, score, rank)
    ), vectors AS (
        SELECT v.id, v.value FROM dof_fusion_normalise(vector_ids, vector_scores, dof_fusion_vector_min_spread()) v
    ), texts AS (
        SELECT t.id, t.document, coalesce(t.score / nullif(max(t.score) OVER (PARTITION BY t.document), 0), 0) AS value
        FROM unnest(chunk_ids, document_ids, text_scores) AS t(id, document, score)
    ), within AS (
        SELECT fused.id, fused.score, fused.rank, texts.document,
               (1 - text_share) * coalesce(vectors.value, 0) + text_share * texts.value AS value
        -- a join, not a lookup per row: referenced once, the vectors CTE is inlined, and a
        -- correlated subquery normalised the vector leg again for every row (DOF set hybrid
        -- mean 15.3 -> 13.2 ms, the same lists)
        FROM fused JOIN texts ON texts.id = fused.id LEFT JOIN vectors ON vectors.id = fused.id
    ), ranks AS (
        SELECT within.document, within.score, within.rank,
               row_number() OVER (PARTITION BY within.document ORDER BY within.rank) AS place
        FROM within
    ), reordered AS (
        SELECT within.id, within.document,
               row_number() OVER (PARTITION BY within.document ORDER BY within.value DESC, within.rank) AS place
        FROM within
    )
    SELECT reordered.id, ranks.score, ranks.rank::integer
    FROM ranks JOIN reordered ON reordered.document = ranks.document AND reordered.place = ranks.place
    UNION ALL
    SELECT fused.id, fused.score, fused.rank::integer FROM fused WHERE NOT EXISTS (SELECT 1 FROM texts WHERE texts.id = fused.id)
    ORDER BY 3;
END;
COMMENT ON FUNCTION dof_definition_term(text) IS 'The term a definition question asks about (¿Qué es el AIRHSP? is AIRHSP; qué significa, qué se entiende por, cómo se define, (cuál es la / el) definición, significado or concepto de, a qué se refiere; what is / are, what does … mean / stand for, definition of, define), up to a preposition, a second question, a punctuation mark or an identifier, of at most 12 words and 200 characters; NULL for any other query: what a hybrid search''s order within a document looks for (dof_defines)';
COMMENT ON FUNCTION dof_definition_pattern(text) IS 'A term as a regular expression matching it whatever its accents and case (each vowel and n a class with its accented forms, other characters escaped): what dof_defines looks for';
COMMENT ON FUNCTION dof_defines(text, text) IS 'Whether a text defines a term given as its dof_definition_pattern: a line opening with the term and a colon (after list markers, numbering and bold), the term in parentheses, or "se entiende / se entenderá / entiéndase por" the term';
COMMENT ON FUNCTION dof_document_text_scores(bigint[], integer, text[], double precision[], double precision, tsvector, integer, text) IS
    'Internal: the text scores within their documents of the candidates (ids, the fused list) whose documents hold one of the first k and another candidate, and at most max_chunks chunks: BM25 with each lexeme''s IDF weighted by its rarity within the document (dof_document_idfs); a candidate that defines definition_term (dof_defines) scores a hundred times its document''s best';
COMMENT ON FUNCTION dof_document_order_max_chunks() IS 'The most chunks of a document whose chunks a hybrid search reorders (4000): the order reads every chunk of the document, so a larger one keeps the fused order';
COMMENT ON FUNCTION dof_document_order(bigint[], double precision[], bigint[], double precision[], double precision, bigint[], bigint[], double precision[]) IS
    'Internal: the fused list with each document''s chunks reordered among the ranks they hold, by the weighted fusion of their vector similarity and their text score within the document; each chunk takes its new rank and that rank''s score';
COMMENT ON FUNCTION dof_lexemes_held_step(integer[], anyelement, text[]) IS 'Internal: the step of the aggregate dof_lexemes_held: the counts so far plus, for each lexeme, 1 when the tsvector holds it';
COMMENT ON AGGREGATE dof_lexemes_held(anyelement, text[]) IS 'Internal: for each lexeme, how many of the rows'' tsvectors hold it (over a document''s chunks: the chunks holding each)';
COMMENT ON FUNCTION dof_document_idfs(double precision[], double precision[], double precision) IS 'Internal: the query''s IDFs within one document of chunks chunks, holding[i] of which hold lexeme i: each IDF times ln(1 + (n - h + 0.5) / (h + 0.5)) / ln(1 + (n + 0.5) / 0.5)';

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
COMMENT ON FUNCTION dof_shard_document_text_scores(text, text, bigint[], integer, text[], double precision[], double precision, double precision) IS 'For a coordinator: the text scores within their documents of this shard''s candidates among ids (dof_document_text_scores), from the cluster''s statistics';

CREATE OR REPLACE FUNCTION dof_hybrid_search(query text, k integer DEFAULT 10, collection text DEFAULT NULL,
                                  filter jsonb DEFAULT NULL, candidate_pool integer DEFAULT 50,
                                  rrf_k integer DEFAULT 60, dedup_by_source boolean DEFAULT false,
                                  query_embedding vector DEFAULT NULL, ranking text DEFAULT 'bm25',
                                  match_terms text DEFAULT 'any', fusion text DEFAULT 'weighted',
                                  alpha double precision DEFAULT 0.5, vector_weight double precision DEFAULT 1,
                                  text_weight double precision DEFAULT 1)
    RETURNS TABLE (chunk_id bigint, document_id bigint, source_id text, heading_path text[], content text,
                   score double precision, vector_rank integer, text_rank integer)
    LANGUAGE plpgsql STABLE SET search_path FROM CURRENT AS $$
DECLARE
    vector_ids bigint[];
    vector_scores double precision[];
    text_ids bigint[];
    text_scores double precision[];
    text_full_match double precision;
    query_terms tsquery;
    lexemes text[];
    idfs double precision[];
    chunks double precision[];
    average_length double precision;
    query_vector tsvector;
    fused_ids bigint[];
    fused_scores double precision[];
    fused_vector_ranks integer[];
    fused_text_ranks integer[];
    ordered_ids bigint[];
    ordered_scores double precision[];
BEGIN
    PERFORM dof_check_hybrid_arguments(k, candidate_pool, dedup_by_source);
    -- the fusion's own arguments are checked before any leg runs
    PERFORM dof_fuse(fusion, '{}', '{}', '{}', '{}', rrf_k, alpha, vector_weight, text_weight);
    SELECT array_agg(v.chunk_id ORDER BY v.rank), array_agg(1 - v.distance ORDER BY v.rank) INTO vector_ids, vector_scores
    FROM dof_vector_search(query, greatest(candidate_pool, k), collection, filter, query_embedding) v;
    -- the text leg as dof_text_search runs it, with its BM25 inputs looked up once: the
    -- weighted fusion's full-match score is computed from the same IDFs
    SELECT * INTO query_terms, lexemes, idfs, chunks, average_length, query_vector
    FROM dof_text_query(query, collection, ranking, match_terms);
    SELECT array_agg(t.chunk_id ORDER BY t.rank), array_agg(t.text_score ORDER BY t.rank) INTO text_ids, text_scores
    FROM dof_text_leg_internal(query_terms, greatest(candidate_pool, k), collection, filter, ranking, match_terms,
                               lexemes, idfs, chunks, average_length, query_vector) t;
    IF ranking = 'bm25' AND fusion = 'weighted' AND text_ids IS NOT NULL THEN
        text_full_match := dof_bm25_full_match(idfs);
    END IF;
    SELECT array_agg(f.id ORDER BY f.score DESC, f.id), array_agg(f.score ORDER BY f.score DESC, f.id),
           array_agg(f.vector_rank ORDER BY f.score DESC, f.id), array_agg(f.text_rank ORDER BY f.score DESC, f.id)
    INTO fused_ids, fused_scores, fused_vector_ranks, fused_text_ranks
    FROM dof_fuse(fusion, vector_ids, vector_scores, text_ids, text_scores, rrf_k, alpha, vector_weight, text_weight,
                  text_full_match) f;
    ordered_ids := fused_ids;
    ordered_scores := fused_scores;
    IF ranking = 'bm25' AND fusion = 'weighted' AND fused_ids IS NOT NULL THEN
        -- each document's chunks reordered among its ranks (document_order.sql); with
        -- dedup_by_source every document's best chunk can be returned, so every document counts
        SELECT array_agg(o.id ORDER BY o.rank), array_agg(o.score ORDER BY o.rank) INTO ordered_ids, ordered_scores
        FROM (SELECT array_agg(s.chunk_id) AS ids, array_agg(s.document_id) AS documents, array_agg(s.text_score) AS scores
              FROM dof_document_text_scores(fused_ids, CASE WHEN dedup_by_source THEN cardinality(fused_ids) ELSE k END,
                                            lexemes, idfs, average_length, query_vector,
                                            definition_term => dof_definition_term(query)) s) within,
             dof_document_order(fused_ids, fused_scores, vector_ids, vector_scores,
                                dof_fusion_text_share(alpha, (SELECT max(t) FROM unnest(text_scores) t), text_full_match),
                                within.ids, within.documents, within.scores) o;
    END IF;
    RETURN QUERY
    WITH fused AS (
        SELECT o.id, o.score, o.rank, f.vector_rank, f.text_rank
        FROM unnest(ordered_ids, ordered_scores) WITH ORDINALITY AS o(id, score, rank)
        JOIN unnest(fused_ids, fused_vector_ranks, fused_text_ranks) AS f(id, vector_rank, text_rank) ON f.id = o.id
    ), ranked AS (
        SELECT fused.* FROM fused WHERE NOT dedup_by_source
        UNION ALL
        SELECT per_document.*
        FROM (SELECT DISTINCT ON (c.document_id) fused.*
              FROM fused JOIN dof_chunks c ON c.id = fused.id
              WHERE dedup_by_source
              ORDER BY c.document_id, fused.rank) per_document
    ), best AS (
        -- the k best ids first, the content after: the fused list holds up to twice
        -- candidate_pool chunks and only k are returned (at 50 + 50 candidates, 0.77 ms ->
        -- 0.61 ms, and 0.42 ms without dedup_by_source, which needs no chunk row to rank)
        SELECT ranked.* FROM ranked ORDER BY ranked.rank LIMIT k
    )
    SELECT best.id, c.document_id, d.source_id, c.heading_path, c.content, best.score, best.vector_rank, best.text_rank
    FROM best
    JOIN dof_chunks c ON c.id = best.id
    JOIN dof_documents d ON d.id = c.document_id
    ORDER BY best.rank;
END
$$;

-- Query vectors are cached per backend (pg_dof.query_cache_size): a query searched again is
-- not embedded again.
CREATE FUNCTION "dof_query_cache"()
RETURNS TABLE ("entries" bigint, "capacity" bigint, "hits" bigint, "misses" bigint, "hit_rate" double precision)
STRICT VOLATILE PARALLEL RESTRICTED LANGUAGE c AS 'MODULE_PATHNAME', 'dof_query_cache_wrapper';
CREATE FUNCTION "dof_query_cache_clear"() RETURNS void
STRICT VOLATILE PARALLEL RESTRICTED LANGUAGE c AS 'MODULE_PATHNAME', 'dof_query_cache_clear_wrapper';
COMMENT ON FUNCTION dof_query_cache() IS 'This backend''s cache of query vectors (the searches'' queries, dof_embed_query, dof_embed with as_query): entries, capacity (pg_dof.query_cache_size), hits, misses and hit rate since the backend started or dof_query_cache_clear()';
COMMENT ON FUNCTION dof_query_cache_clear() IS 'Empties this backend''s query cache and zeroes its counters';

-- SET search_path FROM CURRENT captured the schemas of 0.2.0's required extensions; this
-- version also requires dict_int: every such function takes the current list, as a fresh
-- install's do. (Last in this script: it covers the functions created above too.)
DO $$
DECLARE
    f regprocedure;
BEGIN
    FOR f IN SELECT p.oid::regprocedure FROM pg_depend d JOIN pg_proc p ON p.oid = d.objid
             WHERE d.classid = 'pg_proc'::regclass AND d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e'
               AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'pg_dof')
               AND EXISTS (SELECT 1 FROM unnest(p.proconfig) c WHERE c LIKE 'search_path=%')
    LOOP
        EXECUTE format('ALTER %s %s SET search_path FROM CURRENT',
                       CASE WHEN (SELECT prokind FROM pg_proc WHERE oid = f) = 'p' THEN 'PROCEDURE' ELSE 'FUNCTION' END, f);
    END LOOP;
END
$$;
COMMENT ON FUNCTION dof_fuse(text, bigint[], double precision[], bigint[], double precision[], integer, double precision, double precision, double precision, double precision) IS 'The fusion named by fusion (rrf or weighted) of the vector and text legs'' lists, with its arguments checked; text_full_match (the query''s full-match BM25) scales the weighted fusion''s text share by the text leg''s coverage of the query';
COMMENT ON FUNCTION dof_hybrid_search(text, integer, text, jsonb, integer, integer, boolean, vector, text, text, text, double precision, double precision, double precision) IS
    'Hybrid search: vector and full-text legs of candidate_pool chunks each, fused by RRF (rrf_k, vector_weight, text_weight) or by weighted min-max scores (fusion => ''weighted'', alpha = the text share, scaled down when the text leg''s best chunk matches little of the query); filter is jsonb containment on document metadata; dedup_by_source keeps the best chunk per document; query_embedding (optional) is used instead of embedding the query; ranking (bm25 or ts_rank_cd) and match_terms (any or all) are the text leg''s; with the weighted fusion and bm25, a document''s chunks take the ranks the fusion gave it in the order of their text score within the document (dof_document_order)';
COMMENT ON FUNCTION dof_fusion_text_share(double precision, double precision, double precision) IS 'The weighted fusion''s text share for one query: alpha scaled by the text leg''s coverage of the query (its best BM25 over the full-match score, capped at 1), as the share that ranks as alpha x coverage x text + (1 - alpha) x vector; alpha when either score is NULL';
COMMENT ON FUNCTION dof_bm25_full_match(double precision[]) IS 'A query''s full-match BM25: the score of a chunk of average length holding each of its lexemes once, the sum of their IDFs (NULLs left out)';

-- The documents' and chunks' id sequences, the extension's only objects without a comment
-- (regress 01 lists any object without one)
COMMENT ON SEQUENCE dof_documents_id_seq IS 'dof_documents.id (identity); on a shard it steps by max_shards from the shard''s number (dof_shard_configure), so ids are unique across shards';
COMMENT ON SEQUENCE dof_chunks_id_seq IS 'dof_chunks.id (identity); on a shard it steps by max_shards from the shard''s number (dof_shard_configure), so ids are unique across shards';
