#!/usr/bin/env bash
# Across versions: the same documents loaded with `dof load` into each PostgreSQL version's
# local cluster (tests/versions/same_answers.sh 15 17 18) give the same chunks (bounds,
# text, token counts, patterns, tsvectors, embeddings) and the same top-10 answers of the
# hybrid, text and vector searches for the same questions. The documents: the samples and,
# when the shared corpora are there, 40 Peruvian laws under 24 KB with front matter.
#   same_answers.sh VERSION...   (each version's server built and pg_dof installed)
set -uo pipefail
. "$(dirname "$0")/../integration/common.bash"
. "$scripts/config.sh"
repo="$(cd "$scripts/.." && pwd)"
versions=("$@")
[ ${#versions[@]} -ge 2 ] || { echo "usage: same_answers.sh VERSION VERSION..." >&2; exit 2; }
corpora="${PG_DOF_CORPORA:-$repo/../shared/corpora}"
docs="$(mktemp -d)"; trap 'rm -rf "$docs"' EXIT
cp "$repo"/samples/*.md "$docs/"
if [ -d "$corpora/legalize-pe-sample/pe" ]; then
  find "$corpora/legalize-pe-sample/pe" -name '*.md' -size -24k | sort | head -40 | xargs -I{} cp {} "$docs/"
else
  echo "NOTE: no shared corpora at $corpora: the samples only"
fi
cargo build --release -q -p dof_loader
dof="$CARGO_TARGET_DIR/release/dof"

# One difference is PostgreSQL's, and expected: 18's unaccent rules map º to o and ª to a
# (15's and 17's keep them), so 'Nº' becomes the stopword 'no' and leaves the tsvector, and
# '1º' becomes '1o'. The tsvectors are compared without the lexemes that hold º or ª;
# `raw_tsv` counts the chunks whose whole tsvector differs (printed, not checked).
chunks="SELECT count(*) || ' ' || md5(string_agg(concat_ws('|', d.source_id, c.chunk_index, c.pattern, c.heading_path::text,
          md5(c.content), c.token_count, c.char_start, c.char_end,
          ts_delete(c.tsv, ARRAY(SELECT l FROM unnest(tsvector_to_array(c.tsv)) l WHERE l ~ '[ºª]'))::text,
          md5(c.embedding::text)), E'\n' ORDER BY d.source_id, c.chunk_index))
        FROM dof_chunks c JOIN dof_documents d ON d.id = c.document_id"
raw_tsv="SELECT md5(string_agg(c.tsv::text, E'\n' ORDER BY d.source_id, c.chunk_index)) FROM dof_chunks c JOIN dof_documents d ON d.id = c.document_id"
questions=("tipo de cambio del dólar" "etiquetado de alimentos" "estímulos fiscales en la frontera norte"
           "licitación de medicamentos" "ley del procedimiento administrativo general" "ds 092 2002 ef"
           "plazo para interponer un recurso" "municipalidad provincial" "impuesto a la renta" "NOM-051")
answers() { # one line per question and method: the top 10 as source_id:chunk_index:score
  local question method
  for question in "${questions[@]}"; do
    for method in hybrid text vector; do
      case "$method" in # the search, its score and its order
        hybrid) search="dof_hybrid_search(:'question', k => 10)"; score="s.score"; order="s.score DESC" ;;
        text) search="dof_text_search(:'question', k => 10)"; score="s.text_score"; order="s.rank" ;;
        vector) search="dof_vector_search(:'question', k => 10)"; score="s.distance"; order="s.rank" ;;
      esac
      echo "SELECT :'question' || ' $method: ' || coalesce(string_agg(d.source_id || ':' || c.chunk_index || ':' || round($score::numeric, 5),
                   ' ' ORDER BY $order, d.source_id, c.chunk_index), '')
            FROM $search s JOIN dof_chunks c ON c.id = s.chunk_id JOIN dof_documents d ON d.id = c.document_id" \
        | q -v question="$question"
    done
  done
}

declare -A chunk_of answers_of tsv_of
for v in "${versions[@]}"; do
  export PG=$v PG_DOF_DB=pg_dof_versions
  PG=$v "$scripts/cluster.sh" start >/dev/null
  PG=$v "$scripts/cluster.sh" fresh >/dev/null 2>&1
  export PGHOST="$(PG=$v "$scripts/cluster.sh" dir)" PGPORT="${PG_DOF_PORT:-5499}" PGUSER=postgres PGDATABASE=pg_dof_versions
  out=$("$dof" load "$docs" --jobs 1 2>&1); status=$?
  check "$status" "0" "PostgreSQL $v: dof load of $(ls "$docs" | wc -l) files ($(echo "$out" | tail -1))"
  q -c "ANALYZE dof_chunks"
  chunk_of[$v]="$(q -c "$chunks")"
  tsv_of[$v]="$(q -c "$raw_tsv")"
  answers_of[$v]="$(answers)"
  echo "PostgreSQL $(q -c "SHOW server_version"): chunks ${chunk_of[$v]}"
done
first="${versions[0]}"
for v in "${versions[@]:1}"; do
  check "${chunk_of[$v]}" "${chunk_of[$first]}" "PostgreSQL $v stores the same chunks as $first (count, bounds, text, tokens, tsvector but º/ª, embedding)"
  [ "${tsv_of[$v]}" = "${tsv_of[$first]}" ] && same="the same" || same="different (º, ª: unaccent)"
  echo "PostgreSQL $v: whole tsvectors $same"
  differ="$(diff <(echo "${answers_of[$first]}") <(echo "${answers_of[$v]}") | grep -c '^>')"
  check "$differ" "0" "PostgreSQL $v gives the same top-10 as $first for ${#questions[@]} questions × 3 methods"
  [ "$differ" = 0 ] || diff <(echo "${answers_of[$first]}") <(echo "${answers_of[$v]}") | head -20
done
empty="$(echo "${answers_of[$first]}" | grep -c ': *$')"
check "$(( empty < ${#questions[@]} ))" "1" "the questions find something ($empty of $(( ${#questions[@]} * 3 )) answers empty)"
finish
