# pg_dof — two commands: `make run` (set up everything, build, start a local cluster,
# load samples, report) and `make test` (every test tier). Both are idempotent.
SHELL := /bin/bash
# PG: the PostgreSQL major version every target works on (15, 17 or 18; 15 is Debian 12's
# package, 17 and 18 are built once into $(PG_DOF_CACHE)/pg/PG). `make test` with no PG tests
# every version: the whole suite on 15, the SQL suite on 17 and 18; `make test PG=17` tests 17.
PG ?= 15
export PG
ifeq ($(origin PG),command line)
PG_TEST_VERSIONS ?= $(PG)
else
PG_TEST_VERSIONS ?= 15 17 18
endif
export PG_TEST_VERSIONS
export PG_DOF_CACHE ?= /var/cache/pg_dof
export CARGO_TARGET_DIR ?= $(PG_DOF_CACHE)/target
ARGS ?=

.PHONY: run test setup install start stop clean psql soak bench fixtures fuzz test-core test-pgrx test-regress shards

run: install start ## set up, build, install, start the local cluster, load samples, report
	@scripts/demo.sh

test: ## every tier on 15, pg_regress and integration on 17 and 18 (real PostgreSQL, pgvector, model)
	@for v in $(PG_TEST_VERSIONS); do PG=$$v scripts/setup.sh || exit 1; done
	@scripts/test.sh

setup: ## apt packages, pgvector, cargo-pgrx, ONNX Runtime, the default model (skips what is there)
	@scripts/setup.sh

install: setup ## release build of the extension into PostgreSQL $(PG)
	@scripts/install-extension.sh

start: ## start the project's own cluster (never the system one)
	@scripts/cluster.sh start

stop: ## stop the local cluster (and the sharded set-up's clusters when running)
	@scripts/cluster.sh stop
	@scripts/shards.sh stop >/dev/null

shards: install ## a coordinator and two pg_dof shards on this machine (PL/Proxy), the samples loaded through it, a search
	@scripts/shards.sh start

clean: ## stop the local cluster and delete its data
	@scripts/cluster.sh clean

psql: ## psql on the local cluster; extra arguments through ARGS='-Atc "select 1"'
	@scripts/cluster.sh psql $(ARGS)

soak: install start ## the integration tier's soak, longer (SOAK_SECONDS=300): 8 writers, a queue drainer, random cancels
	@SOAK_SECONDS=$${SOAK_SECONDS:-300} bash tests/integration/soak.sh

bench: setup ## every benchmark, release builds, tables on stdout (needs ../shared/corpora or PG_DOF_CORPORA); NAME=X runs one
	@scripts/bench.sh

fixtures: setup ## regenerate the golden vectors with Python ONNX Runtime
	@source scripts/config.sh && "$$PG_DOF_CACHE/venv/bin/python" model-prep/reference_embeddings.py \
	  "$$MODEL_DIR/model.onnx" "$$MODEL_DIR/tokenizer.json" tests/fixtures/e5_reference.json

fuzz: ## fuzz every target in turn (FUZZ_SECONDS=1800 each, FUZZ_TARGETS='classify blocks'; bash's own SECONDS would start at 0, which libFuzzer reads as "forever")
	@scripts/fuzz.sh $${FUZZ_SECONDS:-1800} $${FUZZ_TARGETS:-}

test-core:
	@scripts/test.sh core

test-pgrx:
	@scripts/test.sh pgrx

test-regress:
	@scripts/test.sh regress
