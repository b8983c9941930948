"""Which ONNX Runtime settings are fastest here for multilingual-e5-small: the q4 model
(MatMulNBits) vs the standard-ops one, graph optimisation level, intra-op threads.
Same 64 texts, same batching, tokens/s, medians of RUNS runs (default 3).

usage: ort_settings.py Q4.onnx STANDARD.onnx TOKENIZER.json TEXTS.json
"""
import json
import os
import statistics
import sys
import time

import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer

RUNS = int(os.environ.get("RUNS", "3"))


def main():
    q4, standard, tokenizer_path, texts_path = sys.argv[1:5]
    tokenizer = Tokenizer.from_file(tokenizer_path)
    tokenizer.no_padding()
    tokenizer.no_truncation()
    texts = ["passage: " + t for t in json.load(open(texts_path))[:64]]
    encodings = sorted((tokenizer.encode(t).ids[:512] for t in texts), key=len)
    tokens = sum(map(len, encodings))
    batches = [encodings[i:i + 8] for i in range(0, len(encodings), 8)]
    feeds = []
    for batch in batches:
        width = max(map(len, batch))
        ids = np.zeros((len(batch), width), np.int64)
        mask = np.zeros_like(ids)
        for r, b in enumerate(batch):
            ids[r, :len(b)] = b
            mask[r, :len(b)] = 1
        feeds.append({"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)})
    levels = {"basic": ort.GraphOptimizationLevel.ORT_ENABLE_BASIC,
              "extended": ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED,
              "all": ort.GraphOptimizationLevel.ORT_ENABLE_ALL}
    print(f"\n{tokens} tokens in {len(texts)} texts, batches of 8\n")
    print("| model | graph optimisation | threads | tok/s | vs q4/all/same threads |")
    print("|---|---|---|---|---|")
    results = {}
    for name, path in (("q4", q4), ("standard ops", standard)):
        for level_name, level in levels.items():
            for threads in (1, 2):
                options = ort.SessionOptions()
                options.graph_optimization_level = level
                options.intra_op_num_threads = threads
                options.inter_op_num_threads = 1
                session = ort.InferenceSession(path, options, providers=["CPUExecutionProvider"])
                for feed in feeds[:2]:
                    session.run(["last_hidden_state"], feed)
                times = []
                for _ in range(RUNS):
                    start = time.perf_counter()
                    for feed in feeds:
                        session.run(["last_hidden_state"], feed)
                    times.append(time.perf_counter() - start)
                results[(name, level_name, threads)] = tokens / statistics.median(times)
    for (name, level_name, threads), rate in results.items():
        base = results[("q4", "all", threads)]
        print(f"| {name} | {level_name} | {threads} | {rate:.0f} | {rate / base:.2f}× |")


if __name__ == "__main__":
    main()
