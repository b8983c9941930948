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
-- and a weight that is no finite number: NaN made every score of its leg NaN, Infinity tied them
SELECT * FROM dof_hybrid_search('aranceles', fusion => 'rrf', vector_weight => 'NaN');
SELECT * FROM dof_hybrid_search('aranceles', fusion => 'rrf', text_weight => 'Infinity');
SELECT * FROM dof_fuse('weighted', ARRAY[1, 2], ARRAY[0.9, 0.1], ARRAY[2], ARRAY[3.0], alpha => 0.5);
-- the vector leg's spread counts as at least dof_fusion_vector_min_spread(): similarities
-- 0.84, 0.83, 0.82 (0.02 apart) weigh 0.2, 0.1 and 0 of the leg, not 1, 0.5 and 0; a wider
-- spread is plain min-max, and the text leg is never floored
SELECT dof_fusion_vector_min_spread() AS min_spread;
SELECT id, round(score::numeric, 3) AS score FROM dof_weighted_fusion('{1,2,3}', '{0.84,0.83,0.82}', '{}', '{}', 0);
SELECT id, round(score::numeric, 3) AS score FROM dof_weighted_fusion('{1,2}', '{0.9,0.5}', '{}', '{}', 0);
SELECT id, round(score::numeric, 3) AS score FROM dof_weighted_fusion('{}', '{}', '{4,5}', '{2.02,2.0}', 1);
-- the one rule both the fusion and the order within a document normalise a leg by: an id's
-- first entry counts, an entry without a score is skipped, equal scores are 1 without a
-- floor and 0 with one
SELECT id, round(value::numeric, 3) AS value, rank FROM dof_fusion_normalise('{7,8,7,9,10}', '{0.9,0.5,0.1,NULL,0.7}', 0) ORDER BY rank;
SELECT id, round(value::numeric, 3) AS value, rank FROM dof_fusion_normalise('{1,2,3}', '{0.84,0.83,0.82}', dof_fusion_vector_min_spread()) ORDER BY rank;
SELECT id, value FROM dof_fusion_normalise('{1,2}', '{0.7,0.7}', 0) UNION ALL SELECT id, value FROM dof_fusion_normalise('{3}', '{0.7}', 0.1) ORDER BY id;

-- a table of contents (a DOF edition's CONTENIDO, a NOM's list of sections) names what
-- every question asks for and answers none: both legs leave its chunks out; a document
-- whose only heading is "Índice" but whose text is prose is searched as any other; an index
-- as docling renders it, titles with dot leaders under the ministries' headings, is one, and
-- so is one as marker renders it, a table of titles and their pages
INSERT INTO dof_collections (name, model, late_chunking, max_tokens) VALUES ('indices', 'hash-384', false, 200);
INSERT INTO dof_documents (collection, source_id, body) VALUES
('indices', 'edicion', E'# DIARIO OFICIAL\n\nÓrgano del Gobierno Constitucional de los Estados Unidos Mexicanos, edición matutina del viernes 12 de abril de 2024, ciudad de México.\n\n## CONTENIDO\n\n* Secretaría de Marina\n* Convenio de coordinación en seguridad pública con Sinaloa\n* Convenio de coordinación en seguridad pública con Sonora\n\n## SECRETARÍA DE MARINA\n\nCONVENIO de coordinación que celebran la Secretaría y el Estado de Sinaloa en materia de seguridad pública, para el ejercicio de los recursos del fondo de aportaciones.\n'),
('indices', 'indice-docling', E'## INDICE PODER EJECUTIVO\n\n## SECRETARÍA DE MARINA\n\nConvenio de coordinación que celebran la Secretaría y el Estado de Sinaloa en materia de seguridad pública.  ............ 12\n\nConvenio de coordinación que celebran la Secretaría y el Estado de Sonora en materia de seguridad pública. ............ 14\n'),
('indices', 'indice-marker', E'## AVISOS GENERALES\n\n| Convenio de coordinación que celebran la Secretaría y el Estado de Sinaloa en materia de seguridad pública. | | 12 |\n|---|---|---|\n| SECRETARÍA DE MARINA | | |\n| Convenio de coordinación que celebran la Secretaría y el Estado de Sonora | | |\n| en materia de seguridad pública. | | 14 |\n\n{15}------------------------------------------------\n\n| Aviso por el que se dan a conocer las bases de regulación tarifaria del puerto. | | 16 |\n'),
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
-- each chunk holds the rule's answer (dof_chunks.contents, written when it is stored), which
-- the legs read instead of the chunk's text; a chunk stored before 0.3.0 holds NULL and is
-- tested as the legs read it: the same answers
SELECT count(*) FILTER (WHERE c.contents IS DISTINCT FROM dof_contents(c.heading_path, c.content)) AS not_the_rules,
       count(*) FILTER (WHERE c.contents) AS held_as_contents FROM dof_chunks c;
