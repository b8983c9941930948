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
\set ON_ERROR_STOP on
\pset pager off
SET client_min_messages = warning;
-- the earlier rule for an index under any heading (dof_dotted_listing, 0.3.0 before this)
CREATE FUNCTION pg_temp.dotted_listing(content text) RETURNS boolean LANGUAGE sql IMMUTABLE AS $f$
    WITH entries AS (SELECT btrim(line) AS line FROM regexp_split_to_table(content, '\n') AS line
                     WHERE btrim(line) <> '' AND btrim(line) !~ '^[#|]' AND btrim(line) !~ '^[0-9]+$'),
         titles AS (SELECT substring(line FROM '^(.*?)\.{4,}[0-9[:space:]]*$') AS title FROM entries)
    SELECT count(title) > 0 AND count(title) * 4 >= count(*) * 3
           AND sum(cardinality(regexp_split_to_array(btrim(title), '[[:space:]]+'))) >= count(title) * 5
    FROM titles
$f$;
BEGIN;
CREATE TEMP TABLE paged_after AS
SELECT method, question_id, reciprocal_rank
FROM dof_evaluate_questions($q$SELECT id, question, corpus_id AS source_id, reference AS answer FROM eval_questions$q$,
                            'eval-independent', methods => ARRAY['vector', 'text', 'hybrid']);
SELECT count(*) FILTER (WHERE dof_contents(heading_path, content)) AS left_out_after
FROM dof_chunks WHERE collection = 'eval-independent' \gset
CREATE OR REPLACE FUNCTION dof_contents(heading_path text[], content text) RETURNS boolean LANGUAGE sql IMMUTABLE AS $f$
    SELECT coalesce(CASE WHEN dof_contents_path(heading_path) THEN dof_listing(content)
                         ELSE pg_temp.dotted_listing(content) OR dof_outline(content) END, false)
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
