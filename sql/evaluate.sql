-- Measuring search on your own questions, in SQL: dof_evaluate runs every question through
-- each search method of this extension and scores where the expected passage came.
--
-- questions: a query (or a table name) with the columns question and source_id (the
-- document that answers it), and optionally char_start and char_end (0-based, end
-- exclusive: the answer's characters in that document's body) or answer (an int4range or
-- int4multirange of them, for an answer in several places). A returned chunk is relevant
-- when it belongs to that document and, with a range, overlaps it.
--
-- methods: 'vector', 'text', 'hybrid' (the defaults of dof_hybrid_search), and any of them
-- with arguments after a colon, 'hybrid:fusion=rrf', 'hybrid:alpha=0.3,candidate_pool=100',
-- 'text:match_terms=all': the arguments are the search function's own, by name.
--
-- Per method: MRR@k (1 / the rank of the first relevant chunk, 0 when none in the k),
-- R@1 and R@5 (a relevant chunk first / in the first 5), nDCG@k (binary relevance, the
-- ideal ranking puts the question's relevant chunks first), recall@k (the share of the
-- question's relevant chunks among the k) and the mean milliseconds of one search (the
-- question's embedding is computed once, before, and given to every method).
CREATE FUNCTION dof_evaluate(questions text, collection text DEFAULT NULL, k integer DEFAULT 10,
                             methods text[] DEFAULT ARRAY['vector', 'text', 'hybrid', 'hybrid:fusion=rrf'])
    RETURNS TABLE (method text, questions_scored integer, mrr double precision, r_at_1 double precision,
                   r_at_5 double precision, ndcg double precision, recall double precision, mean_ms double precision)
    LANGUAGE plpgsql VOLATILE SET search_path FROM CURRENT AS $$
DECLARE
    settings dof_collections := dof_collection(collection);
    source text := CASE WHEN questions ~ '^\s*(SELECT|WITH|VALUES|TABLE)\s' THEN questions
                        ELSE format('SELECT * FROM %s', questions::regclass) END;
    spec text;
    leg text;
    arguments text;
    named text;
    search text;
    allowed text[];
    pair text;
    item record;
    t0 timestamptz;
    ids bigint[];
BEGIN
    IF k IS NULL OR k < 1 OR k > 1000 THEN
        RAISE EXCEPTION 'k must be between 1 and 1000, got %', coalesce(k::text, 'NULL') USING ERRCODE = 'invalid_parameter_value';
    END IF;
    -- a second call in one transaction finds them (IF NOT EXISTS would say so in a NOTICE)
    IF to_regclass('pg_temp.dof_evaluate_questions') IS NULL THEN
        CREATE TEMP TABLE dof_evaluate_questions (id integer, question text, source_id text, answer int4multirange,
                                                  embedding vector)
            ON COMMIT DROP;
    END IF;
    IF to_regclass('pg_temp.dof_evaluate_runs') IS NULL THEN
        CREATE TEMP TABLE dof_evaluate_runs (method text, question integer, ids bigint[], ms double precision) ON COMMIT DROP;
    END IF;
    TRUNCATE dof_evaluate_questions, dof_evaluate_runs;
    EXECUTE format($q$INSERT INTO dof_evaluate_questions
        SELECT row_number() OVER (), j->>'question', j->>'source_id',
               CASE WHEN j->>'answer' LIKE '{%%' THEN (j->>'answer')::int4multirange
                    WHEN j->>'answer' IS NOT NULL THEN int4multirange((j->>'answer')::int4range)
                    WHEN j->>'char_start' IS NOT NULL
                    THEN int4multirange(int4range((j->>'char_start')::integer, (j->>'char_end')::integer)) END
        FROM (SELECT to_jsonb(q) AS j FROM (%s) q) s$q$, source);
    IF EXISTS (SELECT 1 FROM dof_evaluate_questions WHERE question IS NULL OR source_id IS NULL) THEN
        RAISE EXCEPTION 'every question needs the columns question and source_id'
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'e.g. SELECT q AS question, doc AS source_id, start AS char_start, stop AS char_end FROM my_questions';
    END IF;
    IF NOT EXISTS (SELECT 1 FROM dof_evaluate_questions) THEN
        RAISE EXCEPTION 'no questions' USING ERRCODE = 'invalid_parameter_value',
            HINT = 'the questions query returned no rows';
    END IF;
    UPDATE dof_evaluate_questions SET embedding = dof_embed_query(question, settings.model);
    FOREACH spec IN ARRAY methods LOOP
        leg := split_part(spec, ':', 1);
        arguments := nullif(substr(spec, length(leg) + 2), '');
        allowed := CASE leg WHEN 'vector' THEN ARRAY['filter']
                            WHEN 'text' THEN ARRAY['filter', 'ranking', 'match_terms']
                            WHEN 'hybrid' THEN ARRAY['filter', 'candidate_pool', 'rrf_k', 'dedup_by_source', 'ranking', 'match_terms',
                                                     'fusion', 'alpha', 'vector_weight', 'text_weight'] END;
        IF allowed IS NULL THEN
            RAISE EXCEPTION 'unknown method "%"', spec USING ERRCODE = 'invalid_parameter_value',
                HINT = 'vector, text or hybrid, with the search''s arguments after a colon: hybrid:fusion=rrf,alpha=0.3';
        END IF;
        -- the arguments as named arguments of the search function, each value a literal
        -- the function's parameter type reads
        named := '';
        FOREACH pair IN ARRAY coalesce(string_to_array(arguments, ','), '{}') LOOP
            IF split_part(pair, '=', 1) <> ALL (allowed) OR strpos(pair, '=') = 0 THEN
                RAISE EXCEPTION 'method "%": unknown argument "%"', spec, pair
                    USING ERRCODE = 'invalid_parameter_value', HINT = format('%s takes %s', leg, array_to_string(allowed, ', '));
            END IF;
            named := named || format(', %I => %L', split_part(pair, '=', 1), substr(pair, strpos(pair, '=') + 1));
        END LOOP;
        search := CASE leg
            WHEN 'vector' THEN format('SELECT array_agg(chunk_id ORDER BY rank) FROM dof_vector_search($1, $2, $3, query_embedding => $4%s)', named)
            WHEN 'text' THEN format('SELECT array_agg(chunk_id ORDER BY rank) FROM dof_text_search($1, $2, $3%s)', named)
            ELSE format('SELECT array_agg(chunk_id ORDER BY score DESC, chunk_id) FROM dof_hybrid_search($1, $2, $3, query_embedding => $4%s)', named)
        END;
        FOR item IN SELECT * FROM dof_evaluate_questions ORDER BY id LOOP
            t0 := clock_timestamp();
            EXECUTE search INTO ids USING item.question, k, settings.name, item.embedding;
            INSERT INTO dof_evaluate_runs VALUES (spec, item.id, ids,
                                                  extract(epoch FROM clock_timestamp() - t0) * 1000);
        END LOOP;
    END LOOP;
    RETURN QUERY
    WITH relevant AS (  -- each question's relevant chunks in the collection
        SELECT q.id AS question, c.id AS chunk
        FROM dof_evaluate_questions q
        JOIN dof_documents d ON d.collection = settings.name AND d.source_id = q.source_id
        JOIN dof_chunks c ON c.document_id = d.id
        WHERE q.answer IS NULL OR q.answer && int4range(c.char_start, c.char_end)
    ), totals AS (
        SELECT q.id AS question, count(r.chunk) AS relevant_chunks
        FROM dof_evaluate_questions q LEFT JOIN relevant r ON r.question = q.id GROUP BY q.id
    ), returned AS (
        SELECT r.method, r.question, r.ms, x.rank, (rel.chunk IS NOT NULL) AS hit
        FROM dof_evaluate_runs r
        LEFT JOIN LATERAL unnest(r.ids) WITH ORDINALITY AS x(chunk, rank) ON true
        LEFT JOIN relevant rel ON rel.question = r.question AND rel.chunk = x.chunk
    ), per_question AS (
        SELECT x.method, x.question, x.ms, min(x.rank) FILTER (WHERE x.hit) AS first_hit,
               coalesce(sum(1 / log(2, x.rank + 1)) FILTER (WHERE x.hit), 0) AS dcg,
               count(*) FILTER (WHERE x.hit) AS hits, t.relevant_chunks
        FROM returned x JOIN totals t ON t.question = x.question
        GROUP BY x.method, x.question, x.ms, t.relevant_chunks
    )
    SELECT p.method, count(*)::integer,
           avg(coalesce(1.0 / p.first_hit, 0))::double precision,
           avg(coalesce((p.first_hit = 1)::integer, 0))::double precision,
           avg(coalesce((p.first_hit <= 5)::integer, 0))::double precision,
           avg(CASE WHEN p.relevant_chunks = 0 THEN 0
                    ELSE p.dcg / (SELECT sum(1 / log(2, i + 1)) FROM generate_series(1, least(k, p.relevant_chunks)) i) END)::double precision,
           avg(CASE WHEN p.relevant_chunks = 0 THEN 0 ELSE p.hits::double precision / least(k, p.relevant_chunks) END)::double precision,
           avg(p.ms)::double precision
    FROM per_question p
    GROUP BY p.method
    ORDER BY array_position(methods, p.method);
END
$$;
COMMENT ON FUNCTION dof_evaluate(text, text, integer, text[]) IS
    'Scores search methods on a set of questions: questions is a query or table with question and source_id (and optionally char_start, char_end: the answer in that document); methods are vector, text, hybrid, each with the search''s own arguments after a colon (hybrid:fusion=rrf,alpha=0.3); returns per method MRR@k, R@1, R@5, nDCG@k, recall@k and mean search milliseconds';
