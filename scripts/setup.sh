#!/usr/bin/env bash
# Installs everything pg_dof needs that is missing; each step skips itself when done.
#   apt packages · pgvector · cargo-pgrx · ONNX Runtime library · default model
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
. "$here/config.sh"
t0=$(date +%s)
elapsed() { echo "   ($(( $(date +%s) - t0 ))s so far)"; }

log "apt packages: PostgreSQL 15 server + headers, PL/Proxy (the coordinator), clang for bindgen, OpenSSL headers (the loader's TLS), sudo, unzip"
packages=(postgresql-15 postgresql-server-dev-15 postgresql-15-plproxy libclang-dev clang libssl-dev pkg-config openssl sudo unzip dpkg-dev)
# PostgreSQL 17 and 18 are built here (scripts/install-postgres.sh): since 17 the upstream
# tarballs hold no generated parser, so bison and flex too
[ "$PG" = 15 ] || packages+=(bison flex libreadline-dev zlib1g-dev libicu-dev curl bzip2)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q >/dev/null
  apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
  echo "installed: ${missing[*]}"
else
  echo "all present"
fi
elapsed

if [ "$PG" != 15 ]; then
  log "PostgreSQL $PG (built from source once, into $PG_DOF_CACHE/pg/$PG)"
  bash "$here/install-postgres.sh" "$PG"
  elapsed
fi

log "pgvector $PGVECTOR_VERSION"
bash "$here/../pgvector-compat/install-pgvector.sh"
elapsed

log "cargo-pgrx $CARGO_PGRX_VERSION"
if cargo pgrx --version 2>/dev/null | grep -q " $CARGO_PGRX_VERSION\$"; then
  echo "already installed"
else
  cargo install cargo-pgrx --version "=$CARGO_PGRX_VERSION" --locked
fi
# pgrx's list of servers: one line per version (cargo pgrx init would rewrite the list)
mkdir -p "$PGRX_HOME"
grep -q '^\[configs\]' "$PGRX_HOME/config.toml" 2>/dev/null || echo '[configs]' >> "$PGRX_HOME/config.toml"
grep -q "^pg$PG = \"$PG_CONFIG\"" "$PGRX_HOME/config.toml" || {
  sed -i "/^pg$PG = /d" "$PGRX_HOME/config.toml"
  sed -i "/^\[configs\]/a pg$PG = \"$PG_CONFIG\"" "$PGRX_HOME/config.toml"
}
elapsed

log "ONNX Runtime $ORT_VERSION"
bash "$here/install-onnxruntime.sh"
elapsed

log "model $MODEL_NAME"
bash "$here/prepare-model.sh"
elapsed
