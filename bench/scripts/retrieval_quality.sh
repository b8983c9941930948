#!/usr/bin/env bash
# Retrieval quality on the chunking-evaluation set (bench/sql/quality.sql): the product's
# triggers ingest the five English corpora (real model, late and independent embedding);
# each search leg and ranking answers the 472 questions; prints recall@k and hit@k.
# In a database of its own (pg_dof_quality). MAX_TOKENS (default 400) and K (default 5).
set -euo pipefail
here="$(cd "$(dirname "$0")/../../scripts" && pwd)"
. "$here/config.sh"
bench="$(cd "$here/../bench" && pwd)"
set_dir="${PG_DOF_CORPORA:-$here/../../shared/corpora}/chunking-evaluation"
[ -f "$set_dir/questions_df.csv" ] || { echo "corpus $set_dir is absent: set PG_DOF_CORPORA" >&2; exit 2; }
set_dir="$(cd "$set_dir" && pwd)"
export PG_DOF_DB=pg_dof_quality
"$here/cluster.sh" fresh
q() { "$here/cluster.sh" psql -X -At -v ON_ERROR_STOP=1 -q "$@"; }
q -v corpus="$set_dir/corpora" -v questions="$set_dir/questions_df.csv" -v max_tokens="${MAX_TOKENS:-400}" -v k="${K:-5}" \
  -f "$bench/sql/quality.sql"
q -c "SET eval.k = ${K:-5}" -f "$bench/sql/quality_report.sql"
