#!/usr/bin/env bash
# Retrieval quality through the product's own SQL on three evaluation sets, each in a
# database of its own: chunking-evaluation (English, 472 questions, the shared corpora),
# the Spanish DOF set (bench/eval/dof_questions.tsv, questions written from the shared
# DOF editions) and legalize-pe (Peruvian laws: questions of four kinds written by hand with
# evidence spans, bench/eval/legalize_pe_questions.tsv, and lookups made from the laws' front
# matter), and dof-docling, dof-pymupdf4llm, dof-marker: the DOF set's questions over other
# converters' renditions of its two 2024 editions (bench/scripts/dof_renditions.py); mixed: the
# Peruvian laws and the docling editions in one collection, as a user would load them;
# legalize-pe-outline: 12 long Peruvian laws that open with an outline of their articles;
# mixed-long: mixed with every third of the sample's laws of 64 KB to 1 MB as well, which no
# question asks about (long codes and regulations, as 30% of the sample's laws are: 29 laws,
# 8.7 MB; 5,019 chunks against mixed's 1,825, ingest ~18 minutes on 2 cores). The triggers
# ingest each set twice (late and independent embedding, the real model); every leg and
# fusion answers every question (bench/sql/quality.sql); prints MRR@10, R@1, R@5 and
# recall@5 per method (bench/sql/quality_report.sql), then the same questions through
# dof_evaluate with the fusion's alpha around its default, and per kind of question where
# the set has kinds (bench/sql/quality_evaluate.sql).
#   MAX_TOKENS (default 800, a collection's default; 0.2.0's runs used 400 for chunking-evaluation
#   and 256 for DOF); SETS (default "chunking-evaluation dof legalize-pe"; legalize-pe: the first LAWS (150)
#   laws under 64 KB, which hold the hand-written questions' laws; bench/sql/quality_load_legalize_pe.sql);
#   CHUNKERS (default "pattern"; e.g. "pattern paragraph recursive semantic:percentile
#   semantic:standard_deviation" compares strategies; name:type sets a semantic threshold_type).
#   MODEL (default multilingual-e5-small) with MODEL_FILE (an ONNX file registered as MODEL
#   with the default tokenizer and e5's prefixes) compares model variants; LATE=off skips
#   the late-chunking collection; PASSAGE_TOKENS sets the collections' passage_tokens (default:
#   the product's).
set -euo pipefail
. "$(dirname "$0")/common.bash"
evaluation="$(corpus chunking-evaluation)"
editions_root="$(dirname "$(corpus dof-editions)")"
# The DOF set's questions over RENDITION's editions (bench/scripts/dof_renditions.py).
load_rendition() { # RENDITION
  local questions; questions="$(mktemp)"; chmod a+r "$questions"
  python3 "$bench/scripts/dof_renditions.py" "$1" "$bench/eval/dof_questions.tsv" "$editions_root" > "$questions"
  q -v corpora="$editions_root" -v questions="$questions" -f "$bench/sql/quality_load_dof_renditions.sql"; rm -f "$questions"
}
# The first LAWS (150) Peruvian laws under 64 KB, their hand-written questions and front-matter lookups.
load_legalize_pe() {
  local files pe; files="$(mktemp)"; pe="$(corpus legalize-pe-sample)"
  # sed, not head: head would end sort with SIGPIPE, which pipefail makes the run's exit status
  find "$pe" -name '*.md' -size -64k | sort | sed -n "1,${LAWS:-150}p" > "$files"; chmod a+r "$files"
  q -v files="$files" -v root="$pe" -v questions="$bench/eval/legalize_pe_questions.tsv" \
    -f "$bench/sql/quality_load_legalize_pe.sql"; rm -f "$files"
}
# The Peruvian laws that bench/eval/legalize_pe_outline_questions.tsv asks about: 12 long laws of
# the sample that open with an outline of their articles under a bold ÍNDICE or Contenido (no
# heading), with 60 of their articles' titles as lowercase keyword queries (the evidence: the
# article's first line of text, never the outline's entry) and 20 natural questions by hand.
load_legalize_pe_outline() {
  local files pe; files="$(mktemp)"; pe="$(corpus legalize-pe-sample)"
  tail -n +2 "$bench/eval/legalize_pe_outline_questions.tsv" | cut -f3 | sort -u | sed "s|^|$pe/|" > "$files"; chmod a+r "$files"
  q -v files="$files" -v root="$pe" -v questions="$bench/eval/legalize_pe_outline_questions.tsv" \
    -f "$bench/sql/quality_load_legalize_pe.sql"; rm -f "$files"
}
# Every third of the Peruvian laws of 64 KB to 1 MB, in path order, with no questions: the
# long laws mixed lacks, as distractors.
load_long_laws() {
  local files pe; files="$(mktemp)"; pe="$(corpus legalize-pe-sample)"
  find "$pe" -name '*.md' -size +64k -size -1000k | sort | awk 'NR % 3 == 1' > "$files"; chmod a+r "$files"
  q -v files="$files" -v root="$pe" -f "$bench/sql/quality_load_files.sql"; rm -f "$files"
}
for chunker_spec in ${CHUNKERS:-pattern}; do
chunker="${chunker_spec%%:*}"
options='{}'
[ "$chunker_spec" = "$chunker" ] || options="{\"threshold_type\": \"${chunker_spec#*:}\"}"
for set in ${SETS:-chunking-evaluation dof legalize-pe}; do
  export PG_DOF_DB="pg_dof_quality_${set//-/_}"
  "$here/cluster.sh" fresh >/dev/null
  q -c "CREATE TABLE eval_documents (source_id text PRIMARY KEY, body text NOT NULL);
        CREATE TABLE eval_questions (id serial PRIMARY KEY, kind text, question text NOT NULL, corpus_id text NOT NULL, reference int4multirange NOT NULL)"
  case "$set" in
    chunking-evaluation)
      q -v corpus="$evaluation/corpora" -v questions="$evaluation/questions_df.csv" \
        -f "$bench/sql/quality_load_chunking_evaluation.sql"
      max_tokens="${MAX_TOKENS:-800}"; config=english ;;
    dof)
      q -v corpora="$editions_root" -v questions="$bench/eval/dof_questions.tsv" -f "$bench/sql/quality_load_dof.sql"
      max_tokens="${MAX_TOKENS:-800}"; config=dof_spanish ;;
    dof-docling|dof-pymupdf4llm|dof-marker)
      load_rendition "${set#dof-}"
      max_tokens="${MAX_TOKENS:-800}"; config=dof_spanish ;;
    legalize-pe)
      load_legalize_pe
      max_tokens="${MAX_TOKENS:-800}"; config=dof_spanish ;;
    legalize-pe-outline)
      load_legalize_pe_outline
      max_tokens="${MAX_TOKENS:-800}"; config=dof_spanish ;;
    mixed|mixed-long)
      # one collection, as a user loads it: the Peruvian laws and two DOF editions (docling)
      load_legalize_pe
      load_rendition docling
      [ "$set" = mixed ] || load_long_laws
      q -c "UPDATE eval_questions SET kind = 'dof edition (docling)' WHERE kind IS NULL"
      max_tokens="${MAX_TOKENS:-800}"; config=dof_spanish ;;
    *) echo "unknown set $set (chunking-evaluation, dof, dof-docling, dof-pymupdf4llm, dof-marker, legalize-pe, legalize-pe-outline, mixed, mixed-long)" >&2; exit 2 ;;
  esac
  if [ -n "${MODEL_FILE:-}" ]; then
    q -c "SELECT name FROM dof_register_model('$MODEL', '$MODEL_FILE', '$MODEL_DIR/tokenizer.json', 'query: ', 'passage: ')" >/dev/null
  fi
  q -v max_tokens="$max_tokens" -v config="$config" -v chunker="$chunker" -v options="$options" \
    -v model="${MODEL:-multilingual-e5-small}" -v late="${LATE:-on}" -v passage_tokens="${PASSAGE_TOKENS:-}" -f "$bench/sql/quality.sql"
  q -v set_name="$set, chunker $chunker_spec, model ${MODEL:-multilingual-e5-small}" -f "$bench/sql/quality_report.sql"
  echo
  q -v set_name="$set" -f "$bench/sql/quality_evaluate.sql"
  echo
done
done
