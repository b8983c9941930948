-- Pseudo-relevance feedback for the text leg (RM3's idea), measured and not kept
-- (docs/measurements.md, "Feedback terms"): the words that weigh most in the first chunks a
-- hybrid search returns, added to the question for a second search. A paraphrase names
-- what the law says in other words; the chunks found first might lend the text leg the
-- law's own. On a quality database that bench/scripts/retrieval_quality.sh left with this
-- tree (pg_dof_quality_<set>, collection eval-independent):
--   - the feedback chunks: the first m (1, 2 or 3) of dof_hybrid_search(question);
--   - a lexeme's weight: the sum over them of its occurrences over the chunk's distinct
--     lexemes, divided by the chunk's rank, times its BM25 IDF in the collection (the text
--     leg's own: dof_bm25_idfs over dof_term_stats and dof_collection_stats); lexemes of
--     the question and those with a figure are left out; the e (3 or 8) heaviest are
--     appended to the question as words;
--   - the second search is dof_hybrid_search(question and terms) with the question's own
--     embedding (query_embedding): only the text leg reads the terms.
-- A question's first relevant rank is the first chunk of its source whose bounds overlap
-- its answer, the rule dof_evaluate applies (the "none" row equals dof_evaluate's MRR@10).
-- Prints MRR@10 and the share of questions answered first per variant, and the questions
-- each moved up and down:
--   psql -d pg_dof_quality_dof -f bench/sql/quality_feedback_terms.sql
\set ON_ERROR_STOP on
\set QUIET on
\pset pager off
\pset footer off
SET client_min_messages = warning;
BEGIN;
CREATE TEMP TABLE feedback AS
SELECT e.id, e.question, e.corpus_id, e.reference, dof_embed_query(e.question) AS query_embedding,
       (SELECT array_agg(h.chunk_id ORDER BY h.score DESC, h.chunk_id)
        FROM dof_hybrid_search(e.question, 3, 'eval-independent') h) AS ids,
       coalesce(tsvector_to_array(dof_query_vector((dof_collection('eval-independent')).text_search_config, e.question)),
                '{}') AS question_lexemes
FROM eval_questions e;
-- the IDF of every lexeme of the feedback chunks, as the text leg computes it
CREATE TEMP TABLE lexeme_idf AS
SELECT l.lexeme, l.idf
FROM (SELECT array_agg(t.lexeme ORDER BY t.lexeme) AS lexemes, array_agg(t.chunks::double precision ORDER BY t.lexeme) AS chunks
      FROM dof_term_stats('eval-independent',
                          ARRAY(SELECT DISTINCT u.lexeme FROM feedback f, unnest(f.ids) AS i(chunk_id)
                                JOIN dof_chunks c ON c.id = i.chunk_id, unnest(c.tsv) AS u)) t) s,
     unnest(s.lexemes, dof_bm25_idfs(s.chunks, (SELECT chunks FROM dof_collection_stats('eval-independent')))) AS l(lexeme, idf);
CREATE INDEX ON lexeme_idf (lexeme);
CREATE TEMP TABLE variants AS
SELECT * FROM (VALUES ('none', 0, 0), ('m=1 e=3', 1, 3), ('m=1 e=8', 1, 8), ('m=2 e=5', 2, 5), ('m=3 e=5', 3, 5)) v(variant, m, e);
CREATE TEMP TABLE expanded AS
SELECT v.variant, f.id,
       f.question || coalesce(' ' || (
           SELECT string_agg(t.lexeme, ' ' ORDER BY t.weight DESC)
           FROM (SELECT u.lexeme,
                        sum(coalesce(cardinality(u.positions), 1)::double precision / greatest(length(c.tsv), 1) / r.rank)
                        * idf.idf AS weight
                 FROM unnest(f.ids[1:v.m]) WITH ORDINALITY AS r(chunk_id, rank)
                 JOIN dof_chunks c ON c.id = r.chunk_id
                 CROSS JOIN LATERAL unnest(c.tsv) AS u
                 JOIN lexeme_idf idf ON idf.lexeme = u.lexeme
                 WHERE u.lexeme <> ALL (f.question_lexemes) AND u.lexeme !~ '[0-9]'
                 GROUP BY u.lexeme, idf.idf
                 ORDER BY weight DESC LIMIT v.e) t), '') AS query
FROM feedback f CROSS JOIN variants v;
CREATE TEMP TABLE first_hits AS
SELECT x.variant, f.id,
       (SELECT min(h.rank)
        FROM (SELECT row_number() OVER (ORDER BY s.score DESC, s.chunk_id) AS rank, s.chunk_id, s.source_id
              FROM dof_hybrid_search(x.query, 10, 'eval-independent', query_embedding => f.query_embedding) s) h
        JOIN dof_chunks c ON c.id = h.chunk_id
        WHERE h.source_id = f.corpus_id AND int4range(c.char_start, c.char_end) && ANY (SELECT unnest(f.reference))) AS first_hit
FROM expanded x JOIN feedback f USING (id);
SELECT h.variant, count(*) AS questions, round(avg(coalesce(1.0 / h.first_hit, 0)), 3) AS mrr_at_10,
       round(avg((h.first_hit = 1)::integer), 3) AS first_at_1,
       count(*) FILTER (WHERE coalesce(h.first_hit, 99) < coalesce(b.first_hit, 99)) AS up,
       count(*) FILTER (WHERE coalesce(h.first_hit, 99) > coalesce(b.first_hit, 99)) AS down
FROM first_hits h JOIN first_hits b ON b.id = h.id AND b.variant = 'none'
GROUP BY h.variant ORDER BY h.variant = 'none' DESC, h.variant;
ROLLBACK;
