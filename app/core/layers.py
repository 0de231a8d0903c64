"""The other pieces of a Transformer block, in numpy: layer norm and the position-wise feed-forward layer."""

from __future__ import annotations

import numpy as np

from app.core.attention import FloatArray

EPS = 1e-5  # PyTorch's layer_norm default, so the numpy models match their training framework

# The parameters of one pre-norm self-attention block, as the models store them.
SELF_ATTENTION_BLOCK = (
    "ln1_g", "ln1_b", "w_q", "w_k", "w_v", "w_o", "ln2_g", "ln2_b", "ff_w1", "ff_b1", "ff_w2", "ff_b2",
)  # fmt: skip


def layer_norm(x: FloatArray, gain: FloatArray, bias: FloatArray, eps: float = EPS) -> FloatArray:
    """(x - mean) / sqrt(var + eps) * gain + bias, over the last axis (BERT's eps is 1e-12)."""
    mean = x.mean(axis=-1, keepdims=True)
    var = x.var(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * gain + bias


def feed_forward(x: FloatArray, p: dict[str, FloatArray]) -> FloatArray:
    """FFN(x) = max(0, x W_1 + b_1) W_2 + b_2, row by row."""
    return np.maximum(x @ p["ff_w1"] + p["ff_b1"], 0.0) @ p["ff_w2"] + p["ff_b2"]
