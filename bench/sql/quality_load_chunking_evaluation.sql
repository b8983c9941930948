-- Loads the chunking-evaluation set (five English corpora, 472 questions whose answers are
-- character ranges of the corpora) into eval_documents / eval_questions for quality.sql.
-- psql variables: corpus (folder of .md files), questions (CSV).
\set ON_ERROR_STOP on
SELECT format('INSERT INTO eval_documents VALUES (%L, pg_read_file(%L))', regexp_replace(f, '^.*/|\.md$', '', 'g'), :'corpus' || '/' || f)
FROM pg_ls_dir(:'corpus') f WHERE f LIKE '%.md' ORDER BY f \gexec
CREATE TEMP TABLE raw_questions (question text, refs jsonb, corpus_id text);
COPY raw_questions FROM :'questions' (FORMAT csv, HEADER true);
INSERT INTO eval_questions (question, corpus_id, reference)
SELECT question, corpus_id,
       (SELECT range_agg(int4range((r ->> 'start_index')::int, (r ->> 'end_index')::int)) FROM jsonb_array_elements(refs) r)
FROM raw_questions;