CREATE TEMP TABLE contents_answers AS
SELECT 'text' AS leg, t.rank, t.chunk_id FROM dof_text_search('convenio de coordinación seguridad pública sinaloa', 10, 'indices') t
UNION ALL
SELECT 'vector', v.rank, v.chunk_id FROM dof_vector_search('convenio de coordinación seguridad pública sinaloa', 10, 'indices') v;
UPDATE dof_chunks SET contents = NULL WHERE collection = 'indices';
SELECT (SELECT array_agg(chunk_id ORDER BY leg, rank) FROM contents_answers)
     = (SELECT array_agg(chunk_id ORDER BY leg, rank)
        FROM (SELECT 'text' AS leg, t.rank, t.chunk_id FROM dof_text_search('convenio de coordinación seguridad pública sinaloa', 10, 'indices') t
              UNION ALL
              SELECT 'vector', v.rank, v.chunk_id FROM dof_vector_search('convenio de coordinación seguridad pública sinaloa', 10, 'indices') v) s)
       AS same_answers_when_stored_before;
-- and the column is what they read: a table of contents marked as none is found
UPDATE dof_chunks c SET contents = false FROM dof_documents d WHERE d.id = c.document_id AND d.source_id = 'indice-docling';
SELECT count(*) FILTER (WHERE d.source_id = 'indice-docling') AS marked_found
FROM dof_text_search('convenio de coordinación seguridad pública sinaloa', 10, 'indices') t
JOIN dof_chunks c ON c.id = t.chunk_id JOIN dof_documents d ON d.id = c.document_id;
UPDATE dof_chunks SET contents = dof_contents(heading_path, content) WHERE collection = 'indices';
SELECT dof_contents_path('{"DIARIO OFICIAL", "ÍNDICE"}') AS an_index, dof_contents_path('{"CONTENIDO", "SECRETARIA DE MARINA"}') AS under_it,
       dof_contents_path('{"Índice", "Capítulo I", "Artículo 1"}') AS deeper_in_a_document,
       dof_listing(E'* uno\n* dos\n* tres') AS listing, dof_listing('Un párrafo de prosa que no es una lista de nada.') AS prose,
       dof_paged_listing(E'Nombre: ..........\nDomicilio: ..........\nFirma: ..........') AS a_form,
       dof_paged_listing(E'| Programa de vigilancia epidemiológica en animales terrestres | 1,903,364.00 | Proyecto | 1 |\n| Programa de vigilancia epidemiológica fitosanitaria del estado | 2,849,477.00 | Proyecto | 1 |') AS a_table_of_figures,
       dof_paged_listing(E'| Trámite | Plazo en días |\n|---|---|\n| Presentación de la solicitud ante la oficina de trámite | 5 |\n| Evaluación de la solicitud por la comisión técnica | 10 |\n| Emisión de la resolución que pone fin al procedimiento | 15 |') AS a_table_of_steps;

