# Sourced by the integration scripts (tests/integration/*.sh): psql on the local cluster's
# database $PG_DOF_DB, and pass/fail bookkeeping. Not a test itself (not *.sh).
scripts="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../scripts" && pwd)"
q() { "$scripts/cluster.sh" psql -X -At -v ON_ERROR_STOP=1 -q "$@"; }
passed=0; failed=0
check() { if [ "$1" = "$2" ]; then passed=$((passed + 1)); echo "ok: $3"; else failed=$((failed + 1)); echo "FAILED: $3 (got '$1', want '$2')"; fi; }
# Prints the tally; the script's exit status is whether everything passed.
finish() { echo "$passed passed, $failed failed"; [ "$failed" -eq 0 ]; }
# BM25's statistics rows that disagree with a recount of the stored chunks (0: exact)
stats_wrong="WITH truth AS (SELECT c.collection, l.lexeme, count(*) AS n FROM dof_chunks c, unnest(c.tsv) l GROUP BY 1, 2),
  kept AS (SELECT collection, lexeme, sum(chunks) AS n FROM dof_term_stats GROUP BY 1, 2 HAVING sum(chunks) <> 0)
SELECT count(*) FROM truth t FULL JOIN kept k USING (collection, lexeme) WHERE t.n IS DISTINCT FROM k.n"
