-- Chunking strategies as an open set: the list, dof_chunk(strategy, options), a
-- collection's chunker and chunker_options, and what is refused.
CREATE EXTENSION pg_dof CASCADE;
\set SHOW_CONTEXT never
SELECT name, settings FROM dof_chunk_strategies() ORDER BY name;

-- the pattern setting forces one recipe whatever the classification says
WITH doc(body) AS (VALUES (E'# Aviso\n\nUn párrafo corto.\n\n## Primero\n\nTexto uno.\n\n## Segundo\n\nTexto dos.\n'))
SELECT 'classified' AS how, count(*) AS chunks, min(c.pattern) AS pattern FROM doc, dof_chunk(body, 64, 0) c
UNION ALL
SELECT 'forced', count(*), min(c.pattern) FROM doc, dof_chunk(body, 64, 0, strategy => 'pattern', options => '{"pattern": "h2_compound"}') c;

-- refused, with the choices named
SELECT * FROM dof_chunk('texto', strategy => 'semantico');
SELECT * FROM dof_chunk('texto', options => '{"ventana": 3}');
SELECT * FROM dof_chunk('texto', options => '{"pattern": "tabla"}');
SELECT * FROM dof_chunk('texto', options => '[1, 2]');
SELECT * FROM dof_chunk('texto', strategy => NULL);
INSERT INTO dof_collections (name, chunker) VALUES ('regress_bad_chunker', 'semantico');
INSERT INTO dof_collections (name, chunker_options) VALUES ('regress_bad_chunker', '{"pattern": "tabla"}');

-- a collection that forces plain_text: stored chunks record the pattern and the strategy
INSERT INTO dof_collections (name, max_tokens, overlap_tokens, chunker_options)
VALUES ('regress_strategies', 32, 4, '{"pattern": "plain_text"}');
INSERT INTO dof_documents (collection, source_id, body)
VALUES ('regress_strategies', 'h2', E'# Aviso\n\n## Primero\n\nEl tipo de cambio para solventar obligaciones en moneda extranjera fue de 17.05 pesos.\n\n## Segundo\n\nLa tasa de interés interbancaria de equilibrio a 28 días fue de 11.25 por ciento.\n');
SELECT d.pattern AS classified, c.pattern AS chunked_as, c.chunker, count(*) AS chunks, bool_or(c.overlap) AS some_overlap,
       max(c.token_count) <= 32 AS within_limit, bool_and(c.embedding IS NOT NULL) AS embedded
FROM dof_chunks c JOIN dof_documents d ON d.id = c.document_id
WHERE d.collection = 'regress_strategies' GROUP BY 1, 2, 3;
-- changing the collection's options and re-indexing follows them
UPDATE dof_collections SET chunker_options = '{}' WHERE name = 'regress_strategies';
SELECT dof_index_document(id) > 0 AS reindexed FROM dof_documents WHERE collection = 'regress_strategies';
SELECT DISTINCT c.pattern, c.chunker FROM dof_chunks c WHERE c.collection = 'regress_strategies';
DELETE FROM dof_documents WHERE collection = 'regress_strategies';
DELETE FROM dof_collections WHERE name = 'regress_strategies';

-- a hash model that names a tokenizer cuts the chunks the real model would (offline runs,
-- benchmarks); one that names none sizes in characters
INSERT INTO dof_models (name, kind, tokenizer_file, dimension)
VALUES ('hash-e5-tokens', 'hash', 'multilingual-e5-small/tokenizer.json', 384);
INSERT INTO dof_collections (name, model, max_tokens, late_chunking)
VALUES ('offline', 'hash-e5-tokens', 32, false), ('offline-chars', 'hash-384', 32, false);
\set body '# Aviso\n\nLa Secretaría de Hacienda y Crédito Público da a conocer las reglas de carácter general en materia de comercio exterior, vigentes a partir del día siguiente de su publicación en el Diario Oficial de la Federación.\n\nLas empresas que importen mercancías deberán presentar el pedimento correspondiente.'
INSERT INTO dof_documents (collection, source_id, body)
VALUES ('offline', 'o-1', E:'body'), ('offline-chars', 'o-1', E:'body');
SELECT d.collection, count(*) AS chunks,
       bool_and(c.content = e5.content AND c.token_count = e5.token_count) AS same_chunks_as_e5
FROM dof_chunks c JOIN dof_documents d ON d.id = c.document_id
LEFT JOIN dof_chunk(E:'body', 32, 50) e5 ON e5.chunk_index = c.chunk_index
WHERE d.source_id = 'o-1'
GROUP BY d.collection ORDER BY d.collection;
SELECT count(*) AS e5_chunks FROM dof_chunk(E:'body', 32, 50);

-- the recursive baseline ignores structure: a table is cut like text, its header not
-- repeated; the pattern strategy repeats it in every table piece
WITH doc(body) AS (SELECT E'# Tabla\n\n| clave | valor |\n|---|---|\n' || string_agg(format('| %s | valor número %s |', g, g), E'\n') FROM generate_series(1, 12) g)
SELECT s.strategy, count(*) AS chunks, bool_or(c.header_repeated) AS header_repeated, max(c.token_count) <= 32 AS within_limit
FROM doc, (VALUES ('pattern'), ('recursive')) s(strategy), dof_chunk(doc.body, 32, 0, strategy => s.strategy) c
GROUP BY s.strategy ORDER BY s.strategy;

-- the paragraph strategy (seed 003): short paragraphs merge forward until min_chars and a
-- sentence end, a paragraph over max_chars is cut at sentence ends, and the token limit
-- holds whatever max_chars says; a collection can use it with its settings
SELECT c.chunk_index, c.content, c.split
FROM dof_chunk(E'Uno.\n\nDos dos.\n\nTres tres tres.\n\nPrimera oración larga del párrafo final. Segunda oración larga del párrafo final.',
               400, 0, strategy => 'paragraph', options => '{"min_chars": 20, "max_chars": 60}') c;
SELECT count(*) > 1 AS cut, max(token_count) <= 32 AS within_limit
FROM dof_chunk(repeat('palabra ', 300), 32, 0, model => '', strategy => 'paragraph');
INSERT INTO dof_collections (name, model, late_chunking, chunker, chunker_options)
VALUES ('parrafos', 'hash-384', false, 'paragraph', '{"max_chars": 200}');
INSERT INTO dof_documents (collection, source_id, body)
VALUES ('parrafos', 'p-1', E'# Aviso\n\nUn párrafo breve.\n\nOtro párrafo que completa la idea del aviso publicado hoy.');
SELECT chunker, count(*) AS chunks FROM dof_chunks WHERE collection = 'parrafos' GROUP BY chunker;
INSERT INTO dof_collections (name, chunker, chunker_options) VALUES ('mal', 'paragraph', '{"min_chars": 500, "max_chars": 100}');
