"""Numbers that summarise an attention pattern, such as how much of it looks ahead."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from app.core.attention import causal_mask

FloatArray = NDArray[np.float64]


def future_share(weights: ArrayLike) -> FloatArray:
    """Weight each query row puts on later positions: (..., T, T) -> (..., T).

    future_share_i = Σ_{j > i} w_ij
    """
    w = np.asarray(weights, dtype=np.float64)
    if w.ndim < 2 or w.shape[-1] != w.shape[-2]:
        raise ValueError(f"weights must have shape (..., T, T), got {w.shape}")
    T = w.shape[-1]
    future = causal_mask(T)  # (T, T), broadcast over any leading head axes
    share: FloatArray = np.sum(np.where(future, w, 0.0), axis=-1)
    return share


def future_leak(weights: ArrayLike) -> float:
    """Mean future_share over every head and query row; 0 for a correct causal mask.

    future_leak = mean_{heads, i} Σ_{j > i} w_ij
    """
    share = future_share(weights)
    if share.size == 0:
        raise ValueError("weights must contain at least one query row")
    return float(np.mean(share))
