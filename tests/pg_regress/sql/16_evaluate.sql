-- dof_evaluate: a user's own questions scored through every search method, in SQL.
CREATE EXTENSION pg_dof CASCADE;
\set SHOW_CONTEXT never
SET client_min_messages = warning;
INSERT INTO dof_collections (name) VALUES ('ev');
INSERT INTO dof_documents (collection, source_id, body) VALUES
 ('ev', 'tipo', E'# Tipo de cambio\n\nEl Banco de México publica el tipo de cambio del dólar.'),
 ('ev', 'nom', E'# NOM-035-STPS-2018\n\nFactores de riesgo psicosocial en los centros de trabajo.'),
 ('ev', 'pesca', E'# Reglamento de pesca\n\nVedas de camarón en el Golfo de México.');
CREATE TABLE preguntas (pregunta text, documento text, desde integer, hasta integer);
INSERT INTO preguntas VALUES
 ('tipo de cambio del dólar', 'tipo', NULL, NULL),
 ('riesgo psicosocial', 'nom', NULL, NULL),
 ('vedas de camarón', 'pesca', 20, 40),
 -- the words are only in 'tipo', but the answer range is in 'pesca': a miss for every method
 ('banco del dólar', 'pesca', 0, 5);
-- the text leg's ranks are exact: three questions first, one missed: MRR (1 + 1 + 1 + 0) / 4
SELECT method, questions_scored, round(mrr::numeric, 3) AS mrr, round(r_at_1::numeric, 3) AS r1,
       round(r_at_5::numeric, 3) AS r5, round(ndcg::numeric, 3) AS ndcg, round(recall::numeric, 3) AS recall,
       mean_ms >= 0 AS timed
FROM dof_evaluate($$SELECT pregunta AS question, documento AS source_id, desde AS char_start, hasta AS char_end FROM preguntas$$,
                  'ev', methods => ARRAY['text', 'text:match_terms=all']);
-- every method by default, a table name as the questions, k: one row per method in order
CREATE TABLE preguntas_simples AS SELECT pregunta AS question, documento AS source_id FROM preguntas WHERE desde IS NULL;
SELECT method, questions_scored, mrr > 0.5 AS finds_them FROM dof_evaluate('preguntas_simples', 'ev', k => 3);
-- kinds of question: per method a row over every question (kind NULL), then one per kind,
-- in the kinds' order; the question without a kind (the miss) counts in the first row only:
-- text 0.75 over four, 1 for each kind; the kind's type is any (an integer here)
CREATE TABLE preguntas_con_tipo AS
SELECT pregunta AS question, documento AS source_id, desde AS char_start, hasta AS char_end,
       CASE WHEN desde IS NULL THEN 'sin rango' WHEN pregunta LIKE 'banco%' THEN NULL ELSE 'con rango' END AS kind
FROM preguntas;
SELECT method, kind, questions_scored, round(mrr::numeric, 3) AS mrr, round(r_at_1::numeric, 3) AS r1
FROM dof_evaluate('preguntas_con_tipo', 'ev', methods => ARRAY['text', 'text:match_terms=all']);
SELECT method, kind, questions_scored, round(mrr::numeric, 3) AS mrr
FROM dof_evaluate($$SELECT question, source_id, char_start, char_end, length(question) % 2 AS kind FROM preguntas_con_tipo$$,
                  'ev', methods => ARRAY['text']);
-- no collection named: every collection, as the searches with none named (the questions'
-- documents are in 'ev', not in the default collection, which it scored alone, 0 each)
SELECT method, questions_scored, round(mrr::numeric, 3) AS mrr FROM dof_evaluate('preguntas_simples', methods => ARRAY['text', 'vector']);
-- per question, the kind as given
SELECT question, kind, first_hit FROM dof_evaluate_questions('preguntas_con_tipo', 'ev', methods => ARRAY['text']);
-- an answer in several places: int4multirange
SELECT method, round(mrr::numeric, 3) AS mrr
FROM dof_evaluate($$SELECT 'banco del dólar' AS question, 'tipo' AS source_id, '{[0,3), [20,30)}'::int4multirange AS answer$$,
                  'ev', methods => ARRAY['text']);
