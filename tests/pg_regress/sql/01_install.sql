-- The extension installs with pgvector pulled in, and reports its version.
CREATE EXTENSION pg_dof CASCADE;
SELECT extname FROM pg_extension WHERE extname IN ('vector', 'pg_dof') ORDER BY extname;
SELECT dof_version() = (SELECT extversion FROM pg_extension WHERE extname = 'pg_dof') AS version_matches;
-- settings live under the reserved pg_dof prefix; paths are superuser-only
SELECT name, context FROM pg_settings WHERE name LIKE 'pg_dof.%' ORDER BY name;
SHOW pg_dof.model_dir;
SET pg_dof.no_such_setting = 1;
