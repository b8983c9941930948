-- Included (\ir) by the bench/sql/quality_<rule>.sql scripts after rule_scores.sql ran with
-- and without their rule: MRR@10 per method and kind of question without / with, and how
-- many questions went up and down.
SELECT w.method, a.kind, count(*) AS n,
       round(avg(o.reciprocal_rank)::numeric, 3) AS without_rule, round(avg(w.reciprocal_rank)::numeric, 3) AS with_rule,
       count(*) FILTER (WHERE w.reciprocal_rank > o.reciprocal_rank) AS up,
       count(*) FILTER (WHERE w.reciprocal_rank < o.reciprocal_rank) AS down
FROM with_rule w JOIN without_rule o USING (method, question_id) JOIN asked a USING (question_id)
GROUP BY 1, 2 ORDER BY 1, 2;
