"""Faster model variants for multilingual-e5-small, judged against the shipped q4 graph:
fp32 with standard ops (the q4 weights dequantized, model-prep/build_e5_onnx.py), dynamic
int8 (onnxruntime.quantization, MatMul weights per channel or per tensor), and int8 on the
feed-forward MatMuls only. Python ONNX Runtime, 2 intra-op threads, the same legalize-pe
paragraphs one per call, medians of RUNS interleaved runs (default 3); the mean cosine of
each variant's pooled vectors to q4's. INT8_BUILTIN, when given, is the built-in
multilingual-e5-small-int8 (model-prep/quantize_e5_int8.py: int8 except the feed-forward
output projections). Quality through the product's SQL is
`LATE=off MODEL=name MODEL_FILE=variant.onnx bench/scripts/retrieval_quality.sh`.

usage: model_variants.py Q4.onnx STANDARD.onnx TOKENIZER.json CORPUS_DIR OUT_DIR [INT8_BUILTIN.onnx]
"""
import glob
import os
import statistics
import sys
import time

import numpy as np
import onnx
import onnxruntime as ort
from onnxruntime.quantization import QuantType, quantize_dynamic
from tokenizers import Tokenizer

RUNS = int(os.environ.get("RUNS", "3"))


def build_variants(standard, out_dir):
    """The int8 variants of the standard-ops graph (built once, kept in out_dir)."""
    os.makedirs(out_dir, exist_ok=True)
    paths = {name: os.path.join(out_dir, f"{name}.onnx") for name in ("int8-per-channel", "int8-per-tensor", "int8-ffn")}
    if not os.path.exists(paths["int8-per-channel"]):
        quantize_dynamic(standard, paths["int8-per-channel"], weight_type=QuantType.QInt8, per_channel=True, op_types_to_quantize=["MatMul"])
    if not os.path.exists(paths["int8-per-tensor"]):
        quantize_dynamic(standard, paths["int8-per-tensor"], weight_type=QuantType.QInt8, per_channel=False, op_types_to_quantize=["MatMul"])
    if not os.path.exists(paths["int8-ffn"]):
        # node names are empty in the built graph: name them to select the feed-forward MatMuls
        model = onnx.load(standard)
        for i, node in enumerate(model.graph.node):
            node.name = node.name or f"n{i}"
        named = os.path.join(out_dir, "standard-named.onnx")
        onnx.save(model, named)
        ffn = [n.name for n in model.graph.node if n.op_type == "MatMul" and any(x.endswith((".fi.wT", ".fo.wT")) for x in n.input)]
        quantize_dynamic(named, paths["int8-ffn"], weight_type=QuantType.QInt8, per_channel=True, nodes_to_quantize=ffn, op_types_to_quantize=["MatMul"])
        os.remove(named)
    return paths


def main():
    q4, standard, tokenizer_path, corpus, out_dir = sys.argv[1:6]
    variants = {"q4 (shipped)": q4, "fp32, standard ops": standard}
    variants.update({f"{k}": v for k, v in build_variants(standard, out_dir).items()})
    if len(sys.argv) > 6:
        variants["int8 except feed-forward output (built-in)"] = sys.argv[6]
    tokenizer = Tokenizer.from_file(tokenizer_path)
    tokenizer.no_padding()
    tokenizer.no_truncation()
    texts = []
    for path in sorted(glob.glob(os.path.join(corpus, "**", "*.md"), recursive=True))[:40]:
        texts += ["passage: " + p[:2000] for p in open(path, encoding="utf-8").read().split("\n\n") if len(p) > 200]
    encodings = [tokenizer.encode(t).ids[:512] for t in texts[:96]]
    tokens = sum(map(len, encodings))
    feeds = [{"input_ids": np.array([e], np.int64), "attention_mask": np.ones((1, len(e)), np.int64),
              "token_type_ids": np.zeros((1, len(e)), np.int64)} for e in encodings]
    sessions = {}
    for name, path in variants.items():
        options = ort.SessionOptions()
        options.intra_op_num_threads = 2
        session = ort.InferenceSession(path, options, providers=["CPUExecutionProvider"])
        sessions[name] = (session, {i.name for i in session.get_inputs()})
    times = {name: [] for name in sessions}
    vectors = {}
    for _ in range(RUNS):
        for name, (session, inputs) in sessions.items():
            start = time.perf_counter()
            out = [session.run(None, {k: v for k, v in f.items() if k in inputs})[0] for f in feeds]
            times[name].append(time.perf_counter() - start)
            vectors[name] = [pooled(o) for o in out]
    base = statistics.median(times["q4 (shipped)"])
    print(f"\n{tokens} tokens, {len(feeds)} paragraphs one per call, 2 threads, medians of {RUNS} interleaved runs\n")
    print("| variant | tokens/s | vs q4 | mean cosine to q4 |")
    print("|---|---|---|---|")
    for name in sessions:
        median = statistics.median(times[name])
        cosine = np.mean([float(a @ b) for a, b in zip(vectors[name], vectors["q4 (shipped)"])])
        print(f"| {name} | {tokens / median:.0f} | {base / median:.2f} | {cosine:.5f} |")


def pooled(output):
    """Mean over the tokens (one text, no padding), L2-normalised."""
    hidden = output[0] if output.ndim == 3 else output
    vector = hidden.mean(axis=0)
    return vector / np.linalg.norm(vector)


if __name__ == "__main__":
    main()
