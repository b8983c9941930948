-- Included (\ir) by the bench/sql/quality_<rule>.sql scripts once they have undone their rule
-- (CREATE OR REPLACE of its function, in their transaction): the chunks holding a lexeme
-- that matches the regular expression :'lexemes' (those the rule can have changed) indexed
-- again, then scored into without_rule (rule_scores.sql).
UPDATE dof_chunks c SET tsv = dof_chunk_tsvector(k.text_search_config, c.heading_path, c.content, c.metadata)
FROM dof_collections k
WHERE k.name = c.collection AND c.collection = 'eval-independent'
  AND EXISTS (SELECT 1 FROM unnest(c.tsv) l WHERE l.lexeme ~ :'lexemes');
\set scores without_rule
\ir rule_scores.sql
