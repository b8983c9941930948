-- pg_dump and pg_restore: what the triggers do differently while a dump is restored.

-- A restore is not an insert: pg_dump and pg_restore set check_function_bodies = off for
-- the whole restore, and the dump holds every document's chunks and queue row. While it is
-- off, documents are stored as they come (their pattern too) and not indexed again, so
-- the restored chunks and queue rows load after them without conflicts or re-embedding.
CREATE FUNCTION dof_restoring() RETURNS boolean
    LANGUAGE sql STABLE PARALLEL SAFE
    RETURN NOT current_setting('check_function_bodies')::boolean;
-- pg_restore meets the rows CREATE EXTENSION made (the 'default' collection, the built-in
-- default model): a restored row takes their place instead of failing its table's COPY,
-- which would lose every row of it.
CREATE FUNCTION dof_collections_restore() RETURNS trigger
    LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
    IF dof_restoring() THEN
        DELETE FROM dof_collections WHERE name = NEW.name;
    END IF;
    RETURN NEW;
END
$$;
CREATE TRIGGER dof_collections_restore BEFORE INSERT ON dof_collections
    FOR EACH ROW EXECUTE FUNCTION dof_collections_restore();
CREATE FUNCTION dof_models_restore() RETURNS trigger
    LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
    IF dof_restoring() AND NEW.is_default THEN
        UPDATE dof_models SET is_default = false WHERE is_default AND name <> NEW.name;
    END IF;
    RETURN NEW;
END
$$;
CREATE TRIGGER dof_models_restore BEFORE INSERT ON dof_models
    FOR EACH ROW EXECUTE FUNCTION dof_models_restore();
COMMENT ON FUNCTION dof_restoring() IS 'True while check_function_bodies is off, as pg_dump and pg_restore set it: the triggers then store inserted documents without classifying or indexing them (their chunks come from the dump)';
COMMENT ON FUNCTION dof_collections_restore() IS 'Trigger: during pg_restore, a restored collection replaces the row CREATE EXTENSION made';
COMMENT ON FUNCTION dof_models_restore() IS 'Trigger: during pg_restore, a restored default model takes the default from the built-in one';
