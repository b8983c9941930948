-- Included (\ir) by the bench/sql/quality_<rule>.sql scripts after rule_scores.sql ran with
-- and without their rule: MRR@10 per method and kind of question without / with, and how
-- many questions went up and down; then the questions whose hybrid rank moved, but for the
-- kinds matching the regular expression :'unlisted' (set it where they number hundreds).
\if :{?unlisted}
\else
\set unlisted '^$'
\endif
SELECT w.method, a.kind, count(*) AS n,
       round(avg(o.reciprocal_rank)::numeric, 3) AS without_rule, round(avg(w.reciprocal_rank)::numeric, 3) AS with_rule,
       count(*) FILTER (WHERE w.reciprocal_rank > o.reciprocal_rank) AS up,
       count(*) FILTER (WHERE w.reciprocal_rank < o.reciprocal_rank) AS down
FROM with_rule w JOIN without_rule o USING (method, question_id) JOIN asked a USING (question_id)
GROUP BY 1, 2 ORDER BY 1, 2;
SELECT a.kind, a.question, round(o.reciprocal_rank::numeric, 2) AS without_rule, round(w.reciprocal_rank::numeric, 2) AS with_rule
FROM with_rule w JOIN without_rule o USING (method, question_id) JOIN asked a USING (question_id)
WHERE w.method = 'hybrid' AND w.reciprocal_rank IS DISTINCT FROM o.reciprocal_rank AND a.kind !~ :'unlisted'
ORDER BY 1, 2;
