"""Attention written out stage by stage in plain numpy.

Every function here keeps the intermediate arrays (raw scores, scaled scores,
masked scores, weights, context) so the page can show each step, and the
code is meant to be read side by side with the formulas in the docstrings. The softmax, the masks and
the mask modes they accept are app/core/masks.py's.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from app.core.masks import AttentionMode, check_mode, masked_weights

FloatArray = NDArray[np.float64]


def _as_matrix(a: ArrayLike, name: str) -> FloatArray:
    """``a`` as a 2-D float64 array, or a ValueError naming ``name``."""
    m = np.asarray(a, dtype=np.float64)
    if m.ndim != 2:
        raise ValueError(f"{name} must be a 2-D matrix, got an array of shape {m.shape}")
    return m


def _project_output(concat: FloatArray, w_o: ArrayLike | None) -> FloatArray | None:
    """output = concat W_O, or None when there is no W_O."""
    if w_o is None:
        return None
    o = _as_matrix(w_o, "w_o")
    if o.shape[0] != concat.shape[1]:
        raise ValueError(
            f"w_o has {o.shape[0]} rows but the concatenated heads have {concat.shape[1]} columns"
        )
    return concat @ o  # (T, d_concat) @ (d_concat, d_out) -> (T, d_out)


@dataclass(frozen=True)
class AttentionStages:
    """Every intermediate of one scaled dot-product attention, in order."""

    scores: FloatArray
    scaled: FloatArray
    masked: FloatArray
    weights: FloatArray
    context: FloatArray


def scaled_dot_product_attention(
    q: ArrayLike,
    k: ArrayLike,
    v: ArrayLike,
    mask: AttentionMode = "none",
    scale: bool = True,
) -> AttentionStages:
    """Attention of queries over keys, keeping every stage.

        scores  = Q Kᵀ
        scaled  = scores / √d_k          (scores itself when scale is False)
        masked  = apply_mask(scaled, mask)
        weights = softmax(masked)         (over the key axis)

    ``mask`` may also be one of the zoo's ZOO_MODES, whose masked scores and weights are its own function's.
        context = weights V

    Shapes: q (..., T_q, d_k), k (..., T_k, d_k), v (..., T_k, d_v); leading
    axes (e.g. heads) broadcast. A causal mask needs T_q == T_k.
    """
    check_mode(mask)
    q_ = np.asarray(q, dtype=np.float64)
    k_ = np.asarray(k, dtype=np.float64)
    v_ = np.asarray(v, dtype=np.float64)
    for name, a in (("q", q_), ("k", k_), ("v", v_)):
        if a.ndim < 2:
            raise ValueError(f"{name} must have at least 2 dimensions (..., T, d), got shape {a.shape}")
    *_, t_q, d_k = q_.shape
    *_, t_k, d_k_keys = k_.shape
    *_, t_v, _d_v = v_.shape
    if d_k != d_k_keys:
        raise ValueError(f"q has width d_k={d_k} but k has width {d_k_keys}; queries and keys must match")
    if d_k < 1:
        raise ValueError("d_k must be at least 1")
    if t_k != t_v:
        raise ValueError(f"k has {t_k} rows but v has {t_v}; every key needs exactly one value")
    if mask != "none" and t_q != t_k:
        raise ValueError(f"mask {mask!r} needs as many queries as keys, got T_q={t_q} and T_k={t_k}")

    scores = q_ @ np.swapaxes(k_, -1, -2)  # (..., T_q, d_k) @ (..., d_k, T_k) -> (..., T_q, T_k)
    scaled = scores / np.sqrt(d_k) if scale else scores.copy()
    masked, weights = masked_weights(scaled, mask)
    context = weights @ v_  # (..., T_q, T_k) @ (..., T_k, d_v) -> (..., T_q, d_v)
    return AttentionStages(scores=scores, scaled=scaled, masked=masked, weights=weights, context=context)


def split_heads(x: ArrayLike, h: int) -> FloatArray:
    """Cut the columns of x into h equal heads: (T, d_model) -> (h, T, d_model // h).

    Head i gets columns i·d_k : (i+1)·d_k, with d_k = d_model / h.
    """
    m = _as_matrix(x, "x")
    T, d_model = m.shape
    if h < 1 or d_model % h != 0:
        raise ValueError(
            f"cannot split d_model={d_model} into h={h} heads: h must be a positive divisor of d_model "
            f"(valid: {valid_head_counts(d_model) if d_model >= 1 else []})"
        )
    d_k = d_model // h
    # (T, d_model) -> (T, h, d_k) -> (h, T, d_k)
    return m.reshape(T, h, d_k).transpose(1, 0, 2)


def merge_heads(x: ArrayLike) -> FloatArray:
    """Lay the heads side by side again: (h, T, d_k) -> (T, h·d_k), the inverse of split_heads."""
    a = np.asarray(x, dtype=np.float64)
    if a.ndim != 3:
        raise ValueError(f"merge_heads expects an (h, T, d_k) array, got shape {a.shape}")
    h, T, d_k = a.shape
    # (h, T, d_k) -> (T, h, d_k) -> (T, h * d_k)
    return a.transpose(1, 0, 2).reshape(T, h * d_k)


def valid_head_counts(d_model: int) -> list[int]:
    """Every h that splits d_model evenly, smallest first."""
    if d_model < 1:
        raise ValueError(f"d_model must be at least 1, got {d_model}")
    return [h for h in range(1, d_model + 1) if d_model % h == 0]


@dataclass(frozen=True)
class MultiHeadResult:
    """Per-head projections, the batched attention stages and the combined output."""

    q: FloatArray
    k: FloatArray
    v: FloatArray
    stages: AttentionStages
    concat: FloatArray
    output: FloatArray | None


def multi_head_attention(
    x: ArrayLike,
    w_q: ArrayLike,
    w_k: ArrayLike,
    w_v: ArrayLike,
    heads: int,
    w_o: ArrayLike | None = None,
    mask: AttentionMode = "none",
    scale: bool = True,
) -> MultiHeadResult:
    """Multi-head self-attention with full projection matrices cut into heads.

        Q = X W_Q,  K = X W_K,  V = X W_V                  (T, d_model)
        head_i = Attention(Q_i, K_i, V_i)                   Q_i = columns of head i
        concat = [head_1 | … | head_h]                      (T, d_model)
        output = concat W_O                                 (only if W_O is given)

    All heads are computed at once as a batch along a leading head axis.
    """
    check_mode(mask)
    x_ = _as_matrix(x, "x")
    T, d_model = x_.shape
    mats = {name: _as_matrix(w, name) for name, w in (("w_q", w_q), ("w_k", w_k), ("w_v", w_v))}
    for name, w in mats.items():
        if w.shape[0] != d_model:
            raise ValueError(f"{name} has {w.shape[0]} rows but x has {d_model} columns")
    if mats["w_q"].shape[1] != mats["w_k"].shape[1]:
        raise ValueError(
            f"w_q has {mats['w_q'].shape[1]} columns but w_k has {mats['w_k'].shape[1]}; "
            "queries and keys must have the same width"
        )

    Q = x_ @ mats["w_q"]  # (T, d_model) @ (d_model, d_model) -> (T, d_model)
    K = x_ @ mats["w_k"]  # (T, d_model) @ (d_model, d_model) -> (T, d_model)
    V = x_ @ mats["w_v"]  # (T, d_model) @ (d_model, d_model) -> (T, d_model)
    q = split_heads(Q, heads)  # (T, d_model) -> (h, T, d_k)
    k = split_heads(K, heads)  # (T, d_model) -> (h, T, d_k)
    v = split_heads(V, heads)  # (T, d_model) -> (h, T, d_v)

    stages = scaled_dot_product_attention(q, k, v, mask=mask, scale=scale)  # weights (h, T, T)
    concat = merge_heads(stages.context)  # (h, T, d_v) -> (T, h * d_v)

    output = _project_output(concat, w_o)
    return MultiHeadResult(q=q, k=k, v=v, stages=stages, concat=concat, output=output)


@dataclass(frozen=True)
class PerHeadResult:
    """Attention for heads of possibly different widths, one entry per head."""

    q: list[FloatArray]
    k: list[FloatArray]
    v: list[FloatArray]
    stages: list[AttentionStages]
    concat: FloatArray
    output: FloatArray | None


def attention_per_head(
    x: ArrayLike,
    heads: Sequence[tuple[ArrayLike, ArrayLike, ArrayLike]],
    w_o: ArrayLike | None = None,
    mask: AttentionMode = "none",
    scale: bool = True,
) -> PerHeadResult:
    """Multi-head attention where each head brings its own (W_Q, W_K, W_V).

        head_i = Attention(X W_Q^i, X W_K^i, X W_V^i)
        concat = [head_1 | … | head_h]                      (T, Σ d_v^i)
        output = concat W_O                                 (only if W_O is given)

    Head i may use its own widths d_k^i and d_v^i, so this loops over heads.
    Shape errors name the offending argument and both clashing sizes.
    """
    check_mode(mask)
    x_ = np.asarray(x, dtype=np.float64)
    if x_.ndim != 2:
        raise ValueError(f"embeddings must be a 2-D (T, d_model) matrix, got an array of shape {x_.shape}")
    T, d_model = x_.shape
    if len(heads) == 0:
        raise ValueError("heads must contain at least one (w_q, w_k, w_v) triple")

    qs: list[FloatArray] = []
    ks: list[FloatArray] = []
    vs: list[FloatArray] = []
    stages: list[AttentionStages] = []
    for i, head in enumerate(heads):
        if len(head) != 3:
            raise ValueError(f"heads[{i}] must be a (w_q, w_k, w_v) triple, got {len(head)} items")
        raw_q, raw_k, raw_v = head
        w_q = _as_matrix(raw_q, f"heads[{i}].w_q")
        w_k = _as_matrix(raw_k, f"heads[{i}].w_k")
        w_v = _as_matrix(raw_v, f"heads[{i}].w_v")
        for name, w in (("w_q", w_q), ("w_k", w_k), ("w_v", w_v)):
            if w.shape[0] != d_model:
                raise ValueError(
                    f"heads[{i}].{name} has {w.shape[0]} rows but embeddings have {d_model} columns"
                )
        if w_q.shape[1] != w_k.shape[1]:
            raise ValueError(
                f"heads[{i}].w_q has {w_q.shape[1]} columns but heads[{i}].w_k has {w_k.shape[1]}; "
                "queries and keys must have the same width"
            )
        q = x_ @ w_q  # (T, d_model) @ (d_model, d_k) -> (T, d_k)
        k = x_ @ w_k  # (T, d_model) @ (d_model, d_k) -> (T, d_k)
        v = x_ @ w_v  # (T, d_model) @ (d_model, d_v) -> (T, d_v)
        qs.append(q)
        ks.append(k)
        vs.append(v)
        stages.append(scaled_dot_product_attention(q, k, v, mask=mask, scale=scale))

    concat = np.concatenate([s.context for s in stages], axis=1)  # h × (T, d_v^i) -> (T, Σ d_v^i)

    output = _project_output(concat, w_o)
    return PerHeadResult(q=qs, k=ks, v=vs, stages=stages, concat=concat, output=output)


def parameter_count(d_model: int, heads: int, d_out: int | None = None) -> dict[str, int]:
    """Weights in h heads of width d_k = d_model / h (biases not counted).

        per head:  W_Q, W_K, W_V  each  d_model · d_k
        all heads: 3 · h · d_model · d_k  =  3 · d_model²     (independent of h)
        W_O:       (h · d_k) · d_out  =  d_model · d_out

    So splitting into more, narrower heads adds no weights.
    """
    if heads < 1 or d_model < 1 or d_model % heads != 0:
        raise ValueError(
            f"heads must be a positive divisor of d_model, got d_model={d_model} and heads={heads}"
        )
    out = d_model if d_out is None else d_out
    if out < 1:
        raise ValueError(f"d_out must be at least 1, got {out}")
    d_k = d_model // heads
    per_matrix = d_model * d_k
    qkv_total = 3 * heads * per_matrix
    w_o = heads * d_k * out
    return {
        "heads": heads,
        "d_k": d_k,
        "w_q_per_head": per_matrix,
        "w_k_per_head": per_matrix,
        "w_v_per_head": per_matrix,
        "per_head": 3 * per_matrix,
        "qkv_total": qkv_total,
        "w_o": w_o,
        "total": qkv_total + w_o,
    }


def sinusoidal_positions(n: int, d: int) -> FloatArray:
    """Sinusoidal positional encodings of Vaswani et al. (2017), shape (n, d).

    PE[pos, 2i]     = sin(pos / 10000^(2i / d))
    PE[pos, 2i + 1] = cos(pos / 10000^(2i / d))
    """
    if n < 0 or d < 0:
        raise ValueError(f"n and d must be non-negative, got n={n}, d={d}")
    pos = np.arange(n, dtype=np.float64)[:, None]  # (n,) -> (n, 1)
    two_i = np.arange(0, d, 2, dtype=np.float64)[None, :]  # (ceil(d/2),) -> (1, ceil(d/2))
    angles = pos / np.power(10000.0, two_i / d)  # (n, 1) / (1, ceil(d/2)) -> (n, ceil(d/2))
    pe = np.zeros((n, d), dtype=np.float64)
    pe[:, 0::2] = np.sin(angles)
    pe[:, 1::2] = np.cos(angles[:, : d // 2])
    return pe
