-- The triggers that keep a document's chunks current: on dof_documents (index now or queue)
-- and on dof_collections (a new text search configuration rebuilds the tsvectors).

-- Whether an UPDATE of a document leaves its chunks as they are: the body is as it was, and
-- so is the collection, or the collection was renamed. A rename cascades to the documents
-- (ON UPDATE CASCADE), and the old name is then no collection's; the settings are the same
-- row's, so the chunks and vectors stay and take the new name (the triggers indexed every
-- document again: 35.5 s to rename a collection of 8 laws, 583 KB). A new source_id or
-- metadata alone keeps them too; a document moved to another collection is indexed again,
-- by that one's settings. The one rule of both document triggers.
-- (Scalars, not the table's row type: a function of it would block every ALTER TABLE.)
CREATE FUNCTION dof_keeps_chunks(old_body text, new_body text, old_collection text, new_collection text) RETURNS boolean
    LANGUAGE sql STABLE PARALLEL SAFE
    RETURN new_body = old_body
           AND (new_collection = old_collection
                OR NOT EXISTS (SELECT FROM dof_collections c WHERE c.name = old_collection));
COMMENT ON FUNCTION dof_keeps_chunks(text, text, text, text) IS 'True when an UPDATE of a document from its old body and collection to its new ones leaves the document''s chunks as they are: the same body, in the same collection or in its collection renamed (no collection has the old name), so they are relabelled instead of indexed again (dof_documents_before, dof_documents_after)';

-- BEFORE: the cheap part (pattern, timestamps). AFTER: chunks, now or through the queue.
CREATE FUNCTION dof_documents_before() RETURNS trigger
    LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
DECLARE
    front jsonb;
BEGIN
    IF TG_OP = 'INSERT' AND NEW.pattern IS NOT NULL AND dof_restoring() THEN
        RETURN NEW;
    END IF;
    -- a document is indexed from its text: a body with none (blank, or front matter only)
    -- would be a row no search can find (dof load refuses such a file by the same rule); a
    -- restored one is kept as it was stored
    IF dof_blank_body(NEW.body) THEN
        RAISE EXCEPTION 'document "%" has an empty body', NEW.source_id USING ERRCODE = 'invalid_parameter_value',
            HINT = 'a document is indexed from its body''s text, what follows any front matter: give it some (DELETE the row to remove the document)';
    END IF;
    -- a source_id is checked where it is given, by an INSERT or an UPDATE that changes it
    -- (a row stored before a check came keeps taking updates of its body and metadata):
    IF (CASE WHEN TG_OP = 'INSERT' THEN true ELSE NEW.source_id IS DISTINCT FROM OLD.source_id END) THEN
        -- a blank one names no document: a search's results and dof_evaluate's questions name
        -- documents by it (dof load makes each from a file's path, never blank)
        IF dof_blank_text(NEW.source_id) THEN
            RAISE EXCEPTION 'document source_id is empty' USING ERRCODE = 'invalid_parameter_value',
                HINT = 'give each document an id of its own: a file''s path, a DOF note''s number';
        END IF;
        -- it is a key of the unique (collection, source_id) index, whose entries hold at most
        -- 2,704 bytes: a longer id failed with PostgreSQL's "index row size … exceeds btree
        -- version 4 maximum", whose hint (an index of its MD5) is for the schema's author
        IF octet_length(NEW.source_id) > 2048 THEN
            RAISE EXCEPTION 'document source_id is % bytes, over the 2048 a source_id may hold', octet_length(NEW.source_id)
                USING ERRCODE = 'program_limit_exceeded',
                      HINT = 'give a shorter id (a path relative to the corpus, or a hash of the long one) and keep the long one in metadata';
        END IF;
    END IF;
    -- a new source_id alone (the trigger fires for it to check it, above), or the
    -- collection's new name: the pattern and the front matter are the body's, as it was
    IF TG_OP = 'UPDATE' AND dof_keeps_chunks(OLD.body, NEW.body, OLD.collection, NEW.collection) THEN
        RETURN NEW;
    END IF;
    NEW.pattern := dof_classify(NEW.body);
    IF TG_OP = 'UPDATE' THEN
        NEW.updated_at := now();
    END IF;
    -- YAML front matter is the document's data: its fields go into metadata (over the
    -- metadata given: they are the document's own word, and a new body replaces its old
    -- values), its title into title unless one is given; the chunker leaves it out. A
    -- file saved on Windows may start with a byte order mark before it (dof_front_matter
    -- reads past one)
    IF starts_with(NEW.body, '---') OR starts_with(NEW.body, E'\uFEFF---') THEN
        front := dof_front_matter(NEW.body);
        IF front IS NOT NULL THEN
            NEW.metadata := coalesce(NEW.metadata, '{}') || front;
            IF NEW.title IS NULL OR (TG_OP = 'UPDATE' AND NEW.title IS NOT DISTINCT FROM OLD.title) THEN
                NEW.title := coalesce(front->>'title', NEW.title);
            END IF;
        END IF;
    END IF;
    RETURN NEW;
END
$$;

CREATE FUNCTION dof_documents_after() RETURNS trigger
    LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
    IF TG_OP = 'INSERT' AND dof_restoring() THEN
        RETURN NULL;  -- its chunks and queue row come from the dump
    END IF;
    IF TG_OP = 'UPDATE' AND dof_keeps_chunks(OLD.body, NEW.body, OLD.collection, NEW.collection) THEN
        -- metadata, or the collection's new name; a new identifier is searchable text
        -- (dof_chunk_tsvector); BM25's statistics follow the chunks (dof_chunks_stats_changed)
        UPDATE dof_chunks c SET collection = NEW.collection, metadata = NEW.metadata,
               tsv = CASE WHEN OLD.metadata ->> 'identifier' IS DISTINCT FROM NEW.metadata ->> 'identifier'
                          THEN dof_chunk_tsvector((SELECT k.text_search_config FROM dof_collections k WHERE k.name = NEW.collection),
                                                  c.heading_path, c.content, NEW.metadata)
                          ELSE c.tsv END
        WHERE c.document_id = NEW.id;
        RETURN NULL;
    END IF;
    IF (SELECT deferred FROM dof_collections WHERE name = NEW.collection) THEN
        INSERT INTO dof_queue (document_id) VALUES (NEW.id)
        ON CONFLICT (document_id) DO UPDATE SET status = 'queued', error = NULL, queued_at = now(), processed_at = NULL;
    ELSE
        IF octet_length(NEW.body) > 1000000 THEN
            -- embedding is ~2,000 tokens/s per core: a large body holds the transaction for minutes
            RAISE NOTICE 'indexing a % MB document inside this transaction', round(octet_length(NEW.body) / 1e6, 1)
                USING HINT = 'a deferred collection (dof_collections.deferred) indexes it later with CALL dof_process_queue(), committing per batch';
        END IF;
        PERFORM dof_index_document(NEW.id);
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER dof_documents_before BEFORE INSERT OR UPDATE OF body, collection, source_id ON dof_documents
    FOR EACH ROW EXECUTE FUNCTION dof_documents_before();
CREATE TRIGGER dof_documents_after AFTER INSERT OR UPDATE OF body, collection, metadata ON dof_documents
    FOR EACH ROW EXECUTE FUNCTION dof_documents_after();

-- A collection's text search configuration changed: its chunks' tsvectors follow, so the
-- stored side and the query side (which reads the setting) agree.
CREATE FUNCTION dof_collections_after() RETURNS trigger
    LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
    UPDATE dof_chunks SET tsv = dof_chunk_tsvector(NEW.text_search_config, heading_path, content, metadata)
    WHERE collection = NEW.name;
    RETURN NULL;
END
$$;
CREATE TRIGGER dof_collections_after AFTER UPDATE OF text_search_config ON dof_collections
    FOR EACH ROW WHEN (OLD.text_search_config IS DISTINCT FROM NEW.text_search_config)
    EXECUTE FUNCTION dof_collections_after();
COMMENT ON FUNCTION dof_documents_before() IS 'Trigger: refuses a blank body (22023), and a source_id where one is given (an INSERT, or an UPDATE that changes it) that is blank (22023) or over 2048 bytes (54000, the unique index''s entries hold 2,704), classifies the document (a restored one keeps its stored pattern and body) and makes its YAML front matter its metadata and title';
COMMENT ON FUNCTION dof_blank_body(text) IS 'True when a body holds nothing to index: only whitespace after its byte order mark and YAML front matter (such a body gives no chunk; the trigger refuses it)';
COMMENT ON FUNCTION dof_front_matter(text) IS 'The fields of the YAML front matter (a block between --- lines at the start, after a byte order mark if there is one) of a body, as jsonb; NULL when there is none; a block that is not a YAML mapping is text (a WARNING says why)';
COMMENT ON FUNCTION dof_documents_after() IS 'Trigger: indexes the document now, or queues it for a deferred collection (not during a restore: see dof_restoring)';
COMMENT ON FUNCTION dof_collections_after() IS 'Trigger: a collection''s new text_search_config rebuilds its chunks'' tsvectors';
