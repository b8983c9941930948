-- Measuring search on your own questions, in SQL: dof_evaluate_questions runs every
-- question through each search method of this extension and says where the expected
-- passage came; dof_evaluate sums that up per method.

-- The query that reads a user's questions: the text itself when it is a query (SELECT,
-- WITH, VALUES or TABLE in any case, after blanks, comments or an opening parenthesis),
-- otherwise every row of the table or view it names. NULL is refused (22004), and a name
-- that is not a table the caller can see keeps its own error with a hint that says what
-- questions may be: a lowercase `select ...` was read as a table name ("invalid name syntax").
CREATE FUNCTION dof_evaluate_source(questions text) RETURNS text
    LANGUAGE plpgsql STABLE SET search_path FROM CURRENT AS $$
DECLARE
    state text;
    message text;
BEGIN
    IF questions IS NULL THEN
        RAISE EXCEPTION 'questions must not be NULL' USING ERRCODE = 'null_value_not_allowed',
            HINT = 'a query such as SELECT q AS question, doc AS source_id FROM my_questions, or a table''s name';
    END IF;
    IF questions ~* '^(\s|--[^\n]*(\n|$)|/\*([^*]|\*+[^*/])*\*+/)*(\(|(SELECT|WITH|VALUES|TABLE)\M)' THEN
        RETURN questions;
    END IF;
    RETURN format('SELECT * FROM %s', questions::regclass);
EXCEPTION WHEN invalid_name OR undefined_table OR invalid_schema_name OR syntax_error OR feature_not_supported THEN
    GET STACKED DIAGNOSTICS state = RETURNED_SQLSTATE, message = MESSAGE_TEXT;
    RAISE EXCEPTION USING ERRCODE = state, MESSAGE = message,
        HINT = 'questions is a query (SELECT, WITH, VALUES or TABLE) or the name of a table or view with the columns question and source_id';
END
$$;
COMMENT ON FUNCTION dof_evaluate_source(text) IS
    'Internal: the query that reads dof_evaluate''s questions: the text when it is a query (SELECT, WITH, VALUES or TABLE, any case), otherwise every row of the table or view it names; NULL or a name that is no visible table is an error with a hint';

-- questions: a query (or a table name) with the columns question and source_id (the
-- document that answers it), and optionally char_start and char_end (0-based, end
-- exclusive: the answer's characters in that document's body) or answer (an int4range or
-- int4multirange of them, for an answer in several places), or chunk_ids (a bigint[] of
-- the dof_chunks ids that answer it, or one id: they change when the document is indexed
-- again, a range does not), id (any type: it comes back as question_id, to join the
-- rows to your table; without it, the row's number), and kind (any type: it comes back as
-- kind, and dof_evaluate scores each kind apart). A returned chunk is relevant when it
-- belongs to that document and, with a range, overlaps it, and, with chunk_ids, is one of them.
--
-- methods: 'vector', 'text', 'hybrid' (the defaults of dof_hybrid_search), and any of them
-- with arguments after a colon, 'hybrid:fusion=rrf', 'hybrid:alpha=0.3,candidate_pool=100',
-- 'text:match_terms=all': the arguments are the search function's own, by name.
--
-- Per method and question: the rank of the first relevant chunk (NULL when none in the k)
-- and its reciprocal (0 when none), nDCG@k (binary relevance, the ideal ranking puts the
-- question's relevant chunks first), recall@k (the share of the question's relevant chunks
-- among the k), how many relevant chunks the question has (0: its source_id or range
-- matches nothing this role can read, and it can only score 0, which a WARNING says), the
-- milliseconds of the search (the question's embedding is computed once, before, and given
-- to every vector and hybrid method; text methods alone embed none), the k chunk ids
-- returned, the document of the first, and the rank of the first chunk of the question's
-- document whatever its place in it (document_hit): a question whose document comes first
-- with another of its chunks is answered by the right document, not the right passage.
CREATE FUNCTION dof_evaluate_questions(questions text, collection text DEFAULT NULL, k integer DEFAULT 10,
                                       methods text[] DEFAULT ARRAY['vector', 'text', 'hybrid', 'hybrid:fusion=rrf'])
    RETURNS TABLE (method text, question_id text, question text, source_id text, first_hit integer,
                   reciprocal_rank double precision, ndcg double precision, recall double precision,
                   relevant_chunks integer, ms double precision, chunk_ids bigint[], first_source_id text, kind text,
                   document_hit integer)
    LANGUAGE plpgsql VOLATILE SET search_path FROM CURRENT AS $$
