#!/usr/bin/env bash
# The built-in models' speed inside the backend, same run, same texts: dof_embed of the
# first chunks of legalize-pe files (at most TEXTS, default 120) with the default q4 model
# and with multilingual-e5-small-int8, interleaved in one backend, medians of RUNS
# (default 5). Quality of the same two:
# bench/scripts/retrieval_quality.sh with MODEL=multilingual-e5-small-int8.
set -euo pipefail
. "$(dirname "$0")/common.bash"
RUNS="${RUNS:-5}"
TEXTS="${TEXTS:-120}"
echo "$(cargo run --release -q -p dof_bench --bin cpu)"
export PG_DOF_DB=pg_dof_model_speed
"$here/cluster.sh" fresh >/dev/null 2>&1
chunk_texts 30 "$TEXTS"
# one backend holds both models (pg_dof.model_cache_size 2), loaded by an untimed first
# call; then the runs alternate models, each timed inside the server
q -c "CREATE TABLE timings (model text, seconds double precision)"
q <<SQL
DO \$\$
DECLARE t0 timestamptz; model text;
BEGIN
  FOREACH model IN ARRAY ARRAY['multilingual-e5-small', 'multilingual-e5-small-int8'] LOOP
    PERFORM count(*) FROM dof_embed(ARRAY['warm-up'], model);
  END LOOP;
  FOR run IN 1..$RUNS LOOP
    FOREACH model IN ARRAY ARRAY['multilingual-e5-small', 'multilingual-e5-small-int8'] LOOP
      t0 := clock_timestamp();
      PERFORM count(*) FROM dof_embed(ARRAY(SELECT content FROM texts), model);
      INSERT INTO timings VALUES (model, extract(epoch FROM clock_timestamp() - t0));
    END LOOP;
  END LOOP;
END
\$\$;
SQL
tokens=$(texts_tokens)
echo "$(q -c "SELECT count(*) FROM texts") texts, $tokens tokens; dof_embed, one backend, medians of $RUNS interleaved runs"
echo "| model | seconds | tokens/s | vs q4 |"
echo "|---|---|---|---|"
q <<SQL
WITH m AS (SELECT model, percentile_cont(0.5) WITHIN GROUP (ORDER BY seconds) AS s FROM timings GROUP BY model)
SELECT format('| %s | %s | %s | %s |', model, round(s::numeric, 2), round($tokens / s), round(((SELECT s FROM m WHERE model = 'multilingual-e5-small') / s)::numeric, 2))
FROM m ORDER BY model;
SQL
