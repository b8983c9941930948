-- Documents in, chunks out: dof_index_document chunks, embeds and stores one document's
-- chunks (the triggers, the queue and a restore's import call it), and the tsvector every
-- stored chunk gets.

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
-- mixed-long set). A degree sign glued to a number (N°30364, as Peru's laws also write the
-- number sign) is spaced: websearch_to_tsquery made the phrase 'n' <-> '30364' of it, which
-- a body writing Nº 30364 fails (lookups typed so, text 0.021 -> 0.510; docs/measurements.md,
-- "A number sign glued to its number"). So are words joined by a comma or a semicolon
-- without a space ("vedas,camaron,golfo"), another phrase to websearch_to_tsquery, which a
-- body holds only with the words side by side: the DOF set's keyword questions typed so,
-- text MRR@10 0.020 -> 0.853, hybrid 0.704 -> 0.831 (bench/sql/quality_comma_words.sql);
-- a number (1,500) stays as it is. A date in figures is read as its words
-- (dof_date_words), and a word with two spellings in the one (dof_spelling). A query is
-- read with this rule
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

-- (Re)builds the chunks of one document: chunk by its collection's strategy with its stored
-- pattern, embed (late or independent per the collection), store the chunks and their
-- passages (dof_passages) — one Rust call for the first two. Runs as the caller, in the
-- caller's transaction. The one function that builds chunks (dof_shard_import copies
-- chunks another shard built; regress 01 lists the writers).
CREATE FUNCTION dof_index_document(doc_id bigint) RETURNS integer
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

-- The n-th (1-based) of `passages` vectors laid one after another in `vectors`, as
-- dof_chunk_passages_internal returns them (pgrx returns no array of vectors).
CREATE FUNCTION dof_passage_vector(vectors real[], passages integer, n integer) RETURNS vector
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    RETURN (vectors[(n - 1) * (cardinality(vectors) / passages) + 1 : n * (cardinality(vectors) / passages)])::vector;

COMMENT ON FUNCTION dof_chunk_tsvector(regconfig, text[], text, jsonb) IS 'The tsvector stored for a chunk: heading path and the metadata''s identifier weighted A, content B, in the given text search configuration, lexemes joined by slashes or dots also as their words (dof_word_parts), numbers also without their leading zeros, ordinal sign or glued number sign (dof_number_variants), words with two spellings also in the one dof_spelling writes (dof_spelling_variants), the number of an article of the document''s own also in its other form, words or figures (dof_article_numbers)';
COMMENT ON FUNCTION dof_index_document(bigint) IS 'Rebuilds one document''s chunks and their passages (the one function that builds them; dof_shard_import copies a shard''s): chunk by the collection''s strategy, embed, store; returns the number of chunks';
COMMENT ON FUNCTION dof_passage_vector(real[], integer, integer) IS 'Internal: the n-th of several vectors laid one after another in one array (how dof_chunk_passages_internal returns a chunk''s passage vectors)';
COMMENT ON FUNCTION dof_chunker_version() IS 'Version of the chunking rules; stored on every chunk so re-chunking can target older ones';
COMMENT ON FUNCTION dof_chunk_passages_internal(text, text, dof_collections, dof_models) IS 'Internal: chunks a document by its collection''s strategy, cuts the chunks into passages and embeds them with the model (one call); dof_index_document stores the rows';
