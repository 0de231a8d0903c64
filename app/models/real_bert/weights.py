"""all-MiniLM-L6-v2's shape and weights: config.json checked against the shape the code is written for,
and the tensors of model.safetensors laid out for the two forward passes of ``RealBert`` (encoder.py here):
float64 as written for the reference (``EncoderLayer``), float32 in column blocks for the fast one
(``FastLayer``, ``Dense``)."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from app.models.real_bert.installed import CONFIG_FILE, WEIGHTS_FILE, ModelUnavailable

FloatArray = NDArray[np.float64]
Float32Array = NDArray[np.float32]

LAYERS, HEADS, D_MODEL = 6, 12, 384
D_K = D_MODEL // HEADS  # 32
LN_EPS = 1e-12  # config.json: layer_norm_eps


def check_config(directory: Path) -> None:
    """ModelUnavailable when config.json (if there is one) gives the model another shape than LAYERS layers
    of HEADS heads, D_MODEL wide."""
    config_file = directory / CONFIG_FILE
    config = json.loads(config_file.read_text()) if config_file.is_file() else {}
    expected = {"num_hidden_layers": LAYERS, "num_attention_heads": HEADS, "hidden_size": D_MODEL}
    for key, value in expected.items():
        if config.get(key, value) != value:
            raise ModelUnavailable(f"{config_file}: {key} is {config[key]}, expected {value}")


def read_tensors(directory: Path) -> dict[str, NDArray[Any]]:
    """Every tensor of model.safetensors by its name, as the file holds it (float32)."""
    from safetensors.numpy import load_file

    return load_file(str(directory / WEIGHTS_FILE))


@dataclass(frozen=True)
class EncoderLayer:
    """One BERT layer's weights, laid out for x @ W (PyTorch's Linear stores W transposed)."""

    w_q: FloatArray
    b_q: FloatArray
    w_k: FloatArray
    b_k: FloatArray
    w_v: FloatArray
    b_v: FloatArray
    w_o: FloatArray
    b_o: FloatArray
    ln1_g: FloatArray
    ln1_b: FloatArray
    w_1: FloatArray
    b_1: FloatArray
    w_2: FloatArray
    b_2: FloatArray
    ln2_g: FloatArray
    ln2_b: FloatArray


def reference_layer(tensors: dict[str, NDArray[Any]], i: int) -> EncoderLayer:
    def get(name: str) -> FloatArray:
        return tensors[f"encoder.layer.{i}.{name}"].astype(np.float64)

    def linear(name: str) -> FloatArray:
        return np.ascontiguousarray(get(f"{name}.weight").T)  # (out, in) -> (in, out)

    return EncoderLayer(
        w_q=linear("attention.self.query"),
        b_q=get("attention.self.query.bias"),
        w_k=linear("attention.self.key"),
        b_k=get("attention.self.key.bias"),
        w_v=linear("attention.self.value"),
        b_v=get("attention.self.value.bias"),
        w_o=linear("attention.output.dense"),
        b_o=get("attention.output.dense.bias"),
        ln1_g=get("attention.output.LayerNorm.weight"),
        ln1_b=get("attention.output.LayerNorm.bias"),
        w_1=linear("intermediate.dense"),
        b_1=get("intermediate.dense.bias"),
        w_2=linear("output.dense"),
        b_2=get("output.dense.bias"),
        ln2_g=get("output.LayerNorm.weight"),
        ln2_b=get("output.LayerNorm.bias"),
    )


BLOCK_COLUMNS = 64  # columns of W per product in Dense (bench/real_attention.py measures the choice)


class Dense:
    """x W + b in float32, W kept as contiguous blocks of BLOCK_COLUMNS columns, each multiplied on its own.

    For a sentence of a few dozen pieces, x W is a thin product: (n, 384) @ (384, 1536) with n ≈ 7. Handed
    all of W, OpenBLAS first copies W into its own layout (as much memory traffic as the product itself) and
    runs kernels sized for large n; handed (384, 64) blocks, it multiplies straight from them. Measured on one
    core here (AMD EPYC, numpy's OpenBLAS): 0.21 ms instead of 0.50 ms for a (7, 384) @ (384, 1536) product
    whose W is not in cache; the whole forward pass 3.2 ms instead of 6.8 at 7 pieces, 10.3 instead of 12.3
    at 34, 7% slower at 128. Wider blocks (96 columns and up) lose most of the gain; blocks that are views
    of one W, not copies, lose all of it. The answer is x W + b, as one product gives it up to float32
    rounding.
    """

    def __init__(self, w: FloatArray, b: FloatArray) -> None:
        """``w`` (d_in, d_out), ``b`` (d_out,) in any float dtype; kept as float32."""
        d_out = w.shape[1]
        self.shape = w.shape
        self.columns = [
            slice(start, min(start + BLOCK_COLUMNS, d_out)) for start in range(0, d_out, BLOCK_COLUMNS)
        ]
        self.blocks = [np.ascontiguousarray(w[:, c], dtype=np.float32) for c in self.columns]  # (d_in, ≤ 64)
        self.bias = b.astype(np.float32)  # (d_out,)

    def __call__(self, x: Float32Array) -> Float32Array:
        """(n, d_in) -> (n, d_out)."""
        out = np.empty((x.shape[0], self.shape[1]), dtype=np.float32)
        for columns, block in zip(self.columns, self.blocks, strict=True):
            np.matmul(x, block, out=out[:, columns])  # (n, d_in) @ (d_in, ≤ 64) -> (n, ≤ 64)
        out += self.bias
        return out


@dataclass(frozen=True)
class FastLayer:
    """One BERT layer's weights for ``RealBert.attention``: float32, Q and K from one product."""

    qk: Dense  # x -> [Q / √d_k | K]: (n, d_model) -> (n, 2 d_model), the scale folded into W_Q and b_Q
    v: Dense  # x -> V: (n, d_model) -> (n, d_model)
    o: Dense  # (n, d_model) -> (n, d_model)
    ln1_g: Float32Array
    ln1_b: Float32Array
    ff1: Dense  # (n, d_model) -> (n, d_ff)
    ff2: Dense  # (n, d_ff) -> (n, d_model)
    ln2_g: Float32Array
    ln2_b: Float32Array


def fast_layer(tensors: dict[str, NDArray[Any]], i: int) -> FastLayer:
    def get(name: str) -> FloatArray:
        return tensors[f"encoder.layer.{i}.{name}"].astype(np.float64)  # exact: the file holds float32

    def dense(name: str) -> Dense:
        return Dense(get(f"{name}.weight").T, get(f"{name}.bias"))  # PyTorch's (out, in) -> (in, out)

    scale = 1 / math.sqrt(D_K)  # folded into W_Q and b_Q in float64, then rounded once to float32
    qk = Dense(
        np.concatenate([get("attention.self.query.weight").T * scale, get("attention.self.key.weight").T], 1),
        np.concatenate([get("attention.self.query.bias") * scale, get("attention.self.key.bias")]),
    )  # (d_model, 2 d_model)
    return FastLayer(
        qk=qk,
        v=dense("attention.self.value"),
        o=dense("attention.output.dense"),
        ln1_g=get("attention.output.LayerNorm.weight").astype(np.float32),
        ln1_b=get("attention.output.LayerNorm.bias").astype(np.float32),
        ff1=dense("intermediate.dense"),
        ff2=dense("output.dense"),
        ln2_g=get("output.LayerNorm.weight").astype(np.float32),
        ln2_b=get("output.LayerNorm.bias").astype(np.float32),
    )
