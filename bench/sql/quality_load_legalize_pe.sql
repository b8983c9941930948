-- Loads a Spanish legal set from the legalize-pe sample (Peruvian laws with YAML front
-- matter) into eval_documents / eval_questions for quality.sql. Two sources of questions:
-- * bench/eval/legalize_pe_questions.tsv (kind, question, file, evidence), written by hand
--   from the laws' text in four kinds: natural questions, paraphrases (other words than
--   the law's), lowercase keywords without accents, and number / date / identifier
--   lookups. The reference is every place the evidence stands in the law (a text quoted
--   twice, e.g. a modified article, has two right answers); a missing evidence stops the
--   run, naming it.
-- * each law's own front matter (dof_front_matter), three per law that has an identifier
--   and a title: its identifier as written (DS-092-2002-EF), the same in lowercase without
--   hyphens (ds 092 2002 ef: how people type it), and its title in lowercase without
--   accents. The answer is the law: any chunk of it. A law whose identifier or title
--   another law shares is left out (its question would have two right answers).
-- psql variables: files (a file listing the laws' absolute paths), root (the corpus
-- folder: source ids are paths under it), questions (the TSV).
\set ON_ERROR_STOP on
\ir quality_load_files.sql
CREATE TEMP TABLE laws AS
SELECT source_id, body, dof_front_matter(body) ->> 'identifier' AS identifier,
       regexp_replace(dof_front_matter(body) ->> 'title', '\s+', ' ', 'g') AS title
FROM eval_documents;
DELETE FROM laws WHERE identifier IS NULL OR title IS NULL
   OR identifier IN (SELECT identifier FROM laws GROUP BY 1 HAVING count(*) > 1)
   OR title IN (SELECT title FROM laws GROUP BY 1 HAVING count(*) > 1);
CREATE TEMP TABLE raw_questions (kind text, question text, file text, evidence text);
COPY raw_questions FROM :'questions' (FORMAT text, HEADER true);
DO $$
DECLARE
    missing text := (SELECT string_agg(format('%s: %s', q.file, left(q.evidence, 60)), '; ')
                     FROM raw_questions q LEFT JOIN eval_documents d ON d.source_id = q.file
                     WHERE coalesce(strpos(d.body, q.evidence), 0) = 0);
BEGIN
    IF missing IS NOT NULL THEN
        RAISE EXCEPTION 'evidence not found in its law (or the law is not in the set): %', missing;
    END IF;
END
$$;
INSERT INTO eval_questions (kind, question, corpus_id, reference)
SELECT q.kind, q.question, q.file,
       (WITH RECURSIVE found(at) AS (
            SELECT strpos(d.body, q.evidence)
            UNION ALL
            SELECT at + strpos(substr(d.body, at + 1), q.evidence) FROM found
            WHERE strpos(substr(d.body, at + 1), q.evidence) > 0)
        SELECT range_agg(int4range(at - 1, at - 1 + length(q.evidence))) FROM found)
FROM raw_questions q JOIN eval_documents d ON d.source_id = q.file;
INSERT INTO eval_questions (kind, question, corpus_id, reference)
SELECT q.kind, q.question, l.source_id, int4multirange(int4range(0, length(l.body)))
FROM laws l, LATERAL (VALUES ('front matter: identifier', l.identifier),
                             ('front matter: identifier, no hyphens', lower(translate(l.identifier, '-', ' '))),
                             ('front matter: title keywords', lower(unaccent(l.title)))) AS q(kind, question)
ORDER BY l.source_id;
