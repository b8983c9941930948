-- Missing files and bad names are ERRORs with a SQLSTATE and a hint; the backend survives.
CREATE EXTENSION pg_dof CASCADE;
\set SHOW_CONTEXT never
\set VERBOSITY default
SET pg_dof.model_dir = '/nonexistent/models';
SELECT dof_embed_query('hola');
DO $$ BEGIN PERFORM dof_embed_query('hola');
EXCEPTION WHEN OTHERS THEN RAISE NOTICE 'sqlstate %', SQLSTATE; END $$;
RESET pg_dof.model_dir;
SELECT dof_embed_query('hola', '../../etc');
DO $$ BEGIN PERFORM dof_embed_query('hola', '../../etc');
EXCEPTION WHEN OTHERS THEN RAISE NOTICE 'sqlstate %', SQLSTATE; END $$;
SELECT dof_embed_query('hola', 'no-such-model');
-- the backend is still here and still embeds
SELECT vector_dims(dof_embed_query('hola')) AS dims_after_errors;
-- paths are superuser-only settings
CREATE ROLE dof_regress_user;
SET ROLE dof_regress_user;
SET pg_dof.model_dir = '/tmp';
SET pg_dof.onnxruntime_library = '/tmp/libonnxruntime.so';
RESET ROLE;
DROP ROLE dof_regress_user;
