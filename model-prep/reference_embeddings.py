"""Reference embeddings of the default model, computed by ONNX Runtime outside the database.

usage: reference_embeddings.py MODEL.onnx TOKENIZER.json OUT.json

Writes the golden file the tests compare pg_dof's in-backend embeddings against:
- "independent": texts embedded one by one (mean pooling over the mask, L2-normalised);
- "late": chunks of one short document embedded by late chunking in a single window
  (the same concatenation and token assignment as pg_dof: chunks joined by a blank line,
  a token belongs to the chunk holding its end offset).
Run by `make fixtures`; the output is committed (small, deterministic to 6 decimals).
"""
import json
import sys

import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer

TEXTS = [
    "query: ¿Qué reglas fiscales publicó el SAT?",
    "passage: El Servicio de Administración Tributaria dio a conocer la resolución miscelánea fiscal.",
    "passage: Convocatoria a licitación pública nacional para la adquisición de medicamentos.",
    "passage: El tipo de cambio fue de 17.0520 pesos por dólar de los Estados Unidos de América.",
    "query: compra de fármacos",
    "passage: | Clave | Concepto | Cuota |\n|---|---|---|\n| 1 | derecho de trámite | 10.00 |",
]
LATE_PREFIX = "passage: "
LATE_CHUNKS = [
    "# Decreto por el que se reforma la Ley Federal de Derechos",
    "Artículo Único. Se reforman los artículos 5 y 8 de la Ley Federal de Derechos.",
    "Transitorio. El presente decreto entrará en vigor al día siguiente de su publicación.",
]


def main():
    model, tokenizer_path, out = sys.argv[1:4]
    tokenizer = Tokenizer.from_file(tokenizer_path)
    tokenizer.no_padding()
    tokenizer.no_truncation()
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    session = ort.InferenceSession(model, options, providers=["CPUExecutionProvider"])

    def states(ids):
        ids = np.array([ids], np.int64)
        feed = {"input_ids": ids, "attention_mask": np.ones_like(ids), "token_type_ids": np.zeros_like(ids)}
        return session.run(["last_hidden_state"], feed)[0][0]

    def unit(v):
        return (v / np.linalg.norm(v)).round(6).tolist()

    independent = [{"text": t, "vector": unit(states(tokenizer.encode(t).ids).mean(0))} for t in TEXTS]

    text, ranges = LATE_PREFIX, []
    for i, chunk in enumerate(LATE_CHUNKS):
        if i:
            text += "\n\n"
        start = len(text.encode())
        text += chunk
        ranges.append((start, len(text.encode())))
    encoding = tokenizer.encode(text, add_special_tokens=False)
    # byte offsets (the tokenizer reports char offsets; this text's prefix is ASCII up to
    # the chunks, so convert through the UTF-8 encoding)
    char_to_byte = np.cumsum([0] + [len(c.encode()) for c in text])
    ends = [int(char_to_byte[end]) for _, end in encoding.offsets]
    hidden = states([0] + encoding.ids + [2])[1:-1]
    late = []
    for start, end in ranges:
        members = [i for i, e in enumerate(ends) if start < e <= end]
        late.append(unit(hidden[members].mean(0)))
    json.dump({"model": model.split("/")[-2], "independent": independent,
               "late": {"prefix": LATE_PREFIX, "chunks": LATE_CHUNKS, "vectors": late}},
              open(out, "w"), ensure_ascii=False, indent=0)
    print(f"wrote {out}: {len(independent)} independent, {len(late)} late vectors")


if __name__ == "__main__":
    main()