-- a Peruvian law as SPIJ publishes it opens with an outline of its articles under a bold
-- ÍNDICE, which is no heading: the outline's chunk is a table of contents by its text alone
-- (dof_outline), and both legs find the article itself. The outline's chunks end before a
-- chapter's label, not inside its list, and the body's chunks start at a chapter or an
-- article (dof_core::chunk::divisions); no body chunk is an outline, nor is a law's body,
-- its articles' text between their labels, nor a record of amendments (Art. 391 /
-- MODIFICADO por...)
INSERT INTO dof_collections (name, model, late_chunking, max_tokens) VALUES ('ley', 'hash-384', false, 400);
INSERT INTO dof_documents (collection, source_id, body) VALUES
('ley', 'reglamento', E'**REGLAMENTO DEL RÉGIMEN DISCIPLINARIO**\n\n**ÍNDICE**\n\n**CAPÍTULO I: DISPOSICIONES GENERALES**\n\nArtículo 1. Objeto del reglamento\n\nArtículo 2. Funciones de las oficinas de disciplina\n\nArtículo 3. Designación de los jefes de las oficinas\n\nArtículo 4. Ámbito de aplicación\n\nArtículo 5. Principios del procedimiento\n\nArtículo 6. Definiciones\n\n**CAPÍTULO II: DE LAS SANCIONES**\n\nArtículo 7. Clases de sanciones\n\nArtículo 8. Reincidencia y habitualidad\n\nArtículo 9. Caducidad del procedimiento\n\nArtículo 10. Prescripción de la acción\n\nArtículo 11. Medidas preventivas\n\nArtículo 12. Ejecución de las sanciones\n\n## CAPÍTULO I\n\n**Artículo 1. Objeto del reglamento**\n\nEl presente reglamento regula el régimen disciplinario del personal policial y los procedimientos que siguen sus órganos de investigación y de decisión.\n\n**Artículo 2. Funciones de las oficinas de disciplina**\n\nLas oficinas de disciplina investigan las infracciones leves y graves que comete el personal en su jurisdicción territorial, y proponen la sanción que corresponde.\n');
SELECT c.chunk_index, dof_outline(c.content) AS outline, dof_contents(c.heading_path, c.content) AS table_of_contents, left(c.content, 40) AS starts
FROM dof_chunks c WHERE c.collection = 'ley' ORDER BY c.chunk_index;
SELECT 'text' AS leg, t.rank, left(c.content, 40) AS starts FROM dof_text_search('funciones de las oficinas de disciplina', 10, 'ley') t JOIN dof_chunks c ON c.id = t.chunk_id
UNION ALL
SELECT 'vector', v.rank, left(c.content, 40) FROM dof_vector_search('funciones de las oficinas de disciplina', 10, 'ley') v JOIN dof_chunks c ON c.id = v.chunk_id
ORDER BY 1, 2;
SELECT dof_outline(E'Artículo 1132.- Obligación de dar bien cierto\n\nEl acreedor de bien cierto no puede ser obligado a recibir otro, aunque éste sea de mayor valor que el debido por el deudor.\n\nArtículo 1133.- Conservación del bien\n\nEl obligado a dar bien cierto está obligado a conservarlo hasta su entrega, sin que le sea permitido usar de él.\n\nArtículo 1134.- Entrega\n\nLa entrega se hace en el lugar convenido.\n\nArtículo 1135.- Lugar\n\nArtículo 1136.- Plazo\n\nArtículo 1137.- Gastos\n') AS a_body,
       dof_outline(E'Art. 391\nMODIFICADO por el Artículo 1 de la Ley N° 29364\n28-05-2009\nArt. 392\nMODIFICADO por el Artículo 1 de la Ley N° 29364\n28-05-2009\nArt. 393\nDEROGADO por la Ley N° 27740\n29-05-2002\nArt. 394\nMODIFICADO por la Ley N° 27740\n29-05-2002\nArt. 395\nMODIFICADO por la Ley N° 27740\n29-05-2002\nArt. 396\nSUSTITUIDO por el Decreto Legislativo Nº 845\n21-09-1996') AS amendments,
       dof_contents(NULL, NULL) AS nulls_are_none;

