-- Hostile input gets exact counts, clear errors with SQLSTATEs, and no file leak.
CREATE EXTENSION pg_dof CASCADE;
\set SHOW_CONTEXT never
\set VERBOSITY default

-- U+0085 (NEL) is a token for e5 though Unicode calls it whitespace: every chunk fits
-- and its token_count equals a fresh count of its content (the whole content as one
-- 'small' chunk), at 64 tokens and through the 800-token default
CREATE TEMP TABLE nel AS
SELECT string_agg(concat(E'\u0085\u0094', i, E'\n'), '') AS body FROM generate_series(1, 1500) i;
SELECT max_tokens, count(*) > 1 AS several_chunks, max(c.token_count) <= max_tokens AS within_limit,
       bool_and(c.token_count = (SELECT sum(r.token_count) FROM dof_chunk(c.content, 100000, 0, 'small') r)) AS counts_exact,
       sum(c.char_end - c.char_start) >= (SELECT length(replace(body, E'\n', '')) FROM nel) AS spans_cover_text
FROM nel, (VALUES (64), (800)) AS m(max_tokens), LATERAL dof_chunk(nel.body, max_tokens, 0) c
GROUP BY max_tokens ORDER BY max_tokens;

-- a long word (a base64 image) and emoji on one line: split exactly, quickly
SELECT count(*) AS pieces, max(token_count) <= 64 AS within_limit,
       string_agg(content, '' ORDER BY chunk_index) = repeat('a', 200000) AS nothing_lost
FROM dof_chunk(repeat('a', 200000), 64, 0);
SELECT max(token_count) <= 16 AS within_limit, count(*) > 100 AS many
FROM dof_chunk(repeat(E'\U0001F469\u200D\U0001F469\u200D\U0001F467\U0001F1F2\U0001F1FD', 2000), 16, 8);

-- NULL and out-of-range arguments name the argument and the value given
SELECT * FROM dof_chunk('x', NULL);
SELECT * FROM dof_chunk('x', 800, NULL);
SELECT * FROM dof_chunk('x', -5);
SELECT * FROM dof_embed(NULL);
SELECT * FROM dof_embed_late(NULL);
SELECT * FROM dof_hybrid_search('impuesto', rrf_k => NULL);
SELECT * FROM dof_hybrid_search('impuesto', k => NULL);
SELECT * FROM dof_hybrid_search('impuesto', rrf_k => 2147483647);
SELECT * FROM dof_vector_search('impuesto', k => NULL);
SELECT * FROM dof_text_search('impuesto', k => NULL);
SELECT * FROM dof_vector_search('impuesto', query_embedding => array_fill(0, ARRAY[384])::vector);
CALL dof_process_queue(0);
CALL dof_process_queue(-1);
CALL dof_process_queue(10, -1);
-- the batch the workers run checks by the same rule (dof_check_queue_arguments)
SELECT * FROM dof_process_queue_batch(5, 0);
SELECT * FROM dof_process_queue_batch(NULL);
-- dof_backfill refuses a bad batch_size before it queues anything: it was refused only after
-- the requeue had committed, and every document was left queued for the workers
INSERT INTO dof_documents (source_id, body) VALUES ('relleno', E'# Aviso\n\nTexto del aviso.');
SELECT clock_timestamp() AS before_backfill \gset
CALL dof_backfill(NULL, 0);
CALL dof_backfill(NULL, NULL);
SELECT count(*) AS documents_stored, (SELECT count(*) FROM dof_queue WHERE queued_at >= :'before_backfill') AS queued_by_the_failed_calls
FROM dof_documents;
DELETE FROM dof_documents WHERE source_id = 'relleno';
-- a source_id over 2048 bytes is refused by name: a longer one than the unique index holds
-- failed with PostgreSQL's "index row size exceeds btree version 4 maximum"; 2048 bytes
-- that do not compress are stored
INSERT INTO dof_documents (source_id, body)
VALUES ((SELECT string_agg(md5(i::text), '') FROM generate_series(1, 64) i), E'# Aviso\n\nTexto del aviso.');
INSERT INTO dof_documents (source_id, body)
VALUES ((SELECT string_agg(md5(i::text), '') FROM generate_series(1, 200) i), E'# Aviso\n\nTexto del aviso.');
SELECT octet_length(source_id) AS longest_source_id FROM dof_documents ORDER BY 1 DESC LIMIT 1;
-- and so is one an UPDATE gives, which leaves the document as it was; a new id within the
-- limit is taken without classifying or indexing the document again
SELECT d.updated_at AS stored_at, array_agg(c.id ORDER BY c.id)::text AS stored_chunks
FROM dof_documents d JOIN dof_chunks c ON c.document_id = d.id WHERE octet_length(d.source_id) = 2048 GROUP BY d.id \gset
UPDATE dof_documents SET source_id = (SELECT string_agg(md5(i::text), '') FROM generate_series(1, 200) i)
WHERE octet_length(source_id) = 2048;
UPDATE dof_documents SET source_id = 'renombrado' WHERE octet_length(source_id) = 2048;
SELECT d.source_id, d.updated_at = :'stored_at' AS same_updated_at, array_agg(c.id ORDER BY c.id)::text = :'stored_chunks' AS same_chunks
FROM dof_documents d JOIN dof_chunks c ON c.document_id = d.id WHERE d.source_id = 'renombrado' GROUP BY d.id;
-- a blank source_id names no document: refused by INSERT, UPDATE and dof_put_document
INSERT INTO dof_documents (source_id, body) VALUES ('', E'# Aviso\n\nTexto del aviso.');
INSERT INTO dof_documents (source_id, body) VALUES (E' \t\n', E'# Aviso\n\nTexto del aviso.');
UPDATE dof_documents SET source_id = '' WHERE source_id = 'renombrado';
SELECT * FROM dof_put_document('default', ' ', NULL, E'# Aviso\n\nTexto del aviso.');
SELECT count(*) FILTER (WHERE source_id !~ '[^[:space:]]') AS blank_source_ids,
       count(*) FILTER (WHERE source_id = 'renombrado') AS renombrado
