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
SELECT bool_and(c.tsv = dof_chunk_tsvector('dof_spanish', c.heading_path, c.content, c.metadata)) AS stored_matches_config
FROM dof_chunks c WHERE c.collection = 'acentos';

-- Identifiers match however they are typed: with or without hyphens, accents, case, the
-- sign PostgreSQL's parser reads in "-035", a trailing dot
INSERT INTO dof_collections (name) VALUES ('identificadores');
INSERT INTO dof_documents (collection, source_id, body) VALUES
 ('identificadores', 'nom-035', E'# NORMA Oficial Mexicana NOM-035-STPS-2018\n\nFactores de riesgo psicosocial en el trabajo: identificación, análisis y prevención.'),
 ('identificadores', 'ds-092', E'# DECRETO SUPREMO Nº 092-2002-EF\n\nAprueban el Convenio de Conversión de Deuda en Inversión en Naturaleza.'),
 ('identificadores', 'ley-27056', E'# Ley Nº 27056\n\nLey de creación del Seguro Social de Salud (ESSALUD); artículo 40. de la ley.'),
 ('identificadores', 'rm-018', E'# Resolución Ministerial N.° 018-78-TR\n\nNormas sobre el trabajo en sobretiempo.'),
 ('identificadores', 'otro', E'# Aviso\n\nTipo de cambio 2018 para solventar obligaciones; tasa 035 por ciento.');
-- other notices, so that an identifier's numbers are rare in the collection, as they are in
-- a real one (match_terms any ORs the rare lexemes; in a handful of documents none is rare)
INSERT INTO dof_documents (collection, source_id, body)
SELECT 'identificadores', 'aviso-' || g, format(E'# Aviso %s\n\nLa secretaría informa el tipo de cambio del día %s para el trabajo.', g + 100, g)
FROM generate_series(1, 60) g;
ANALYZE dof_chunks;
SELECT to_tsvector('dof_spanish', 'NOM-035-STPS-2018') AS hyphenated, to_tsvector('dof_spanish', 'nom 035 stps 2018') AS spaced;
-- every form finds its document first (the default match_terms any: the query's other
-- words may be missing, as "DS" or "rm" are from these bodies)
SELECT typed, (SELECT d.source_id FROM dof_text_search(typed, 1, 'identificadores') t
               JOIN dof_chunks c ON c.id = t.chunk_id JOIN dof_documents d ON d.id = c.document_id) AS first
FROM unnest(ARRAY['NOM-035-STPS-2018', 'nom 035 stps 2018', 'NOM 035', 'nom-035-stps', 'DS-092-2002-EF', 'ds 092 2002 ef',
                  'Decreto Supremo 092-2002-EF', 'decreto supremo nº 092-2002-ef', 'Nº 27056', 'ley 27056', 'LEY N° 27056', 'LEY N°27056', 'ley,27056', 'seguro,social;salud',
                  'articulo 40.', 'artículo 40', '018-78-TR', 'rm 018 78 tr', 'resolucion ministerial 018-78-tr',
                  'ds 92 2002 ef', 'DS-92-2002-EF', 'rm 18-78-tr', 'resolución ministerial 18 78 tr']) AS typed;