-- the chunks that answer a question, by id (an array, or one id): relevant only among its
-- document's chunks, so the 'tipo' chunk given for a 'pesca' question is not (a WARNING)
SELECT question, source_id, relevant_chunks, first_hit
FROM dof_evaluate_questions($$SELECT 'vedas de camarón' AS question, 'pesca' AS source_id,
                                     ARRAY(SELECT c.id FROM dof_chunks c JOIN dof_documents d ON d.id = c.document_id WHERE d.source_id = 'pesca') AS chunk_ids
                              UNION ALL
                              SELECT 'riesgo psicosocial', 'nom',
                                     ARRAY[(SELECT c.id FROM dof_chunks c JOIN dof_documents d ON d.id = c.document_id WHERE d.source_id = 'nom')]
                              UNION ALL
                              SELECT 'banco del dólar', 'pesca',
                                     ARRAY(SELECT c.id FROM dof_chunks c JOIN dof_documents d ON d.id = c.document_id WHERE d.source_id = 'tipo')$$,
                            'ev', methods => ARRAY['text']);
SELECT method, round(mrr::numeric, 3) AS mrr
FROM dof_evaluate($$SELECT 'riesgo psicosocial' AS question, 'nom' AS source_id,
                           (SELECT c.id FROM dof_chunks c JOIN dof_documents d ON d.id = c.document_id WHERE d.source_id = 'nom') AS chunk_ids$$,
                  'ev', methods => ARRAY['text']);
-- per question: where each question's first relevant chunk came, its document, and the
-- question's own id to join back; the fourth question's words are in 'tipo', so 'tipo'
-- came first and the 'pesca' range was not met
SELECT method, question_id, question, source_id, first_hit, round(reciprocal_rank::numeric, 3) AS rr,
       round(ndcg::numeric, 3) AS ndcg, round(recall::numeric, 3) AS recall, relevant_chunks,
       cardinality(chunk_ids) >= 1 AS returned, first_source_id, ms >= 0 AS timed
FROM dof_evaluate_questions($$SELECT 'p' || row_number() OVER (ORDER BY pregunta) AS id, pregunta AS question,
                                     documento AS source_id, desde AS char_start, hasta AS char_end FROM preguntas$$,
                            'ev', k => 3, methods => ARRAY['text']);
-- without an id, the row's number; the method's arguments kept as given, a method named
-- twice run once
SELECT method, question_id, first_hit, recall
FROM dof_evaluate_questions($$SELECT 'vedas de camarón' AS question, 'pesca' AS source_id UNION ALL SELECT 'riesgo psicosocial', 'nom'$$,
                            'ev', methods => ARRAY['text:match_terms=all', 'text', 'text:match_terms=all']);
-- a source_id that is not in the collection, or a range past the body, can only score 0:
-- a WARNING says how many, and their rows say relevant_chunks = 0
SELECT method, questions_scored, round(mrr::numeric, 3) AS mrr
FROM dof_evaluate($$SELECT * FROM (VALUES ('vedas de camarón', 'pezca', NULL::int4range), ('riesgo psicosocial', 'nom', NULL),
                                           ('riesgo', 'nom', '[5000,5010)')) v(question, source_id, answer)$$,
                  'ev', methods => ARRAY['text']);
