-- Fusion choices in dof_hybrid_search: weighted min-max scores (the default; alpha = the
-- text share), RRF with per-leg weights, and what is refused.
CREATE EXTENSION pg_dof CASCADE;
\set SHOW_CONTEXT never
SET client_min_messages = warning;
INSERT INTO dof_collections (name, model, late_chunking) VALUES ('fusion', 'hash-384', false);
INSERT INTO dof_documents (collection, source_id, body)
SELECT 'fusion', 'doc-' || g, format(E'# Aviso %s\n\nLa dependencia %s publica reglas de comercio exterior y aranceles número %s.', g, g % 3, g)
FROM generate_series(1, 12) g;
ANALYZE dof_chunks;

-- the extremes reproduce one leg: alpha 0 is the vector leg's order, alpha 1 the text
-- leg's (ids it did not return come after, with score 0); a text weight of 0 leaves RRF
-- with the vector leg's order
WITH v AS (SELECT array_agg(chunk_id ORDER BY rank) AS ids FROM dof_vector_search('reglas de comercio exterior', 12, 'fusion')),
     t AS (SELECT array_agg(chunk_id ORDER BY rank) AS ids FROM dof_text_search('reglas de comercio exterior', 12, 'fusion')),
     w0 AS (SELECT array_agg(chunk_id ORDER BY score DESC, chunk_id) AS ids FROM dof_hybrid_search('reglas de comercio exterior', 12, 'fusion', fusion => 'weighted', alpha => 0)),
     w1 AS (SELECT array_agg(chunk_id ORDER BY score DESC, chunk_id) AS ids FROM dof_hybrid_search('reglas de comercio exterior', 12, 'fusion', fusion => 'weighted', alpha => 1)),
     r0 AS (SELECT array_agg(chunk_id ORDER BY score DESC, chunk_id) AS ids FROM dof_hybrid_search('reglas de comercio exterior', 12, 'fusion', fusion => 'rrf', text_weight => 0))
SELECT w0.ids = v.ids AS alpha_0_is_the_vector_leg,
       w1.ids[1:cardinality(t.ids)] = t.ids AS alpha_1_starts_with_the_text_leg,
       r0.ids = v.ids AS text_weight_0_is_the_vector_leg,
       cardinality(t.ids) > 0 AS text_leg_matched
FROM v, t, w0, w1, r0;

-- weighted scores lie in 0..1 and the best chunk of an even mix is found by both legs
SELECT min(score) >= 0 AND max(score) <= 1 AS scores_in_range, count(*) AS rows
FROM dof_hybrid_search('aranceles número 7', 5, 'fusion', fusion => 'weighted');
SELECT vector_rank IS NOT NULL AND text_rank IS NOT NULL AS best_is_in_both_legs
FROM dof_hybrid_search('aranceles número 7', 1, 'fusion', fusion => 'weighted');

-- refused, before any leg runs
SELECT * FROM dof_hybrid_search('aranceles', fusion => 'borda');
SELECT * FROM dof_hybrid_search('aranceles', fusion => 'weighted', alpha => 1.5);
SELECT * FROM dof_hybrid_search('aranceles', vector_weight => -1);
SELECT * FROM dof_fuse('weighted', ARRAY[1, 2], ARRAY[0.9, 0.1], ARRAY[2], ARRAY[3.0], alpha => 0.5);
-- the vector leg's spread counts as at least dof_fusion_vector_min_spread(): similarities
-- 0.84, 0.83, 0.82 (0.02 apart) weigh 0.2, 0.1 and 0 of the leg, not 1, 0.5 and 0; a wider
-- spread is plain min-max, and the text leg is never floored
SELECT dof_fusion_vector_min_spread() AS min_spread;
SELECT id, round(score::numeric, 3) AS score FROM dof_weighted_fusion('{1,2,3}', '{0.84,0.83,0.82}', '{}', '{}', 0);
SELECT id, round(score::numeric, 3) AS score FROM dof_weighted_fusion('{1,2}', '{0.9,0.5}', '{}', '{}', 0);
SELECT id, round(score::numeric, 3) AS score FROM dof_weighted_fusion('{}', '{}', '{4,5}', '{2.02,2.0}', 1);

-- a table of contents (a DOF edition's CONTENIDO, a NOM's list of sections) names what
-- every question asks for and answers none: both legs leave its chunks out; a document
-- whose only heading is "Índice" but whose text is prose is searched as any other
INSERT INTO dof_collections (name, model, late_chunking, max_tokens) VALUES ('indices', 'hash-384', false, 200);
INSERT INTO dof_documents (collection, source_id, body) VALUES
('indices', 'edicion', E'# DIARIO OFICIAL\n\nÓrgano del Gobierno Constitucional de los Estados Unidos Mexicanos, edición matutina del viernes 12 de abril de 2024, ciudad de México.\n\n## CONTENIDO\n\n* Secretaría de Marina\n* Convenio de coordinación en seguridad pública con Sinaloa\n* Convenio de coordinación en seguridad pública con Sonora\n\n## SECRETARÍA DE MARINA\n\nCONVENIO de coordinación que celebran la Secretaría y el Estado de Sinaloa en materia de seguridad pública, para el ejercicio de los recursos del fondo de aportaciones.\n'),
('indices', 'prosa', E'# Índice\n\nEl índice nacional de precios al consumidor de Sinaloa se publica cada quincena por el instituto de estadística.\n\nLa unidad de medida y actualización de Sinaloa se calcula con ese índice cada año, según la ley que la rige.\n\nEl convenio de coordinación con Sinaloa no modifica el cálculo de ninguno de los dos valores publicados.\n');
SELECT d.source_id, c.heading_path, dof_contents(c.heading_path, c.content) AS table_of_contents
FROM dof_chunks c JOIN dof_documents d ON d.id = c.document_id WHERE c.collection = 'indices' ORDER BY d.source_id, c.chunk_index;
SELECT 'text' AS leg, c.heading_path, d.source_id FROM dof_text_search('convenio de coordinación seguridad pública sinaloa', 10, 'indices') t
JOIN dof_chunks c ON c.id = t.chunk_id JOIN dof_documents d ON d.id = c.document_id
UNION ALL
SELECT 'vector', c.heading_path, d.source_id FROM dof_vector_search('convenio de coordinación seguridad pública sinaloa', 10, 'indices') v
JOIN dof_chunks c ON c.id = v.chunk_id JOIN dof_documents d ON d.id = c.document_id
ORDER BY 1, 3, 2;
SELECT d.source_id, c.heading_path FROM dof_text_search('índice nacional de precios al consumidor', 10, 'indices') t
JOIN dof_chunks c ON c.id = t.chunk_id JOIN dof_documents d ON d.id = c.document_id;
SELECT dof_contents_path('{"DIARIO OFICIAL", "ÍNDICE"}') AS an_index, dof_contents_path('{"CONTENIDO", "SECRETARIA DE MARINA"}') AS under_it,
       dof_contents_path('{"Índice", "Capítulo I", "Artículo 1"}') AS deeper_in_a_document,
       dof_listing(E'* uno\n* dos\n* tres') AS listing, dof_listing('Un párrafo de prosa que no es una lista de nada.') AS prose;
