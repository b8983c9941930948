#!/usr/bin/env bash
# Installs the ONNX Runtime shared library pg_dof loads at run time, taken out of the
# official PyPI wheel (pinned version, sha256 checked). Skips when already in place.
set -euo pipefail
. "$(dirname "$0")/config.sh"

if [ -f "$ORT_LIBRARY" ]; then
  echo "ONNX Runtime $ORT_VERSION already at $ORT_LIBRARY"
  exit 0
fi
wheel="$(fetch_wheel "onnxruntime==$ORT_VERSION" "$ORT_WHEEL" "$ORT_WHEEL_SHA256" \
  --python-version 3.11 --platform manylinux_2_28_x86_64)"
install -d -m 755 "$(dirname "$ORT_LIBRARY")"
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
unzip -q -j "$wheel" "onnxruntime/capi/libonnxruntime.so.$ORT_VERSION" -d "$tmp"
install -m 644 "$tmp/libonnxruntime.so.$ORT_VERSION" "$ORT_LIBRARY"
echo "ONNX Runtime $ORT_VERSION installed at $ORT_LIBRARY"
