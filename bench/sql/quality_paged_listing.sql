-- A DOF edition's closing index as PDF converters render it, measured: on a quality
-- database that bench/scripts/retrieval_quality.sh left (pg_dof_quality_<set>, collection
-- eval-independent), every question through the product's dof_evaluate_questions (vector,
-- text, hybrid) with today's dof_contents, whose index rule (dof_paged_listing) reads titles
-- wrapped over several lines (pymupdf4llm), titles set as table rows with their pages
-- (marker, docling) and skips lines without a letter (page markers `{401}-----`, rules);
-- then again with dof_contents as it was before (an index's title only a line ending in dot
-- leaders, table rows aside, every other line an entry), in a transaction rolled back.
-- Prints per method MRR@10 before and after, the questions that went up and down, and the
-- chunks each rule leaves out:
--   psql -d pg_dof_quality_dof_pymupdf4llm -f bench/sql/quality_paged_listing.sql
-- (quality_paged_listing_corpora.sql counts what each rule leaves out of every shared
-- corpus file.)
\set ON_ERROR_STOP on
\pset pager off
SET client_min_messages = warning;
\ir paged_listing_before.sql
BEGIN;
CREATE TEMP TABLE paged_after AS
SELECT method, question_id, reciprocal_rank
FROM dof_evaluate_questions($q$SELECT id, question, corpus_id AS source_id, reference AS answer FROM eval_questions$q$,
                            'eval-independent', methods => ARRAY['vector', 'text', 'hybrid']);
SELECT count(*) FILTER (WHERE dof_contents(heading_path, content)) AS left_out_after
FROM dof_chunks WHERE collection = 'eval-independent' \gset
CREATE OR REPLACE FUNCTION dof_contents(heading_path text[], content text) RETURNS boolean LANGUAGE sql IMMUTABLE AS $f$
    SELECT pg_temp.contents_before(heading_path, content)
$f$;
CREATE TEMP TABLE paged_before AS
SELECT method, question_id, reciprocal_rank
FROM dof_evaluate_questions($q$SELECT id, question, corpus_id AS source_id, reference AS answer FROM eval_questions$q$,
                            'eval-independent', methods => ARRAY['vector', 'text', 'hybrid']);
SELECT current_database() AS set, b.method, count(*) AS questions,
       round(avg(b.reciprocal_rank)::numeric, 3) AS "MRR@10 before", round(avg(a.reciprocal_rank)::numeric, 3) AS "after",
       count(*) FILTER (WHERE a.reciprocal_rank > b.reciprocal_rank) AS up,
       count(*) FILTER (WHERE a.reciprocal_rank < b.reciprocal_rank) AS down,
       (SELECT count(*) FILTER (WHERE dof_contents(heading_path, content)) FROM dof_chunks WHERE collection = 'eval-independent')
           AS "chunks left out before", :left_out_after AS "after"
FROM paged_before b JOIN paged_after a USING (method, question_id)
GROUP BY b.method ORDER BY b.method;
ROLLBACK;