#variable_conflict use_column
DECLARE
    settings dof_collections := dof_collection(collection);
    -- a collection named: its chunks; none: every collection's, as a search with none named
    -- searches them, so the figures are those of the searches a user runs with the defaults
    -- (the question's document in any collection; the query embedded by the default
    -- collection's model, as a search's is)
    searched text := CASE WHEN collection IS NOT NULL THEN settings.name END;
    source text;
    spec text;
    leg text;
    arguments text;
    named text;
    search text;
    allowed text[];
    pair text;
    argument_name text;
    argument_value text;
    argument_type text;
    given text[];
    item record;
    t0 timestamptz;
    ids bigint[];
    n_missing bigint;
    searches text[] := '{}';
    method_number integer;
    -- the columns the questions' rows are read from; any other is named in a WARNING: a
    -- misnamed answer column (char_range, evidence) scored every chunk of the question's
    -- document as relevant without a word, and a misnamed id numbered the rows
    read_columns CONSTANT text[] := ARRAY['question', 'source_id', 'answer', 'char_start', 'char_end', 'chunk_ids', 'id', 'kind'];
    given_columns text[];
    unread text[];
    -- whether a method searches by vector: text searches alone embed no question (the
    -- mixed set's 580 questions, text leg alone: 6.5 s with their embeddings, 0.7 s without)
    embeds boolean := false;
BEGIN
    source := dof_evaluate_source(questions);
    IF k IS NULL OR k < 1 OR k > 1000 THEN
        RAISE EXCEPTION 'k must be between 1 and 1000, got %', coalesce(k::text, 'NULL') USING ERRCODE = 'invalid_parameter_value';
    END IF;
    -- no method measured nothing, and returned no row as if the questions had none
    IF coalesce(cardinality(methods), 0) = 0 THEN
        RAISE EXCEPTION 'methods names no method' USING ERRCODE = 'invalid_parameter_value',
            HINT = 'e.g. ARRAY[''vector'', ''text'', ''hybrid''], the default adding ''hybrid:fusion=rrf''';
    END IF;
    -- a method named twice runs once: its rows are one method's
    methods := ARRAY(SELECT m FROM unnest(methods) WITH ORDINALITY AS u(m, o) GROUP BY m ORDER BY min(o));
    -- every method is read before any question is embedded or searched: a mistake in the
    -- last one is named at once, not after the searches of the others
    FOREACH spec IN ARRAY methods LOOP
        leg := split_part(spec, ':', 1);
        arguments := nullif(substr(spec, length(leg) + 2), '');
        embeds := embeds OR leg IN ('vector', 'hybrid');
        allowed := CASE leg WHEN 'vector' THEN ARRAY['filter']
                            WHEN 'text' THEN ARRAY['filter', 'ranking', 'match_terms']
                            WHEN 'hybrid' THEN ARRAY['filter', 'candidate_pool', 'rrf_k', 'dedup_by_source', 'ranking', 'match_terms',
                                                     'fusion', 'alpha', 'vector_weight', 'text_weight'] END;
        IF allowed IS NULL THEN
            RAISE EXCEPTION 'unknown method "%"', spec USING ERRCODE = 'invalid_parameter_value',
                HINT = 'vector, text or hybrid, with the search''s arguments after a colon: hybrid:fusion=rrf,alpha=0.3';
        END IF;
        -- the arguments as named arguments of the search function, each value a literal
        -- the function's parameter type reads. An argument named twice, or a value its type
        -- cannot read (alpha=abc), is named here: the search's own error quoted the
        -- statement built below
        named := '';
        given := '{}';
        FOREACH pair IN ARRAY coalesce(string_to_array(arguments, ','), '{}') LOOP
            argument_name := split_part(pair, '=', 1);
            argument_value := substr(pair, strpos(pair, '=') + 1);
            IF argument_name <> ALL (allowed) OR strpos(pair, '=') = 0 THEN
                RAISE EXCEPTION 'method "%": unknown argument "%"', spec, pair
                    USING ERRCODE = 'invalid_parameter_value', HINT = format('%s takes %s', leg, array_to_string(allowed, ', '));
            END IF;
            IF argument_name = ANY (given) THEN
                RAISE EXCEPTION 'method "%": argument % given twice', spec, argument_name
                    USING ERRCODE = 'invalid_parameter_value', HINT = 'give each argument once: hybrid:fusion=rrf,alpha=0.3';
            END IF;
            given := given || argument_name;
            -- the parameter's type, as the search function declares it
            SELECT format_type(a.type, NULL) INTO argument_type
            FROM pg_catalog.pg_proc p, unnest(p.proargnames[1:p.pronargs], p.proargtypes::oid[]) AS a(name, type)
            WHERE p.oid = format('dof_%s_search', leg)::regproc AND a.name = argument_name;
            BEGIN
                EXECUTE format('SELECT %L::%s', argument_value, argument_type);
            EXCEPTION WHEN data_exception THEN
                RAISE EXCEPTION 'method "%": % takes a value of type %, got "%"', spec, argument_name, argument_type, argument_value
                    USING ERRCODE = 'invalid_parameter_value',
                          HINT = 'arguments are name=value, separated by commas without spaces: hybrid:fusion=rrf,alpha=0.3';
            END;
            named := named || format(', %I => %L', argument_name, argument_value);
        END LOOP;
        search := CASE leg
            WHEN 'vector' THEN format('SELECT array_agg(chunk_id ORDER BY rank) FROM dof_vector_search($1, $2, $3, query_embedding => $4%s)', named)
            WHEN 'text' THEN format('SELECT array_agg(chunk_id ORDER BY rank) FROM dof_text_search($1, $2, $3%s)', named)
            ELSE format('SELECT array_agg(chunk_id ORDER BY score DESC, chunk_id) FROM dof_hybrid_search($1, $2, $3, query_embedding => $4%s)', named)
        END;
        searches := searches || search;
    END LOOP;
    -- a second call in one transaction finds them (IF NOT EXISTS would say so in a NOTICE)
    IF to_regclass('pg_temp.dof_evaluate_asked') IS NULL THEN
        CREATE TEMP TABLE dof_evaluate_asked (id integer, question_id text, question text, source_id text,
                                              answer int4multirange, char_start integer, char_end integer,
                                              chunk_ids bigint[], embedding vector, relevant bigint[], kind text,
                                              columns text[])
            ON COMMIT DROP;
    END IF;
    IF to_regclass('pg_temp.dof_evaluate_runs') IS NULL THEN
        CREATE TEMP TABLE dof_evaluate_runs (method text, question integer, ids bigint[], ms double precision) ON COMMIT DROP;
    END IF;
    TRUNCATE dof_evaluate_asked, dof_evaluate_runs;
    -- chunk_ids: an array of chunk ids (or one id); an element that is no id is kept as NULL
    -- for the check below to name. A value its column cannot hold (an answer that is no range,
    -- {[5,2)}; a char_start that is no integer) raised PostgreSQL's own error with this whole
    -- statement as its context: it is named as the questions' now
    BEGIN
        EXECUTE format($q$INSERT INTO dof_evaluate_asked
            SELECT n, coalesce(j->>'id', n::text), j->>'question', j->>'source_id',
                   CASE WHEN j->>'answer' LIKE '{%%' THEN (j->>'answer')::int4multirange
                        WHEN j->>'answer' IS NOT NULL THEN int4multirange((j->>'answer')::int4range) END,
                   (j->>'char_start')::integer, (j->>'char_end')::integer,
                   CASE WHEN jsonb_typeof(j->'chunk_ids') <> 'null'
                        THEN ARRAY(SELECT CASE WHEN e ~ '^[0-9]{1,18}$' THEN e::bigint END
                                   FROM jsonb_array_elements_text(CASE jsonb_typeof(j->'chunk_ids') WHEN 'array' THEN j->'chunk_ids'
                                                                       ELSE jsonb_build_array(j->'chunk_ids') END) e) END,
                   NULL, NULL, j->>'kind',
                   CASE WHEN n = 1 THEN ARRAY(SELECT c FROM jsonb_object_keys(j) c ORDER BY c) END
            FROM (SELECT to_jsonb(q) AS j, row_number() OVER () AS n FROM (%s) q) s$q$, source);
    EXCEPTION WHEN data_exception THEN
        RAISE EXCEPTION 'the questions could not be read: %', SQLERRM USING ERRCODE = 'invalid_parameter_value',
            HINT = 'answer is a range or multirange of the body''s characters (''[120,480)'', ''{[120,480),[900,950)}''), char_start and char_end integers, chunk_ids ids';
    END;
    given_columns := (SELECT q.columns FROM dof_evaluate_asked q WHERE q.id = 1);
    SELECT * INTO item FROM dof_evaluate_asked q WHERE q.question IS NULL OR q.source_id IS NULL ORDER BY q.id LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'every question needs the columns question and source_id'
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = CASE WHEN ARRAY['question', 'source_id'] <@ given_columns
                                THEN format('question %s has no %s', item.question_id, CASE WHEN item.question IS NULL THEN 'question' ELSE 'source_id' END)
                                ELSE format('the questions'' columns are %s', (SELECT string_agg(format('"%s"', c), ', ') FROM unnest(given_columns) c)) END,
                  HINT = 'e.g. SELECT q AS question, doc AS source_id, start AS char_start, stop AS char_end FROM my_questions';
    END IF;
    IF NOT EXISTS (SELECT 1 FROM dof_evaluate_asked) THEN
        RAISE EXCEPTION 'no questions' USING ERRCODE = 'invalid_parameter_value',
            HINT = 'the questions query returned no rows';
    END IF;
    unread := ARRAY(SELECT c FROM unnest(given_columns) c WHERE c <> ALL (read_columns));
    IF cardinality(unread) > 0 THEN
        RAISE WARNING 'the questions have columns dof_evaluate does not read: %', (SELECT string_agg(format('"%s"', c), ', ') FROM unnest(unread) c)
            USING HINT = 'it reads question, source_id, answer (or char_start and char_end), chunk_ids, id and kind; a question without answer, char_start or chunk_ids counts every chunk of its document as relevant';
    END IF;
    SELECT * INTO item FROM dof_evaluate_asked q WHERE q.char_start > q.char_end ORDER BY q.id LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'question %: char_start % is after char_end %', item.question_id, item.char_start, item.char_end
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'char_start and char_end are the answer''s characters in the body, 0-based, end exclusive';
    END IF;
    SELECT * INTO item FROM dof_evaluate_asked q WHERE array_position(q.chunk_ids, NULL) IS NOT NULL ORDER BY q.id LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'question %: chunk_ids holds something that is no chunk id', item.question_id
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'chunk_ids is an array of dof_chunks.id values (or one), e.g. ARRAY[12, 13]';
    END IF;
    UPDATE dof_evaluate_asked q SET answer = int4multirange(int4range(q.char_start, q.char_end))
    WHERE q.answer IS NULL AND q.char_start IS NOT NULL;
    -- a blank question names itself before any search runs (the search's own error would not)
    PERFORM dof_check_query(q.question, format('question %s', q.question_id)) FROM dof_evaluate_asked q ORDER BY q.id;
    -- each question's relevant chunks (of its document in the collection, those that overlap
    -- its answer and are among its chunk_ids where it gives them; all of them without
    -- either), and its vector, once for every method that searches by one
    UPDATE dof_evaluate_asked q
    SET embedding = CASE WHEN embeds THEN dof_embed_query(q.question, settings.model) END,
        relevant = ARRAY(SELECT c.id FROM dof_documents d JOIN dof_chunks c ON c.document_id = d.id
                         WHERE (searched IS NULL OR d.collection = searched) AND d.source_id = q.source_id
                           AND (q.answer IS NULL OR q.answer && int4range(c.char_start, c.char_end))
                           AND (q.chunk_ids IS NULL OR c.id = ANY (q.chunk_ids)));
    FOR method_number IN 1 .. cardinality(methods) LOOP
        spec := methods[method_number];
        search := searches[method_number];
        FOR item IN SELECT * FROM dof_evaluate_asked ORDER BY id LOOP
            t0 := clock_timestamp();
            EXECUTE search INTO ids USING item.question, k, searched, item.embedding;
            INSERT INTO dof_evaluate_runs VALUES (spec, item.id, ids,
                                                  extract(epoch FROM clock_timestamp() - t0) * 1000);
        END LOOP;
    END LOOP;
    n_missing := (SELECT count(*) FROM dof_evaluate_asked q WHERE cardinality(q.relevant) = 0);
    IF n_missing > 0 THEN
        RAISE WARNING '% of % questions have no chunk in % that matches their source_id and answer: they score 0',
                      n_missing, (SELECT count(*) FROM dof_evaluate_asked), coalesce(format('collection "%s"', searched), 'any collection')
            USING HINT = 'dof_evaluate_questions lists them with relevant_chunks = 0: check each source_id against dof_documents.source_id, its range against the body''s length and its chunk_ids against dof_chunks (a document indexed again has new chunk ids)';
    END IF;
    RETURN QUERY
    SELECT r.method, q.question_id, q.question, q.source_id, x.first_hit::integer,
           coalesce(1.0 / x.first_hit, 0)::double precision,
           (CASE WHEN cardinality(q.relevant) = 0 THEN 0
                 ELSE x.dcg / (SELECT sum(1 / log(2, i + 1)) FROM generate_series(1, least(k, cardinality(q.relevant))) i)
            END)::double precision,
           (CASE WHEN cardinality(q.relevant) = 0 THEN 0
                 ELSE x.hits::double precision / least(k, cardinality(q.relevant)) END)::double precision,
           cardinality(q.relevant), r.ms, r.ids, y.first_source_id, q.kind, y.document_hit::integer
    FROM dof_evaluate_runs r
    JOIN dof_evaluate_asked q ON q.id = r.question
    CROSS JOIN LATERAL (  -- the run's returned chunks that are among the question's relevant ones
        SELECT min(u.rank) AS first_hit, coalesce(sum(1 / log(2, u.rank + 1)), 0) AS dcg, count(*) AS hits
        FROM unnest(r.ids) WITH ORDINALITY AS u(chunk, rank) WHERE u.chunk = ANY (q.relevant)) x
    CROSS JOIN LATERAL (  -- the returned chunks' documents, read once: the first chunk's, and the
                          -- place of the first chunk of the question's document, whatever its place in it
        SELECT min(d.source_id) FILTER (WHERE u.rank = 1) AS first_source_id,
               min(u.rank) FILTER (WHERE d.source_id = q.source_id AND (searched IS NULL OR d.collection = searched)) AS document_hit
        FROM unnest(r.ids) WITH ORDINALITY AS u(chunk, rank)
        JOIN dof_chunks c ON c.id = u.chunk JOIN dof_documents d ON d.id = c.document_id) y
    ORDER BY array_position(methods, r.method), q.id;
END
$$;
COMMENT ON FUNCTION dof_evaluate_questions(text, text, integer, text[]) IS
    'Each question through each search method, one row per method and question, in collection (NULL: every collection, as the searches): questions is a query or table with question and source_id (and optionally char_start, char_end or answer: the answer in that document; chunk_ids: the chunks that answer it; id: comes back as question_id); methods are vector, text, hybrid, each with the search''s own arguments after a colon (hybrid:fusion=rrf,alpha=0.3); returns the rank of the first relevant chunk, reciprocal rank, nDCG@k, recall@k, the relevant chunks there are, milliseconds, the chunk ids returned, the first one''s document, the question''s kind (a kind column in the questions, NULL without) and the rank of the first chunk of the question''s document, whatever its place in it (document_hit)';

-- The exact two-sided sign test: the probability, were two methods equally good, that of
-- the better + worse questions where they differ one would win at most min(better, worse)
-- of them (each question a fair coin; ties left out): 2 * sum over i <= min of
-- C(n, i) / 2^n, at most 1. Exact for any number of questions (the binomial terms in
-- logarithms; a term under e^-700, which PostgreSQL's exp() refuses as an underflow,
-- counts as e^-700), and it assumes nothing about how reciprocal ranks are distributed,
-- which a t-test would: on a few dozen questions they are mostly 1 and 0.
CREATE FUNCTION dof_sign_test(better bigint, worse bigint) RETURNS double precision
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
BEGIN ATOMIC
    SELECT CASE WHEN better >= 0 AND worse >= 0
                THEN least(1.0, 2 * sum(exp(greatest(t.log_choose - (better + worse) * ln(2.0::double precision), -700)))) END
    FROM (SELECT sum(CASE WHEN i = 0 THEN 0 ELSE ln((better + worse - i + 1)::double precision) - ln(i::double precision) END)
                     OVER (ORDER BY i) AS log_choose
          FROM generate_series(0, least(better, worse)) i) t;
END;
COMMENT ON FUNCTION dof_sign_test(bigint, bigint) IS
    'The exact two-sided sign test''s p-value for two methods where one ranks better questions higher and worse lower (ties left out): how likely so uneven a split is between two equally good methods; 1 when they never differ, NULL for a negative count: dof_evaluate''s p_value';

-- Per method, the means of dof_evaluate_questions' rows: MRR@k, R@1 and R@5 (a relevant
-- chunk first / in the first 5), nDCG@k, recall@k and mean milliseconds per search, over
-- every question (kind NULL), then per kind of question where the questions name kinds
-- (natural questions, paraphrases, keywords, identifiers...: a change that helps one kind
-- and hurts another shows in one call; a question without a kind counts in the first row).
-- document_mrr is MRR@k of the question's document (dof_evaluate_questions' document_hit):
-- what it is above mrr, ranking within the right documents loses; what it is below 1,
-- finding them. And whether a difference is more than the questions' chance: mrr_margin,
-- the half-width of MRR's 95% confidence interval (normal approximation, 1.96 standard
-- errors: on 50 questions about 0.1, so 0.79 against 0.82 says nothing), and each method
-- against the first of methods on the same questions: on how many it ranks the answer
-- higher (better) and lower (worse) by reciprocal rank, and the sign test's p-value of that
-- split (dof_sign_test); NULL on the first method's rows. Questions are paired by their
-- place in the questions' rows, which dof_evaluate_questions keeps for every method (an id
-- may repeat).
CREATE FUNCTION dof_evaluate(questions text, collection text DEFAULT NULL, k integer DEFAULT 10,
                             methods text[] DEFAULT ARRAY['vector', 'text', 'hybrid', 'hybrid:fusion=rrf'])
    RETURNS TABLE (method text, kind text, questions_scored integer, mrr double precision,
                   mrr_margin double precision, r_at_1 double precision, r_at_5 double precision, ndcg double precision,
                   recall double precision, document_mrr double precision, mean_ms double precision,
                   better integer, worse integer, p_value double precision)
    LANGUAGE sql VOLATILE
