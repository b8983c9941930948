-- The seeds' other chunkers in SQL: the semantic strategy with the real model (seed 002)
-- and its sentence cache, dof_chunk_paragraphs (seed 003), a collection that chunks
-- semantically through the trigger and the queue, and dof_compare_chunkers.
CREATE EXTENSION pg_dof CASCADE;
\set SHOW_CONTEXT never
\set seed 'FastAPI es un framework web moderno para Python. Fue creado en 2018 por Sebastián Ramírez.\nSe basa en Pydantic para validación y Starlette para el ASGI underlying.\n\nLas características principales de FastAPI incluyen rendimiento comparable a Node.js,\nvalidación automática de tipos con type hints, documentación interactiva con Swagger UI,\ny soporte nativo para async/await.\n\nPython es un lenguaje de programación de alto nivel. Fue creado por Guido van Rossum\nen 1991. Es conocido por su sintaxis legible y su filosofía ''batteries included''.\n\nLa popularidad de Python creció enormemente en los 2010s gracias a su uso en data\nscience y machine learning.\n'

-- the seed's worked example: two topics, cut between them with the defaults
SELECT chunk_index, left(content, 40) AS starts, token_count <= 800 AS within_limit
FROM dof_chunk_semantic(E:'seed');
-- the same cut through dof_chunk and a collection's options, by sentence too
SELECT count(*) AS chunks FROM dof_chunk(E:'seed', strategy => 'semantic');
SELECT chunk_index, left(content, 30) AS starts
FROM dof_chunk_semantic(E:'seed', unit => 'sentence', threshold_type => 'standard_deviation', threshold_amount => 1);

-- re-cutting with another threshold embeds nothing new: the sentence cache answers
SELECT dof_sentence_cache_clear();
SELECT count(*) > 0 AS chunked FROM dof_chunk_semantic(E:'seed', threshold_type => 'percentile');
SELECT hits = 0 AS cold, misses > 0 AS embedded FROM dof_sentence_cache();
SELECT count(*) > 0 AS chunked FROM dof_chunk_semantic(E:'seed', threshold_type => 'interquartile');
SELECT count(*) > 0 AS chunked FROM dof_chunk_semantic(E:'seed', threshold_type => 'gradient');
SELECT misses AS still_the_cold_misses, hits > 0 AS warm, round(hit_rate::numeric, 2) AS hit_rate FROM dof_sentence_cache();

-- the hard limit: a long single-topic text is cut, no chunk over it, min_tokens merges
SELECT count(*) > 1 AS cut, max(token_count) <= 48 AS within_limit, min(token_count) >= 16 OR count(*) = 1 AS min_held
FROM dof_chunk_semantic(repeat('El contribuyente presentará la declaración anual del impuesto. ', 40), max_tokens => 48, min_tokens => 16);
-- overlap repeats sentences, within the limit
SELECT bool_or(overlap) AS some_overlap, max(token_count) <= 64 AS within_limit
FROM dof_chunk_semantic(E:'seed', max_tokens => 64, overlap_sentences => 2, unit => 'sentence');

-- refused with a reason
SELECT * FROM dof_chunk_semantic('Texto.', threshold_type => 'iqr');
SELECT * FROM dof_chunk_semantic('Texto.', threshold_amount => -1);
SELECT * FROM dof_chunk_semantic('Texto.', threshold_type => 'percentile', threshold_amount => 101);
SELECT * FROM dof_chunk_semantic('Texto.', min_tokens => 900);
SELECT * FROM dof_chunk_semantic('Texto.', unit => 'palabra');
SELECT * FROM dof_chunk('Texto.', model => '', strategy => 'semantic');
INSERT INTO dof_collections (name, chunker, chunker_options) VALUES ('mal', 'semantic', '{"buffer_size": -1}');

-- a collection that chunks semantically: the trigger path and the queue both store its cuts
INSERT INTO dof_collections (name, chunker) VALUES ('semantica', 'semantic');
INSERT INTO dof_collections (name, chunker, deferred) VALUES ('semantica_diferida', 'semantic', true);
INSERT INTO dof_documents (collection, source_id, body)
VALUES ('semantica', 'seed-002', E:'seed'), ('semantica_diferida', 'seed-002', E:'seed');
CALL dof_process_queue();
SELECT collection, chunker, count(*) AS chunks, bool_and(embedding IS NOT NULL) AS embedded,
       bool_or(content LIKE 'Python es un lenguaje%') AS cut_at_the_topic
FROM dof_chunks WHERE collection LIKE 'semantica%' GROUP BY collection, chunker ORDER BY collection;

-- dof_chunk_paragraphs: the seed's contract
SELECT chunk_id, content, metadata, first_paragraph, last_paragraph
FROM dof_chunk_paragraphs(ARRAY['Uno.', '', 'Dos dos.', 'Tres tres tres.', 'Una oración larga aquí. Otra oración larga allá.'],
                          'aviso-7', max_chars => 30, min_chars => 12, metadata => '{"fuente": "DOF"}');
SELECT count(*) AS chunks, max(token_count) <= 40 AS within_limit, min(sizer) AS sizer
FROM dof_chunk_paragraphs(ARRAY[repeat('La autoridad fiscal resolverá la solicitud. ', 30)], 'largo', max_tokens => 40);
SELECT count(*) AS chunks FROM dof_chunk_paragraphs(NULL, 'nada');
SELECT * FROM dof_chunk_paragraphs(ARRAY['a'], 'x', max_chars => 10, min_chars => 20);
-- metadata keeps every digit of its numbers
SELECT metadata FROM dof_chunk_paragraphs(ARRAY['Un párrafo.'], 'x', metadata => '{"n": 0.1000000000000000000001, "big": 123456789012345678901234567890}');
SELECT * FROM dof_chunk_paragraphs(ARRAY['a'], 'x', metadata => '[1]');

-- the comparison, as the seed prints it (time and model calls vary: not shown)
SELECT strategy, documents, chunks, tokens_max <= 800 AS within_limit, over_limit, sentence_embeddings + sentence_cache_hits > 0 AS embeds
FROM dof_compare_chunkers(ARRAY[E:'seed', repeat('Una oración de relleno. ', 50)]) ORDER BY strategy;
