-- Documents in, hybrid answers out: triggers, search legs, RRF, filters, dedup, queue, RLS.
CREATE EXTENSION pg_dof CASCADE;
\set SHOW_CONTEXT never
INSERT INTO dof_documents (source_id, title, body, metadata) VALUES
 ('salud-1', 'Licitación de medicamentos', E'# Aviso de licitación\n\n## Secretaría de Salud\n\nSe convoca a la licitación pública nacional para la adquisición de medicamentos y material de curación para hospitales.\n\nLas bases están disponibles en el sistema de compras gubernamentales.', '{"dependencia": "SALUD", "anio": 2024}'),
 ('salud-2', 'Vacunas', E'# Convocatoria\n\nAdquisición de vacunas contra la influenza estacional para la campaña de invierno en centros de salud.', '{"dependencia": "SALUD", "anio": 2023}'),
 ('sat-1', 'Miscelánea fiscal', E'# Resolución Miscelánea Fiscal\n\nReglas de carácter general en materia de impuestos federales, declaraciones y pagos provisionales del impuesto sobre la renta.', '{"dependencia": "SHCP", "anio": 2024}'),
 ('banxico-1', 'Tipo de cambio', E'# Tipo de cambio\n\nEl Banco de México informa que el tipo de cambio para solventar obligaciones en moneda extranjera fue de 17.05 pesos por dólar.', '{"dependencia": "BANXICO", "anio": 2024}'),
 ('economia-1', 'Etiquetado', E'# Norma Oficial Mexicana\n\nEspecificaciones de etiquetado para alimentos y bebidas no alcohólicas preenvasados.\n\n| Sello | Criterio |\n|---|---|\n| EXCESO SODIO | 350 mg |\n| EXCESO AZÚCARES | 10 % |', '{"dependencia": "ECONOMIA", "anio": 2022}');

-- the triggers classified, chunked, embedded and indexed every document
SELECT d.source_id, d.pattern, count(c.id) AS chunks, bool_and(c.embedding IS NOT NULL) AS embedded,
       bool_and(c.token_count <= 800) AS under_limit, min(c.sizer) AS sizer, min(c.chunker_version) AS chunker
FROM dof_documents d LEFT JOIN dof_chunks c ON c.document_id = d.id
GROUP BY d.id, d.source_id, d.pattern ORDER BY d.id;
SELECT count(*) FILTER (WHERE right(c.content, c.char_end - c.char_start) <> substr(d.body, c.char_start + 1, c.char_end - c.char_start)) AS offset_mismatches
FROM dof_chunks c JOIN dof_documents d ON d.id = c.document_id;

-- hybrid search: both legs ranked, fused by RRF; a query both legs agree on
SELECT source_id, vector_rank IS NOT NULL AS in_vector_leg, text_rank IS NOT NULL AS in_text_leg
FROM dof_hybrid_search('licitación de medicamentos para hospitales', k => 1);
-- with fusion => 'rrf', the fused score is RRF of the legs' ranks
SELECT count(*) FILTER (WHERE abs(score - (coalesce(1.0 / (60 + vector_rank), 0) + coalesce(1.0 / (60 + text_rank), 0))) > 1e-12) AS score_mismatches,
       count(*) AS rows
FROM dof_hybrid_search('impuesto sobre la renta', k => 5, fusion => 'rrf');
-- Spanish stemming: "medicamento" finds "medicamentos"
SELECT d.source_id FROM dof_text_search('medicamento') t JOIN dof_chunks c ON c.id = t.chunk_id
JOIN dof_documents d ON d.id = c.document_id ORDER BY t.rank;
-- filters on metadata return k rows when k match
SELECT count(*) AS rows, bool_and(d.metadata @> '{"dependencia": "SALUD"}') AS all_match
FROM dof_hybrid_search('compras del gobierno', k => 2, filter => '{"dependencia": "SALUD"}') h
JOIN dof_documents d ON d.id = h.document_id;
-- dedup keeps one chunk per document
SELECT count(*) = count(DISTINCT document_id) AS one_per_document
FROM dof_hybrid_search('secretaría', k => 10, dedup_by_source => true);
-- the hybrid's rows are the fused legs' best k (with dedup, each document's best chunk
-- only), each with its own chunk's content and document, as a reference built here from
-- the legs and dof_fuse computes them: documents of several chunks each, k 3
INSERT INTO dof_collections (name, max_tokens, overlap_tokens) VALUES ('sections', 24, 0);
INSERT INTO dof_documents (collection, source_id, body) VALUES
 ('sections', 'vacunas', E'# Vacunas\n\n## Compra\n\nCompra de vacunas contra la influenza para los centros de salud.\n\n'
                         '## Campaña\n\nCampaña de vacunación con vacunas contra la influenza en invierno.\n\n'
                         '## Aplicación\n\nLas vacunas contra la influenza se aplican en los centros de salud.'),
 ('sections', 'aduanas', E'# Aduanas\n\n## Aranceles\n\nAranceles de importación de acero y aluminio en las aduanas del norte.\n\n'
                         '## Trámites\n\nLos trámites aduaneros se presentan por medios electrónicos.'),
 ('sections', 'energia', E'# Energía\n\n## Tarifas\n\nTarifas eléctricas para el servicio doméstico durante el verano.\n\n'
                         '## Salud\n\nLos centros de salud tienen una tarifa eléctrica especial.');