BEGIN ATOMIC
    WITH runs AS MATERIALIZED (
             SELECT e.method, e.kind, e.first_hit, e.reciprocal_rank, e.ndcg, e.recall, e.ms, e.document_hit,
                    row_number() OVER (PARTITION BY e.method ORDER BY e.n) AS place
             FROM dof_evaluate_questions(questions, collection, k, methods)
                  WITH ORDINALITY AS e(method, question_id, question, source_id, first_hit, reciprocal_rank, ndcg, recall,
                                       relevant_chunks, ms, chunk_ids, first_source_id, kind, document_hit, n)),
         paired AS (
             SELECT r.*, r.reciprocal_rank - f.reciprocal_rank AS change
             FROM runs r LEFT JOIN runs f ON f.method = methods[1] AND f.place = r.place)
    SELECT p.method, p.kind, count(*)::integer, avg(p.reciprocal_rank), 1.959964 * stddev_samp(p.reciprocal_rank) / sqrt(count(*)),
           avg(coalesce((p.first_hit = 1)::integer, 0))::double precision, avg(coalesce((p.first_hit <= 5)::integer, 0))::double precision,
           avg(p.ndcg), avg(p.recall), avg(coalesce(1.0 / p.document_hit, 0))::double precision, avg(p.ms),
           CASE WHEN p.method <> methods[1] THEN count(*) FILTER (WHERE p.change > 0) END::integer,
           CASE WHEN p.method <> methods[1] THEN count(*) FILTER (WHERE p.change < 0) END::integer,
           CASE WHEN p.method <> methods[1] THEN dof_sign_test(count(*) FILTER (WHERE p.change > 0), count(*) FILTER (WHERE p.change < 0)) END
    FROM paired p
    GROUP BY GROUPING SETS ((p.method), (p.method, p.kind))
    HAVING GROUPING(p.kind) = 1 OR p.kind IS NOT NULL
    ORDER BY array_position(methods, p.method), GROUPING(p.kind) DESC, p.kind;
END;
COMMENT ON FUNCTION dof_evaluate(text, text, integer, text[]) IS
    'Scores search methods on a set of questions, in collection (NULL: every collection, as the searches): questions is a query or table with question and source_id (and optionally char_start, char_end: the answer in that document, or chunk_ids: the chunks that answer it); methods are vector, text, hybrid, each with the search''s own arguments after a colon (hybrid:fusion=rrf,alpha=0.3); returns per method MRR@k (with mrr_margin, the half-width of its 95% confidence interval), R@1, R@5, nDCG@k, recall@k, the MRR@k of the question''s document (document_mrr: its first chunk counts, whatever its place in it) and mean search milliseconds over every question (kind NULL), then, where the questions have a kind column, per method and kind (dof_evaluate_questions gives them per question); and against the first method, on how many questions each other ranks the answer higher (better) and lower (worse), with the sign test''s p-value of that split';