FROM dof_documents;
-- a row stored with a blank id before the check (0.2.0 took one) still takes a new body,
-- which is indexed: the id is checked where it is given
SET session_replication_role = replica;
INSERT INTO dof_documents (source_id, body, pattern) VALUES ('', E'# Aviso\n\nTexto del aviso.', 'small');
RESET session_replication_role;
UPDATE dof_documents SET body = E'# Aviso\n\nTexto nuevo del aviso.' WHERE source_id = '';
SELECT count(*) AS chunks_of_the_blank_id FROM dof_chunks c JOIN dof_documents d ON d.id = c.document_id WHERE d.source_id = '';
DELETE FROM dof_documents WHERE source_id = '';
DELETE FROM dof_documents WHERE source_id = 'renombrado';

-- a blank body is refused, by INSERT, UPDATE and dof_put_document, and nothing stored changes
INSERT INTO dof_documents (source_id, body) VALUES ('vacio', '');
INSERT INTO dof_documents (source_id, body) VALUES ('blancos', E' \n\t\n');
-- nothing but a byte order mark and Unicode spaces, or front matter alone, is no text either
INSERT INTO dof_documents (source_id, body) VALUES ('marca', E'\uFEFF\u00A0\u2003\n');
INSERT INTO dof_documents (source_id, body) VALUES ('solo-yaml', E'---\ntitle: Ley 1\n---\n\n');
SELECT dof_blank_body(E'---\ntitle: Ley 1\n---\nArtículo 1.') AS with_text, dof_blank_body(E'\u0085') AS next_line_is_text;
SELECT * FROM dof_put_document('default', 'vacio', NULL, E'\n');
INSERT INTO dof_documents (source_id, body) VALUES ('lleno', 'Un aviso.');
UPDATE dof_documents SET body = '  ' WHERE source_id = 'lleno';
SELECT source_id, body, (SELECT count(*) FROM dof_chunks c WHERE c.document_id = d.id) AS chunks
FROM dof_documents d WHERE source_id IN ('vacio', 'blancos', 'marca', 'solo-yaml', 'lleno');
DELETE FROM dof_documents WHERE source_id = 'lleno';

-- headings inside fenced code are code: not an h2_compound
SELECT dof_classify(E'```markdown\n' || repeat(E'## no es título\n', 600) || E'```\n') AS fenced_headings;