WITH legs AS (
    SELECT (SELECT array_agg(v.chunk_id ORDER BY v.rank) FROM dof_vector_search('vacunas contra la influenza en centros de salud', 50, 'sections') v) AS vector_ids,
           (SELECT array_agg(1 - v.distance ORDER BY v.rank) FROM dof_vector_search('vacunas contra la influenza en centros de salud', 50, 'sections') v) AS vector_scores,
           (SELECT array_agg(t.chunk_id ORDER BY t.rank) FROM dof_text_search('vacunas contra la influenza en centros de salud', 50, 'sections') t) AS text_ids,
           (SELECT array_agg(t.text_score ORDER BY t.rank) FROM dof_text_search('vacunas contra la influenza en centros de salud', 50, 'sections') t) AS text_scores
), fused AS (
    SELECT f.id, f.score, c.document_id, d.source_id, c.content,
           row_number() OVER (PARTITION BY c.document_id ORDER BY f.score DESC, f.id) AS in_document
    FROM legs, dof_fuse('weighted', vector_ids, vector_scores, text_ids, text_scores) f
    JOIN dof_chunks c ON c.id = f.id JOIN dof_documents d ON d.id = c.document_id
), answers AS (
    SELECT dedup,
           (SELECT array_agg(ROW(h.chunk_id, h.document_id, h.source_id, h.content, h.score) ORDER BY h.score DESC, h.chunk_id)
            FROM dof_hybrid_search('vacunas contra la influenza en centros de salud', k => 3, collection => 'sections', dedup_by_source => dedup) h) AS hybrid,
           (SELECT array_agg(ROW(r.id, r.document_id, r.source_id, r.content, r.score) ORDER BY r.score DESC, r.id)
            FROM (SELECT * FROM fused WHERE NOT dedup OR in_document = 1 ORDER BY score DESC, id LIMIT 3) r) AS reference,
           (SELECT count(DISTINCT r.document_id) FROM (SELECT * FROM fused ORDER BY score DESC, id LIMIT 3) r) AS documents_in_plain_top_3
    FROM unnest(ARRAY[false, true]) AS dedup
)
SELECT dedup, hybrid = reference AS equals_reference, documents_in_plain_top_3 < 3 AS plain_top_3_repeats_a_document
FROM answers ORDER BY dedup;
DELETE FROM dof_documents WHERE collection = 'sections';
DELETE FROM dof_collections WHERE name = 'sections';

-- The vector leg's k ids for a query vector in a collection, and exact search's (a scan of
-- the passages, a chunk by its best, ties by id), for the checks below.
CREATE FUNCTION pg_temp.leg_and_exact(collection text, query vector, k integer) RETURNS TABLE (leg bigint[], exact bigint[])
LANGUAGE sql AS $$
  SELECT (SELECT array_agg(v.chunk_id ORDER BY v.rank) FROM dof_vector_search(NULL, k, collection, query_embedding => query) v),
         (SELECT array_agg(e.id ORDER BY e.d, e.id)
          FROM (SELECT c.id, min(p.embedding <=> query) AS d FROM dof_chunks c JOIN dof_passages p ON p.chunk_id = c.id
                WHERE c.collection = leg_and_exact.collection GROUP BY c.id ORDER BY 2, 1 LIMIT k) e)
$$;
-- A collection's chunks (of one passage each) made one point in halfvec: the passage of the
-- i-th of n chunks (by id) gets [1, 0.5 + (n + 1 - i) x step, 0, ...], so the last inserted
-- is nearest to [1, 0, ...] (pg_temp.axis); returns how many distinct halfvec and float
-- vectors it holds then.
CREATE FUNCTION pg_temp.one_halfvec_point(collection text, dimension integer, step double precision)
RETURNS TABLE (halfvec_points bigint, float_points bigint) LANGUAGE sql AS $$
  UPDATE dof_passages p SET embedding = (ARRAY[1, 0.5 + (r.total + 1 - r.n) * step] || array_fill(0, ARRAY[dimension - 2]))::real[]::vector
  FROM (SELECT id, row_number() OVER (ORDER BY id) AS n, count(*) OVER () AS total FROM dof_chunks
        WHERE dof_chunks.collection = one_halfvec_point.collection) r WHERE p.chunk_id = r.id;
  SELECT count(DISTINCT p.embedding::halfvec), count(DISTINCT p.embedding)
  FROM dof_passages p JOIN dof_chunks c ON c.id = p.chunk_id WHERE c.collection = one_halfvec_point.collection;
$$;
CREATE FUNCTION pg_temp.axis(dimension integer) RETURNS vector LANGUAGE sql
RETURN (ARRAY[1] || array_fill(0, ARRAY[dimension - 1]))::real[]::vector;