-- a leg ranks its best k + dof_contents_margin() candidates and leaves the tables of
-- contents among them out: with 15 indices ranked over the one prose chunk, k 3 (13
-- candidates, all indices) returns none, k 6 (16 candidates) the prose chunk
INSERT INTO dof_collections (name, model, late_chunking, max_tokens) VALUES ('margen', 'hash-384', false, 200);
INSERT INTO dof_documents (collection, source_id, body)
SELECT 'margen', 'indice-' || g, E'## ÍNDICE\n\n* Sinaloa\n* Sinaloa, convenio\n* Sinaloa, acuerdo\n' FROM generate_series(1, 15) g
UNION ALL
SELECT 'margen', 'prosa', 'El convenio de coordinación con el Estado de Sinaloa se firmó en la capital del estado, ante los representantes de las dependencias federales y estatales que lo suscriben, y entra en vigor al día siguiente de su publicación en el periódico oficial del estado y en el Diario Oficial de la Federación.';
SELECT dof_contents_margin() AS margin,
       (SELECT count(*) FROM dof_chunks c WHERE c.collection = 'margen' AND dof_contents(c.heading_path, c.content)) AS indices;
SELECT k, count(t.chunk_id) AS returned, array_remove(array_agg(d.source_id), NULL) AS sources
FROM unnest(ARRAY[3, 6]) k LEFT JOIN LATERAL dof_text_search('sinaloa', k, 'margen') t ON true
LEFT JOIN dof_chunks c ON c.id = t.chunk_id LEFT JOIN dof_documents d ON d.id = c.document_id
GROUP BY k ORDER BY k;

