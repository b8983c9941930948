-- A number glued to a degree sign (docs/measurements.md, "A number sign glued to its
-- number"): Peru's laws write "Ley N° 30364" with the degree sign (U+00B0) as often as with
-- the ordinal sign º, and sometimes glued, "Ley N°30364". PostgreSQL's parser reads ° as a
-- separator, so websearch_to_tsquery made 'n' <-> '30364' of it: a phrase a body writing
-- "Ley Nº 30364" ('nº') fails, and the text leg found the laws citing it instead.
-- dof_query_words puts a space after a degree sign before a digit. On a quality database
-- that bench/scripts/retrieval_quality.sh left with this tree (pg_dof_quality_<set>,
-- collection eval-independent): the set's own questions, and lookups built from every
-- "<word> N° <number>" and "<word> Nº <number>" of its documents typed "<word> N°<number>",
-- the answer that occurrence's characters; text and hybrid through dof_evaluate_questions
-- with the rule and, in a transaction rolled back, without it (the query side only: no
-- stored lexeme holds a degree sign). Prints MRR@10 without / with:
--   psql -d pg_dof_quality_mixed -f bench/sql/quality_degree_sign.sql
\ir rule_questions.sql
INSERT INTO asked
SELECT 'd' || o.id || '-' || o.n, 'lookups typed N°<number>, the body writing N' || o.sign, regexp_replace(o.found, 'N[º°] +', 'N°'),
       o.source_id, int4multirange(int4range(o.pos - 1, o.pos - 1 + char_length(o.found)))
FROM (SELECT d.id, d.source_id, g.n,
             regexp_instr(d.body, '[[:alpha:]]+ +N[º°] +[0-9]+', 1, g.n::integer) AS pos,
             regexp_substr(d.body, '[[:alpha:]]+ +N[º°] +[0-9]+', 1, g.n::integer) AS found,
             substring(regexp_substr(d.body, '[[:alpha:]]+ +N[º°] +[0-9]+', 1, g.n::integer) FROM 'N([º°])') AS sign
      FROM dof_documents d, generate_series(1, 10) AS g(n)
      WHERE d.collection = 'eval-independent') o
WHERE o.pos > 0;
\set scores with_rule
\ir rule_scores.sql
-- without: dof_query_words as it was before the rule
CREATE OR REPLACE FUNCTION dof_query_words(query text) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    RETURN dof_spelling(regexp_replace(regexp_replace(regexp_replace(dof_date_words(query), '(^|[^[:alnum:]])([Nn]º)([0-9]+)', '\1\2\3 \3', 'g'),
                                                      '([[:alnum:]])(?:-|/+)(?=[[:alnum:]])', '\1 ', 'g'),
                                       '([[:alpha:]])\.(?=[[:alnum:]])|([[:digit:]])\.(?=[[:alpha:]])', '\1\2 ', 'g'));
\set scores without_rule
\ir rule_scores.sql
\set unlisted '^lookups'
\ir rule_summary.sql
ROLLBACK;