-- the vector leg through the HNSW index: equal distances are ordered by id also at the
-- k-th place (8 copies of one text, k 5: the 5 lowest ids, as exact search gives them), and
-- a collection that the index's first walk mostly fails still gets its rows (iterative scan)
INSERT INTO dof_collections (name, model) VALUES ('ties', 'hash-384'), ('few', 'hash-384');
INSERT INTO dof_documents (collection, source_id, body)
SELECT 'ties', 'copy-' || i, 'Aviso idéntico de licitación pública' FROM generate_series(1, 8) i
UNION ALL SELECT 'ties', 'other-' || i, format('Aviso número %s sobre asuntos diversos del día %s', i, i * 7) FROM generate_series(1, 40) i
UNION ALL SELECT 'few', 'few-' || i, format('Nota breve %s', i) FROM generate_series(1, 3) i;
SET enable_seqscan = off;
SELECT leg = exact AS ties_by_id, cardinality(leg) AS rows
FROM pg_temp.leg_and_exact('ties', (SELECT embedding FROM dof_chunks c JOIN dof_documents d ON d.id = c.document_id WHERE d.source_id = 'copy-5'), 5);
SELECT count(*) AS rows, bool_and(c.collection = 'few') AS all_in_collection
FROM dof_vector_search(NULL, 3, 'few', query_embedding => (SELECT embedding FROM dof_chunks WHERE collection = 'ties' LIMIT 1)) v
JOIN dof_chunks c ON c.id = v.chunk_id;
-- With no collection named, the query is embedded by the default collection's model (e5,
-- 384 dimensions), and 'ties' and 'few' hold hash-384's vectors of that dimension, 'e5-int8'
-- the int8 variant's: points of other spaces. Each collection is then walked with the query
-- embedded by its own model, as a search that names it, and the walks are merged by
-- distance, as exact search over the four orders them (one e5 vector compared hash-384's
-- vectors with itself as if they were e5's).
INSERT INTO dof_collections (name, model) VALUES ('e5-int8', 'multilingual-e5-small-int8');
INSERT INTO dof_documents (collection, source_id, body) VALUES
 ('e5-int8', 'aviso', 'Aviso de licitación pública de obra'), ('e5-int8', 'nota', 'Nota sobre el tipo de cambio');
CREATE FUNCTION pg_temp.walks(collection text, model text, dimension integer) RETURNS text[]
    LANGUAGE sql RETURN (SELECT array_agg(format('%s/%s', coalesce(w.walk_collection, 'all'), coalesce(w.walk_model, 'any'))
                                          ORDER BY w.walk_collection, w.walk_model)
                         FROM dof_vector_search_collections(collection, model, dimension) w);
SELECT pg_temp.walks(NULL, (dof_collection()).model, 384) AS walked,
       pg_temp.walks('few', 'hash-384', 384) AS named,
       pg_temp.walks(NULL, 'hash-12', 12) AS one_model_of_its_dimension;
SELECT l.leg = e.exact AS as_exact_search, cardinality(l.leg) AS rows, l.collections
FROM (SELECT array_agg(v.chunk_id ORDER BY v.rank) AS leg, array_agg(DISTINCT c.collection) AS collections
      FROM dof_vector_search('aviso de licitación pública', 20) v JOIN dof_chunks c ON c.id = v.chunk_id) l,
     (SELECT array_agg(e.id ORDER BY e.d, e.id) AS exact
      FROM (SELECT c.id, min(p.embedding <=> dof_embed_query('aviso de licitación pública', k.model)) AS d
            FROM dof_chunks c JOIN dof_collections k ON k.name = c.collection JOIN dof_passages p ON p.chunk_id = c.id
            WHERE vector_dims(p.embedding) = 384 GROUP BY c.id ORDER BY 2, 1 LIMIT 20) e) e;
-- given the query's vector by the default's model with its text (a coordinator's shards and
-- dof_evaluate do), the other models embed the text: the same 20 (they compared that vector
-- with every model's)
SELECT array_agg(v.chunk_id ORDER BY v.rank) = (SELECT array_agg(w.chunk_id ORDER BY w.rank) FROM dof_vector_search('aviso de licitación pública', 20) w)
       AS embedding_given_as_without
FROM dof_vector_search('aviso de licitación pública', 20, query_embedding => dof_embed_query('aviso de licitación pública')) v;
-- with a blank text (whitespace only, as a blank search query is: dof_blank_text), or none,
-- the vector stands for every model
SELECT (SELECT array_agg(v.chunk_id ORDER BY v.rank) FROM dof_vector_search(E' \t', 20, query_embedding => x.v) v)
       = (SELECT array_agg(v.chunk_id ORDER BY v.rank) FROM dof_vector_search(NULL, 20, query_embedding => x.v) v) AS blank_text_as_none
FROM (SELECT dof_embed_query('aviso de licitación pública') AS v) x;
-- and so when the only collection holding chunks is of another model than the default's
BEGIN;
DELETE FROM dof_documents WHERE collection IN ('default', 'e5-int8');
SELECT l.leg = e.exact AS as_exact_search, cardinality(l.leg) AS rows, l.collections
FROM (SELECT array_agg(v.chunk_id ORDER BY v.rank) AS leg, array_agg(DISTINCT c.collection) AS collections
      FROM dof_vector_search('Aviso idéntico de licitación', 5) v JOIN dof_chunks c ON c.id = v.chunk_id) l,
     (SELECT array_agg(e.id ORDER BY e.d, e.id) AS exact
      FROM (SELECT c.id, min(p.embedding <=> dof_embed_query('Aviso idéntico de licitación', 'hash-384')) AS d
            FROM dof_chunks c JOIN dof_passages p ON p.chunk_id = c.id
            WHERE c.collection IN ('ties', 'few') GROUP BY c.id ORDER BY 2, 1 LIMIT 5) e) e;
ROLLBACK;
DELETE FROM dof_documents WHERE collection = 'e5-int8';
DELETE FROM dof_collections WHERE name = 'e5-int8';
-- A collection whose model is changed holds the old model's vectors until dof_requeue has
-- re-indexed it: each chunk is compared with the query embedded by the model that embedded
-- it, as exact search orders them (compared with the new model's query vector, e5's chunks
-- were points of another space), while it is re-indexed, and after.
INSERT INTO dof_collections (name) VALUES ('switched');
INSERT INTO dof_documents (collection, source_id, body) VALUES
 ('switched', 'aguas', E'# Ley de aguas\n\nArtículo 1. El agua es un bien nacional que la Comisión administra.\n\nArtículo 2. Las concesiones de agua duran treinta años.'),
 ('switched', 'minas', E'# Ley de minas\n\nArtículo 1. Los minerales del subsuelo pertenecen a la nación.'),
 ('switched', 'puertos', E'# Ley de puertos\n\nArtículo 1. Los puertos y terminales se concesionan por licitación.'),
 ('switched', 'salud', E'# Ley de salud\n\nArtículo 1. Toda persona tiene derecho a la protección de la salud.');
CREATE FUNCTION pg_temp.switched_exact(query text) RETURNS bigint[]
    LANGUAGE sql RETURN (SELECT array_agg(e.id ORDER BY e.d, e.id)
                         FROM (SELECT c.id, min(p.embedding <=> dof_embed_query(query, dof_chunk_model_name(c.model))) AS d
                               FROM dof_chunks c JOIN dof_passages p ON p.chunk_id = c.id
                               WHERE c.collection = 'switched' GROUP BY c.id ORDER BY 2, 1 LIMIT 5) e);
CREATE FUNCTION pg_temp.switched_leg(query text) RETURNS bigint[]
    LANGUAGE sql RETURN (SELECT array_agg(v.chunk_id ORDER BY v.rank) FROM dof_vector_search(query, 5, 'switched') v);
SELECT pg_temp.switched_leg('duración de las concesiones de agua') AS e5_leg \gset
UPDATE dof_collections SET model = 'hash-384' WHERE name = 'switched';
SELECT pg_temp.walks('switched', 'hash-384', 384) AS walks_before_requeue,
       pg_temp.switched_leg('duración de las concesiones de agua') = :'e5_leg' AS leg_as_before_the_change,
       (SELECT d.source_id FROM dof_vector_search('duración de las concesiones de agua', 1, 'switched') v
        JOIN dof_chunks c ON c.id = v.chunk_id JOIN dof_documents d ON d.id = c.document_id) AS first;
SELECT dof_index_document(id) AS reindexed FROM dof_documents WHERE collection = 'switched' AND source_id IN ('minas', 'salud');
SELECT pg_temp.walks('switched', 'hash-384', 384) AS walks_while_reindexed,
       pg_temp.switched_leg(q) = pg_temp.switched_exact(q) AS as_exact_search,
       (SELECT array_agg(DISTINCT dof_chunk_model_name(c.model)) FROM unnest(pg_temp.switched_leg(q)) i JOIN dof_chunks c ON c.id = i) AS models_found
FROM (VALUES ('duración de las concesiones de agua'), ('Ley de salud')) q(q);
SELECT dof_requeue('switched') AS requeued;
CALL dof_process_queue();
SELECT pg_temp.walks('switched', 'hash-384', 384) AS walks_after_requeue,
       pg_temp.switched_leg('Ley de salud') = pg_temp.switched_exact('Ley de salud') AS as_exact_search;
-- and moved to a model of another dimension: its chunks not yet re-indexed keep hash-384's
-- 384 dimensions, and are compared with the query embedded by it (searched only in the new
-- model's dimension, they were not found until re-indexed); a query given only as a vector
-- is compared with its dimension's chunks
SELECT pg_temp.switched_leg('Ley de salud') AS hash_384_leg \gset
INSERT INTO dof_models (name, kind, dimension) VALUES ('hash-24', 'hash', 24);
UPDATE dof_collections SET model = 'hash-24' WHERE name = 'switched';
SELECT pg_temp.walks('switched', 'hash-24', NULL) AS walks_of_a_text_query,
       pg_temp.walks('switched', 'hash-24', 24) AS walks_of_a_vector,
       pg_temp.switched_leg('Ley de salud') = :'hash_384_leg' AS leg_as_before_the_change;
SELECT dof_index_document(id) AS reindexed FROM dof_documents WHERE collection = 'switched' AND source_id IN ('aguas', 'salud');
SELECT pg_temp.walks('switched', 'hash-24', NULL) AS walks_while_reindexed,
       pg_temp.switched_leg(q) = pg_temp.switched_exact(q) AS as_exact_search,
       (SELECT array_agg(DISTINCT vector_dims(c.embedding)) FROM unnest(pg_temp.switched_leg(q)) i JOIN dof_chunks c ON c.id = i) AS dimensions_found
FROM (VALUES ('duración de las concesiones de agua'), ('Ley de salud')) q(q);
SELECT array_agg(DISTINCT vector_dims(c.embedding)) AS dimensions_of_a_vector_query, count(*) AS found
FROM dof_vector_search(NULL, 5, 'switched', query_embedding => dof_embed_query('Ley de salud', 'hash-24')) v JOIN dof_chunks c ON c.id = v.chunk_id;
SELECT dof_requeue('switched') AS requeued;
CALL dof_process_queue();
SELECT pg_temp.walks('switched', 'hash-24', NULL) AS walks_after_requeue,
       pg_temp.switched_leg('Ley de salud') = pg_temp.switched_exact('Ley de salud') AS as_exact_search;
DELETE FROM dof_documents WHERE collection = 'switched';
DELETE FROM dof_collections WHERE name = 'switched';
DELETE FROM dof_models WHERE name = 'hash-24';
-- a model whose vectors chunks still hold is not deleted or renamed (the chunks name it and
-- are searched with it), until they are re-indexed with the collection's model
INSERT INTO dof_models (name, kind, dimension) VALUES ('hash-384-old', 'hash', 384);
INSERT INTO dof_collections (name, model) VALUES ('moving', 'hash-384-old');
INSERT INTO dof_documents (collection, source_id, body) VALUES ('moving', 'nota', 'Nota sobre el tipo de cambio');
UPDATE dof_collections SET model = 'hash-384' WHERE name = 'moving';
\set VERBOSITY sqlstate
DELETE FROM dof_models WHERE name = 'hash-384-old';
\set VERBOSITY default
UPDATE dof_models SET name = 'hash-384-renamed' WHERE name = 'hash-384-old';
SELECT count(*) AS still_registered FROM dof_models WHERE name = 'hash-384-old';
UPDATE dof_models SET max_positions = 256 WHERE name = 'hash-384-old';
SELECT dof_requeue('moving') AS requeued;
CALL dof_process_queue();
DELETE FROM dof_models WHERE name = 'hash-384-old';
SELECT count(*) AS deleted_once_reindexed FROM dof_models WHERE name = 'hash-384-old';
DELETE FROM dof_documents WHERE collection = 'moving';
DELETE FROM dof_collections WHERE name = 'moving';
-- a metadata filter is matched exactly, digits beyond a double's included
INSERT INTO dof_documents (collection, source_id, body, metadata) VALUES ('few', 'few-exact', 'Nota breve 4', '{"n": 0.1000000000000000000001}');
SELECT count(*) AS exact_filter_matches FROM dof_vector_search('Nota breve', 5, 'few', '{"n": 0.1000000000000000000001}');
RESET enable_seqscan;
-- the index query's plan is kept per dimension for the session (dof_nearest_passages_internal): a
-- dropped index is not used by it (this search runs without), a rebuilt one is (the last
-- search, sequential scans off)
SELECT array_agg(v.chunk_id ORDER BY v.rank) AS before FROM dof_vector_search('Aviso idéntico de licitación', 5, 'ties') v \gset
DROP INDEX dof_passages_embedding_384;
SELECT array_agg(v.chunk_id ORDER BY v.rank) = :'before' AS same_without_the_index FROM dof_vector_search('Aviso idéntico de licitación', 5, 'ties') v;
SELECT dof_vector_index(384) AS rebuilt;
SET enable_seqscan = off;
SELECT array_agg(v.chunk_id ORDER BY v.rank) = :'before' AS same_with_the_rebuilt_index FROM dof_vector_search('Aviso idéntico de licitación', 5, 'ties') v;
RESET enable_seqscan;
-- and the leg's query is one the index answers (its ORDER BY is the index's halfvec
-- expression): the index's scan count grows by this search's walk
SELECT pg_stat_force_next_flush();
SELECT idx_scan AS scans_before FROM pg_stat_user_indexes WHERE indexrelname = 'dof_passages_embedding_384' \gset
SELECT count(*) AS found FROM dof_vector_search('Aviso idéntico de licitación', 5, 'ties');
SELECT pg_stat_force_next_flush();
SELECT pg_stat_clear_snapshot();
SELECT idx_scan > :scans_before AS walked_the_index FROM pg_stat_user_indexes WHERE indexrelname = 'dof_passages_embedding_384';
-- and so does the plan PostgreSQL keeps for the session after five searches, generic for
-- any arguments: its statement names only the conditions given (a collection here). With
-- each written as "$2 IS NULL OR c.collection = $2", that plan estimated that one chunk
-- would pass and scanned every passage (300 chunks of 22 passages here; 60 ms a search
-- instead of 6 at 3,186 chunks: bench/scripts/vector_plans.sh)
INSERT INTO dof_collections (name, model, passage_tokens) VALUES ('plans', 'hash-384', 16);
INSERT INTO dof_documents (collection, source_id, body)
SELECT 'plans', 'p-' || i, format('Aviso %s sobre la licitación pública número %s del día %s. La Secretaría convoca a las personas interesadas en participar en el procedimiento de contratación de obra pública para la construcción del camino rural número %s en el municipio %s, con un plazo de ejecución de %s días naturales.', i, i * 3, i % 28, i * 7, i % 50, 30 + i % 90)
FROM generate_series(1, 300) i;
ANALYZE dof_chunks, dof_passages;
SELECT count(*) AS found FROM generate_series(1, 6) g, LATERAL dof_vector_search('Aviso ' || g, 5, 'plans') v;
SELECT pg_stat_force_next_flush();
SELECT idx_scan AS scans_before FROM pg_stat_user_indexes WHERE indexrelname = 'dof_passages_embedding_384' \gset
SELECT count(*) AS found FROM dof_vector_search('Aviso 7', 5, 'plans');
SELECT pg_stat_force_next_flush();
SELECT pg_stat_clear_snapshot();
SELECT idx_scan > :scans_before AS kept_plan_walks_the_index FROM pg_stat_user_indexes WHERE indexrelname = 'dof_passages_embedding_384';
DELETE FROM dof_documents WHERE collection = 'plans';
DELETE FROM dof_collections WHERE name = 'plans';
-- its 6,660 passages are dead elements of the HNSW graph until vacuumed, which would route
-- the walks below (the searches of 30 chunks further down found none in some runs)
VACUUM dof_chunks, dof_passages;
DELETE FROM dof_documents WHERE collection IN ('ties', 'few');
DELETE FROM dof_collections WHERE name IN ('ties', 'few');
-- halfvec rounding: 30 chunks whose vectors differ only below halfvec's precision are one
-- point in the index; the leg takes a pool of at least 100 from it and orders them by the
-- float distance, so k 3 gives the exact 3 nearest (here the 3 last inserted)
INSERT INTO dof_collections (name, model) VALUES ('rounding', 'hash-384');
INSERT INTO dof_documents (collection, source_id, body)
SELECT 'rounding', 'r-' || i, 'Punto ' || i FROM generate_series(1, 30) i;
SELECT * FROM pg_temp.one_halfvec_point('rounding', 384, 5e-6);
SET enable_seqscan = off;
SELECT leg = exact AS exact_order_after_rounding,
       exact = ARRAY(SELECT id FROM dof_chunks WHERE collection = 'rounding' ORDER BY id DESC LIMIT 3) AS nearest_are_the_last_inserted
FROM pg_temp.leg_and_exact('rounding', pg_temp.axis(384), 3);
RESET enable_seqscan;
DELETE FROM dof_documents WHERE collection = 'rounding';
DELETE FROM dof_collections WHERE name = 'rounding';

-- passages: a chunk over its collection's passage_tokens is cut into passages of at most
-- that many tokens, each embedded by the real model; together they hold every word of the
-- chunk (what is between them is blank), the chunk's vector is their mean, and the vector
-- leg scores the chunk by its nearest passage
INSERT INTO dof_collections (name, passage_tokens) VALUES ('passages', 40);
INSERT INTO dof_documents (collection, source_id, body)
SELECT 'passages', 'ley', string_agg(format('Artículo %s. %s', i, t), E'\n\n' ORDER BY i)
FROM unnest(ARRAY['La Secretaría de Salud vigilará la aplicación de vacunas contra la influenza en los centros de salud del país.',
                  'El Servicio de Administración Tributaria publicará el tipo de cambio del dólar cada día hábil en el Diario Oficial.',
                  'Las concesiones de pesca en aguas de jurisdicción federal se otorgarán por un plazo de hasta veinte años.',
                  'Los pedimentos de importación se presentarán en la aduana de entrada con la firma electrónica del agente aduanal.',
                  'La Comisión Nacional del Agua fijará las cuotas por el uso de aguas nacionales en cada zona de disponibilidad.'])
     WITH ORDINALITY AS a(t, i);
SELECT count(DISTINCT c.id) AS chunks, count(*) > count(DISTINCT c.id) AS cut_into_passages,
       max(p.token_count) <= 40 AS within_passage_tokens, bool_and(p.embedding IS NOT NULL) AS embedded
FROM dof_chunks c JOIN dof_passages p ON p.chunk_id = c.id WHERE c.collection = 'passages';
WITH spans AS (
    SELECT c.content, p.char_start, p.char_end,
           coalesce(lag(p.char_end) OVER (PARTITION BY c.id ORDER BY p.passage), 0) AS previous_end,
           p.passage = max(p.passage) OVER (PARTITION BY c.id) AS last
    FROM dof_chunks c JOIN dof_passages p ON p.chunk_id = c.id WHERE c.collection = 'passages')
SELECT bool_and(char_start >= previous_end AND char_end > char_start) AS in_order,
       bool_and(btrim(substr(content, previous_end + 1, char_start - previous_end), E' \n') = ''
                AND (NOT last OR btrim(substr(content, char_end + 1), E' \n') = '')) AS only_blanks_between
FROM spans;
SELECT bool_and(c.embedding <=> (SELECT avg(p.embedding) FROM dof_passages p WHERE p.chunk_id = c.id) < 1e-5) AS chunk_vector_is_the_mean
FROM dof_chunks c WHERE c.collection = 'passages';
SELECT abs(v.distance - (SELECT min(p.embedding <=> dof_embed_query('¿cada cuánto se publica el tipo de cambio del dólar?'))
                         FROM dof_passages p WHERE p.chunk_id = v.chunk_id)) < 1e-6 AS distance_is_the_best_passages,
       (SELECT p.char_start FROM dof_passages p WHERE p.chunk_id = v.chunk_id
        ORDER BY p.embedding <=> dof_embed_query('¿cada cuánto se publica el tipo de cambio del dólar?') LIMIT 1)
       = (SELECT strpos(c.content, 'Artículo 2') - 1 FROM dof_chunks c WHERE c.id = v.chunk_id) AS best_passage_is_article_2
FROM dof_vector_search('¿cada cuánto se publica el tipo de cambio del dólar?', 1, 'passages') v;
-- a late-chunked collection keeps one passage per chunk, its late vector
UPDATE dof_collections SET late_chunking = true WHERE name = 'passages';
UPDATE dof_documents SET body = body || ' ' WHERE collection = 'passages';
SELECT count(*) = count(DISTINCT c.id) AS one_passage_per_chunk, bool_and(p.embedding = c.embedding) AS the_chunks_vector
FROM dof_chunks c JOIN dof_passages p ON p.chunk_id = c.id WHERE c.collection = 'passages';
DELETE FROM dof_documents WHERE collection = 'passages';
SELECT count(*) AS passages_left FROM dof_passages p WHERE NOT EXISTS (SELECT 1 FROM dof_chunks c WHERE c.id = p.chunk_id);
DELETE FROM dof_collections WHERE name = 'passages';
INSERT INTO dof_collections (name, passage_tokens) VALUES ('tiny-passages', 8);

-- updating the body rebuilds the chunks; updating metadata only copies it; deleting removes them
UPDATE dof_documents SET body = E'# Tipo de cambio\n\nNuevo aviso: 18.20 pesos por dólar.' WHERE source_id = 'banxico-1';
SELECT c.content FROM dof_chunks c JOIN dof_documents d ON d.id = c.document_id WHERE d.source_id = 'banxico-1';
UPDATE dof_documents SET metadata = '{"dependencia": "BANXICO", "anio": 2025}' WHERE source_id = 'banxico-1';
SELECT c.metadata->>'anio' AS anio FROM dof_chunks c JOIN dof_documents d ON d.id = c.document_id WHERE d.source_id = 'banxico-1';
DELETE FROM dof_documents WHERE source_id = 'economia-1';
SELECT count(*) AS orphan_chunks FROM dof_chunks c WHERE NOT EXISTS (SELECT 1 FROM dof_documents d WHERE d.id = c.document_id);

-- a failing embedding rolls back that insert only, with a clear error
INSERT INTO dof_models (name, kind, model_file, tokenizer_file, dimension) VALUES ('missing-model', 'onnx', 'missing/model.onnx', 'multilingual-e5-small/tokenizer.json', 384);
INSERT INTO dof_collections (name, model) VALUES ('broken', 'missing-model');
INSERT INTO dof_documents (collection, source_id, body) VALUES ('broken', 'x-1', 'Texto que no se puede indexar.');
SELECT count(*) AS documents FROM dof_documents;
-- a model of another dimension: registering it indexes its dimension, and its
-- collection's chunks are stored and found by the vector leg through that index
INSERT INTO dof_models (name, kind, dimension) VALUES ('hash-12', 'hash', 12);
SELECT indexdef FROM pg_indexes WHERE indexname = 'dof_passages_embedding_12';
INSERT INTO dof_collections (name, model) VALUES ('small-dims', 'hash-12');
INSERT INTO dof_documents (collection, source_id, body) VALUES ('small-dims', 'y-1', 'Texto.');
SELECT vector_dims(c.embedding), d.source_id
FROM dof_vector_search('Texto', 3, 'small-dims') v JOIN dof_chunks c ON c.id = v.chunk_id JOIN dof_documents d ON d.id = c.document_id;
-- and by a search of every collection, walked with the query embedded by its model (it
-- was left out, as of another dimension than the default collection's model)
SELECT count(*) FILTER (WHERE c.collection = 'small-dims') AS found_in_every_collection, count(DISTINCT c.collection) > 1 AS with_others
FROM dof_vector_search('Texto', 1000) v JOIN dof_chunks c ON c.id = v.chunk_id;
-- HNSW indexes halfvec up to 4000 dimensions: a 3000-dimension model gets its index, a
-- 4001-dimension one a notice, and its searches scan in float order: exact, also among
-- 120 chunks that are one point in halfvec (more than the 100 a halfvec order would keep)
INSERT INTO dof_models (name, kind, dimension) VALUES ('hash-3000', 'hash', 3000);
SELECT count(*) AS index_of_3000 FROM pg_indexes WHERE indexname = 'dof_passages_embedding_3000';
INSERT INTO dof_models (name, kind, dimension) VALUES ('hash-4001', 'hash', 4001);
INSERT INTO dof_collections (name, model) VALUES ('wide-dims', 'hash-4001');
INSERT INTO dof_documents (collection, source_id, body)
SELECT 'wide-dims', 'w-' || i, 'Texto amplio ' || i FROM generate_series(1, 120) i;
SELECT * FROM pg_temp.one_halfvec_point('wide-dims', 4001, 1e-6);
SELECT leg = exact AS exact_without_an_index, cardinality(leg) AS rows FROM pg_temp.leg_and_exact('wide-dims', pg_temp.axis(4001), 4);
DELETE FROM dof_documents WHERE collection = 'wide-dims';
DELETE FROM dof_collections WHERE name = 'wide-dims';
DELETE FROM dof_models WHERE name IN ('hash-3000', 'hash-4001');

-- deferred collections queue documents; the queue records failures and goes on
UPDATE dof_collections SET deferred = true WHERE name = 'broken';
INSERT INTO dof_collections (name, model, deferred, late_chunking) VALUES ('later', 'hash-384', true, false);
INSERT INTO dof_documents (collection, source_id, body) VALUES
  ('broken', 'x-1', 'Texto que no se puede indexar.'),
  ('later', 'l-1', 'Primer documento diferido.'),
  ('later', 'l-2', 'Segundo documento diferido.');
SELECT collection, status, documents FROM dof_queue_status ORDER BY collection, status;
CALL dof_process_queue(2);
SELECT collection, status, documents, last_error FROM dof_queue_status ORDER BY collection, status;
SELECT collection, queued, done, failed, tokens_per_second > 0 AS indexing_measured, eta FROM dof_queue_progress ORDER BY collection;
SELECT count(*) AS later_chunks FROM dof_chunks WHERE collection = 'later';
-- one more queued document: its time left is estimated from the last minute's rate
INSERT INTO dof_documents (collection, source_id, body) VALUES ('later', 'l-3', 'Tercer documento diferido, todavía en la cola.');
SELECT collection, queued, eta IS NOT NULL AS has_eta FROM dof_queue_progress WHERE collection = 'later';

-- reports
SELECT collection, pattern, documents, percent FROM dof_pattern_stats ORDER BY collection, pattern;
SELECT collection, pattern, documents, mean_chunks, median_chunks, max_chunks FROM dof_chunk_stats ORDER BY collection, pattern;
SELECT collection, pattern, over_limit FROM dof_token_stats ORDER BY collection, pattern;

-- row-level security on dof_chunks is honoured: search runs as the caller
CREATE ROLE dof_reader;
GRANT SELECT ON dof_documents, dof_chunks, dof_passages, dof_collections, dof_models TO dof_reader;
ALTER TABLE dof_chunks ENABLE ROW LEVEL SECURITY;
CREATE POLICY only_salud ON dof_chunks FOR SELECT TO dof_reader USING (metadata @> '{"dependencia": "SALUD"}');
SET ROLE dof_reader;
SELECT DISTINCT d.metadata->>'dependencia' AS visible
FROM dof_hybrid_search('impuestos y tipo de cambio', k => 10) h JOIN dof_documents d ON d.id = h.document_id;
-- and so does a definition question, whose order within a document reads its candidates'
-- content (dof_document_text_scores, dof_defines)
SELECT dof_definition_term('¿Qué es el tipo de cambio?') AS term,
       array_agg(DISTINCT d.metadata->>'dependencia') AS visible
FROM dof_hybrid_search('¿Qué es el tipo de cambio?', k => 10) h JOIN dof_documents d ON d.id = h.document_id;
-- and it reads the passages of the chunks it sees only
SELECT count(DISTINCT p.chunk_id) = (SELECT count(*) FROM dof_chunks) AS passages_of_visible_chunks_only,
       (SELECT count(*) FROM dof_chunks) > 0 AS sees_some
FROM dof_passages p;
RESET ROLE;
SELECT count(DISTINCT chunk_id) > (SELECT count(*) FROM dof_chunks WHERE metadata @> '{"dependencia": "SALUD"}') AS owner_sees_every_passage
FROM dof_passages;
-- and a role that may insert passages adds them only to the chunks it sees: not a vector of
-- its choosing to a chunk it cannot read
GRANT INSERT ON dof_passages TO dof_reader;
SELECT min(id) AS hidden_chunk FROM dof_chunks WHERE NOT metadata @> '{"dependencia": "SALUD"}' \gset
SELECT min(id) AS seen_chunk FROM dof_chunks WHERE metadata @> '{"dependencia": "SALUD"}' \gset
SET ROLE dof_reader;
INSERT INTO dof_passages (chunk_id, passage, char_start, char_end, token_count, embedding)
SELECT :hidden_chunk, 99, 0, 1, 1, array_fill(0.1, ARRAY[384])::real[]::vector;
INSERT INTO dof_passages (chunk_id, passage, char_start, char_end, token_count, embedding)
SELECT :seen_chunk, 99, 0, 1, 1, array_fill(0.1, ARRAY[384])::real[]::vector;
RESET ROLE;
SELECT count(*) FILTER (WHERE chunk_id = :hidden_chunk) AS on_the_hidden_chunk,
       count(*) FILTER (WHERE chunk_id = :seen_chunk) AS on_the_seen_chunk
FROM dof_passages WHERE passage = 99;
DELETE FROM dof_passages WHERE passage = 99;
-- the report views read with the caller's rights: a role that sees only the 'later'
-- collection's documents sees only its queue rows, errors and patterns (and only the
-- chunks only_salud lets it see)
GRANT SELECT ON dof_queue, dof_queue_status, dof_queue_progress, dof_pattern_stats, dof_chunk_stats, dof_token_stats TO dof_reader;
ALTER TABLE dof_documents ENABLE ROW LEVEL SECURITY;
CREATE POLICY only_later ON dof_documents FOR SELECT TO dof_reader USING (collection = 'later');
SET ROLE dof_reader;
SELECT collection, status, documents, last_error FROM dof_queue_status ORDER BY collection, status;
SELECT collection, queued, done, failed FROM dof_queue_progress ORDER BY collection;
SELECT collection, pattern, documents FROM dof_pattern_stats ORDER BY collection, pattern;
SELECT collection, pattern, documents FROM dof_chunk_stats ORDER BY collection, pattern;
SELECT collection, pattern, chunks FROM dof_token_stats ORDER BY collection, pattern;
RESET ROLE;
DROP POLICY only_later ON dof_documents;
ALTER TABLE dof_documents DISABLE ROW LEVEL SECURITY;
REVOKE ALL ON dof_queue, dof_queue_status, dof_queue_progress, dof_pattern_stats, dof_chunk_stats, dof_token_stats FROM dof_reader;
DROP POLICY only_salud ON dof_chunks;
ALTER TABLE dof_chunks DISABLE ROW LEVEL SECURITY;
REVOKE ALL ON dof_documents, dof_chunks, dof_passages, dof_collections, dof_models FROM dof_reader;
DROP ROLE dof_reader;

-- bad arguments
SELECT * FROM dof_hybrid_search('x', k => 0);
SELECT * FROM dof_hybrid_search('x', collection => 'nowhere');
SELECT dof_requeue('nowhere');

-- A collection whose model's files are gone: a search that names no collection embeds the
-- query with the model of every collection's chunks, so it fails, with the model's error,
-- naming the collection that needs it and what to do; a search naming another collection
-- still answers, and the files back, so does the first
SELECT name FROM dof_register_model('e5-aparte', 'multilingual-e5-small/model.onnx', 'multilingual-e5-small/tokenizer.json',
                                    'query: ', 'passage: ');
INSERT INTO dof_collections (name, model) VALUES ('aparte', 'e5-aparte');
INSERT INTO dof_documents (collection, source_id, body) VALUES ('aparte', 'veda', E'# Aviso\n\nVedas de camarón en el Golfo.');
UPDATE dof_models SET model_file = '/nonexistent/e5-aparte/model.onnx' WHERE name = 'e5-aparte';
\c
\set SHOW_CONTEXT never
SELECT count(*) FROM dof_hybrid_search('vedas de camarón');
SELECT count(*) > 0 AS answers FROM dof_hybrid_search('vedas de camarón', collection => 'default');
UPDATE dof_models SET model_file = 'multilingual-e5-small/model.onnx' WHERE name = 'e5-aparte';
SELECT count(*) > 0 AS answers FROM dof_hybrid_search('vedas de camarón');
DELETE FROM dof_documents WHERE collection = 'aparte';
DELETE FROM dof_collections WHERE name = 'aparte';
DELETE FROM dof_models WHERE name = 'e5-aparte';
