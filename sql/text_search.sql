-- Search, text leg: chunks matching the query's lexemes, ranked by BM25 (or ts_rank_cd).
-- Runs as its caller, so row-level security on dof_chunks applies.

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
CREATE FUNCTION dof_term_stats(collection text, lexemes text[])
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

-- A collection's (NULL: all collections') chunk count and total length in tokens.
CREATE FUNCTION dof_collection_stats(collection text)
    RETURNS TABLE (chunks bigint, tokens bigint)
    LANGUAGE sql STABLE PARALLEL SAFE
BEGIN ATOMIC
    SELECT coalesce(sum(s.chunks), 0)::bigint, coalesce(sum(s.tokens), 0)::bigint FROM dof_collection_stats s
    WHERE dof_collection_stats.collection IS NULL OR s.collection = dof_collection_stats.collection;
END;

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

-- A search's tsquery: websearch syntax ("quoted phrase", or, -word), its words read by
-- dof_query_words (a hyphen, a slash or a dot inside an identifier separates words: "ds 092
-- 2002 ef" and DS-092-2002-EF alike find "Nº 092-2002-EF"); a query with double quotes by
-- dof_query_phrases (its phrases as written, its other words so). A dash between spaces
-- separates, as in titles and ranges
-- ("PLANEA 2017 - 2022", "Ley Nº 28804 - Ley que regula..."), where websearch_to_tsquery
-- read it as "not" the next word, so the text leg found nothing (the mixed set's 9 such
-- questions: text MRR@10 0.000 -> 0.889, hybrid 0.648 -> 0.889); -word still excludes.
-- Two dashes or more together separate words too (ley--decreto, a typed dash), and of
-- dashes with only blanks or the characters websearch_to_tsquery skips (! & | ( ) <)
-- between them only the last may exclude: each was a "not" waiting for its word, and 32
-- of them overflowed PostgreSQL's parser ("tsquery stack too small", an internal error).
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

-- The lexemes of querytree(query), distinct and sorted: the ones a match needs (negated
-- terms are not). BM25 scores these; a coordinator sends them to every shard.
CREATE FUNCTION dof_query_lexemes(query tsquery) RETURNS text[]
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    RETURN (SELECT coalesce(array_agg(DISTINCT replace(m[1], '''''', '''')), '{}')
            FROM regexp_matches(querytree(query), '''((?:[^'']|'''')*)''', 'g') AS m);

-- BM25 itself (the IDF, dof_bm25_idfs; the selective IDF, dof_bm25_selective_idf; the
-- parameters, dof_bm25_parameters; the score, dof_bm25_score_internal; the score with the
-- query's neighbouring words and its words together, dof_text_score_internal, and their
-- weights, dof_bm25_pair_weight and dof_bm25_window) is dof_core::bm25's, through
-- src/api/text_search.rs: SQL keeps only the statistics it is given.

-- BM25's inputs for a query in a collection (NULL: all collections), exact: the query's
-- lexemes (dof_query_lexemes), their IDFs (dof_bm25_idfs), the chunks holding each (n),
-- and the collection's mean chunk length in tokens. The statistics count every chunk of
-- the collection, whatever row-level security lets the caller see: a role without SELECT
-- on them ranks with every IDF 1, no chunk counts and no length normalisation.
CREATE FUNCTION dof_bm25_terms(query tsquery, collection text DEFAULT NULL)
    RETURNS TABLE (lexemes text[], idfs double precision[], chunks double precision[], average_length double precision)
    LANGUAGE plpgsql STABLE PARALLEL SAFE SET search_path FROM CURRENT AS $$
DECLARE
    terms text[] := dof_query_lexemes(query);
    total double precision;
    counts double precision[];
BEGIN
    IF NOT (has_table_privilege('dof_term_stats', 'SELECT') AND has_table_privilege('dof_collection_stats', 'SELECT')) THEN
        RETURN QUERY SELECT terms, array_fill(1.0::double precision, ARRAY[cardinality(terms)]), NULL::double precision[], NULL::double precision;
        RETURN;
    END IF;
    SELECT s.chunks, s.tokens::double precision / nullif(s.chunks, 0) INTO total, average_length
    FROM dof_collection_stats(dof_bm25_terms.collection) s;
    -- dof_term_stats returns the lexemes in the order given
    counts := ARRAY(SELECT t.chunks::double precision FROM dof_term_stats(dof_bm25_terms.collection, terms) t);
    RETURN QUERY SELECT terms, dof_bm25_idfs(counts, total), counts, average_length;
END
$$;

-- match_terms => 'any' of the text leg: the query's selective lexemes (IDF of at least
-- dof_bm25_selective_idf(), ln 20: in at most about 5% of chunks) that some chunk holds,
-- OR'ed, rarest first, while the chunks they are estimated to match stay within `budget`:
-- every match is scored, so this bounds the text leg's work at any table size. When no
-- chunk holds a selective lexeme (a small collection, where no word is that rare, or a
-- query whose rare words are absent), every lexeme some chunk holds, the same way: the
-- query itself (every word in one chunk) found nothing for such a query, and a rare word
-- absent from every chunk (a typo) left only itself to match. A phrase or an excluded word
-- ("reactiva perú" in double quotes, -decreto; the parser's own phrases, as of words joined
-- by a comma without a space) is what a match must hold beside one of those lexemes: the
-- query itself found nothing for most questions with a name in quotes, or pasted text with
-- a quote in it (the DOF set's, text leg MRR@10 0.348 -> 0.626 and 0.245 -> 0.828, the
-- hybrid 0.800 -> 0.820 and 0.941 -> 0.947; docs/measurements.md, "A phrase in quotes").
-- The query itself when it has an or, when nothing fits the budget, or without statistics.
CREATE FUNCTION dof_any_terms_query(query tsquery, lexemes text[], idfs double precision[], chunks double precision[],
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

-- The text leg's query with its BM25 inputs given: this server's statistics
-- (dof_text_search) or every shard's added up (a coordinator's search, through
-- dof_shard_legs). Its callers check the arguments.
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

-- The text leg's own arguments, as dof_text_search and a coordinator's shards check them
-- (dof_shard_prepare).
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

-- A text that holds nothing but whitespace (or nothing): the one rule for a blank search
-- query (dof_check_query; dof_vector_search, where a blank query_embedding's text leaves
-- that vector to stand for every model) and a blank document id (dof_documents_before).
-- NULL gives NULL: each caller says what NULL means for it. (A document's body has its own
-- rule, dof_blank_body: a byte order mark and front matter count as blank there.)
CREATE FUNCTION dof_blank_text(value text) RETURNS boolean
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    RETURN value !~ '[^[:space:]]';
COMMENT ON FUNCTION dof_blank_text(text) IS 'Whether a text holds only whitespace or nothing (NULL: NULL): what a blank search query and a blank document source_id are';

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

-- Text leg: chunk ids matching the query in the collection's text search configuration
-- (spanish by default), ranked by BM25 and the query's neighbouring words a chunk has as
-- neighbours (dof_core::bm25's parameters and pair weight; IDFs and lengths from
-- dof_bm25_terms) or, with ranking => 'ts_rank_cd', by PostgreSQL's cover density
-- (no IDF).
-- match_terms => 'all': websearch syntax as written (every term, "phrases", -not, or).
-- match_terms => 'any' (default): a chunk matches with any of the query's selective
-- lexemes (dof_any_terms_query); common lexemes only add to the score. A question in
-- plain words rarely has all its words in one chunk, so 'all' would find nothing; OR over
-- every word would select (and rank) a large share of the table. When no chunk holds a
-- selective lexeme, any lexeme some chunk holds, within the same budget. With no
-- statistics yet, or when the query uses operators, 'any' acts as 'all'.
CREATE FUNCTION dof_text_search(query text, k integer DEFAULT 10, collection text DEFAULT NULL,
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

COMMENT ON FUNCTION dof_bm25_score_internal(anyelement, double precision, text[], double precision[], double precision) IS 'Internal: BM25 of one tsvector with dof_bm25_parameters(); used by the text leg';
COMMENT ON FUNCTION dof_any_terms_query(tsquery, text[], double precision[], double precision[], double precision) IS 'The tsquery of match_terms => ''any'': the selective lexemes (IDF >= dof_bm25_selective_idf()) some chunk holds OR''ed, rarest first within an estimated budget of matching chunks, or, when no chunk holds one, every lexeme some chunk holds, the same way, and the query''s phrases and excluded words with them (( ''a'' | ''b'' ) & ''c'' <-> ''d'' & !''e''); the query itself when it has an or, nothing fits the budget, or no statistics are given';
COMMENT ON FUNCTION dof_text_search(text, integer, text, jsonb, text, text) IS 'Text leg alone: the k best chunks matching the query (match_terms: any selective lexeme, or all terms in websearch syntax) in the collection''s text search configuration, ranked by BM25 (default) or ts_rank_cd';
COMMENT ON FUNCTION dof_term_stats(text, text[]) IS 'How many chunks of a collection (NULL: all) hold each lexeme, exact (dof_term_stats deltas summed); what a sharded search adds up over shards';
COMMENT ON FUNCTION dof_collection_stats(text) IS 'A collection''s (NULL: all collections'') chunk count and total length in tokens, exact';
COMMENT ON FUNCTION dof_bm25_terms(tsquery, text) IS 'BM25 inputs for a query in a collection (NULL: all): its lexemes, their IDFs, the chunks holding each, and the mean chunk length in tokens, from the collection''s exact statistics';
COMMENT ON FUNCTION dof_query_stopwords(text) IS 'A query with the words a Spanish question frames itself with that the Spanish stop list lacks once unaccented blanked: según, tras, hacia, mediante, cuánto (cuánta, cuántos, cuántas), cuáles, adónde, in any case; what dof_query_tsquery (unquoted) and dof_query_vector read';
COMMENT ON FUNCTION dof_query_vector(regconfig, text) IS 'The query''s own tsvector (its words as dof_query_words reads them): where its lexemes stand, so the text leg can score the neighbouring words a chunk has as neighbours';
COMMENT ON FUNCTION dof_text_score_internal(anyelement, double precision, text[], double precision[], double precision, anyelement) IS 'Internal: the text leg''s score of one tsvector, its BM25 plus, for each two neighbouring words of the query (query_vector: dof_query_vector; NULL: BM25 alone) the tsvector has as neighbours at the same distance, dof_bm25_pair_weight() times their mean IDF, plus dof_bm25_window()''s weight times the most IDF of distinct query lexemes within its positions of the tsvector';
COMMENT ON FUNCTION dof_bm25_window() IS 'How many consecutive positions of a chunk the text leg looks at for the query''s words together (30), and what the best such window''s IDF (its distinct query lexemes'') adds to the score, times it (0.25, by measurement)';
COMMENT ON FUNCTION dof_bm25_pair_weight() IS 'What two neighbouring words of the query that a chunk has as neighbours at the same distance add to the text leg''s score, times their mean IDF (0.5, by measurement)';
COMMENT ON FUNCTION dof_query_tsquery(regconfig, text) IS 'The tsquery of a search (websearch syntax), its words read by dof_query_words without dof_query_stopwords (DS-092-2002-EF matches as ds 092 2002 ef, CUSCO/GR as cusco gr) outside double quotes; a quoted phrase is read as written but for dof_spelling (setiembre is septiembre); a dash between spaces, or two or more together, separates words (PLANEA 2017 - 2022, ley--decreto), -word excludes, and of dashes with only blanks or ! & | ( ) < between them only the last';
COMMENT ON FUNCTION dof_query_lexemes(tsquery) IS 'The lexemes of querytree(query), distinct and sorted: what BM25 scores and a coordinator sends to every shard';
COMMENT ON FUNCTION dof_bm25_idfs(double precision[], double precision) IS 'Lucene''s BM25 IDF, ln(1 + (total - n + 0.5) / (n + 0.5)), of each count n of chunks holding a lexeme among total chunks';
COMMENT ON FUNCTION dof_bm25_selective_idf() IS 'The IDF from which a lexeme is selective (ln 20: in at most about 5% of chunks): match_terms => ''any'' ORs those some chunk holds (every lexeme some chunk holds when none: dof_any_terms_query)';
COMMENT ON FUNCTION dof_bm25_parameters() IS 'BM25''s parameters as the text leg scores with them: k1, b, and what a match in the heading path (weight A) counts as';
COMMENT ON FUNCTION dof_text_leg_internal(tsquery, integer, text, jsonb, text, text, text[], double precision[], double precision[], double precision, tsvector) IS 'Internal: the text leg''s query with its BM25 inputs given (this server''s statistics, or a coordinator''s global ones)';
COMMENT ON FUNCTION dof_text_query(text, text, text, text) IS 'A text search''s tsquery in the collection''s configuration and its BM25 inputs (dof_bm25_terms, and with bm25 ranking the query''s own tsvector, dof_query_vector; NULL when neither the ranking nor match_terms uses them), with the query and the text leg''s arguments checked: what dof_text_search and dof_hybrid_search run before the leg';
COMMENT ON FUNCTION dof_check_text_arguments(text, text) IS 'Raises 22023 unless ranking is bm25 or ts_rank_cd and match_terms any or all: dof_text_search''s check, which a coordinator''s shards run too';
COMMENT ON FUNCTION dof_bm25_full_match(double precision[]) IS 'A query''s full-match BM25: the score of a chunk of average length holding each of its lexemes once, the sum of their IDFs (NULLs left out)';