-- the rules below add lexemes at another's positions through dof_tsvector_add: an entry
-- (dof_tsvector_entry, quotes and backslashes escaped) for a lexeme the tsvector holds
-- merges its positions, and NULL entries (a rule that adds nothing) leave it as it was
SELECT dof_tsvector_add('''ley'':1A ''27056'':2B', dof_tsvector_entry('27056', '{5}', '{C}') || ' ' || dof_tsvector_entry('o''brien\', '{3,4}', '{D,A}')) AS added,
       dof_tsvector_add('''ley'':1A', NULL) AS unchanged;
-- a number with leading zeros is also indexed without them, at its positions and weight
-- (dof_number_variants); the query is read as typed, so 018 still matches only 018
SELECT dof_chunk_tsvector('dof_spanish', '{"Resolución Ministerial N.° 018-78-TR"}', 'Del 08 de abril; 0,5 y 10.05.', '{}') AS tsv;
SELECT count(*) AS chunks_with_018 FROM dof_text_search('018', 10, 'identificadores');
-- two ordinances told apart by their padded number alone: typed without its zeros, each
-- finds its own (0005 is stored first, so a tie would put it first)
INSERT INTO dof_documents (collection, source_id, body) VALUES
 ('identificadores', 'or-0005', E'# Ordenanza Regional Nro 0005-2019-GRU-GR\n\nAprueban el plan regional.'),
 ('identificadores', 'or-0004', E'# Ordenanza Regional Nro 0004-2019-GRU-GR\n\nAprueban el plan regional.');
SELECT typed, (SELECT d.source_id FROM dof_text_search(typed, 1, 'identificadores') t
               JOIN dof_chunks c ON c.id = t.chunk_id JOIN dof_documents d ON d.id = c.document_id) AS first
FROM unnest(ARRAY['ordenanza regional nro 4-2019-gru-gr', 'ordenanza regional 0004-2019', 'ordenanza 5 2019 gru gr',
                  'ordenanza regional nro 0004 - 2019-gru-gr']) AS typed;
-- an article number with an ordinal sign (Peru's 1º, the DOF's 5o), a word of its own to
-- the parser, is also indexed as the number (dof_number_variants): "articulo 1" finds
-- "Artículo 1º.-" (art-2 is stored first: a tie would put it first)
SELECT dof_chunk_tsvector('dof_spanish', '{}', 'Artículo 1º.- Objeto. Artículo 5o. Artículo 10A 2da', '{}') AS tsv;
INSERT INTO dof_documents (collection, source_id, body) VALUES
 ('identificadores', 'art-2', E'# Ley de prueba\n\nArtículo 2º.- Del objeto de la presente ley.'),
 ('identificadores', 'art-1', E'# Ley de prueba\n\nArtículo 1º.- Del objeto de la presente ley.');
SELECT typed, (SELECT d.source_id FROM dof_text_search(typed, 1, 'identificadores') t
               JOIN dof_chunks c ON c.id = t.chunk_id JOIN dof_documents d ON d.id = c.document_id) AS first
FROM unnest(ARRAY['articulo 1 objeto', 'artículo 1º objeto', 'articulo 2 objeto']) AS typed;
-- a number glued to its number sign (Nº454), one word to the parser, is also indexed as the
-- number, and a query follows a glued word with the number: each form finds the ordinance
-- that writes it glued and the one that writes it spaced (the other one stored first: a tie
-- would put it first). A degree sign glued to a number (N°454, N.°455) is a separator to
-- the parser, but websearch_to_tsquery made a phrase of it, 'n' <-> '454', which a body
-- writing Nº failed: a query spaces it, and a temperature (25°C) stays as it is. So are
-- words joined by a comma or a semicolon without a space (seguro,social), a phrase to
-- websearch_to_tsquery too; a number (1,500) stays as it is
SELECT dof_chunk_tsvector('dof_spanish', '{"ORDENANZA REGIONAL Nº454"}', 'Ley Nº0092', '{}') AS tsv, dof_query_words('Ley Nº27056, nº 5, Juanº1') AS words,
       dof_query_words('Ley N°27056, N.°455, 25°C') AS degree_sign, dof_query_words('vedas,camarón;golfo ley,27056 1,500') AS commas;
INSERT INTO dof_documents (collection, source_id, body) VALUES
 ('identificadores', 'or-455', E'# ORDENANZA REGIONAL Nº 455\n\nAprueban el reglamento de pesca.'),
 ('identificadores', 'or-454', E'# ORDENANZA REGIONAL Nº454\n\nAprueban el reglamento de pesca.');
SELECT typed, (SELECT d.source_id FROM dof_text_search(typed, 1, 'identificadores') t
               JOIN dof_chunks c ON c.id = t.chunk_id JOIN dof_documents d ON d.id = c.document_id) AS first
FROM unnest(ARRAY['ordenanza regional 454', 'Ordenanza Regional Nº454', 'ordenanza regional nº 454', 'ordenanza regional Nº455',
                  'Ordenanza Regional N°454', 'ordenanza regional N.°455']) AS typed;
-- words with two accepted spellings (setiembre and septiembre, sétima and séptima) are
-- written the one way in a query (dof_spelling) and also indexed that way
-- (dof_spelling_variants), the word as written kept: each spelling finds the document that
-- writes the other, a quoted phrase too. Each document differs from the one stored before
-- it only in its month and ordinal (a tie would put that one first)
SELECT dof_spelling('SÉTIMA Sétimo sétimo setima setiembre SETIEMBRE setiembr setim reset setenta séptima septiembre') AS spelled,
       dof_chunk_tsvector('dof_spanish', '{"Sétima disposición"}', 'el 30 de setiembre', '{}') AS tsv;
INSERT INTO dof_documents (collection, source_id, body) VALUES
 ('identificadores', 'agosto-pe', E'# Ordenanza regional\n\nPublicada el 29 de agosto de 2024 con la octava disposición final.'),
 ('identificadores', 'setiembre-pe', E'# Ordenanza regional\n\nPublicada el 29 de setiembre de 2024 con la sétima disposición final.'),
 ('identificadores', 'octubre-mx', E'# Aviso\n\nPublicado el 30 de octubre de 2024 con la octava disposición final.'),
 ('identificadores', 'septiembre-mx', E'# Aviso\n\nPublicado el 30 de septiembre de 2024 con la séptima disposición final.');
SELECT typed, (SELECT d.source_id FROM dof_text_search(typed, 1, 'identificadores') t
               JOIN dof_chunks c ON c.id = t.chunk_id JOIN dof_documents d ON d.id = c.document_id) AS first
FROM unnest(ARRAY['29 de septiembre de 2024', '29 de setiembre de 2024', '30 de setiembre de 2024', '30 DE SETIEMBRE',
                  'septima disposicion final 29', 'SÉTIMA disposición final 30', '"29 de septiembre"', '"30 de setiembre"']) AS typed;
-- a document's own article numbered in words (ARTÍCULO PRIMERO) is also indexed as the
-- figure, and one numbered in figures (Artículo 1.-, 1º, a heading) also as the word; a
-- citation inside a sentence (el artículo 2 de la Ley) keeps its one form
SELECT dof_chunk_tsvector('dof_spanish', '{"Artículo 3.- Del plan"}',
                          E'ARTÍCULO PRIMERO.- APROBAR el plan, según el artículo 2 de la Ley.\n**Artículo 1º.-** Objeto\n- Artículo sétimo.- Otro', '{}') AS tsv;
-- typed either way, each finds its own: each document differs from the one stored before it
-- only in its article's number (a tie would put that one first), and the citation, which
-- holds every word of the first query as written, is stored first
INSERT INTO dof_documents (collection, source_id, body) VALUES
 ('identificadores', 'cita', E'# Acuerdo regional\n\nAprobar el plan de pesca conforme al artículo 2 de la Ley 27867.'),
 ('identificadores', 'acuerdo-tercero', E'# Acuerdo regional\n\nARTÍCULO TERCERO.- Aprobar el plan de pesca.'),
 ('identificadores', 'acuerdo-segundo', E'# Acuerdo regional\n\nARTÍCULO SEGUNDO.- Aprobar el plan de pesca.'),
 ('identificadores', 'ley-4', E'# Ley del registro\n\n**Artículo 4.-** Del registro minero\n\nEl registro es público.'),
 ('identificadores', 'ley-3', E'# Ley del registro\n\n**Artículo 3.-** Del registro minero\n\nEl registro es público.');
SELECT typed, (SELECT d.source_id FROM dof_text_search(typed, 1, 'identificadores') t
               JOIN dof_chunks c ON c.id = t.chunk_id JOIN dof_documents d ON d.id = c.document_id) AS first
FROM unnest(ARRAY['artículo 2 aprobar plan de pesca', 'articulo segundo aprobar plan de pesca',
                  'artículo tercero registro minero', 'articulo 3 registro minero']) AS typed;
SELECT d.source_id, c.tsv @@ to_tsquery('dof_spanish', 'segundo') AS holds_segundo, c.tsv @@ to_tsquery('dof_spanish', '2') AS holds_2
FROM dof_chunks c JOIN dof_documents d ON d.id = c.document_id
WHERE d.source_id IN ('cita', 'acuerdo-segundo') ORDER BY 1;
-- a date in figures is read as its words (dof_date_words), in a query and in a stored date
-- joined by slashes or dots; figures inside a longer identifier, and a month over 12, are no
-- date. Typed either way, each date finds its own: each document differs from the one stored
-- before it only in its date's month (a tie would put that one first)
SELECT dof_query_words('DOF 12/04/2024, 2024-04-12, 1.2.2019, 31-12-2023, 13/13/2020, 02-31-01-2020, 05-12-2019-EF') AS words,
       dof_chunk_tsvector('dof_spanish', '{}', 'el 12/04/2024 y el 05.03.2021, versión 1.500.000, tomo 31.13.2024', '{}') AS tsv;
INSERT INTO dof_documents (collection, source_id, body) VALUES
 ('identificadores', 'mayo-palabras', E'# Aviso\n\nSe publicó el 12 de mayo de 2024 en el diario.'),
 ('identificadores', 'abril-palabras', E'# Aviso\n\nSe publicó el 12 de abril de 2024 en el diario.'),
 ('identificadores', 'abril-cifras', E'# Constancia\n\nRecibido con fecha 05/04/2021 por la mesa de partes.'),
 ('identificadores', 'marzo-cifras', E'# Constancia\n\nRecibido con fecha 05/03/2021 por la mesa de partes.'),
 ('identificadores', 'junio-puntos', E'# Constancia\n\nRecibido con fecha 07.06.2022 por la mesa de partes.'),
 ('identificadores', 'julio-puntos', E'# Constancia\n\nRecibido con fecha 07.07.2022 por la mesa de partes.');
SELECT typed, (SELECT d.source_id FROM dof_text_search(typed, 1, 'identificadores') t
               JOIN dof_chunks c ON c.id = t.chunk_id JOIN dof_documents d ON d.id = c.document_id) AS first
FROM unnest(ARRAY['publicado el 12/04/2024', 'publicado el 2024-04-12', 'publicado el 12.04.2024', '12 de abril de 2024',
                  'fecha 5 de marzo de 2021', 'fecha 05/03/2021', '"05/03/2021"', 'fecha 7 de julio de 2022', 'fecha 07.07.2022']) AS typed;
-- identifiers joined by slashes and dots, which PostgreSQL's parser reads as one lexeme each
-- (cusco/gr, the host 097-2024-g.r.pasco, ine/cg280/2024), are also indexed as their words
-- (dof_word_parts); a query's slashes and dots separate its words the same way
-- (dof_query_words), and a query in double quotes keeps the joined form. Each pair differs
-- only there, the wrong one stored first (a tie would put it first): every form finds its own
SELECT dof_query_words('Oficio N° 358-2024-GR CUSCO/GR, D.S. Nº 068, art. 4.1, 1.500.000, G.R.PASCO/CR') AS words;
SELECT dof_chunk_tsvector('dof_spanish', '{"Acuerdo N.° 097-2024-G.R.PASCO/CR"}', 'Oficio 358-2024-GR CUSCO/GR, artículo 4.1.', '{}') AS tsv;
INSERT INTO dof_documents (collection, source_id, body) VALUES
 ('identificadores', 'oficio-puno', E'# Oficio N° 358-2024-GR PUNO/GR\n\nRemite el informe de la gerencia.'),
 ('identificadores', 'oficio-cusco', E'# Oficio N° 358-2024-GR CUSCO/GR\n\nRemite el informe de la gerencia.'),
 ('identificadores', 'acuerdo-junin', E'# Acuerdo de consejo\n\nSe aprueba el Acuerdo N.° 097-2024-G.R.JUNIN/CR del consejo.'),
 ('identificadores', 'acuerdo-pasco', E'# Acuerdo de consejo\n\nSe aprueba el Acuerdo N.° 097-2024-G.R.PASCO/CR del consejo.'),
 ('identificadores', 'ine-cg281', 'El Consejo General aprobó el acuerdo INE/CG281/2024 sobre peritos.'),
 ('identificadores', 'ine-cg280', 'El Consejo General aprobó el acuerdo INE/CG280/2024 sobre peritos.');
SELECT typed, (SELECT d.source_id FROM dof_text_search(typed, 1, 'identificadores') t
               JOIN dof_chunks c ON c.id = t.chunk_id JOIN dof_documents d ON d.id = c.document_id) AS first
FROM unnest(ARRAY['oficio 358 2024 gr cusco gr', 'Oficio N° 358-2024-GR CUSCO/GR', 'gr-cusco-gr', 'acuerdo 97 2024 gr pasco cr',
                  '097-2024-GR-PASCO-CR', 'g.r.pasco/cr', 'ine cg280 2024', 'INE/CG280/2024', '"INE/CG280/2024"']) AS typed;

-- YAML front matter is data: its fields become the metadata, its title the title, and
-- no chunk holds it; its identifier is searchable (dof_chunk_tsvector) though the body
-- spells it otherwise; HTML character references in its values are decoded (Mar&iacute;tima);
-- a malformed block stays text, with a WARNING
INSERT INTO dof_documents (collection, source_id, body) VALUES
 ('identificadores', 'pe-ds-011', E'---\ntitle: Aprueban el Reglamento de Pesca Mar&iacute;tima\nidentifier: DS-011-2024-PRODUCE\npublication_date: ''2024-05-02''\nstatus: in_force\n---\n# Aprueban el Reglamento de Pesca\n\n## DECRETO SUPREMO Nº 011-2024-PRODUCE\n\nEl presidente de la república decreta.');
SELECT title, metadata, (SELECT string_agg(c.content, ' | ') FROM dof_chunks c WHERE c.document_id = d.id) AS chunks,
       (SELECT min(c.char_start) FROM dof_chunks c WHERE c.document_id = d.id) = strpos(body, '# Aprueban') - 1 AS offsets_in_body
FROM dof_documents d WHERE source_id = 'pe-ds-011';
SELECT count(*) AS found_by_status FROM dof_hybrid_search('reglamento de pesca', 3, 'identificadores', filter => '{"status": "in_force"}');
SELECT d.source_id FROM dof_text_search('ds 011 2024 produce', 1, 'identificadores', match_terms => 'all') t
JOIN dof_chunks c ON c.id = t.chunk_id JOIN dof_documents d ON d.id = c.document_id;
INSERT INTO dof_documents (collection, source_id, body) VALUES
 ('identificadores', 'roto', E'---\ntitle: [sin cerrar\n---\n# Texto\n\nUn párrafo.');
SELECT title, metadata, (SELECT c.content FROM dof_chunks c WHERE c.document_id = d.id ORDER BY c.chunk_index LIMIT 1) LIKE '---%' AS block_is_text
FROM dof_documents d WHERE source_id = 'roto';
-- a byte order mark before it (a file saved on Windows, read with pg_read_file) hides
-- neither the front matter nor the first heading, and no chunk holds it
INSERT INTO dof_documents (collection, source_id, body) VALUES
 ('identificadores', 'con-bom', E'\ufeff---\ntitle: Ley con marca\nstatus: in_force\n---\n# Ley con marca\n\nArtículo 1. Texto.'),
 ('identificadores', 'con-bom-sin-yaml', E'\ufeff# Aviso con marca\n\nTexto del aviso.');
SELECT d.source_id, d.title, d.metadata, c.heading_path, c.content, c.char_start,
       substr(d.body, c.char_start + 1, c.char_end - c.char_start) = c.content AS offsets_point_at_content
FROM dof_documents d JOIN dof_chunks c ON c.document_id = d.id WHERE d.source_id LIKE 'con-bom%' ORDER BY 1, c.chunk_index;

-- The rules' chain is one function (dof_tsvector_rules): every stored tsvector is the chain
-- over the parsed text, and the chain adds nothing to a tsvector it built, which the upgrade
-- script relies on to index again only the chunks a rule is missing from
SELECT count(*) > 20 AS chunks,
       bool_and(c.tsv = dof_tsvector_rules('dof_spanish', setweight(to_tsvector('dof_spanish', array_to_string(c.heading_path || (c.metadata ->> 'identifier'), ' ')), 'A')
                                                          || setweight(to_tsvector('dof_spanish', c.content), 'B'),
                                           c.heading_path, c.content)) AS stored_is_the_chain,
       bool_and(dof_tsvector_rules('dof_spanish', c.tsv, c.heading_path, c.content) = c.tsv) AS chain_adds_nothing_again,
       bool_or(c.tsv <> setweight(to_tsvector('dof_spanish', array_to_string(c.heading_path || (c.metadata ->> 'identifier'), ' ')), 'A')
                        || setweight(to_tsvector('dof_spanish', c.content), 'B')) AS some_rule_added
FROM dof_chunks c JOIN dof_collections k ON k.name = c.collection WHERE k.text_search_config = 'dof_spanish'::regconfig;
