-- A vector leg that scores a chunk by its best piece, measured before building it: on a
-- quality database that bench/scripts/retrieval_quality.sh left (pg_dof_quality_<set>,
-- collection eval-independent), each chunk is cut again into pieces of at most
-- :piece_tokens tokens (dof_chunk, no overlap) and each piece embedded (dof_embed, the
-- collection's model); a chunk's similarity to a question is its best piece's (exact, no
-- index), and that list (50 chunks) is fused with the text leg's by the product's own
-- dof_fuse (the legs and hits: quality_legs.sql). Prints MRR@10 per method, the stored one-vector-per-chunk leg beside it, over
-- every question and, where the set has kinds, per kind:
--   psql -d pg_dof_quality_dof -v piece_tokens=200 -f bench/sql/quality_piece_vectors.sql
-- Embeds every chunk's text once more (the DOF set: about 3 minutes on 2 cores).
\set ON_ERROR_STOP on
\pset pager off
SET client_min_messages = warning;
SELECT set_config('pieces.tokens', :'piece_tokens', false);
CREATE TEMP TABLE pieces (chunk_id bigint, embedding vector);
DO $$
DECLARE
    c record;
    texts text[];
BEGIN
    FOR c IN SELECT ch.id, ch.content, co.model FROM dof_chunks ch JOIN dof_collections co ON co.name = ch.collection
             WHERE ch.collection = 'eval-independent' ORDER BY ch.id LOOP
        SELECT array_agg(p.content ORDER BY p.chunk_index) INTO texts
        FROM dof_chunk(c.content, max_tokens => current_setting('pieces.tokens')::integer, overlap_tokens => 0, model => c.model) p;
        IF coalesce(cardinality(texts), 0) < 2 THEN
            -- a chunk of one piece: its stored vector is that piece's
            INSERT INTO pieces SELECT c.id, ch.embedding FROM dof_chunks ch WHERE ch.id = c.id;
        ELSE
            INSERT INTO pieces SELECT c.id, e.embedding FROM dof_embed(texts, c.model) e;
        END IF;
    END LOOP;
END
$$;
SELECT count(*) AS pieces, count(DISTINCT chunk_id) AS chunks FROM pieces;
\ir quality_legs.sql
CREATE TEMP TABLE legs AS
SELECT q.id, q.kind,
       (SELECT array_agg(r.chunk) FROM grid_relevant r WHERE r.question = q.id) AS relevant,
       (SELECT array_agg(g.id ORDER BY g.rank) FROM grid_legs g WHERE g.question = q.id AND g.leg = 'v') AS vector_ids,
       (SELECT array_agg(g.score ORDER BY g.rank) FROM grid_legs g WHERE g.question = q.id AND g.leg = 'v') AS vector_scores,
       p.ids AS piece_ids, p.scores AS piece_scores,
       (SELECT array_agg(g.id ORDER BY g.rank) FROM grid_legs g WHERE g.question = q.id AND g.leg = 't') AS text_ids,
       (SELECT array_agg(g.score ORDER BY g.rank) FROM grid_legs g WHERE g.question = q.id AND g.leg = 't') AS text_scores
FROM eval_questions q,
LATERAL (SELECT array_agg(b.chunk_id ORDER BY b.score DESC, b.chunk_id) AS ids, array_agg(b.score ORDER BY b.score DESC, b.chunk_id) AS scores
         FROM (SELECT x.chunk_id, max(1 - (x.embedding <=> q.embedding)) AS score FROM pieces x
               GROUP BY x.chunk_id ORDER BY 2 DESC, 1 LIMIT 50) b) p;
CREATE TEMP TABLE ranks AS
SELECT l.id, l.kind,
       pg_temp.first_hit(l.vector_ids, l.relevant) AS vector,
       pg_temp.first_hit(l.piece_ids, l.relevant) AS pieces,
       pg_temp.first_hit(l.text_ids, l.relevant) AS text,
       pg_temp.first_hit((SELECT array_agg(f.id ORDER BY f.score DESC, f.id) FROM dof_fuse('weighted', l.vector_ids, l.vector_scores, l.text_ids, l.text_scores) f), l.relevant) AS hybrid,
       pg_temp.first_hit((SELECT array_agg(f.id ORDER BY f.score DESC, f.id) FROM dof_fuse('weighted', l.piece_ids, l.piece_scores, l.text_ids, l.text_scores) f), l.relevant) AS hybrid_pieces,
       pg_temp.first_hit((SELECT array_agg(f.id ORDER BY f.score DESC, f.id) FROM dof_fuse('rrf', l.vector_ids, l.vector_scores, l.text_ids, l.text_scores) f), l.relevant) AS rrf,
       pg_temp.first_hit((SELECT array_agg(f.id ORDER BY f.score DESC, f.id) FROM dof_fuse('rrf', l.piece_ids, l.piece_scores, l.text_ids, l.text_scores) f), l.relevant) AS rrf_pieces
FROM legs l;
SELECT coalesce(kind, 'all') AS questions, count(*) AS n,
       round(avg(coalesce(1.0 / vector, 0)), 3) AS vector, round(avg(coalesce(1.0 / pieces, 0)), 3) AS vector_pieces,
       round(avg(coalesce(1.0 / text, 0)), 3) AS text,
       round(avg(coalesce(1.0 / hybrid, 0)), 3) AS hybrid, round(avg(coalesce(1.0 / hybrid_pieces, 0)), 3) AS hybrid_pieces,
       round(avg(coalesce(1.0 / rrf, 0)), 3) AS rrf, round(avg(coalesce(1.0 / rrf_pieces, 0)), 3) AS rrf_pieces
FROM ranks GROUP BY GROUPING SETS ((), (kind)) HAVING kind IS NOT NULL OR GROUPING(kind) = 1
ORDER BY GROUPING(kind) DESC, kind;
