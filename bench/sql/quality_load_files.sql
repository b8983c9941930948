-- Adds the files a list names to eval_documents, each under its path below a folder (what
-- quality_load_legalize_pe.sql loads its laws with, and retrieval_quality.sh's mixed-long
-- its distractors). psql variables: files (a file listing absolute paths), root (the folder).
CREATE TEMP TABLE law_files (path text);
COPY law_files FROM :'files';
INSERT INTO eval_documents SELECT substr(path, length(:'root') + 2), pg_read_file(path) FROM law_files ORDER BY path;