-- the weighted fusion's text share scaled by the text leg's coverage of the query (its best
-- score over the query's full-match BM25, at most 1): a text leg whose best chunk matched a
-- quarter of the query weighs less than alpha; one that matched all of it (or more) weighs alpha
SELECT round(dof_fusion_text_share(0.6, 3.0, 12.0)::numeric, 3) AS quarter_match, dof_fusion_text_share(0.6, 3.0, 3.0) AS full_match,
       dof_fusion_text_share(0.6, 6.0, 3.0) AS over_full_match, dof_fusion_text_share(0.6, 3.0, NULL) AS no_full_match;
SELECT 'fixed' AS share, id, round(score::numeric, 3) AS score, vector_rank, text_rank
FROM dof_fuse('weighted', ARRAY[1, 2], ARRAY[0.9, 0.8], ARRAY[2], ARRAY[3.0], alpha => 0.6)
UNION ALL
SELECT 'quarter match', id, round(score::numeric, 3), vector_rank, text_rank
FROM dof_fuse('weighted', ARRAY[1, 2], ARRAY[0.9, 0.8], ARRAY[2], ARRAY[3.0], alpha => 0.6, text_full_match => 12.0)
UNION ALL
SELECT 'full match', id, round(score::numeric, 3), vector_rank, text_rank
FROM dof_fuse('weighted', ARRAY[1, 2], ARRAY[0.9, 0.8], ARRAY[2], ARRAY[3.0], alpha => 0.6, text_full_match => 3.0)
ORDER BY 1, 3 DESC, 2;
-- with bm25 ranking, dof_hybrid_search passes the query's full-match score (the sum of its
-- lexemes' IDFs) to the fusion, then reorders each document's chunks among its ranks
-- (dof_document_order): its ranking equals those two over the legs' own lists
WITH v AS (SELECT array_agg(chunk_id ORDER BY rank) AS ids, array_agg(1 - distance ORDER BY rank) AS scores
           FROM dof_vector_search('reglas de comercio exterior', 50, 'fusion')),
     t AS (SELECT array_agg(chunk_id ORDER BY rank) AS ids, array_agg(text_score ORDER BY rank) AS scores
           FROM dof_text_search('reglas de comercio exterior', 50, 'fusion')),
     terms AS (SELECT * FROM dof_text_query('reglas de comercio exterior', 'fusion', 'bm25', 'any')),
     full_match AS (SELECT dof_bm25_full_match(terms.idfs) AS score FROM terms),
     fused AS (SELECT array_agg(f.id ORDER BY f.score DESC, f.id) AS ids, array_agg(f.score ORDER BY f.score DESC, f.id) AS scores
               FROM v, t, full_match,
                    LATERAL dof_fuse('weighted', v.ids, v.scores, t.ids, t.scores, alpha => 0.5, text_full_match => full_match.score) f),
     within AS (SELECT array_agg(s.chunk_id) AS ids, array_agg(s.document_id) AS documents, array_agg(s.text_score) AS scores
                FROM fused, terms, LATERAL dof_document_text_scores(fused.ids, 10, terms.lexemes, terms.idfs, terms.average_length, terms.query_vector) s),
     expected AS (SELECT array_agg(o.id ORDER BY o.rank) AS ids
                  FROM (SELECT o.* FROM fused, v, t, full_match, within,
                               LATERAL dof_document_order(fused.ids, fused.scores, v.ids, v.scores,
                                                          dof_fusion_text_share(0.5, t.scores[1], full_match.score),
                                                          within.ids, within.documents, within.scores) o
                        ORDER BY o.rank LIMIT 10) o),
     got AS (SELECT array_agg(chunk_id ORDER BY score DESC, chunk_id) AS ids FROM dof_hybrid_search('reglas de comercio exterior', 10, 'fusion'))
SELECT got.ids = expected.ids AS hybrid_equals_dof_fuse_then_document_order, cardinality(got.ids) AS returned,
       (SELECT score > 0 FROM full_match) AS full_match_positive
FROM got, expected;

-- The order within a document (document_order.sql). A lexeme's IDF within a document of n
-- chunks, h of which hold it, is weighted by ln(1 + (n - h + 0.5) / (h + 0.5)) / ln(1 + (n +
-- 0.5) / 0.5): 1 where no chunk holds it, little where every chunk does
SELECT array(SELECT round(x::numeric, 4) FROM unnest(dof_document_idfs(ARRAY[2.0, 3.0, 3.0], ARRAY[0, 1, 10], 10)) x) AS idfs_within,
       dof_lexemes_held(to_tsvector('simple', 'gobernador regional'), ARRAY['edad', 'gobernador', 'regional']) AS held,
       dof_lexemes_held(to_tsvector('simple', ''), ARRAY['edad']) AS held_by_none;
-- dof_lexemes_held is an aggregate: over a document's chunks, how many hold each lexeme
SELECT dof_lexemes_held(chunk, ARRAY['edad', 'gobernador', 'regional']) AS chunks_holding
FROM unnest(ARRAY[to_tsvector('simple', 'gobernador regional'), to_tsvector('simple', 'edad regional'), to_tsvector('simple', '')]) chunk;
-- its step refuses counts that are not one per lexeme
SELECT dof_lexemes_held_step('{1}', to_tsvector('simple', 'edad'), ARRAY['edad', 'gobernador']);
SELECT dof_document_idfs(ARRAY[2.0], ARRAY[0, 1], 10);
-- chunks 1 and 3 (document 10) hold ranks 1 and 3: 3 scores more within the document, so it
-- takes rank 1 and its score; chunk 2 (another document) and chunk 4 (no score within its
-- document) keep theirs. With the text share 0 the vector leg decides (chunk 1's 0.95 over
-- chunk 3's 0.9), and equal values keep the fused order.
SELECT 'text decides' AS case_, * FROM dof_document_order(ARRAY[1, 2, 3, 4], ARRAY[0.9, 0.8, 0.7, 0.6], ARRAY[1, 3], ARRAY[0.8, 0.8], 0.5,
                                                       ARRAY[1, 3], ARRAY[10, 10], ARRAY[1.0, 4.0])
UNION ALL
SELECT 'vector decides', * FROM dof_document_order(ARRAY[1, 2, 3, 4], ARRAY[0.9, 0.8, 0.7, 0.6], ARRAY[1, 3], ARRAY[0.95, 0.9], 0,
                                                   ARRAY[1, 3], ARRAY[10, 10], ARRAY[1.0, 4.0])
UNION ALL
SELECT 'equal', * FROM dof_document_order(ARRAY[1, 2, 3, 4], ARRAY[0.9, 0.8, 0.7, 0.6], ARRAY[1, 3], ARRAY[0.8, 0.8], 0.5,
                                          ARRAY[1, 3], ARRAY[10, 10], ARRAY[2.0, 2.0])
ORDER BY 1, 4;
-- a document's order depends on its own chunks alone: document 10 (chunks 1 and 3, the
-- vector leg slightly for 1, the text for 3) is ordered alike with document 20's far higher
-- text scores in the list (the documents a search for a larger k reorders) and without them
SELECT 'with document 20' AS case_, * FROM dof_document_order(ARRAY[1, 2, 3, 5], ARRAY[0.9, 0.8, 0.7, 0.6], ARRAY[1, 3], ARRAY[0.95, 0.93], 0.5,
                                                           ARRAY[1, 2, 3, 5], ARRAY[10, 20, 10, 20], ARRAY[1.0, 10.0, 2.0, 20.0])
UNION ALL
SELECT 'document 10 alone', * FROM dof_document_order(ARRAY[1, 2, 3, 5], ARRAY[0.9, 0.8, 0.7, 0.6], ARRAY[1, 3], ARRAY[0.95, 0.93], 0.5,
                                                      ARRAY[1, 3], ARRAY[10, 10], ARRAY[1.0, 2.0])
ORDER BY 1, 4;
-- end to end: a law whose every article names the regional governor, among notices of
-- which some speak of age. The text leg ranks first the article naming the governor most
-- often; within the law, "gobernador regional" tells its articles apart no better than a
-- stopword and "edad" does, so the hybrid search (alpha 1: the text decides) ranks first
-- the article about the age
INSERT INTO dof_collections (name, model, late_chunking, max_tokens) VALUES ('dentro', 'hash-384', false, 200);
INSERT INTO dof_documents (collection, source_id, body) VALUES
('dentro', 'ley-elecciones', E'# Ley de elecciones\n\n' ||
 E'**Artículo 1.** El gobernador regional y el vicegobernador regional son elegidos junto con el consejo; el gobernador regional preside el gobierno regional y el gobernador regional lo representa.\n\n' ||
 E'**Artículo 2.** Para postular como gobernador regional se requiere ser mayor de veinticinco años de edad.\n\n' ||
 E'**Artículo 3.** El gobernador regional presenta su plan de gobierno ante el jurado electoral.\n\n' ||
 E'**Artículo 4.** El gobernador regional rinde cuentas ante el consejo cada año.\n');
INSERT INTO dof_documents (collection, source_id, body)
SELECT 'dentro', 'aviso-' || g, format(E'# Aviso %s\n\nLa dependencia publica el trámite %s%s.', g, g, CASE WHEN g <= 20 THEN ' para personas de edad avanzada' ELSE '' END)
FROM generate_series(1, 150) g;
SELECT 'text leg' AS search, t.rank, left(c.content, 60) AS starts
FROM dof_text_search('edad del gobernador regional', 3, 'dentro') t JOIN dof_chunks c ON c.id = t.chunk_id
WHERE c.content LIKE '%Artículo%'
UNION ALL
SELECT 'hybrid', h.n, left(h.content, 60)
FROM dof_hybrid_search('edad del gobernador regional', 10, 'dentro', alpha => 1) WITH ORDINALITY AS h(chunk_id, document_id, source_id, heading_path, content, score, vector_rank, text_rank, n)
WHERE h.content LIKE '%Artículo%'
ORDER BY 1, 2;
-- a document of more than max_chunks chunks (by default dof_document_order_max_chunks())
-- keeps the fused order: none of its candidates is scored within it
SELECT dof_document_order_max_chunks() AS default_max_chunks;
SELECT m.max_chunks, count(s.chunk_id) AS scored_within
FROM (VALUES (3), (4)) AS m(max_chunks)
CROSS JOIN dof_text_query('edad del gobernador regional', 'dentro', 'bm25', 'any') t
LEFT JOIN LATERAL dof_document_text_scores(ARRAY(SELECT c.id FROM dof_chunks c JOIN dof_documents d ON d.id = c.document_id
                                                 WHERE d.source_id = 'ley-elecciones' ORDER BY c.chunk_index),
                                           10, t.lexemes, t.idfs, t.average_length, t.query_vector, m.max_chunks) s ON true
GROUP BY m.max_chunks ORDER BY m.max_chunks;
-- A definition question asks for the chunk that defines its term (dof_definition_term: the
-- words after qué es / significa / se entiende por / cómo se define / (cuál es la) definición
-- de / a qué se refiere, what is / what does … mean / definition of, up to
-- a preposition, a second question, a punctuation mark or an identifier; NULL for any
-- other query) ...
SELECT q, dof_definition_term(q) AS term
FROM unnest(ARRAY['¿Qué es el AIRHSP?', '¿Qué significa CNRTS?', '¿Qué es un resguardo según las bases de IMSS-BIENESTAR?',
                  'definicion de vehiculo no motorizado NOM-004-SEDATU', '¿Qué se entiende por ausencia por desaparición forzada?',
                  'QUÉ SON LOS BIENES MUEBLES', '¿Qué es el Formulario Único Oficial y qué partes tiene?',
                  '¿Cómo se define el término vía ciclista?', 'significado de CNRTS', '¿Qué se debe entender por bienes muebles?',
                  '¿Cuál es la definición de resguardo?', '¿Cuál es el significado de CNRTS?', '¿A qué se refiere el término RUPE?',
                  '¿A qué se refieren las siglas FONSABI en el convenio?', '¿Cuál es el monto del proyecto?',
                  'What does ABC stand for?', 'What is meant by late chunking?', 'What are the key themes explored in the anime?',
                  'What does the acronym NASA mean in the text?', 'definition of retrieval and how it works', 'Who wrote the report?',
                  '¿Quién es el gobernador regional?', 'edad del gobernador regional', '']) AS q;
-- a term of more than 12 words or 200 characters is none (a question of tens of kilobytes
-- made an expression too complex to match)
SELECT dof_definition_term('¿Qué es el ' || repeat('registro ', 7000) || '?') IS NULL AS long_question,
       dof_definition_term('¿Qué es ' || repeat('a', 201) || '?') IS NULL AS long_word,
       dof_definition_term('¿Qué es ' || repeat('registro ', 12) || '?') IS NULL AS twelve_words,
       dof_definition_term('¿Qué es ' || repeat('registro ', 13) || '?') IS NULL AS thirteen_words;
-- ... and a chunk defines it (dof_defines, with the term as dof_definition_pattern writes
-- it: accents and case aside) when a line opens with it and a colon, after list markers,
-- numbering and bold; when it stands in parentheses after what it abbreviates; or after
-- "se entiende / se entenderá / entiéndase por". Naming it, or a line opening with another
-- label, is no definition
SELECT dof_definition_pattern('Año (fiscal)') AS pattern;
SELECT content, dof_defines(content, dof_definition_pattern(term)) AS defines
FROM (VALUES (E'Para los fines de estas Bases:\n1.1.12. CNRTS: Catálogo Nacional de Regiones', 'CNRTS'),
             (E'III. **Bienes muebles:** Los que pueden trasladarse', 'bienes muebles'),
             ('el Aplicativo Informático para el Registro Centralizado de Planillas (AIRHSP) del MEF', 'AIRHSP'),
             ('Se entiende por ausencia la situación de quien desaparece', 'ausencia'),
             ('Se entiende por ausencias justificadas las que', 'ausencia'),
             ('Para efectos de esta Ley se entenderá por Comisión la Comisión Nacional del Agua', 'comision'),
             ('El CNRTS se publica cada año: el CNRTS lo actualiza', 'CNRTS'),
             (E'TRANSITORIOS:\nEl CNRTS entra en vigor', 'CNRTS'),
             (E'Vehículo no motorizado: el que se mueve por tracción humana', 'vehiculo no motorizado'),
             (E'VEHÍCULO NO MOTORIZADO: el que se mueve', 'Vehículo no motorizado'),
             (E'a) Año (fiscal): el periodo', 'ano (fiscal)')) AS t(content, term);
-- end to end: a law whose articles name its registry many times, one of them defining it.
-- The text leg ranks first the article naming it most often; the hybrid search (alpha 1:
-- the text decides) ranks the definition first, within the law, and only for a definition
-- question
INSERT INTO dof_collections (name, model, late_chunking, max_tokens) VALUES ('glosario', 'hash-384', false, 200);
INSERT INTO dof_documents (collection, source_id, body) VALUES
('glosario', 'ley-proveedores', E'# Ley de proveedores\n\n' ||
 E'**Artículo 1.** El RUPE inscribe a los proveedores; el RUPE publica el padrón del RUPE cada mes y el RUPE lo actualiza.\n\n' ||
 E'**Artículo 2.** Para los fines de esta ley se usan las siguientes siglas.\n\nRUPE: Registro Único de Proveedores del Estado.\n\n' ||
 E'**Artículo 3.** La inscripción en el RUPE cuesta una tasa que el RUPE fija.\n');
INSERT INTO dof_documents (collection, source_id, body)
SELECT 'glosario', 'aviso-' || g, format(E'# Aviso %s\n\nLa dependencia publica el trámite %s.', g, g) FROM generate_series(1, 30) g;
SELECT 'text leg' AS search, t.rank, left(c.content, 40) AS starts
FROM dof_text_search('¿Qué es el RUPE?', 3, 'glosario') t JOIN dof_chunks c ON c.id = t.chunk_id
UNION ALL
SELECT 'hybrid: ' || q, h.n, left(h.content, 40)
FROM unnest(ARRAY['¿Qué es el RUPE?', 'RUPE']) AS q,
     dof_hybrid_search(q, 3, 'glosario', alpha => 1) WITH ORDINALITY AS h(chunk_id, document_id, source_id, heading_path, content, score, vector_rank, text_rank, n)
ORDER BY 1, 2;
-- a definition question of 40 KB (8,000 words: a search reads dof_query_max_nodes() words
-- and operators) is searched as any query is
SELECT count(*) AS long_definition_question_found FROM dof_hybrid_search('¿Qué es el ' || repeat('RUPE ', 8000) || '?', 3, 'glosario');
-- the defining chunk scores a hundred times its document's best, so within the law it comes
-- first even where the vector leg prefers another chunk by less than the text share: here
-- the first article by 0.06 of similarity, 0.6 once normalised, against a text share of 0.5
-- (twice the best, the first article came first: 0.5 x 0.6 + 0.5 x 0.5 against 0.5)
SELECT o.rank, left(c.content, 40) AS starts, round((t.text_score / max(t.text_score) FILTER (WHERE c.content NOT LIKE '%RUPE:%') OVER ())::numeric, 2) AS text_over_best_other
FROM (SELECT array_agg(c.id ORDER BY c.chunk_index) AS ids, array_agg(0.9 - 0.1 * c.chunk_index ORDER BY c.chunk_index) AS scores,
             array_agg(CASE WHEN c.content LIKE '%RUPE:%' THEN 0.74 ELSE 0.80 END ORDER BY c.chunk_index) AS vectors
      FROM dof_chunks c JOIN dof_documents d ON d.id = c.document_id WHERE d.source_id = 'ley-proveedores') law,
     dof_text_query('¿Qué es el RUPE?', 'glosario', 'bm25', 'any') q,
     LATERAL (SELECT array_agg(s.chunk_id) AS ids, array_agg(s.document_id) AS documents, array_agg(s.text_score) AS scores
              FROM dof_document_text_scores(law.ids, 3, q.lexemes, q.idfs, q.average_length, q.query_vector,
                                            definition_term => dof_definition_term('¿Qué es el RUPE?')) s) within,
     dof_document_order(law.ids, law.scores, law.ids, law.vectors, 0.5, within.ids, within.documents, within.scores) o
     JOIN dof_chunks c ON c.id = o.id
     JOIN unnest(within.ids, within.scores) AS t(id, text_score) ON t.id = o.id
ORDER BY o.rank;
