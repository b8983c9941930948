-- Two spellings of one word (docs/measurements.md, "Two spellings of one word"). Peru's laws
-- date "30 de setiembre" and number "Sétima Disposición"; Mexico's DOF, and most users, write
-- septiembre and séptima. On a quality database that bench/scripts/retrieval_quality.sh left
-- with this tree (pg_dof_quality_<set>, collection eval-independent, whose tsvectors hold such
-- a word also in the one spelling: dof_spelling_variants; dof_query_words writes a query's
-- words in it: dof_spelling): the set's own questions as written, and lookups built from its
-- documents' dates ("30 de setiembre de 2019", the date alone) and ordinals (sétimo/séptima
-- and the three words after it, after the document's identifier), as written and in the
-- other spelling, the answer that occurrence's characters; through dof_evaluate_questions
-- (text and hybrid); then, in a transaction rolled back, the same with the rule undone (the
-- chunks holding such a word indexed again). Prints MRR@10 without / with:
--   psql -d pg_dof_quality_mixed -f bench/sql/quality_spelling.sql
\ir rule_questions.sql
INSERT INTO asked
SELECT o.what || ' ' || o.id || '-' || o.n || '/' || f.form, o.what || ', ' || f.form,
       CASE WHEN o.what = 'ordinals' THEN o.identifier || ' ' ELSE '' END || f.written, o.source_id,
       int4multirange(int4range(o.pos - 1, o.pos - 1 + char_length(o.found)))
FROM (SELECT p.what, d.id, d.source_id, g.n, coalesce(d.metadata ->> 'identifier', '') AS identifier,
             regexp_instr(d.body, p.pattern, 1, g.n::integer, 0, 'i') AS pos,
             regexp_substr(d.body, p.pattern, 1, g.n::integer, 'i') AS found
      FROM dof_documents d, generate_series(1, 10) AS g(n),
           (VALUES ('dates', '[0-9]{1,2} +de +sep?tiembre +del? +[0-9]{4}'),
                   ('ordinals', '\ms[eéÉ]p?tim[oa]\M( +[[:alpha:]]+){3}')) AS p(what, pattern)
      WHERE d.collection = 'eval-independent') o,
     LATERAL (VALUES ('as written', o.found),
                     ('in the other spelling', CASE WHEN o.found ~* 's[eéÉ]pti' THEN regexp_replace(o.found, '(s[eéÉ])p(t)', '\1\2', 'i')
                                                    ELSE regexp_replace(o.found, '(s[eéÉ])(t)', '\1p\2', 'i') END)) AS f(form, written)
WHERE o.pos > 0;
\set scores with_rule
\ir rule_scores.sql
-- without: one spelling is no spelling; the chunks that hold a word it wrote another way
-- indexed again (dof_spelling_variants now adds nothing)
CREATE OR REPLACE FUNCTION dof_spelling(words text) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    RETURN words;
\set lexemes '^s(etiembr|etim)'
\ir rule_without.sql
\ir rule_summary.sql
ROLLBACK;
