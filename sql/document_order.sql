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
