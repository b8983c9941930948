# Shared by the benchmark scripts: the project's configuration, the shared corpora, a psql
# that stops at the first error, and the median of a list of numbers.
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../scripts" && pwd)"
. "$here/config.sh"
bench="$(cd "$here/../bench" && pwd)"
corpora="${PG_DOF_CORPORA:-$here/../../shared/corpora}"

# The absolute path of the corpus folder NAME under the shared corpora; exits 2 saying
# it is absent (use as corpus="$(corpus NAME)" under set -e).
corpus() {
  [ -d "$corpora/$1" ] || { echo "corpus $corpora/$1 is absent: set PG_DOF_CORPORA" >&2; exit 2; }
  (cd "$corpora/$1" && pwd)
}

q() { "$here/cluster.sh" psql -X -At -v ON_ERROR_STOP=1 -q "$@"; }

# One function's definition in a SQL file read on stdin (a revision's, through git show),
# printed as CREATE OR REPLACE, named AS_NAME when given (beside the current one) or as it
# was (replacing it).
definition() { # FUNCTION [AS_NAME]
  python3 -c '
import sys
s = sys.stdin.read(); name = sys.argv[1]; a = s.index("CREATE FUNCTION " + name + "(")
body = s[a + len("CREATE FUNCTION " + name):s.index("END\n$$;", a) + len("END\n$$;")]
print("SET client_min_messages = warning;\nCREATE OR REPLACE FUNCTION " + (sys.argv[2] if len(sys.argv) > 2 else name) + body)' "$@"
}

# Two rules timed alternately in one session, through the database's function
# per_call(rule text, searched text, calls integer) (ms a call): warmed by WARM calls of
# each, then RUNS runs of CALLS calls of each, interleaved; prints the two medians (DIGITS
# decimals), "A B".
interleaved_medians() { # RULE_A RULE_B SEARCHED WARM CALLS DIGITS
  q -F ' ' -c "SELECT per_call('$1', $3, $4), per_call('$2', $3, $4)" \
    -c "SELECT round(percentile_cont(0.5) WITHIN GROUP (ORDER BY t) FILTER (WHERE rule = '$1')::numeric, $6),
               round(percentile_cont(0.5) WITHIN GROUP (ORDER BY t) FILTER (WHERE rule = '$2')::numeric, $6)
        FROM (SELECT r.rule, per_call(r.rule, $3, $5) AS t
              FROM generate_series(1, ${RUNS:-5}) run, LATERAL (VALUES (1, '$1'), (2, '$2')) r(o, rule)
              ORDER BY run, r.o) s" | tail -1
}

median() { printf '%s\n' "$@" | sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }

# Links the legalize-pe files under 64 KB, in path order, into folder DIR until they would
# pass KB kilobytes (the loader benchmarks' samples); prints how many.
legalize_sample() { # DIR KB
  local pe total=0 size f
  pe="$(corpus legalize-pe-sample)"
  while read -r f; do
    size=$(stat -c %s "$f"); [ $((total + size)) -gt $(($2 * 1024)) ] && break
    total=$((total + size)); mkdir -p "$1/$(dirname "${f#$pe/}")"; ln -s "$f" "$1/${f#$pe/}"
  done < <(find "$pe" -name '*.md' -size -64k | sort)
  find "$1" -name '*.md' | wc -l
}

# Table eval_documents (source_id, body): the first N legalize-pe laws under 64 KB, in path
# order, each under its path in the corpus (as retrieval_quality.sh loads them).
eval_laws() { # N
  local files pe; pe="$(corpus legalize-pe-sample)"; files="$(mktemp)"
  find "$pe" -name '*.md' -size -64k | sort | sed -n "1,${1}p" > "$files"; chmod a+r "$files"
  q -c "CREATE TABLE eval_documents (source_id text PRIMARY KEY, body text NOT NULL)"
  q -v files="$files" -v root="$pe" -f "$bench/sql/quality_load_files.sql"; rm -f "$files"
}

# Table `texts` (content): the chunks of the first FILES legalize-pe files under 64 KB, in
# path order, at most LIMIT of them (the embedding benchmarks' inputs).
chunk_texts() { # FILES LIMIT
  local pe; pe="$(corpus legalize-pe-sample)"
  q -c "CREATE TABLE texts (content text)"
  find "$pe" -name '*.md' -size -64k | sort | head -n "$1" | while read -r f; do
    echo "INSERT INTO texts SELECT content FROM dof_chunk(:'body')" | q -v body="$(cat "$f")"
  done
  q -c "DELETE FROM texts WHERE ctid NOT IN (SELECT ctid FROM texts LIMIT $2)"
}

# The tokens of table `texts` (by the default tokenizer, without prefixes).
texts_tokens() {
  q -c "SELECT sum(c.token_count) FROM texts t, LATERAL dof_chunk(t.content, 100000, 0) c"
}

# Exits 2 unless database $PG_DOF_DB holds the scale benchmark's data (bench_queries, made
# by bench/scripts/store_search.sh).
require_scale_data() {
  if ! q -c "SELECT 1 FROM bench_queries LIMIT 1" >/dev/null 2>&1; then
    echo "no scale data in database $PG_DOF_DB: run bench/scripts/store_search.sh first" >&2
    exit 2
  fi
}

# An HNSW index on the scale collection's float vectors (bench_float_384), built with the
# product's index settings beside its halfvec index (dof_passages_embedding_384), for the
# benchmarks that compare the two or run a revision whose vector leg ordered by the float
# vectors; drop_float_index removes it.
build_float_index() {
  q -c "SET client_min_messages = warning; SET maintenance_work_mem = '2GB';
        CREATE INDEX IF NOT EXISTS bench_float_384 ON dof_passages USING hnsw ((embedding::vector(384)) vector_cosine_ops)
        $(q -c "SELECT 'WITH (' || array_to_string(reloptions, ', ') || ')' FROM pg_class WHERE relname = 'dof_passages_embedding_384'")
        WHERE vector_dims(embedding) = 384"
}
drop_float_index() { q -c "SET client_min_messages = warning; DROP INDEX IF EXISTS bench_float_384" >/dev/null 2>&1 || true; }
