-- Milliseconds per text search (k 10) of each question of table questions(question) in
-- collection (NULL: every collection): how the BM25 statistics benchmarks time the text leg
-- (term_stats_reads.sh, stats_fold_every.sh).
CREATE FUNCTION text_search_ms(collection text) RETURNS double precision LANGUAGE plpgsql AS $f$
DECLARE t0 timestamptz := clock_timestamp(); n bigint;
BEGIN
    SELECT count(*) INTO n FROM questions q, LATERAL dof_text_search(q.question, 10, collection);
    RETURN extract(epoch FROM clock_timestamp() - t0) * 1000 / (SELECT count(*) FROM questions);
END
$f$;
