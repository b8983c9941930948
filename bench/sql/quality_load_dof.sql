-- Loads the Spanish DOF set (bench/eval/dof_questions.tsv: question, file under the
-- corpora, evidence) into eval_documents / eval_questions for quality.sql: every edition a
-- question names is a document; a question's reference is where its evidence text stands
-- in that edition (the first occurrence). A missing evidence stops the run, naming it.
-- psql variables: corpora (folder), questions (TSV).
\set ON_ERROR_STOP on
CREATE TEMP TABLE raw_questions (question text, file text, evidence text);
COPY raw_questions FROM :'questions' (FORMAT text, HEADER true);
SELECT format('INSERT INTO eval_documents VALUES (%L, pg_read_file(%L))', file, :'corpora' || '/' || file)
FROM (SELECT DISTINCT file FROM raw_questions) f ORDER BY file \gexec
INSERT INTO eval_questions (question, corpus_id, reference)
SELECT q.question, q.file,
       int4multirange(int4range(strpos(d.body, q.evidence) - 1, strpos(d.body, q.evidence) - 1 + length(q.evidence)))
FROM raw_questions q JOIN eval_documents d ON d.source_id = q.file
WHERE strpos(d.body, q.evidence) > 0;
DO $$
DECLARE
    missing text := (SELECT string_agg(format('%s: %s', q.file, left(q.evidence, 60)), '; ') FROM raw_questions q
                     JOIN eval_documents d ON d.source_id = q.file WHERE strpos(d.body, q.evidence) = 0);
BEGIN
    IF missing IS NOT NULL THEN
        RAISE EXCEPTION 'evidence not found in its edition: %', missing;
    END IF;
END
$$;
