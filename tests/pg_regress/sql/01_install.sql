-- The extension installs with pgvector pulled in, and reports its version.
CREATE EXTENSION pg_dof CASCADE;
SELECT extname FROM pg_extension WHERE extname IN ('vector', 'pg_dof') ORDER BY extname;
SELECT dof_version() = (SELECT extversion FROM pg_extension WHERE extname = 'pg_dof') AS version_matches;
-- settings live under the reserved pg_dof prefix; paths are superuser-only
SELECT name, context FROM pg_settings WHERE name LIKE 'pg_dof.%' ORDER BY name;
SHOW pg_dof.model_dir;
SET pg_dof.no_such_setting = 1;
-- every object of the extension says what it is (COMMENT ON): none is listed here. A
-- table's or view's row type and an array type are part of what defines them (on PostgreSQL
-- 17 and 18 they are listed as the extension's members too)
SELECT pg_describe_object(d.classid, d.objid, 0) AS without_a_comment
FROM pg_depend d
LEFT JOIN pg_type t ON d.classid = 'pg_type'::regclass AND t.oid = d.objid
LEFT JOIN pg_class r ON r.oid = t.typrelid
WHERE d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e'
  AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'pg_dof')
  AND obj_description(d.objid, d.classid::regclass::name) IS NULL
  AND NOT coalesce(t.typcategory = 'A' OR r.relkind IN ('r', 'v', 'm', 'p', 'f'), false)
ORDER BY 1;
-- Who stores documents and chunks: dof_index_document builds a document's chunks (the
-- triggers, the queue and every search path see only what it stored), dof_put_document
-- stores a document by content hash, and dof_shard_import copies both as another shard
-- stored them (a rebalance). A new function that writes either table fails this list.
SELECT t.relname AS stored_in, string_agg(p.proname, ', ' ORDER BY p.proname) AS written_by
FROM pg_proc p
JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
                AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'pg_dof')
CROSS JOIN (VALUES ('dof_chunks'), ('dof_documents')) t(relname)
WHERE p.prosrc ~* ('insert\s+into\s+(\S+\.)?' || t.relname || '\M')
GROUP BY 1 ORDER BY 1;
