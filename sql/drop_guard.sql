-- A careless DROP EXTENSION pg_dof (or DROP EXTENSION vector CASCADE, DROP EXTENSION
-- plpgsql CASCADE, DROP SCHEMA ... CASCADE of pg_dof's schema, DROP OWNED BY its owner)
-- would delete every stored document with the extension's tables. This event trigger
-- refuses it while documents are stored, unless the session says SET pg_dof.allow_drop = on
-- (src/api/drop_guard.rs reads the statement and walks pg_depend from what it names). It
-- fires in every session_replication_role (ENABLE ALWAYS): replica mode switches ordinary
-- event triggers off.
CREATE FUNCTION dof_drop_guard() RETURNS event_trigger
    LANGUAGE c AS 'MODULE_PATHNAME', 'dof_drop_guard';
CREATE EVENT TRIGGER dof_drop_guard ON ddl_command_start
    WHEN TAG IN ('DROP EXTENSION', 'DROP SCHEMA', 'DROP OWNED', 'DROP LANGUAGE', 'DROP TYPE', 'DROP DOMAIN',
                 'DROP FUNCTION', 'DROP PROCEDURE', 'DROP ROUTINE', 'DROP AGGREGATE', 'DROP OPERATOR',
                 'DROP OPERATOR CLASS', 'DROP OPERATOR FAMILY', 'DROP ACCESS METHOD', 'DROP CAST', 'DROP COLLATION',
                 'DROP TEXT SEARCH CONFIGURATION', 'DROP TEXT SEARCH DICTIONARY', 'DROP TEXT SEARCH PARSER',
                 'DROP TEXT SEARCH TEMPLATE')
    EXECUTE FUNCTION dof_drop_guard();
ALTER EVENT TRIGGER dof_drop_guard ENABLE ALWAYS;
COMMENT ON FUNCTION dof_drop_guard() IS 'Event trigger: refuses a DROP that would take pg_dof and its stored documents with it, unless pg_dof.allow_drop is on';
COMMENT ON EVENT TRIGGER dof_drop_guard IS 'Refuses, while documents are stored, every DROP that would take pg_dof with it (DROP EXTENSION pg_dof, a CASCADE reaching it, DROP OWNED BY its owner), in any session_replication_role, unless SET pg_dof.allow_drop = on';
