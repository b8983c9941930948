-- A careless DROP EXTENSION pg_dof (or DROP EXTENSION vector CASCADE, or DROP SCHEMA ...
-- CASCADE of pg_dof's schema) would delete every stored document with the extension's
-- tables. This event trigger refuses it while documents are stored, unless the session
-- says SET pg_dof.allow_drop = on (src/api/drop_guard.rs reads the statement).
CREATE FUNCTION dof_drop_guard() RETURNS event_trigger
    LANGUAGE c AS 'MODULE_PATHNAME', 'dof_drop_guard';
CREATE EVENT TRIGGER dof_drop_guard ON ddl_command_start
    WHEN TAG IN ('DROP EXTENSION', 'DROP SCHEMA')
    EXECUTE FUNCTION dof_drop_guard();
COMMENT ON FUNCTION dof_drop_guard() IS 'Event trigger: refuses a DROP that would take pg_dof and its stored documents with it, unless pg_dof.allow_drop is on';
COMMENT ON EVENT TRIGGER dof_drop_guard IS 'Refuses DROP EXTENSION pg_dof (and drops that cascade to it) while documents are stored, unless SET pg_dof.allow_drop = on';
