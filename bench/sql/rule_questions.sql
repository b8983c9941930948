-- Included (\ir) first by the bench/sql/quality_<rule>.sql scripts that measure one rule
-- with and without it: psql's settings, the transaction they roll back, and the set's own
-- questions in the temp table asked (question_id, kind, question, source_id, answer), to
-- which each script adds the questions its rule is for.
\set ON_ERROR_STOP on
\pset pager off
\pset footer off
SET client_min_messages = warning;
BEGIN;
CREATE TEMP TABLE asked AS
SELECT 'q' || id AS question_id, 'the set''s questions' AS kind, question, corpus_id AS source_id, reference AS answer FROM eval_questions;
