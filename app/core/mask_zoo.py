"""The two entries of the mask bug zoo that are not a per-row mode (figure 6's own panels), in numpy.

The per-row modes (hides_self, next_word, transposed, after_softmax, additive) live beside apply_mask in
app/core/masks.py, as the attention functions run them. Here:

- padding: a left-padded sequence under a key-padding mask and the causal mask, both −∞. A padding row sees
  neither a real word (padding) nor a later one (the future): every score is −∞ and its softmax is 0/0,
  NaN, and so is its gradient. The safe softmax (PyTorch's fix) gives such a row zeros instead.
- finite sentinels in low precision: −1e9, finfo(dtype).min and −1e4 used as the mask value, in float32,
  float16 and bfloat16, each step computed in that dtype.
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from app.core.masks import causal_mask, softmax

FloatArray = NDArray[np.float64]
BoolArray = NDArray[np.bool_]
DType = Literal["float32", "float16", "bfloat16"]
DTYPES: tuple[DType, ...] = ("float32", "float16", "bfloat16")
SENTINELS = ("−1e9", "finfo.min", "−1e4")
# The bfloat16 numbers numpy has no type for: the largest finite one is (2 − 2⁻⁷) · 2¹²⁷.
BFLOAT16_MAX = (2 - 2**-7) * 2.0**127
# The low-precision table's rows: a fully masked row has this many keys; the leak row is one visible key of
# score 0 beside one future key of score FUTURE_SCORE, which a sentinel of −1e4 does not push far enough down.
FULLY_MASKED_KEYS = 4
FUTURE_SCORE = 1e4


# ---- padding ---------------------------------------------------------------------------------------------


def safe_softmax(x: ArrayLike, axis: int = -1) -> FloatArray:
    """softmax, except that a slice that is −∞ throughout gives zeros instead of NaN (as PyTorch's does)."""
    z = np.asarray(x, dtype=np.float64)
    empty = np.all(np.isneginf(z), axis=axis, keepdims=True)
    return np.where(empty, 0.0, softmax(z, axis=axis))


def padding_mask(n: int, pads: int) -> BoolArray:
    """What a left-padded sequence of n positions, the first ``pads`` of them padding, hides: (n, n), True
    where key j is padding (j < pads) or in the future (j > i). Rows i < pads hide every key."""
    if not 0 <= pads <= n:
        raise ValueError(f"pads must be between 0 and n = {n}, got {pads}")
    keys = np.arange(n)[None, :] < pads  # (1, n): the padding keys, for every row
    return keys | causal_mask(n)


def softmax_gradient(weights: ArrayLike, upstream: ArrayLike) -> FloatArray:
    """The softmax's backward pass along the last axis: ∂L/∂s_ij = w_ij (g_ij − Σ_k w_ik g_ik), g = ∂L/∂w.

    A NaN row of weights gives a NaN row of gradients whatever g is."""
    w = np.asarray(weights, dtype=np.float64)
    g = np.asarray(upstream, dtype=np.float64)
    return w * (g - np.sum(w * g, axis=-1, keepdims=True))


def nan_rows(a: ArrayLike) -> list[int]:
    """The rows of a matrix (n, m) holding a NaN."""
    return [int(i) for i in np.flatnonzero(np.isnan(np.asarray(a, dtype=np.float64)).any(axis=-1))]


def padded_attention(scaled: ArrayLike, pads: int) -> dict[str, Any]:
    """A left-padded sequence's attention under the padding and causal masks, naive and safe.

        masked_ij = −inf  if j < pads or j > i  else s_ij
        naive     = softmax(masked)              NaN in rows i < pads
        safe      = safe_softmax(masked)         zeros in those rows

    Each comes with the rows of the softmax's gradient that are NaN, for g = I (a loss rewarding each row's
    weight on its own position; any g gives the same NaN rows).
    """
    s = np.asarray(scaled, dtype=np.float64)
    n = s.shape[-1]
    masked = np.where(padding_mask(n, pads), -np.inf, s)
    naive, safe = softmax(masked), safe_softmax(masked)
    upstream = np.eye(n)
    return {
        "pads": pads,
        "naive": naive,
        "safe": safe,
        "naive_nan_rows": nan_rows(naive),
        "safe_nan_rows": nan_rows(safe),
        "naive_gradient_nan_rows": nan_rows(softmax_gradient(naive, upstream)),
        "safe_gradient_nan_rows": nan_rows(softmax_gradient(safe, upstream)),
    }


# ---- finite sentinels in low precision -------------------------------------------------------------------


def to_bfloat16(x: ArrayLike) -> NDArray[np.float32]:
    """float32 numbers rounded to bfloat16 (kept as float32): the top 16 bits, rounded to nearest, ties to
    even. bfloat16 keeps float32's sign and 8 exponent bits and 7 of its 23 mantissa bits, so 1e9 becomes
    998244352 and float32's most negative number overflows to −inf."""
    f = np.array(x, dtype=np.float32, ndmin=1)
    bits = f.view(np.uint32)
    rounded = (bits + np.uint32(0x7FFF) + ((bits >> np.uint32(16)) & np.uint32(1))) & np.uint32(0xFFFF0000)
    out = np.where(np.isnan(f), f, rounded.view(np.float32))
    return out.reshape(np.shape(x))


def in_dtype(x: ArrayLike, dtype: DType) -> FloatArray:
    """``x`` as ``dtype`` holds it, read back as float64 (float16 overflows to ±inf as numpy does)."""
    a = np.asarray(x, dtype=np.float64)
    with np.errstate(over="ignore"):
        held = to_bfloat16(a.astype(np.float32)) if dtype == "bfloat16" else a.astype(dtype)
    return held.astype(np.float64)


def finfo_min(dtype: DType) -> float:
    """The most negative finite number of ``dtype``."""
    return -BFLOAT16_MAX if dtype == "bfloat16" else float(np.finfo(dtype).min)


def sentinel(name: str, dtype: DType) -> float:
    """The mask value ``name`` as written in code (before it is stored in ``dtype``)."""
    return {"−1e9": -1e9, "finfo.min": finfo_min(dtype), "−1e4": -1e4}[name]


def softmax_in(row: ArrayLike, dtype: DType) -> FloatArray:
    """The softmax of one row with every step's result held in ``dtype``, as a kernel in that dtype does it:
    m = max, e = exp(x − m), w = e / Σ e. A row that is −∞ throughout gives −∞ − (−∞) = NaN."""
    x = in_dtype(row, dtype)
    with np.errstate(invalid="ignore", over="ignore"):
        e = in_dtype(np.exp(in_dtype(x - x.max(), dtype)), dtype)
        return in_dtype(e / in_dtype(e.sum(), dtype), dtype)


def precision_row(name: str, dtype: DType) -> dict[str, float]:
    """One cell row of the low-precision table: sentinel ``name`` in ``dtype``.

    - stored: the sentinel as the dtype holds it (−1e9 overflows float16 to −inf);
    - twice: two masks added to one score, a padding key in the future (s + m + m, s = 0): finfo.min twice
      overflows to −inf in every dtype;
    - fully_masked: the first weight of a row of FULLY_MASKED_KEYS keys each masked twice: 1/n when the
      scores stay finite and equal, NaN when they are −∞;
    - leak: the future's weight in a row with one visible score 0 and one future score FUTURE_SCORE masked
      once: FUTURE_SCORE + m stays near 0 when m is too small.
    """
    stored = in_dtype(sentinel(name, dtype), dtype)
    with np.errstate(over="ignore", invalid="ignore"):
        twice = in_dtype(in_dtype(0.0 + stored, dtype) + stored, dtype)
        future = in_dtype(in_dtype(FUTURE_SCORE, dtype) + stored, dtype)
    return {
        "stored": float(stored),
        "twice": float(twice),
        "fully_masked": float(softmax_in(np.full(FULLY_MASKED_KEYS, twice), dtype)[0]),
        "leak": float(softmax_in(np.array([0.0, future]), dtype)[1]),
    }


def written(x: float) -> float | str:
    """A number for JSON, which has no NaN or ±∞: those as the strings "nan", "inf" and "-inf"."""
    if np.isnan(x):
        return "nan"
    if np.isinf(x):
        return "inf" if x > 0 else "-inf"
    return x


def precision_table() -> list[dict[str, Any]]:
    """Every sentinel in every dtype: its row of precision_row, each number written for JSON."""
    return [
        {"dtype": dtype, "sentinel": name, **{k: written(v) for k, v in precision_row(name, dtype).items()}}
        for dtype in DTYPES
        for name in SENTINELS
    ]
