-- A database as one shard of several (what the pg_dof_coordinator extension calls): ids
-- congruent to the shard number, idempotent puts, both legs under given statistics equal
-- to this server's own when the statistics are its own, and the arguments checked.
CREATE EXTENSION pg_dof CASCADE;
\set SHOW_CONTEXT never
SET client_min_messages = warning;
INSERT INTO dof_collections (name, model, late_chunking, max_tokens, overlap_tokens) VALUES ('s', 'hash-384', false, 32, 0);

-- shard 3 of at most 8: every new id is 3 modulo 8
SELECT dof_shard_configure(3, 8);
SELECT * FROM dof_put_document('s', 'a', 'Aviso A', E'# Aviso A\n\nLa aduana revisa el pedimento de importación.');
SELECT * FROM dof_put_document('s', 'b', NULL, E'# Aviso B\n\nEl hospital compra medicamentos y material de curación.');
SELECT count(*) AS chunks, bool_and(id % 8 = 3) AS chunk_ids_of_shard_3 FROM dof_chunks;
-- the same document again: unchanged, nothing rewritten; a new title or body: updated
SELECT action FROM dof_put_document('s', 'a', 'Aviso A', E'# Aviso A\n\nLa aduana revisa el pedimento de importación.');
SELECT action FROM dof_put_document('s', 'a', 'Aviso A (corregido)', E'# Aviso A\n\nLa aduana revisa el pedimento de importación.');
SELECT action FROM dof_put_document('s', 'a', 'Aviso A (corregido)', E'# Aviso A\n\nLa aduana revisa el pedimento y cobra el arancel.');
SELECT source_id, title, content_sha256 = encode(sha256(convert_to(body, 'UTF8')), 'hex') AND NOT metadata ? 'content_sha256' AS hashed, (SELECT count(*) FROM dof_chunks c WHERE c.document_id = d.id) > 0 AS indexed
FROM dof_documents d ORDER BY source_id;
-- front matter merged into metadata by the trigger: the same body and metadata again is
-- unchanged (the stored metadata is compared with the merge); metadata given anew replaces
SELECT action FROM dof_put_document('s', 'c', NULL, E'---\ntitle: Ley C\nrank: ley\n---\n# Ley C\n\nArtículo 1. Texto.', '{"fuente": "x"}');
SELECT action FROM dof_put_document('s', 'c', NULL, E'---\ntitle: Ley C\nrank: ley\n---\n# Ley C\n\nArtículo 1. Texto.', '{"fuente": "x"}');
SELECT action FROM dof_put_document('s', 'c', NULL, E'---\ntitle: Ley C\nrank: ley\n---\n# Ley C\n\nArtículo 1. Texto.', '{"otra": "y"}');
SELECT title, metadata FROM dof_documents WHERE source_id = 'c';
DELETE FROM dof_documents WHERE source_id = 'c';
-- a blank body is refused, but one stored before 0.3.0 refused it still moves between
-- shards (no chunks: stored as it was, not through dof_put_document)
SELECT action FROM dof_put_document('s', 'en-blanco', NULL, ' ');
SELECT dof_shard_import('s', 'en-blanco', jsonb_build_object('body', ' ', 'pattern', 'small', 'metadata', '{"de": "0.2.0"}'::jsonb, 'created_at', now(), 'updated_at', now()), '[]');
SELECT dof_shard_import('s', 'solo-yaml', jsonb_build_object('body', E'---\ntitle: Ley\n---\n', 'title', 'Ley', 'pattern', 'small', 'metadata', '{"title": "Ley"}'::jsonb, 'created_at', now(), 'updated_at', now()), '[]');
SELECT source_id, body, metadata, pattern FROM dof_documents WHERE source_id IN ('en-blanco', 'solo-yaml') ORDER BY source_id;
DELETE FROM dof_documents WHERE source_id IN ('en-blanco', 'solo-yaml');
-- a role that may only read documents sees their hashes (rows row-level security shows it)
-- and cannot store one: dof_put_document runs with the caller's privileges
CREATE ROLE dof_put_reader;
GRANT SELECT ON dof_documents, dof_collections TO dof_put_reader;
SET ROLE dof_put_reader;
SELECT bool_and(content_sha256 = dof_content_hash(body)) AS hashes_read FROM dof_documents;
SELECT * FROM dof_put_document('s', 'z', NULL, 'texto');
RESET ROLE;
REVOKE ALL ON dof_documents, dof_collections FROM dof_put_reader;
DROP ROLE dof_put_reader;
SELECT * FROM dof_shard_status();

-- the legs with this server's own statistics answer as dof_vector_search and dof_text_search
SELECT lexemes, chunks, total_chunks, shard, query_embedding IS NULL AS not_embedded FROM dof_shard_prepare('aduana pedimento', 's', -1);
SELECT vector_dims(query_embedding) AS embedded_here FROM dof_shard_prepare('aduana pedimento', 's', 3);
SELECT (SELECT array_agg(chunk_id ORDER BY rank) FROM dof_text_search('aduana pedimento', 5, 's'))
     = (SELECT array_agg(l.chunk_id ORDER BY l.score DESC, l.chunk_id)
        FROM dof_shard_prepare('aduana pedimento', 's', -1) s,
             dof_shard_legs('aduana pedimento', 5, 's', NULL, dof_embed_query('aduana pedimento', 'hash-384'), 'bm25', 'any',
                            s.lexemes, s.chunks::double precision[], s.total_chunks,
                            s.total_tokens::double precision / s.total_chunks) l
        WHERE l.leg = 'text') AS text_leg_same,
       (SELECT array_agg(chunk_id ORDER BY rank) FROM dof_vector_search('aduana pedimento', 5, 's'))
     = (SELECT array_agg(l.chunk_id ORDER BY l.score, l.chunk_id)
        FROM dof_shard_legs('aduana pedimento', 5, 's', NULL, dof_embed_query('aduana pedimento', 'hash-384'), 'bm25', 'any',
                            '{}', '{}', 0, 0) l
        WHERE l.leg = 'vector') AS vector_leg_same;
SELECT count(*) AS found, count(content) AS with_content
FROM dof_shard_chunks(ARRAY(SELECT id FROM dof_chunks), false);

-- wrong arguments; ids of another shard refuse a new number
SELECT dof_shard_configure(8, 8);
SELECT dof_shard_configure(0, NULL);
SELECT dof_shard_configure(1, 8);
SELECT * FROM dof_put_document('s', NULL, NULL, 'x');
SELECT * FROM dof_put_document('s', 'c', NULL, 'x', '[1]');
SELECT * FROM dof_put_document('nope', 'c', NULL, 'x');
-- and written straight into the table: a document's metadata is an object (a string took
-- front matter's fields as an array)
\set VERBOSITY terse
INSERT INTO dof_documents (collection, source_id, body, metadata) VALUES ('s', 'cadena', E'---\ntitle: Ley\n---\nTexto.', '"vigente"');
UPDATE dof_documents SET metadata = '[1]' WHERE collection = 's';
\set VERBOSITY default
-- dof_shard_execute runs one command; PUBLIC may not call it
SELECT dof_shard_execute($$UPDATE dof_collections SET overlap_tokens = 0 WHERE name = 's'$$);
SELECT has_function_privilege('public', 'dof_shard_execute(text)', 'EXECUTE') AS public_may_execute;
