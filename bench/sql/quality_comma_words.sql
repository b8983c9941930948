-- Words joined by a comma or a semicolon without a space ("vedas,camaron,golfo", "ley
-- 27444,procedimiento"): websearch_to_tsquery made a phrase of them, 'ved' <-> 'cam' <->
-- 'golf', which only a body holding those words side by side matches, and match_terms =>
-- 'any' must hold a phrase. dof_query_words puts a space after a comma or semicolon before
-- a letter, and after one between a letter and a digit (1,500 stays a number). On a quality
-- database that bench/scripts/retrieval_quality.sh left with this tree
-- (pg_dof_quality_<set>, collection eval-independent): the set's own questions, and its
-- questions without a question mark (keywords, titles, lookups) typed with their words
-- joined by commas; text and hybrid through dof_evaluate_questions with the rule and, in a
-- transaction rolled back, without it (the query side only: no stored lexeme holds a
-- comma). Prints MRR@10 without / with:
--   psql -d pg_dof_quality_mixed -f bench/sql/quality_comma_words.sql
\ir rule_questions.sql
INSERT INTO asked
SELECT 'c' || id, 'keywords joined by commas', regexp_replace(btrim(question), '[[:space:]]+', ',', 'g'), corpus_id, reference
FROM eval_questions
WHERE question !~ '[?¿]' AND btrim(question) ~ '[[:space:]]';
\set scores with_rule
\ir rule_scores.sql
-- without: dof_query_words as it was before the rule
CREATE OR REPLACE FUNCTION dof_query_words(query text) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    RETURN dof_spelling(regexp_replace(regexp_replace(regexp_replace(regexp_replace(dof_date_words(query), '(^|[^[:alnum:]])([Nn]º)([0-9]+)', '\1\2\3 \3', 'g'),
                                                                     '°(?=[[:digit:]])', '° ', 'g'),
                                                      '([[:alnum:]])(?:-|/+)(?=[[:alnum:]])', '\1 ', 'g'),
                                       '([[:alpha:]])\.(?=[[:alnum:]])|([[:digit:]])\.(?=[[:alpha:]])', '\1\2 ', 'g'));
\set scores without_rule
\ir rule_scores.sql
\set unlisted '^keywords'
\ir rule_summary.sql
ROLLBACK;
