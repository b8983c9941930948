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

log "pgvector $PGVECTOR_VERSION"
bash "$here/../pgvector-compat/install-pgvector.sh"
elapsed

log "cargo-pgrx $CARGO_PGRX_VERSION"
if cargo pgrx --version 2>/dev/null | grep -q " $CARGO_PGRX_VERSION\$"; then
  echo "already installed"
else
  cargo install cargo-pgrx --version "=$CARGO_PGRX_VERSION" --locked
fi
grep -q '^pg15 = ' "$PGRX_HOME/config.toml" 2>/dev/null || cargo pgrx init --pg15 "$PG_CONFIG"
elapsed

log "ONNX Runtime $ORT_VERSION"
bash "$here/install-onnxruntime.sh"
elapsed

log "model $MODEL_NAME"
bash "$here/prepare-model.sh"
elapsed
