-- Loads a Spanish legal set from the legalize-pe sample (Peruvian laws with YAML front
-- matter) into eval_documents / eval_questions for quality.sql. The questions are made
-- from each law's own front matter (dof_front_matter), three per law that has an
-- identifier and a title: its identifier as written (DS-092-2002-EF), the same in
-- lowercase without hyphens (ds 092 2002 ef: how people type it), and its title in
-- lowercase without accents (keywords). The answer is the law: any chunk of it. A law
-- whose identifier or title another law shares is left out (its question would have two
-- right answers). psql variables: files (a file listing the laws' absolute paths), root
-- (the corpus folder: source ids are paths under it).
\set ON_ERROR_STOP on
CREATE TEMP TABLE law_files (path text);
COPY law_files FROM :'files';
INSERT INTO eval_documents SELECT substr(path, length(:'root') + 2), pg_read_file(path) FROM law_files ORDER BY path;
CREATE TEMP TABLE laws AS
SELECT source_id, body, dof_front_matter(body) ->> 'identifier' AS identifier,
       regexp_replace(dof_front_matter(body) ->> 'title', '\s+', ' ', 'g') AS title
FROM eval_documents;
DELETE FROM laws WHERE identifier IS NULL OR title IS NULL
   OR identifier IN (SELECT identifier FROM laws GROUP BY 1 HAVING count(*) > 1)
   OR title IN (SELECT title FROM laws GROUP BY 1 HAVING count(*) > 1);
INSERT INTO eval_questions (question, corpus_id, reference)
SELECT q.question, l.source_id, int4multirange(int4range(0, length(l.body)))
FROM laws l, LATERAL (VALUES (l.identifier),
                             (lower(translate(l.identifier, '-', ' '))),
                             (lower(unaccent(l.title)))) AS q(question)
ORDER BY l.source_id;