SELECT question, source_id, relevant_chunks, first_hit, reciprocal_rank
FROM dof_evaluate_questions($$SELECT 'vedas de camarón' AS question, 'pezca' AS source_id$$, 'ev', methods => ARRAY['text']);
-- mistakes are clear errors
SELECT * FROM dof_evaluate('preguntas_simples', 'ev', methods => ARRAY['keyword']);
SELECT * FROM dof_evaluate('preguntas_simples', 'ev', methods => ARRAY['hybrid:alfa=0.3']);
SELECT * FROM dof_evaluate('preguntas_simples', 'ev', methods => ARRAY['hybrid:alpha=2']);
-- a value its parameter's type cannot read, or an argument given twice, is named before any
-- search runs (the search's own error quoted the statement dof_evaluate builds)
SELECT * FROM dof_evaluate('preguntas_simples', 'ev', methods => ARRAY['text', 'hybrid:alpha=abc']);
SELECT * FROM dof_evaluate('preguntas_simples', 'ev', methods => ARRAY['hybrid:candidate_pool=1.5']);
SELECT * FROM dof_evaluate('preguntas_simples', 'ev', methods => ARRAY['hybrid:alpha=0.3,fusion=rrf,alpha=0.6']);
SELECT * FROM dof_evaluate($$SELECT pregunta FROM preguntas$$, 'ev');
SELECT * FROM dof_evaluate($$SELECT pregunta AS question, documento AS source_id FROM preguntas WHERE false$$, 'ev');
SELECT * FROM dof_evaluate('preguntas_simples', 'ev', k => 0);
SELECT * FROM dof_evaluate('no_such_table', 'ev');
SELECT * FROM dof_evaluate('preguntas_simples', 'no_such_collection');
SELECT * FROM dof_evaluate_questions('preguntas_simples', 'ev', methods => ARRAY['keyword']);
SELECT * FROM dof_evaluate(NULL, 'ev');
SELECT * FROM dof_evaluate($$SELECT * FROM (VALUES ('vedas de camarón', 'pesca'), ('  ', 'nom')) v(question, source_id)$$, 'ev');
SELECT * FROM dof_evaluate('preguntas de prueba', 'ev');
SELECT * FROM dof_evaluate('otro_esquema.preguntas', 'ev');
SELECT * FROM dof_evaluate($$SELECT 'vedas de camarón' AS question, 'pesca' AS source_id, 40 AS char_start, 20 AS char_end$$, 'ev');
SELECT * FROM dof_evaluate($$SELECT 'vedas de camarón' AS question, 'pesca' AS source_id, ARRAY['uno'] AS chunk_ids$$, 'ev');
SELECT * FROM dof_evaluate($$SELECT 'vedas de camarón' AS question, 'pesca' AS source_id, -3 AS chunk_ids$$, 'ev');
-- an answer that is no range, a char_start that is no integer: named as the questions'
-- (PostgreSQL's own error quoted the whole statement that read them); no method is an error
-- (it returned no row)
SELECT * FROM dof_evaluate($$SELECT 'vedas de camarón' AS question, 'pesca' AS source_id, '{[40,20)}' AS answer$$, 'ev');
SELECT * FROM dof_evaluate($$SELECT 'vedas de camarón' AS question, 'pesca' AS source_id, 'diez' AS char_start, 20 AS char_end$$, 'ev');
SELECT * FROM dof_evaluate('preguntas_simples', 'ev', methods => ARRAY[]::text[]);
SELECT * FROM dof_evaluate_questions('preguntas_simples', 'ev', methods => NULL);
-- every method is read before any question: the unknown one is named, not the blank question
SELECT * FROM dof_evaluate($$SELECT '  ' AS question, 'pesca' AS source_id$$, 'ev', methods => ARRAY['text', 'hybrid', 'keyword']);
-- a query is read as one in any case, after comments, or in parentheses (a lowercase
-- select was read as a table's name: "invalid name syntax")
SELECT method, questions_scored FROM dof_evaluate($$select pregunta as question, documento as source_id from preguntas where desde is null$$,
                                                  'ev', methods => ARRAY['text']);
SELECT method, questions_scored FROM dof_evaluate(E'-- mis preguntas\n/* sin rango */ (select question, source_id from preguntas_simples)',
                                                  'ev', methods => ARRAY['text']);
SELECT method, questions_scored FROM dof_evaluate('  values (''vedas de camarón'', ''pesca'')', 'ev', methods => ARRAY['text']);
-- a column it does not read is named in a WARNING, with what it reads: a misnamed answer
-- (char_range) or id (question_id) was dropped without a word, and every chunk of the
-- question's document counted as relevant; the error for a missing question or source_id
-- names the columns the questions have, or the question whose value is NULL
SELECT method, questions_scored FROM dof_evaluate($$SELECT 7 AS question_id, 'vedas de camarón' AS question, 'pesca' AS source_id, '[0,5)'::int4range AS char_range$$,
                                                  'ev', methods => ARRAY['text']);
SELECT question_id, first_hit FROM dof_evaluate_questions($$SELECT 'vedas de camarón' AS question, 'pesca' AS source_id, 'x' AS nota$$, 'ev', methods => ARRAY['text']);
SELECT * FROM dof_evaluate($$SELECT 'vedas de camarón' AS pregunta, 'pesca' AS source_id$$, 'ev');
SELECT * FROM dof_evaluate($$SELECT * FROM (VALUES ('vedas de camarón', 'pesca'), (NULL, 'nom')) v(question, source_id)$$, 'ev');
-- text searches alone embed no question (the model ran for every question, needed or not):
-- the query cache sees no lookup; a vector method embeds each question once
SELECT dof_query_cache_clear();
SELECT method, questions_scored FROM dof_evaluate('preguntas_simples', 'ev', methods => ARRAY['text', 'text:match_terms=all']);
SELECT entries, hits, misses FROM dof_query_cache();
SELECT method, questions_scored FROM dof_evaluate('preguntas_simples', 'ev', methods => ARRAY['text', 'vector']);
SELECT entries = (SELECT count(DISTINCT question) FROM preguntas_simples) AS each_embedded_once, hits FROM dof_query_cache();
-- as a role that may search but not see every document: the questions are scored on what
-- row-level security lets it read (the 'pesca' document is hidden: its question is a miss)
CREATE ROLE dof_evaluator;
GRANT SELECT ON dof_documents, dof_chunks, dof_collections, dof_models, dof_term_stats, dof_collection_stats TO dof_evaluator;
ALTER TABLE dof_chunks ENABLE ROW LEVEL SECURITY;
CREATE POLICY sin_pesca ON dof_chunks FOR SELECT TO dof_evaluator
    USING (document_id <> (SELECT id FROM dof_documents WHERE source_id = 'pesca'));
SELECT array_agg(c.id ORDER BY c.id)::text AS pesca_ids FROM dof_chunks c JOIN dof_documents d ON d.id = c.document_id WHERE d.source_id = 'pesca' \gset
SELECT array_agg(c.id ORDER BY c.id)::text AS nom_ids FROM dof_chunks c JOIN dof_documents d ON d.id = c.document_id WHERE d.source_id = 'nom' \gset
SET ROLE dof_evaluator;
SELECT method, questions_scored, round(mrr::numeric, 3) AS mrr FROM dof_evaluate($$SELECT 'vedas de camarón' AS question, 'pesca' AS source_id UNION ALL SELECT 'riesgo psicosocial', 'nom'$$, 'ev', methods => ARRAY['text']);
SELECT count(*) AS pesca_visible FROM dof_chunks c JOIN dof_documents d ON d.id = c.document_id WHERE d.source_id = 'pesca';
-- per question, the hidden document's question has no relevant chunk this role can read
SELECT question, relevant_chunks, first_hit, first_source_id
FROM dof_evaluate_questions($$SELECT 'vedas de camarón' AS question, 'pesca' AS source_id UNION ALL SELECT 'riesgo psicosocial', 'nom'$$, 'ev', methods => ARRAY['text']);
-- and given the hidden chunks' ids: still none of them counts (nor tells the role it exists);
-- the visible document's ids count as they do for any caller
SELECT question, relevant_chunks, first_hit, first_source_id
FROM dof_evaluate_questions(format($$SELECT 'vedas de camarón' AS question, 'pesca' AS source_id, %L::bigint[] AS chunk_ids
                                     UNION ALL SELECT 'riesgo psicosocial', 'nom', %L::bigint[]$$, :'pesca_ids', :'nom_ids'),
                            'ev', methods => ARRAY['text']);
RESET ROLE;
SELECT method, questions_scored, round(mrr::numeric, 3) AS mrr FROM dof_evaluate($$SELECT 'vedas de camarón' AS question, 'pesca' AS source_id UNION ALL SELECT 'riesgo psicosocial', 'nom'$$, 'ev', methods => ARRAY['text']);
DROP POLICY sin_pesca ON dof_chunks;
ALTER TABLE dof_chunks DISABLE ROW LEVEL SECURITY;
DROP OWNED BY dof_evaluator;
DROP ROLE dof_evaluator;
-- two calls in one transaction (one per kind of question, say) say nothing but their figures
SET client_min_messages = notice;
SELECT s.kind, e.method, e.questions_scored
FROM (VALUES ('vedas de camarón', 'pesca'), ('riesgo psicosocial', 'nom')) s(kind, source),
     LATERAL dof_evaluate(format($$SELECT %L AS question, %L AS source_id$$, s.kind, s.source), 'ev', methods => ARRAY['text']) e;
SET client_min_messages = warning;
-- Whether a difference is more than chance. The sign test is exact: 0 of 10 questions
-- 2/1024, 1 of 10 2·11/1024, an even split 1, no difference 1; a negative count is NULL;
-- 3,000 to 0 is a tiny number, not an underflow error
SELECT b, w, round(dof_sign_test(b, w)::numeric, 9) AS p
FROM (VALUES (0, 10), (10, 0), (1, 9), (5, 5), (0, 0), (3, 0), (-1, 2)) v(b, w);
SELECT dof_sign_test(3000, 0) BETWEEN 0 AND 1e-300 AS tiny;
-- each method against the first on the same questions: every word must match
-- (match_terms=all) misses the two questions with a word no document holds, which any
-- word finds: text is better on 2, worse on none (p = 2 · 1/4); the first method's row
-- has no comparison. Questions are paired by their place, so an id given to every one
-- pairs them all the same
CREATE TABLE preguntas_pareadas AS
SELECT 1 AS id, question, source_id, 'simple' AS kind FROM preguntas_simples
UNION ALL SELECT 1, 'vedas de camarón y ballenas', 'pesca', 'palabra ausente'
UNION ALL SELECT 1, 'riesgo psicosocial en minas', 'nom', 'palabra ausente';
SELECT method, kind, questions_scored, round(mrr::numeric, 3) AS mrr, better, worse, round(p_value::numeric, 3) AS p_value,
       round(mrr_margin::numeric, 3) AS mrr_margin
FROM dof_evaluate('preguntas_pareadas', 'ev', methods => ARRAY['text:match_terms=all', 'text']);
-- and every figure is what the questions' own rows give: a recount from
-- dof_evaluate_questions (margin: 1.96 standard errors of the reciprocal ranks)
WITH q AS (SELECT * FROM dof_evaluate_questions('preguntas_pareadas', 'ev', methods => ARRAY['vector', 'text', 'text:match_terms=all'])),
     recount AS (SELECT m.method, count(*) FILTER (WHERE m.reciprocal_rank > f.reciprocal_rank) AS better,
                        count(*) FILTER (WHERE m.reciprocal_rank < f.reciprocal_rank) AS worse,
                        1.959964 * stddev_samp(m.reciprocal_rank) / sqrt(count(*)) AS margin
                 FROM q m JOIN q f ON f.method = 'vector' AND f.question = m.question
                 GROUP BY m.method)
SELECT e.method, r.better AS recount_better, r.worse AS recount_worse,
       e.better IS NOT DISTINCT FROM CASE WHEN e.method <> 'vector' THEN r.better END
                 AND e.worse IS NOT DISTINCT FROM CASE WHEN e.method <> 'vector' THEN r.worse END
                 AND e.p_value IS NOT DISTINCT FROM CASE WHEN e.method <> 'vector' THEN dof_sign_test(r.better, r.worse) END
                 AND round(e.mrr_margin::numeric, 9) = round(r.margin::numeric, 9) AS recounted
FROM dof_evaluate('preguntas_pareadas', 'ev', methods => ARRAY['vector', 'text', 'text:match_terms=all']) e
JOIN recount r ON r.method = e.method
WHERE e.kind IS NULL;
-- the question's document, whatever its passage: a document of two chunks, the question's
-- words in the first and its answer in the second. The text leg returns the first chunk
-- first: the right document (document_hit 1), the wrong passage (first_hit 2), so
-- document_mrr 1 and mrr 0.5
INSERT INTO dof_collections (name, max_tokens, chunker_options) VALUES ('ev2', 40, '{"pattern": "plain_text"}');
INSERT INTO dof_documents (collection, source_id, body) VALUES
 ('ev2', 'ley', E'Las vedas de camarón en el Golfo de México se fijan cada año por acuerdo de la secretaría competente.\n\nEl acuerdo de vedas se publica en el Diario Oficial de la Federación antes del primero de marzo de cada año.');
SELECT count(*) AS chunks, string_agg(format('[%s,%s)', char_start, char_end), ' ' ORDER BY char_start) AS ranges FROM dof_chunks WHERE collection = 'ev2';
SELECT method, first_hit, document_hit
FROM dof_evaluate_questions($$SELECT 'vedas de camarón en el golfo' AS question, 'ley' AS source_id,
                                     int4range(strpos(body, 'El acuerdo') - 1, length(body)) AS answer
                              FROM dof_documents WHERE source_id = 'ley'$$, 'ev2', methods => ARRAY['text']);
SELECT method, round(mrr::numeric, 3) AS mrr, round(document_mrr::numeric, 3) AS document_mrr
FROM dof_evaluate($$SELECT 'vedas de camarón en el golfo' AS question, 'ley' AS source_id,
                           int4range(strpos(body, 'El acuerdo') - 1, length(body)) AS answer
                    FROM dof_documents WHERE source_id = 'ley'$$, 'ev2', methods => ARRAY['text']);
