-- Article numbers typed without their ordinal sign (docs/measurements.md, "Ordinal numbers
-- typed as numbers"). Peruvian laws number their articles "Artículo 1º.-", DOF decrees
-- "Artículo 5o.", and PostgreSQL's parser reads 1º and 5o as words of their own, which "artículo
-- 1" does not match. On a quality database that bench/scripts/retrieval_quality.sh left with
-- this tree (pg_dof_quality_<set>, collection eval-independent, whose tsvectors hold each
-- such number also as the number alone: dof_number_variants): the set's own questions as
-- written, and article lookups built from the documents that have an identifier (front
-- matter's): for each of a document's first three "Artículo Nº" with an ordinal sign, the
-- question "artículo Nº <identifier>" as written and "articulo N <identifier>" without the
-- sign, the answer that heading's characters; through dof_evaluate_questions (text and
-- hybrid); then, in a transaction rolled back, the same with the chunks holding such a
-- number indexed without it (dof_number_variants for leading zeros alone). Prints MRR@10
-- without / with:
--   psql -d pg_dof_quality_mixed -f bench/sql/quality_ordinal_numbers.sql
\ir rule_questions.sql
INSERT INTO asked
SELECT 'a' || o.id || '-' || o.n || '/' || f.form, 'article lookups, ' || f.form, f.question, o.source_id,
       int4multirange(int4range(o.pos - 1, o.pos - 1 + char_length(o.heading)))
FROM (SELECT d.id, d.source_id, d.metadata ->> 'identifier' AS identifier, g.n,
             regexp_instr(d.body, 'Art[íi]culo\s+[0-9]+(º|°|o)\.?', 1, g.n::integer) AS pos,
             regexp_substr(d.body, 'Art[íi]culo\s+[0-9]+(º|°|o)\.?', 1, g.n::integer) AS heading
      FROM dof_documents d, generate_series(1, 3) AS g(n)
      WHERE d.collection = 'eval-independent' AND d.metadata ? 'identifier') o,
     LATERAL (VALUES ('as written', 'artículo ' || substring(o.heading FROM '[0-9]+(?:º|°|o)') || ' ' || o.identifier),
                     ('typed without the sign', 'articulo ' || substring(o.heading FROM '[0-9]+') || ' ' || o.identifier)) AS f(form, question)
WHERE o.pos > 0 AND o.heading !~ '°';
\set scores with_rule
\ir rule_scores.sql
-- without: leading zeros alone
CREATE OR REPLACE FUNCTION dof_number_variants(tsv tsvector) RETURNS tsvector
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    RETURN dof_tsvector_add(tsv, (SELECT string_agg(dof_tsvector_entry(regexp_replace(u.lexeme, '^0+([0-9])', '\1'), u.positions, u.weights), ' ')
                                  FROM unnest(tsv) u WHERE u.lexeme ~ '^0+[0-9]+$'));
\set lexemes '^[0-9]+[^0-9]+$'
\ir rule_without.sql
\set unlisted '^article lookups'
\ir rule_summary.sql
ROLLBACK;
