-- Spanish as people type it: accents optional on both sides (dof_spanish: unaccent, then
-- the Spanish stemmer), the default configuration of new collections; switching a
-- collection's configuration rebuilds its tsvectors.
CREATE EXTENSION pg_dof CASCADE;
\set SHOW_CONTEXT never
SET client_min_messages = warning;
SELECT column_default FROM information_schema.columns
WHERE table_name = 'dof_collections' AND column_name = 'text_search_config';
SELECT to_tsvector('dof_spanish', 'Resolución Miscelánea Fiscal') = to_tsvector('dof_spanish', 'resolucion miscelanea fiscal') AS same_lexemes,
       to_tsvector('spanish', 'Resolución') = to_tsvector('spanish', 'resolucion') AS same_in_plain_spanish;

INSERT INTO dof_collections (name, model, late_chunking) VALUES ('acentos', 'hash-384', false);
INSERT INTO dof_documents (collection, source_id, body) VALUES
 ('acentos', 'rmf', E'# Resolución Miscelánea Fiscal para 2024\n\nReglas de carácter general sobre la declaración anual y la devolución de saldos a favor.'),
 ('acentos', 'sin-acentos', E'# Aviso de publicacion\n\nLa Secretaria de Economia informa la actualizacion de aranceles de importacion.'),
 ('acentos', 'otro', E'# Tipo de cambio\n\nEl Banco de México publica el tipo de cambio del día.');
ANALYZE dof_chunks;

-- typed without accents, found with them; typed with accents, found without
SELECT 'unaccented query' AS query, d.source_id, t.rank
FROM dof_text_search('resolucion miscelanea fiscal', 3, 'acentos', match_terms => 'all') t
JOIN dof_chunks c ON c.id = t.chunk_id JOIN dof_documents d ON d.id = c.document_id
UNION ALL
SELECT 'accented query', d.source_id, t.rank
FROM dof_text_search('actualización de aranceles de importación', 3, 'acentos', match_terms => 'all') t
JOIN dof_chunks c ON c.id = t.chunk_id JOIN dof_documents d ON d.id = c.document_id
UNION ALL
SELECT 'unaccented, any term', d.source_id, t.rank
FROM dof_text_search('devolucion de saldos', 3, 'acentos') t
JOIN dof_chunks c ON c.id = t.chunk_id JOIN dof_documents d ON d.id = c.document_id
ORDER BY 1, 3;
SELECT d.source_id, h.text_rank
FROM dof_hybrid_search('declaracion anual', 3, 'acentos') h JOIN dof_documents d ON d.id = h.document_id
WHERE h.text_rank IS NOT NULL;

-- plain 'spanish' keeps accents: the unaccented query misses; switching the collection to
-- dof_spanish rebuilds its stored tsvectors, and the same query finds the document
UPDATE dof_collections SET text_search_config = 'spanish' WHERE name = 'acentos';
SELECT count(*) AS found_with_spanish FROM dof_text_search('resolucion miscelanea', 3, 'acentos', match_terms => 'all');
UPDATE dof_collections SET text_search_config = 'dof_spanish' WHERE name = 'acentos';
SELECT count(*) AS found_with_dof_spanish FROM dof_text_search('resolucion miscelanea', 3, 'acentos', match_terms => 'all');
SELECT bool_and(c.tsv = dof_chunk_tsvector('dof_spanish', c.heading_path, c.content)) AS stored_matches_config
FROM dof_chunks c WHERE c.collection = 'acentos';
