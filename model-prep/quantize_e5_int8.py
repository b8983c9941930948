"""Build multilingual-e5-small-int8: the standard-ops e5 graph (build_e5_onnx.py ... standard)
with its linear layers quantized to int8 by ONNX Runtime's dynamic quantization, except the
feed-forward output projections.

usage: quantize_e5_int8.py STANDARD.onnx OUT.onnx

Why this selection (bench/scripts/model_variants.py, Python ONNX Runtime, 2 threads, a Xeon
with AVX-512 VNNI): int8 on every MatMul ran 1.63x the shipped q4 graph but its pooled
vectors kept a mean cosine of only 0.99688 to q4's, and it lost 0.02 MRR@10 on the vector
leg; the feed-forward output projection (`lN.fo`, after GELU, whose inputs have the largest
outliers, so one per-tensor activation scale fits them worst) carries almost all of that
loss: leaving those 12 MatMuls in fp32 kept a cosine of 0.99923 at 1.41x. Weights are
per output channel (QInt8), activations per tensor (QUInt8, computed per call), so the
MatMuls run as MLAS's int8 GEMM (VNNI where the CPU has it).

Deterministic: the same STANDARD.onnx gives a byte-identical OUT.onnx, so its sha256 can be
pinned by the caller (scripts/config.sh).
"""
import os
import sys
import tempfile

import onnx
from onnxruntime.quantization import QuantType, quantize_dynamic

KEEP_FLOAT = ".fo.wT"  # the feed-forward output projections' weights, as build_e5_onnx.py names them


def main():
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    standard, out = sys.argv[1:3]
    model = onnx.load(standard)
    # build_e5_onnx.py leaves node names empty: name them so that nodes can be selected
    for i, node in enumerate(model.graph.node):
        node.name = node.name or f"n{i}"
    weights = {init.name for init in model.graph.initializer}
    selected = [node.name for node in model.graph.node
                if node.op_type == "MatMul" and node.input[1] in weights and not node.input[1].endswith(KEEP_FLOAT)]
    kept = [node.name for node in model.graph.node
            if node.op_type == "MatMul" and node.input[1].endswith(KEEP_FLOAT)]
    if not selected or not kept:
        raise SystemExit(f"{standard}: no linear layers found (is it build_e5_onnx.py's standard graph?)")
    with tempfile.TemporaryDirectory() as tmp:
        named = os.path.join(tmp, "named.onnx")
        onnx.save(model, named)
        quantize_dynamic(named, out, weight_type=QuantType.QInt8, per_channel=True,
                         nodes_to_quantize=selected, op_types_to_quantize=["MatMul"])
    print(f"{out}: {len(selected)} MatMuls int8, {len(kept)} feed-forward output MatMuls fp32")


if __name__ == "__main__":
    main()
