-- dof_embed_query: the real multilingual-e5-small model inside the backend.
CREATE EXTENSION pg_dof CASCADE;
SELECT vector_dims(dof_embed_query('hola')) AS dims,
       round(vector_norm(dof_embed_query('hola'))::numeric, 4) AS norm;

-- a paraphrase is closer than an unrelated sentence (self-checking, so no float noise)
WITH q AS (SELECT dof_embed_query('¿Qué reglas fiscales publicó el SAT?') AS v)
SELECT (q.v <=> dof_embed_query('El Servicio de Administración Tributaria dio a conocer la resolución miscelánea fiscal'))
     < (q.v <=> dof_embed_query('El equipo de fútbol ganó el campeonato el domingo')) AS paraphrase_is_closer
FROM q;

-- the same text gives the same vector (cached session, deterministic inference): with the
-- query cache off, the model runs for each
SET pg_dof.query_cache_size = 0;
SELECT dof_query_cache_clear();
SELECT dof_embed_query('Diario Oficial de la Federación') = dof_embed_query('Diario Oficial de la Federación') AS deterministic;
SELECT entries, capacity, hits, misses FROM dof_query_cache();
RESET pg_dof.query_cache_size;

-- a query embedded again comes from the query cache (pg_dof.query_cache_size, per backend):
-- the model's vector, counted as a hit, and so is the same query in a batch of queries
-- (dof_embed with as_query: a text repeated in it is embedded once, its copies counted as
-- hits); another model's is another entry, and a passage (dof_embed) is not a query
SELECT dof_query_cache_clear();
CREATE TEMP TABLE first_run AS SELECT dof_embed_query('licitación de medicamentos') AS v;
SELECT entries, capacity, hits, misses, hit_rate FROM dof_query_cache();
SELECT dof_embed_query('licitación de medicamentos') = (SELECT v FROM first_run) AS same_vector,
       dof_embed_query('licitación de medicamentos', 'hash-384') <> (SELECT v FROM first_run) AS other_model,
       (SELECT embedding FROM dof_embed(ARRAY['licitación de medicamentos'])) <> (SELECT v FROM first_run) AS passage_differs;
SELECT entries, hits, misses FROM dof_query_cache();
SELECT ordinality, embedding = (SELECT v FROM first_run) AS same_vector
FROM dof_embed(ARRAY['licitación de medicamentos', 'compra de vacunas', 'compra de vacunas'], as_query => true);
SELECT entries, hits, misses, round(hit_rate::numeric, 2) AS hit_rate FROM dof_query_cache();
-- bounded: the least recently used entries go first
SET pg_dof.query_cache_size = 1;
SELECT vector_dims(dof_embed_query('otra consulta')) AS dims;
SELECT entries, capacity FROM dof_query_cache();
-- off: what it held is not served (a miss), and it is emptied
SET pg_dof.query_cache_size = 0;
SELECT vector_dims(dof_embed_query('otra consulta')) AS dims;
SELECT entries, hits, misses FROM dof_query_cache();
RESET pg_dof.query_cache_size;
DROP TABLE first_run;
-- an unprivileged role uses the cache like any other (the functions need no grant), and it
-- never serves a vector past the registry: a role that may not read dof_models gets no
-- vector, even of a query this backend already holds
CREATE ROLE dof_asker NOLOGIN;
GRANT SELECT ON dof_models TO dof_asker;
SELECT dof_query_cache_clear();
SELECT vector_dims(dof_embed_query('multas por pesca ilegal')) AS dims;
SET ROLE dof_asker;
SELECT dof_query_cache_clear();
SELECT dof_embed_query('multas por pesca ilegal') = dof_embed_query('multas por pesca ilegal') AS same_vector;
SELECT entries, hits, misses FROM dof_query_cache();
RESET ROLE;
REVOKE SELECT ON dof_models FROM dof_asker;
SET ROLE dof_asker;
SELECT vector_dims(dof_embed_query('multas por pesca ilegal')) AS dims;
SELECT entries, hits, misses FROM dof_query_cache();
RESET ROLE;
DROP ROLE dof_asker;

-- an HNSW index on a vector(384) column serves ORDER BY <=>
-- (embedded as inserted: an UPDATE would leave broken HOT chains, and the new index would
-- stay unusable while any older snapshot is open anywhere in the cluster)
CREATE TABLE notices (id int PRIMARY KEY, body text NOT NULL, embedding vector(384));
INSERT INTO notices (id, body, embedding)
SELECT id, body, dof_embed_query(body) FROM (VALUES
  (1, 'Convocatoria a licitación pública nacional para la adquisición de medicamentos'),
  (2, 'Resolución miscelánea fiscal para el ejercicio 2024 del Servicio de Administración Tributaria'),
  (3, 'Tipo de cambio para solventar obligaciones denominadas en moneda extranjera'),
  (4, 'Norma Oficial Mexicana sobre etiquetado de alimentos y bebidas no alcohólicas'),
  (5, 'Decreto por el que se otorgan estímulos fiscales a la región fronteriza norte'),
  (6, 'Aviso de término de la emergencia sanitaria por la epidemia de influenza')) AS n(id, body);
CREATE INDEX notices_embedding_idx ON notices USING hnsw (embedding vector_cosine_ops);
SET enable_seqscan = off;
EXPLAIN (COSTS OFF)
SELECT id FROM notices ORDER BY embedding <=> dof_embed_query('compra de fármacos') LIMIT 3;
SELECT id, body FROM notices ORDER BY embedding <=> dof_embed_query('compra de fármacos por el gobierno'), id LIMIT 1;
RESET enable_seqscan;
DROP TABLE notices;
