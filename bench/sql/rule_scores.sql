-- Included (\ir) by the bench/sql/quality_<rule>.sql scripts that measure one rule with and
-- without it: the text and hybrid reciprocal ranks of the questions in the temp table asked
-- (question_id, kind, question, source_id, answer), on collection eval-independent, into the
-- temp table named by :scores (with_rule, then without_rule).
CREATE TEMP TABLE :scores AS
SELECT e.method, e.question_id, e.reciprocal_rank
FROM dof_evaluate_questions('SELECT question_id AS id, question, source_id, answer FROM asked', 'eval-independent', methods => ARRAY['text', 'hybrid']) e;
