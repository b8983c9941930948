"""Embedding throughput: dof_embed inside PostgreSQL vs the same ONNX model run by Python
ONNX Runtime on the same texts, the same thread count and the same batching; late chunking
vs independent embedding of the same chunks; first-call vs later-call latency.

usage: embedding.py MODEL.onnx TOKENIZER.json CORPUS_DIR PSQL...
Prints a markdown table. Medians of RUNS runs (default 3). Run by `make bench`.
"""
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer

RUNS = int(os.environ.get("RUNS", "3"))
BATCH_TOKENS = 16 * 512  # pg_dof's OnnxOptions::batch_tokens


def psql(psql_cmd, sql, variables=None):
    args = list(psql_cmd) + ["-X", "-At", "-v", "ON_ERROR_STOP=1"]
    for name, value in (variables or {}).items():
        args += ["-v", f"{name}={value}"]
    out = subprocess.run(args, input=sql, capture_output=True, text=True, check=True)
    return out.stdout.strip()


def backend_seconds(psql_cmd, statement, setup=""):
    """Median wall time of `statement` in one warm session, timed inside the server."""
    sql = f"""{setup}
\\set texts `cat {TEXTS_FILE}`
SELECT count(*) FROM ({statement}) warm;
"""
    for i in range(RUNS):
        sql += f"""SELECT clock_timestamp() AS t{i} \\gset
SELECT count(*) FROM ({statement}) timed;
SELECT extract(epoch FROM clock_timestamp() - :'t{i}');
"""
    lines = psql(psql_cmd, sql).splitlines()
    times = [float(x) for x in lines if "." in x]
    return statistics.median(times)


def main():
    global TEXTS_FILE
    model, tokenizer_path, corpus = sys.argv[1:4]
    psql_cmd = sys.argv[4:]
    tokenizer = Tokenizer.from_file(tokenizer_path)
    tokenizer.no_padding()
    tokenizer.no_truncation()
    # chunks of real DOF editions, cut by pg_dof itself to fit the 512-token window
    files = sorted(Path(corpus).rglob("*.md"))[:6]
    docs = [f.read_text() for f in files]
    doc_file = Path("/tmp/pg_dof_bench_docs.json")
    doc_file.write_text(json.dumps(docs))
    os.chmod(doc_file, 0o644)
    chunks_json = psql(psql_cmd, f"""\\set docs `cat {doc_file}`
SELECT json_agg(c.content ORDER BY d.ordinality, c.chunk_index)
FROM jsonb_array_elements_text(:'docs'::jsonb) WITH ORDINALITY d(body, ordinality),
     dof_chunk(d.body, 400) c;""")
    chunks = json.loads(chunks_json)[:256]
    TEXTS_FILE = "/tmp/pg_dof_bench_texts.json"
    Path(TEXTS_FILE).write_text(json.dumps(chunks))
    os.chmod(TEXTS_FILE, 0o644)
    passages = ["passage: " + c for c in chunks]
    encodings = [tokenizer.encode(p).ids[:512] for p in passages]
    tokens = sum(len(e) for e in encodings)

    rows = []
    for threads in (1, 2):
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        session = ort.InferenceSession(model, options, providers=["CPUExecutionProvider"])

        def python_embed():
            order = sorted(range(len(encodings)), key=lambda i: len(encodings[i]))
            start = 0
            while start < len(order):
                end = start + 1
                while end < len(order) and (end + 1 - start) * len(encodings[order[end]]) <= BATCH_TOKENS:
                    end += 1
                batch = [encodings[i] for i in order[start:end]]
                width = max(len(b) for b in batch)
                ids = np.zeros((len(batch), width), np.int64)
                mask = np.zeros_like(ids)
                for r, b in enumerate(batch):
                    ids[r, :len(b)] = b
                    mask[r, :len(b)] = 1
                states = session.run(["last_hidden_state"], {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)})[0]
                pooled = (states * mask[..., None]).sum(1) / mask.sum(1, keepdims=True)
                pooled / np.linalg.norm(pooled, axis=1, keepdims=True)
                start = end

        python_embed()
        py_times = []
        for _ in range(RUNS):
            t = time.perf_counter()
            python_embed()
            py_times.append(time.perf_counter() - t)
        py = statistics.median(py_times)
        ours = backend_seconds(psql_cmd, "SELECT * FROM dof_embed(ARRAY(SELECT jsonb_array_elements_text(:'texts'::jsonb)))",
                               f"SET pg_dof.intra_op_threads = {threads};")
        rows.append((f"dof_embed, {len(chunks)} chunks, {threads} thread(s)", tokens / ours, f"Python ONNX Runtime {tokens / py:.0f} tok/s", py / ours))

    # late chunking vs independent embedding of the same chunks (per document)
    late_sql = "SELECT * FROM dof_embed_late(ARRAY(SELECT jsonb_array_elements_text(:'texts'::jsonb)))"
    independent_sql = "SELECT * FROM dof_embed(ARRAY(SELECT jsonb_array_elements_text(:'texts'::jsonb)))"
    late = backend_seconds(psql_cmd, late_sql, "SET pg_dof.intra_op_threads = 2;")
    independent = backend_seconds(psql_cmd, independent_sql, "SET pg_dof.intra_op_threads = 2;")
    rows.append((f"dof_embed_late, same {len(chunks)} chunks as one document, 2 threads", tokens / late, f"dof_embed {tokens / independent:.0f} tok/s", independent / late))

    # first call in a new connection (loads ONNX Runtime + model + tokenizer) vs later calls
    first_sql = """SELECT clock_timestamp() AS t0 \\gset
SELECT dof_embed_query('primera consulta') IS NOT NULL;
SELECT extract(epoch FROM clock_timestamp() - :'t0');
SELECT clock_timestamp() AS t1 \\gset
SELECT dof_embed_query('segunda consulta') IS NOT NULL;
SELECT extract(epoch FROM clock_timestamp() - :'t1');"""
    firsts, laters = [], []
    for _ in range(RUNS):
        values = [float(x) for x in psql(psql_cmd, first_sql).splitlines() if "." in x]
        firsts.append(values[0])
        laters.append(values[1])
    first, later = statistics.median(firsts), statistics.median(laters)
    rows.append(("dof_embed_query latency, first call in a connection (ms)", first * 1000, f"later call {later * 1000:.1f} ms", later / first))

    print(f"\n{tokens} tokens in {len(chunks)} chunks of {len(files)} DOF editions (passage prefix, <= 512 tokens each)\n")
    print("| workload | pg_dof | alternative (same run) | ratio (alt time / ours) |")
    print("|---|---|---|---|")
    for name, value, alternative, ratio in rows:
        unit = "" if "latency" in name else " tok/s"
        print(f"| {name} | {value:.0f}{unit} | {alternative} | {ratio:.2f}× |")


if __name__ == "__main__":
    main()
