-- dof_embed (batches), dof_embed_late, the model registry, the hash embedder, bad input.
CREATE EXTENSION pg_dof CASCADE;
\set SHOW_CONTEXT never
SELECT name, kind, dimension, max_positions, query_prefix, passage_prefix, is_default, builtin
FROM dof_models ORDER BY name;

-- one row per text, in input order, unit vectors; a text embedded alone gives the same vector
SELECT ordinality, vector_dims(embedding) AS dims, round(vector_norm(embedding)::numeric, 4) AS norm
FROM dof_embed(ARRAY['Aviso de licitación', 'Decreto por el que se reforma la Ley Federal de Derechos', 'hola'])
ORDER BY ordinality;
SELECT (SELECT embedding FROM dof_embed(ARRAY['uno', 'dos dos dos dos', 'tres']) WHERE ordinality = 2)
     = (SELECT embedding FROM dof_embed(ARRAY['dos dos dos dos'])) AS batch_equals_alone;
-- as_query uses the query prefix: the same vector as dof_embed_query
SELECT (SELECT embedding FROM dof_embed(ARRAY['compra de fármacos'], as_query => true))
     = dof_embed_query('compra de fármacos') AS as_query_matches;

-- late chunking: one vector per chunk; context changes the vectors
WITH late AS (
  SELECT ordinality, embedding FROM dof_embed_late(ARRAY[
    '# Decreto por el que se reforma la Ley Federal de Derechos',
    'Artículo Único. Se reforman los artículos 5 y 8.',
    'Transitorio. Entrará en vigor al día siguiente de su publicación.'])
), alone AS (
  SELECT ordinality, embedding FROM dof_embed(ARRAY[
    '# Decreto por el que se reforma la Ley Federal de Derechos',
    'Artículo Único. Se reforman los artículos 5 y 8.',
    'Transitorio. Entrará en vigor al día siguiente de su publicación.'])
)
SELECT late.ordinality, round(vector_norm(late.embedding)::numeric, 4) AS norm,
       late.embedding <> alone.embedding AS differs_from_independent
FROM late JOIN alone USING (ordinality) ORDER BY ordinality;

-- the built-in int8 variant: the default model's weights, its vectors within a small angle
-- of the default's (self-checking thresholds), and the same paraphrase ranking
WITH texts(t) AS (VALUES ('Resolución Miscelánea Fiscal para 2024'), ('Aviso de licitación pública nacional'),
                         ('Decreto por el que se reforma la Ley Federal de Derechos'))
SELECT t, vector_dims(dof_embed_query(t, 'multilingual-e5-small-int8')) AS dims,
       1 - (dof_embed_query(t, 'multilingual-e5-small-int8') <=> dof_embed_query(t)) > 0.99 AS close_to_default,
       dof_embed_query(t, 'multilingual-e5-small-int8') <> dof_embed_query(t) AS another_model
FROM texts ORDER BY t;
WITH q AS (SELECT dof_embed_query('¿Qué reglas fiscales publicó el SAT?', 'multilingual-e5-small-int8') AS v)
SELECT (q.v <=> dof_embed_query('El Servicio de Administración Tributaria dio a conocer la resolución miscelánea fiscal', 'multilingual-e5-small-int8'))
     < (q.v <=> dof_embed_query('El equipo de fútbol ganó el campeonato el domingo', 'multilingual-e5-small-int8')) AS paraphrase_is_closer
FROM q;

-- the hash embedder: deterministic, any dimension, no files
SELECT (SELECT embedding FROM dof_embed(ARRAY['Diario Oficial'], 'hash-384'))
     = (SELECT embedding FROM dof_embed(ARRAY['Diario Oficial'], 'hash-384')) AS deterministic,
       vector_dims(dof_embed_query('Diario Oficial', 'hash-384')) AS dims;
INSERT INTO dof_models (name, kind, dimension) VALUES ('hash-12', 'hash', 12);
SELECT vector_dims(embedding) FROM dof_embed(ARRAY['doce'], 'hash-12');

-- registering: files are checked and the dimension is probed
SELECT name, dimension, is_default FROM dof_register_model('e5-copy',
  'multilingual-e5-small/model.onnx', 'multilingual-e5-small/tokenizer.json', 'query: ', 'passage: ');
SELECT dof_register_model('broken', 'nowhere/model.onnx', 'nowhere/tokenizer.json');
-- a max_positions over the model's position table (e5: 512) is refused at registration,
-- where it used to fail every chunk over 512 tokens later (22023; ONNX Runtime's words after
-- the colon); 512 itself registers
DO $$
BEGIN
    PERFORM dof_register_model('e5-long', 'multilingual-e5-small/model.onnx', 'multilingual-e5-small/tokenizer.json',
                               max_positions => 1024);
EXCEPTION WHEN invalid_parameter_value THEN
    RAISE NOTICE '% %', SQLSTATE, split_part(SQLERRM, ':', 1);
END
$$;
SELECT count(*) AS registered FROM dof_models WHERE name = 'e5-long';
SELECT name, max_positions FROM dof_register_model('e5-long', 'multilingual-e5-small/model.onnx',
                                                   'multilingual-e5-small/tokenizer.json', max_positions => 512);
DELETE FROM dof_models WHERE name = 'e5-long';
SELECT dof_register_model('../x', 'a', 'b');
-- a registry row whose dimension disagrees with the model
UPDATE dof_models SET dimension = 768, revision = 'wrong' WHERE name = 'e5-copy';
SELECT dof_embed_query('hola', 'e5-copy');
DELETE FROM dof_models WHERE name IN ('e5-copy', 'hash-12');

-- bad input
SELECT * FROM dof_embed(ARRAY[]::text[]);
SELECT * FROM dof_embed(ARRAY['uno', NULL]);
SELECT * FROM dof_embed(ARRAY[repeat('palabra ', 131072)]);
SELECT * FROM dof_embed(ARRAY['x'], 'no-such-model');
SELECT * FROM dof_embed_late(ARRAY['uno', 'dos'], ARRAY['solo uno']);
SELECT * FROM dof_embed_late(ARRAY['uno', '   ']);
-- long work stops at statement_timeout
SET statement_timeout = '300ms';
SELECT count(*) FROM dof_embed(ARRAY(SELECT repeat(format('Artículo %s de la ley. ', i), 60) FROM generate_series(1, 2000) i));
RESET statement_timeout;
SELECT 'still alive' AS backend;

-- every token reaches the model: a text over the model's 512 positions is embedded as
-- windows pooled into one vector, so its end moves the vector (cut at 512, it did not)
WITH long AS (SELECT repeat('Artículo primero de la ley federal de derechos. ', 150) AS body)
SELECT (SELECT count(*) FROM dof_chunk(body, 100000, 0)) AS chunks,
       (SELECT token_count FROM dof_chunk(body, 100000, 0)) > 1024 AS over_two_windows,
       (SELECT embedding FROM dof_embed(ARRAY[body || 'Al final: vedas de pesca de camarón.']))
         <=> (SELECT embedding FROM dof_embed(ARRAY[body || 'Al final: impuesto especial al tabaco.'])) > 0.0001 AS end_reaches_the_model
FROM long;
