-- Loads the DOF set's questions over another converter's renditions of its editions
-- (bench/scripts/dof_renditions.py's output: question, file under the corpora, the
-- reference's character range) into eval_documents / eval_questions for quality.sql.
-- psql variables: corpora (folder), questions (TSV).
\set ON_ERROR_STOP on
CREATE TEMP TABLE raw_questions (question text, file text, start_at integer, end_at integer);
COPY raw_questions FROM :'questions' (FORMAT text, HEADER true);
SELECT format('INSERT INTO eval_documents VALUES (%L, pg_read_file(%L))', file, :'corpora' || '/' || file)
FROM (SELECT DISTINCT file FROM raw_questions) f ORDER BY file \gexec
INSERT INTO eval_questions (question, corpus_id, reference)
SELECT question, file, int4multirange(int4range(start_at, end_at)) FROM raw_questions;
