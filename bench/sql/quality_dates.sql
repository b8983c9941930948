-- A date in figures or in words (docs/measurements.md, "A date in figures or in words"). The
-- laws and the DOF write most dates in words ("12 de abril de 2024"), tables and forms in
-- figures ("12/04/2024", "12.04.2024"), and a user types either. On a quality database that
-- bench/scripts/retrieval_quality.sh left with this tree (pg_dof_quality_<set>, collection
-- eval-independent, whose dates joined by slashes or dots are also indexed as their words:
-- dof_word_parts; dof_query_words reads a query's dates in figures as words: dof_date_words):
-- the set's own questions, and lookups built from its documents' dates in words and in
-- figures (day/month/year with slashes or dots), the date alone, as written and typed the other way,
-- the answer that occurrence's characters; through dof_evaluate_questions (text and hybrid);
-- then, in a transaction rolled back, the same with the rule undone (the chunks holding such
-- a date indexed again). Prints MRR@10 without / with:
--   psql -d pg_dof_quality_mixed -f bench/sql/quality_dates.sql
\ir rule_questions.sql
CREATE TEMP TABLE month (n integer, name text);
INSERT INTO month SELECT i, (ARRAY['enero','febrero','marzo','abril','mayo','junio','julio','agosto','septiembre','octubre','noviembre','diciembre'])[i] FROM generate_series(1, 12) i;
INSERT INTO asked
SELECT o.what || ' ' || o.id || '-' || o.n || '/' || f.form, o.what || ', ' || f.form, f.typed, o.source_id,
       int4multirange(int4range(o.pos - 1, o.pos - 1 + char_length(o.found)))
FROM (SELECT p.what, d.id, d.source_id, g.n,
             regexp_instr(d.body, p.pattern, 1, g.n::integer, 0, 'i') AS pos,
             regexp_substr(d.body, p.pattern, 1, g.n::integer, 'i') AS found
      FROM dof_documents d, generate_series(1, 10) AS g(n),
           (VALUES ('in words', '\m[0-3]?[0-9] +de +(enero|febrero|marzo|abril|mayo|junio|julio|agosto|sep?tiembre|octubre|noviembre|diciembre) +del? +[12][0-9]{3}\M'),
                   ('in figures', '\m[0-3]?[0-9]/(0?[1-9]|1[0-2])/[12][0-9]{3}\M'),
                   ('in figures with dots', '\m[0-3]?[0-9]\.(0?[1-9]|1[0-2])\.[12][0-9]{3}\M')) AS p(what, pattern)
      WHERE d.collection = 'eval-independent') o,
     LATERAL (SELECT (regexp_match(o.found, '^[0-9]+'))[1]::integer AS day, (regexp_match(o.found, '[0-9]{4}$'))[1] AS year,
                     coalesce((SELECT m.n FROM month m WHERE lower(o.found) ~ ('\m' || replace(m.name, 'septiembre', 'sep?tiembre') || '\M')),
                              (regexp_match(o.found, '[/.]([0-9]+)[/.]'))[1]::int) AS mon) x,
     LATERAL (VALUES ('as written', o.found),
                     ('typed the other way', CASE WHEN o.what = 'in words' THEN lpad(x.day::text, 2, '0') || '/' || lpad(x.mon::text, 2, '0') || '/' || x.year
                                                  ELSE x.day || ' de ' || (SELECT name FROM month WHERE n = x.mon) || ' de ' || x.year END)) AS f(form, typed)
WHERE o.pos > 0;
SELECT kind, count(*) AS lookups FROM asked GROUP BY 1 ORDER BY 1;
\set scores with_rule
\ir rule_scores.sql
-- without: a date in figures read as written (so a date joined by dots is not one of
-- dof_word_parts' joined lexemes either); the chunks that hold a date joined by slashes or
-- dots indexed again
CREATE OR REPLACE FUNCTION dof_date_words(words text) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    RETURN words;
\set lexemes '[0-9][/.][0-9]'
\ir rule_without.sql
\set unlisted 'other way'
\ir rule_summary.sql
ROLLBACK;
