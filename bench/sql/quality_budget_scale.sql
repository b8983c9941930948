-- match_terms => 'any' at a scale this machine cannot load (docs/measurements.md, "The
-- budget at scale, simulated"). The text leg ORs a query's selective words while their
-- chunks stay within a budget of 2,000 estimated matches, and matches the query itself
-- (every word) when even the rarest word is in more chunks. At the DOF's ~131,000
-- documents (~16 million chunks) nearly every word is, so the fallback is what users get.
-- Simulated by shrinking the budget with the collection: 2,000 x 1,825 / 16 million is
-- ~0.25 on the mixed set's chunks (30 and 3 for ~120,000 and ~1.2 million chunks). Each
-- budget with the product's fallback ('all') and with the alternative measured against
-- it ('and': the rarest words AND'ed, as few as bring the estimated matches, the
-- collection's chunks times the product of each word's share, within the budget). On a
-- quality database that bench/scripts/retrieval_quality.sh left (pg_dof_quality_<set>),
-- the set's questions but the front matter's lookups, text and hybrid MRR@10 through
-- dof_evaluate, in a transaction rolled back:
--   psql -d pg_dof_quality_dof -f bench/sql/quality_budget_scale.sql
\set ON_ERROR_STOP on
\pset format unaligned
SET client_min_messages = warning;
BEGIN;
ALTER FUNCTION dof_any_terms_query(tsquery, text[], double precision[], double precision[], double precision) RENAME TO dof_any_terms_query_orig;
CREATE FUNCTION dof_any_terms_query(query tsquery, lexemes text[], idfs double precision[], chunks double precision[],
                                    budget double precision DEFAULT 2000) RETURNS tsquery
    LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
    b double precision := current_setting('bench.budget')::double precision;
    r tsquery := dof_any_terms_query_orig(query, lexemes, idfs, chunks, b);
    total double precision;
    conj tsquery;
BEGIN
    IF current_setting('bench.mode') <> 'and' OR chunks IS NULL OR r::text <> query::text OR query::text ~ '[|!<]' THEN
        RETURN r;
    END IF;
    -- N from the IDF of the first lexeme held: idf = ln(1 + (N - n + 0.5) / (n + 0.5))
    SELECT (exp(t.idf) - 1) * (t.n + 0.5) + t.n - 0.5 INTO total
    FROM unnest(idfs, chunks) AS t(idf, n) WHERE t.n > 0 LIMIT 1;
    SELECT string_agg('''' || replace(s.lexeme, '''', '''''') || '''', ' & ' ORDER BY s.idf DESC, s.lexeme)::tsquery INTO conj
    FROM (SELECT t.lexeme, t.idf,
                 coalesce(sum(ln(t.n / total)) OVER (ORDER BY t.idf DESC, t.lexeme ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS before
          FROM unnest(lexemes, idfs, chunks) AS t(lexeme, idf, n) WHERE t.n > 0) s
    WHERE total * exp(s.before) > b;
    RETURN coalesce(conj, r);
END
$$;
CREATE TEMP TABLE results (budget text, mode text, method text, mrr double precision, ms double precision);
\set qs 'SELECT question, corpus_id AS source_id, reference AS answer FROM eval_questions WHERE kind IS NULL OR kind NOT LIKE ''front matter%'''
SELECT set_config('bench.budget', '2000', true), set_config('bench.mode', 'all', true) \gset
INSERT INTO results SELECT '2000', 'all', method, mrr, mean_ms FROM dof_evaluate(:'qs', 'eval-independent', methods => ARRAY['text', 'hybrid']);
SELECT set_config('bench.budget', '30', true) \gset
INSERT INTO results SELECT '30', 'all', method, mrr, mean_ms FROM dof_evaluate(:'qs', 'eval-independent', methods => ARRAY['text', 'hybrid']);
SELECT set_config('bench.mode', 'and', true) \gset
INSERT INTO results SELECT '30', 'and', method, mrr, mean_ms FROM dof_evaluate(:'qs', 'eval-independent', methods => ARRAY['text', 'hybrid']);
SELECT set_config('bench.budget', '3', true), set_config('bench.mode', 'all', true) \gset
INSERT INTO results SELECT '3', 'all', method, mrr, mean_ms FROM dof_evaluate(:'qs', 'eval-independent', methods => ARRAY['text', 'hybrid']);
SELECT set_config('bench.mode', 'and', true) \gset
INSERT INTO results SELECT '3', 'and', method, mrr, mean_ms FROM dof_evaluate(:'qs', 'eval-independent', methods => ARRAY['text', 'hybrid']);
SELECT set_config('bench.budget', '0.25', true), set_config('bench.mode', 'all', true) \gset
INSERT INTO results SELECT '0.25', 'all', method, mrr, mean_ms FROM dof_evaluate(:'qs', 'eval-independent', methods => ARRAY['text', 'hybrid']);
SELECT set_config('bench.mode', 'and', true) \gset
INSERT INTO results SELECT '0.25', 'and', method, mrr, mean_ms FROM dof_evaluate(:'qs', 'eval-independent', methods => ARRAY['text', 'hybrid']);
SELECT budget, mode, method, round(mrr::numeric, 3), round(ms::numeric, 1) FROM results;
ROLLBACK;
