-- A phrase in double quotes, or an excluded word, in a search with match_terms => 'any'
-- (docs/measurements.md, "A phrase in quotes"). dof_any_terms_query matches the query's
-- selective lexemes OR'ed and its phrases and excluded words with them; before, a query with
-- either was matched as itself, every word in one chunk. dof_query_tsquery reads the words
-- outside the quotes as any query's; before, a quote anywhere had the whole query read as
-- written. On a quality database that bench/scripts/retrieval_quality.sh left with this tree
-- (pg_dof_quality_<set>, collection eval-independent), text and hybrid through
-- dof_evaluate_questions with the rule and, in a transaction rolled back, without it, on:
-- * the set's own questions (only those whose tsquery holds a phrase or a negation can move);
-- * the same questions with their first name in double quotes: a run of two or more
--   capitalised words not opening the question (¿Quién preside el "Instituto de
--   Administración y Avalúos de Bienes Nacionales"?), the answer unchanged;
-- * pasted text: 500 characters from the middle of 300 chunks of over 900 (chosen by the
--   md5 of their id), the answer those characters; "with operators" where its tsquery holds
--   a phrase or a negation (a quote in the text, a glued N°2594215).
-- Prints MRR@10 without / with per kind, and the questions whose hybrid rank moved but
-- for the pasted text:
--   psql -d pg_dof_quality_mixed -f bench/sql/quality_quoted_phrases.sql
\ir rule_questions.sql
INSERT INTO asked
SELECT 'n' || id, 'a name in quotes',
       overlay(question PLACING '"' || m[1] || '"' FROM strpos(question, m[1]) FOR length(m[1])), corpus_id, reference
FROM eval_questions,
     LATERAL regexp_match(question, '(?:^|[[:space:]])([[:upper:]][[:alnum:]-]*(?:[[:space:]]+(?:(?:de|del|la|las|los|y|en|el|para)[[:space:]]+)*[[:upper:]][[:alnum:]-]*)+)') m
WHERE kind IS DISTINCT FROM 'front matter: identifier' AND kind IS DISTINCT FROM 'front matter: identifier, no hyphens'
  AND m IS NOT NULL AND m[1] !~ '(^|[[:space:]])N$'
  AND substr(question, strpos(question, m[1]) + length(m[1]), 1) !~ '[°º0-9]';
INSERT INTO asked
SELECT 'p' || c.id, 'pasted text', substr(c.content, 201, 500), d.source_id,
       int4multirange(int4range(c.char_start + 200, c.char_start + 700))
FROM dof_chunks c JOIN dof_documents d ON d.id = c.document_id
WHERE c.collection = 'eval-independent' AND length(c.content) > 900 AND substr(c.content, 201, 500) ~ '[[:alpha:]]{4}'
ORDER BY md5(c.id::text) LIMIT 300;
UPDATE asked SET kind = 'pasted text, with operators'
WHERE kind = 'pasted text' AND dof_query_tsquery('dof_spanish', question)::text ~ '[!<]';
\set scores with_rule
\ir rule_scores.sql
-- without: a query with a phrase or a negation matched as itself, and a quote anywhere read
-- the whole query as written
ALTER FUNCTION dof_any_terms_query(tsquery, text[], double precision[], double precision[], double precision)
    RENAME TO dof_any_terms_query_with_rule;
CREATE FUNCTION dof_any_terms_query(query tsquery, lexemes text[], idfs double precision[], chunks double precision[],
                                    budget double precision DEFAULT 2000) RETURNS tsquery
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    RETURN CASE WHEN query::text ~ '[!|<]' THEN query ELSE dof_any_terms_query_with_rule(query, lexemes, idfs, chunks, budget) END;
ALTER FUNCTION dof_query_tsquery(regconfig, text) RENAME TO dof_query_tsquery_with_rule;
CREATE FUNCTION dof_query_tsquery(config regconfig, query text) RETURNS tsquery
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    RETURN CASE WHEN strpos(query, '"') > 0
                THEN websearch_to_tsquery(config, regexp_replace(regexp_replace(regexp_replace(dof_spelling(query),
                         '-{2,}', ' ', 'g'), '-(?=[[:space:]!&|()<]*-)', ' ', 'g'), '(^|[[:space:]])-+(?=[[:space:]]|$)', '\1', 'g'))
                ELSE dof_query_tsquery_with_rule(config, query) END;
\set scores without_rule
\ir rule_scores.sql
\set unlisted '^pasted'
\ir rule_summary.sql
ROLLBACK;
