-- A fresh backend whose ONNX Runtime library is missing: a clear ERROR, not a crash.
CREATE EXTENSION pg_dof CASCADE;
\set SHOW_CONTEXT never
-- (Runtime loading happens once per backend, so this must be its first embedding.)
SET pg_dof.onnxruntime_library = '/nonexistent/libonnxruntime.so';
SELECT dof_embed_query('hola');
DO $$ BEGIN PERFORM dof_embed_query('hola');
EXCEPTION WHEN OTHERS THEN RAISE NOTICE 'sqlstate %', SQLSTATE; END $$;
SELECT 1 AS backend_alive;
