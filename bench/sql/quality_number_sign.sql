-- Numbers glued to their number sign (docs/measurements.md, "A number sign glued to its
-- number"). PostgreSQL's parser reads º as a letter, so "Ley Nº27902" is one word,
-- 'nº27902', which "ley 27902" does not match (nor "Ley Nº27902" a body that writes "Ley Nº
-- 27902"). On a quality database that bench/scripts/retrieval_quality.sh left with this tree
-- (pg_dof_quality_<set>, collection eval-independent, whose tsvectors hold such a number also
-- as the number: dof_number_variants; dof_query_words follows such a word in a query with
-- the number): the
-- set's own questions as written, and lookups built from every "<word> Nº<number>" of its
-- documents, typed "<word> <number>" and as written, the answer that occurrence's characters;
-- through dof_evaluate_questions (text and hybrid); then, in a transaction rolled back, the
-- same with both rules as they were before (the chunks holding such a word indexed again).
-- Prints MRR@10 without / with:
--   psql -d pg_dof_quality_mixed -f bench/sql/quality_number_sign.sql
\ir rule_questions.sql
INSERT INTO asked
SELECT 'n' || o.id || '-' || o.n || '/' || f.form, 'lookups, ' || f.form, f.question, o.source_id,
       int4multirange(int4range(o.pos - 1, o.pos - 1 + char_length(o.found)))
FROM (SELECT d.id, d.source_id, g.n,
             regexp_instr(d.body, '[[:alpha:]]+\.? +Nº[0-9]+', 1, g.n::integer) AS pos,
             regexp_substr(d.body, '[[:alpha:]]+\.? +Nº[0-9]+', 1, g.n::integer) AS found
      FROM dof_documents d, generate_series(1, 20) AS g(n)
      WHERE d.collection = 'eval-independent') o,
     LATERAL (VALUES ('as written', o.found),
                     ('typed without the sign', lower(regexp_replace(o.found, '\.? +Nº', ' ')))) AS f(form, question)
WHERE o.pos > 0;
\set scores with_rule
\ir rule_scores.sql
-- without: the two functions as they were before the rule
CREATE OR REPLACE FUNCTION dof_query_words(query text) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    RETURN regexp_replace(regexp_replace(query, '([[:alnum:]])(?:-|/+)(?=[[:alnum:]])', '\1 ', 'g'),
                          '([[:alpha:]])\.(?=[[:alnum:]])|([[:digit:]])\.(?=[[:alpha:]])', '\1\2 ', 'g');
CREATE OR REPLACE FUNCTION dof_number_variants(tsv tsvector) RETURNS tsvector
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    RETURN dof_tsvector_add(tsv, (SELECT string_agg(dof_tsvector_entry(n.number, u.positions, u.weights), ' ')
                                  FROM unnest(tsv) u,
                                       LATERAL (SELECT regexp_replace(regexp_replace(u.lexeme, '(º|ª|o|a|er|ero|era|ro|ra|do|da|to|ta|vo|va|no|na|mo|ma)$', ''),
                                                                      '^0+([0-9])', '\1') AS number) n
                                  WHERE u.lexeme ~ '^[0-9]' AND n.number ~ '^[0-9]+$' AND n.number <> u.lexeme));
\set lexemes '^nº[0-9]'
\ir rule_without.sql
\ir rule_summary.sql
ROLLBACK;
