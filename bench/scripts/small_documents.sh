#!/usr/bin/env bash
# Should small documents be embedded together? The queue indexes one document per
# chunk-and-embed call, so a short notice (one or two chunks) is a model call of its own.
# Same run, same texts (400 paragraphs of legalize-pe, 300-1,200 characters, each under
# one chunk's limit; e5): dof_embed with 1, 4 and 16 texts per call (a queue batch of that many small
# documents embedded together) and all 400 in one call (sorted by length into batches).
set -euo pipefail
. "$(dirname "$0")/common.bash"
pe="$(corpus legalize-pe-sample)"
echo "$(cargo run --release -q -p dof_bench --bin cpu)"
export PG_DOF_DB=pg_dof_small_documents
"$here/cluster.sh" start >/dev/null
"$here/cluster.sh" fresh >/dev/null 2>&1
texts="$(mktemp)"; trap 'rm -f "$texts"' EXIT
find "$pe" -name '*.md' | sort | sed -n "1,60p" | xargs cat \
  | awk 'BEGIN { RS = ""; n = 0 } length($0) >= 300 && length($0) <= 1200 && n < 400 { gsub(/\\/, "/"); gsub(/\t/, " "); gsub(/\n/, " "); print; n++ }' > "$texts"
q -c "CREATE TABLE paragraphs (id serial, body text)" -c "\\copy paragraphs (body) FROM '$texts'"
q -c "SELECT dof_embed_query('calentar el modelo')" >/dev/null
count=$(q -c "SELECT count(*) FROM paragraphs")
run() { # TEXTS PER CALL (0: all in one call)
  if [ "$1" = 0 ]; then q -c "SELECT count(*) FROM dof_embed(ARRAY(SELECT body FROM paragraphs))" >/dev/null; return; fi
  q -c "DO \$\$ DECLARE texts text[]; BEGIN
          FOR texts IN SELECT array_agg(body ORDER BY id) FROM paragraphs GROUP BY (id - 1) / $1 ORDER BY (id - 1) / $1 LOOP
              PERFORM count(*) FROM dof_embed(texts);
          END LOOP; END \$\$" >/dev/null
}
declare -A secs
for round in 1 2 3; do
  for per in 1 4 16 0; do
    t0=$(date +%s.%N); run "$per"; secs[$per]+="$(echo "$(date +%s.%N) - $t0" | bc) "
  done
done
one=$(median ${secs[1]})
echo "$count texts; median of 3 interleaved rounds"
echo "| texts per dof_embed call | seconds | texts/s | vs one per call |"
echo "|---|---|---|---|"
for per in 1 4 16 0; do
  m=$(median ${secs[$per]})
  echo "| $([ "$per" = 0 ] && echo "all $count" || echo "$per") | $m | $(echo "$count / $m" | bc) | $(echo "scale=2; $one / $m" | bc) |"
done
