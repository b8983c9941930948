-- An article's number in words and in figures (docs/measurements.md, "An article's number in
-- words and in figures"). Peru's regional agreements and the DOF's decrees number their own
-- articles in words ("ARTÍCULO PRIMERO.-"), laws in figures ("Artículo 1.-"), and a user
-- types either. On a quality database that bench/scripts/retrieval_quality.sh left with this
-- tree (pg_dof_quality_<set>, collection eval-independent, whose tsvectors hold each own
-- article's number also in its other form: dof_article_numbers): the set's own questions, and
-- lookups built from the own articles (a line that opens with "Artículo" and a number, one to
-- nine, in words or figures) of its documents with an identifier, "<identifier> artículo
-- <number>" as written and typed the other way, the answer that occurrence's characters;
-- through dof_evaluate_questions (text and hybrid); then, in a transaction rolled back, the
-- same with the rule undone (the chunks holding "artículo" indexed again). Prints MRR@10
-- without / with, and how long the chunks' tsvectors take to build with and without it:
--   psql -d pg_dof_quality_mixed -f bench/sql/quality_article_numbers.sql
\ir rule_questions.sql
CREATE TEMP TABLE ordinal (n integer, word text);
INSERT INTO ordinal VALUES (1, 'primero'), (2, 'segundo'), (3, 'tercero'), (4, 'cuarto'), (5, 'quinto'),
                           (6, 'sexto'), (7, 'séptimo'), (8, 'octavo'), (9, 'noveno');
INSERT INTO asked
SELECT o.what || ' ' || o.id || '-' || o.n || '/' || f.form, o.what || ', ' || f.form, o.identifier || ' artículo ' || f.typed, o.source_id,
       int4multirange(int4range(o.pos - 1, o.pos - 1 + char_length(o.found)))
FROM (SELECT p.what, d.id, d.source_id, g.n, d.metadata ->> 'identifier' AS identifier,
             regexp_instr(d.body, p.pattern, 1, g.n::integer, 0, 'i', 1) AS pos,
             regexp_substr(d.body, p.pattern, 1, g.n::integer, 'i', 1) AS found
      FROM dof_documents d, generate_series(1, 10) AS g(n),
           (VALUES ('words', '(?:^|\n)[[:space:]#*_>-]*(art[iíÍ]culo\s+(?:primero|segundo|tercero|cuarto|quinto|sexto|s[eéÉ]p?timo|octavo|noveno))(?![[:alnum:]])'),
                   ('figures', '(?:^|\n)[[:space:]#*_>-]*(art[iíÍ]culo\s+[1-9])(?=[º°ª]?(?![[:alnum:]]))')) AS p(what, pattern)
      WHERE d.collection = 'eval-independent' AND d.metadata ? 'identifier') o,
     LATERAL (SELECT x.n, x.word FROM ordinal x
              WHERE x.n::text = substring(o.found FROM '[0-9]+$')
                 OR translate(x.word, 'é', 'e') = replace(translate(lower(substring(o.found FROM '[[:alpha:]]+$')), 'éÉ', 'ee'), 'setimo', 'septimo')) w,
     LATERAL (VALUES ('as written', substring(o.found FROM '[^[:space:]]+$')),
                     ('typed the other way', CASE WHEN o.what = 'words' THEN w.n::text ELSE w.word END)) AS f(form, typed)
WHERE o.pos > 0;
SELECT kind, count(*) AS lookups FROM asked GROUP BY 1 ORDER BY 1;
\set scores with_rule
\ir rule_scores.sql
\timing on
SELECT count(dof_chunk_tsvector(k.text_search_config, c.heading_path, c.content, c.metadata)) AS tsvectors_with_rule FROM dof_chunks c JOIN dof_collections k ON k.name = c.collection;
SELECT count(dof_chunk_tsvector(k.text_search_config, c.heading_path, c.content, c.metadata)) AS tsvectors_with_rule FROM dof_chunks c JOIN dof_collections k ON k.name = c.collection;
\timing off
-- without: the rule undone, the chunks holding "artículo" indexed again
CREATE OR REPLACE FUNCTION dof_article_numbers(config regconfig, tsv tsvector, heading_path text[], content text) RETURNS tsvector
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    RETURN tsv;
\timing on
SELECT count(dof_chunk_tsvector(k.text_search_config, c.heading_path, c.content, c.metadata)) AS tsvectors_without_rule FROM dof_chunks c JOIN dof_collections k ON k.name = c.collection;
SELECT count(dof_chunk_tsvector(k.text_search_config, c.heading_path, c.content, c.metadata)) AS tsvectors_without_rule FROM dof_chunks c JOIN dof_collections k ON k.name = c.collection;
\timing off
\set lexemes '^articul$'
\ir rule_without.sql
\set unlisted 'other way'
\ir rule_summary.sql
ROLLBACK;