-- model and tokenizer paths: a non-superuser cannot leave pg_dof.model_dir, and the
-- refusal comes before the file is looked at (an existing and a missing path answer alike)
-- (dof_chunk_internal takes a dof_models row: e5's, with another tokenizer)
CREATE FUNCTION pg_temp.with_tokenizer(file text) RETURNS dof_models LANGUAGE sql AS
$$ SELECT jsonb_populate_record(NULL::dof_models, jsonb_build_object(
       'name', 'x', 'kind', 'onnx', 'model_file', 'multilingual-e5-small/model.onnx', 'tokenizer_file', file,
       'dimension', 384, 'max_positions', 512, 'revision', 'r', 'query_prefix', '', 'passage_prefix', '')) $$;
CREATE ROLE dof_regress_hostile;
SET ROLE dof_regress_hostile;
SELECT * FROM dof_chunk_internal('x', 100, 0, NULL, pg_temp.with_tokenizer('/etc/passwd'), 'pattern', '{}');
SELECT * FROM dof_chunk_internal('x', 100, 0, NULL, pg_temp.with_tokenizer('/no/such/file.json'), 'pattern', '{}');
SELECT * FROM dof_chunk_internal('x', 100, 0, NULL, pg_temp.with_tokenizer('../../../../etc/passwd'), 'pattern', '{}');
SELECT dof_probe_model_internal('x', '/etc/passwd', '/etc/passwd', 512);
SELECT dof_register_model('x', '/etc/passwd', '/etc/passwd');
-- inside the model folder works as before
SELECT count(*) AS chunks FROM dof_chunk_internal('una frase', 100, 0, NULL, pg_temp.with_tokenizer('multilingual-e5-small/tokenizer.json'), 'pattern', '{}');
RESET ROLE;
DROP ROLE dof_regress_hostile;
-- a superuser may name any file, but a file that is not a tokenizer is not quoted back
SELECT * FROM dof_chunk_internal('x', 100, 0, NULL, pg_temp.with_tokenizer('/etc/passwd'), 'pattern', '{}');
-- the backend is still here
SELECT count(*) AS still_chunks FROM dof_chunk('# Aviso\n\nTexto.');

-- a search that names no collection, when the default collection was renamed (its
-- documents follow the new name), says so (it said collection "<NULL>" does not exist)
BEGIN;
UPDATE dof_collections SET name = 'leyes' WHERE name = 'default';
SELECT count(*) FROM dof_hybrid_search('impuestos');
ROLLBACK;
-- A renamed collection keeps its documents' chunks and vectors, which take the new name
-- with BM25's statistics (the triggers indexed every document again: 35.5 s for 8 laws)
BEGIN;
INSERT INTO dof_documents (source_id, body) VALUES ('ley-isr', E'# Ley\n\nLey del impuesto sobre la renta.');
SELECT array_agg(id ORDER BY id)::text AS chunks_before FROM dof_chunks WHERE collection = 'default' \gset
UPDATE dof_collections SET name = 'leyes' WHERE name = 'default';
SELECT (SELECT count(*) FROM dof_documents WHERE collection = 'leyes') AS documents_renamed,
       (SELECT array_agg(id ORDER BY id)::text FROM dof_chunks WHERE collection = 'leyes') = :'chunks_before' AS same_chunks,
       (SELECT s.chunks FROM dof_collection_stats('leyes') s) = (SELECT count(*) FROM dof_chunks WHERE collection = 'leyes') AS statistics_follow,
       (SELECT s.chunks FROM dof_collection_stats('default') s) AS left_under_the_old_name,
       (SELECT count(*) FROM dof_hybrid_search('impuestos', collection => 'leyes')) AS found_by_name;
-- and a document moved to another collection is indexed by that one's settings (its model)
INSERT INTO dof_collections (name, model) VALUES ('hash', 'hash-384');
UPDATE dof_documents SET collection = 'hash' WHERE source_id = 'ley-isr';
SELECT collection, model, count(*) AS chunks FROM dof_chunks WHERE collection IN ('leyes', 'hash') GROUP BY 1, 2;
ROLLBACK;

-- every function runs as its caller; plpgsql ones pin search_path (the two procedures,
-- which COMMIT and so cannot, schema-qualify every name); SQL ones have standard bodies,
-- bound to objects at creation, not by name at run time
WITH ours AS (
    SELECT p.* FROM pg_proc p JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
    WHERE d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'pg_dof')
)
SELECT count(*) FILTER (WHERE prosecdef) AS security_definer,
       array_agg(proname::text ORDER BY proname) FILTER (WHERE prolang = (SELECT oid FROM pg_language WHERE lanname = 'plpgsql')
                                                     AND NOT coalesce(proconfig::text ~ 'search_path', false)) AS plpgsql_without_search_path,
       array_agg(proname::text ORDER BY proname) FILTER (WHERE prolang = (SELECT oid FROM pg_language WHERE lanname = 'sql')
                                                     AND prosqlbody IS NULL) AS sql_with_string_bodies
FROM ours;
