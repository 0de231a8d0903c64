"""Scores into attention weights under every mask mode: the softmax, the causal mask and apply_mask
(MASK_MODES, /api/attention's list), and the mask bug zoo's per-row modes (ZOO_MODES, figure 6), each
giving the masked scores and the weights the buggy code would.

The one list of the mask modes (ATTENTION_MODES = MASK_MODES + ZOO_MODES) lives here; the attention
functions (app/core/attention.py), the zoo's other panels (app/core/mask_zoo.py) and the routes import it.
"""

from __future__ import annotations

from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

FloatArray = NDArray[np.float64]
BoolArray = NDArray[np.bool_]

MaskMode = Literal["none", "neg_inf", "zero"]
MASK_MODES: tuple[MaskMode, ...] = ("none", "neg_inf", "zero")
# The mask bug zoo (figure 6): the ways real code gets a causal mask wrong, each a per-row mode that the
# attention functions (app/core/attention.py) accept besides MASK_MODES (/api/attention's own list).
ZooMode = Literal["hides_self", "next_word", "transposed", "after_softmax", "additive"]
ZOO_MODES: tuple[ZooMode, ...] = ("hides_self", "next_word", "transposed", "after_softmax", "additive")
AttentionMode = MaskMode | ZooMode
ATTENTION_MODES: tuple[AttentionMode, ...] = (*MASK_MODES, *ZOO_MODES)


def check_mode(mode: str, modes: tuple[str, ...] = ATTENTION_MODES) -> None:
    """A ValueError unless ``mode`` is one of ``modes`` (every mode by default)."""
    if mode not in modes:
        raise ValueError(f"unknown mask mode {mode!r}; expected one of {', '.join(modes)}")


def softmax(x: ArrayLike, axis: int = -1) -> FloatArray:
    """Normalised exponentials along ``axis``.

        softmax(x)_j = exp(x_j - m) / Σ_l exp(x_l - m),    m = max_l x_l

    Subtracting the maximum m changes nothing mathematically but keeps every
    exponent ≤ 0, so inputs such as 1e4 cannot overflow. Entries equal to -inf
    give exp(-inf) = 0 exactly, so their output is exactly 0.0. A slice that is
    -inf throughout has no distribution and comes back as NaN.
    """
    z = np.asarray(x, dtype=np.float64)
    m = np.max(z, axis=axis, keepdims=True)
    m = np.where(np.isfinite(m), m, 0.0)
    e = np.exp(z - m)
    total = np.sum(e, axis=axis, keepdims=True)
    weights: FloatArray = np.divide(e, total, out=np.full_like(e, np.nan), where=total > 0)
    return weights


def causal_mask(n: int) -> BoolArray:
    """The (n, n) mask of the future: entry (i, j) is True exactly when j > i."""
    if n < 0:
        raise ValueError(f"n must be non-negative, got {n}")
    return np.triu(np.ones((n, n), dtype=np.bool_), k=1)


def apply_mask(scores: ArrayLike, mode: MaskMode) -> FloatArray:
    """Hide (or fail to hide) the future in a (..., n, n) block of scores.

        "none":    masked_ij = s_ij
        "neg_inf": masked_ij = -inf  if j > i  else s_ij
        "zero":    masked_ij = 0     if j > i  else s_ij

    "zero" is the classic ``masked_fill(mask, 0)`` bug: a score of 0 is an
    ordinary score, so after the softmax the future still gets weight.
    Always returns a new array.
    """
    check_mode(mode, MASK_MODES)
    s = np.asarray(scores, dtype=np.float64)
    if mode == "none":
        return s.copy()
    if s.ndim < 2 or s.shape[-1] != s.shape[-2]:
        raise ValueError(f"mask {mode!r} needs scores of shape (..., n, n), got {s.shape}")
    n = s.shape[-1]
    future = causal_mask(n)  # (n, n), broadcast over any leading axes
    fill = -np.inf if mode == "neg_inf" else 0.0
    return np.where(future, fill, s)


# ---- the mask bug zoo ------------------------------------------------------------------------------------
# Each mode takes the scaled scores (..., n, n) and gives (masked scores, weights), as the buggy code would.


def _square(scores: ArrayLike, mode: str) -> FloatArray:
    s = np.asarray(scores, dtype=np.float64)
    if s.ndim < 2 or s.shape[-1] != s.shape[-2]:
        raise ValueError(f"mask {mode!r} needs scores of shape (..., n, n), got {s.shape}")
    return s


def _hidden(s: FloatArray, hide: BoolArray) -> tuple[FloatArray, FloatArray]:
    """masked = -inf where ``hide`` else s; weights = softmax(masked)."""
    masked = np.where(hide, -np.inf, s)
    return masked, softmax(masked, axis=-1)


def hides_self(scores: ArrayLike) -> tuple[FloatArray, FloatArray]:
    """Off by one, the word hidden from itself: ``triu(ones, diagonal=0)`` filled with -inf.

        masked_ij = -inf  if j >= i  else s_ij

    Each row loses its diagonal as well as the future. Row 0 sees nothing at all: every entry is -inf, and
    its softmax is 0/0, NaN (as in PyTorch). The NaN does not stay there: position 0's output is NaN, so in
    the next layer any row that looks at position 0 is NaN too.
    """
    s = _square(scores, "hides_self")
    n = s.shape[-1]
    return _hidden(s, np.triu(np.ones((n, n), dtype=np.bool_), k=0))


def next_word(scores: ArrayLike) -> tuple[FloatArray, FloatArray]:
    """Off by one, the quiet cheat: ``triu(ones, diagonal=2)`` filled with -inf.

        masked_ij = -inf  if j >= i + 2  else s_ij

    Every row may look at exactly one later word, the next one (j = i + 1): the word it is meant to predict.
    """
    s = _square(scores, "next_word")
    n = s.shape[-1]
    return _hidden(s, np.triu(np.ones((n, n), dtype=np.bool_), k=2))


def transposed(scores: ArrayLike) -> tuple[FloatArray, FloatArray]:
    """``tril(ones, diagonal=-1)`` where ``triu(ones, diagonal=1)`` was meant, filled with -inf.

        masked_ij = -inf  if j < i  else s_ij

    The past is hidden instead of the future: every word sees itself and the words after it.
    """
    s = _square(scores, "transposed")
    n = s.shape[-1]
    return _hidden(s, np.tril(np.ones((n, n), dtype=np.bool_), k=-1))


def after_softmax(scores: ArrayLike) -> tuple[FloatArray, FloatArray]:
    """The mask applied after the softmax, to the weights, with no renormalisation.

        masked_ij  = s_ij                          (nothing is hidden before the softmax)
        weights_ij = 0  if j > i  else softmax(s)_ij

    No weight lands on the future, but each row keeps only the share the past had earned among all
    positions: Σ_j weights_ij = Σ_{j<=i} softmax(s)_ij < 1 for every row with a later position.
    """
    s = _square(scores, "after_softmax")
    n = s.shape[-1]
    weights = np.where(causal_mask(n), 0.0, softmax(s, axis=-1))
    return s.copy(), weights


def additive(scores: ArrayLike) -> tuple[FloatArray, FloatArray]:
    """The boolean mask added to the scores as a number: ``scores + triu(ones, diagonal=1)``.

        masked_ij = s_ij + 1  if j > i  else s_ij

    True is 1, so the future's scores go up by 1 instead of down to -inf: e^(s+1) = e · e^s. Within a row,
    each later word gets e = 2.718… times the weight, relative to the earlier words, that no mask gives it.
    """
    s = _square(scores, "additive")
    n = s.shape[-1]
    masked = s + causal_mask(n)  # True counts as 1
    return masked, softmax(masked, axis=-1)


ZOO = {
    "hides_self": hides_self,
    "next_word": next_word,
    "transposed": transposed,
    "after_softmax": after_softmax,
    "additive": additive,
}


def masked_weights(scaled: ArrayLike, mode: AttentionMode) -> tuple[FloatArray, FloatArray]:
    """(masked scores, weights) of scaled scores under any mode: apply_mask then softmax for MASK_MODES, the
    zoo's own function for ZOO_MODES."""
    check_mode(mode)
    if mode in ZOO:
        return ZOO[mode](scaled)
    masked = apply_mask(scaled, mode)  # type: ignore[arg-type]
    return masked, softmax(masked, axis=-1)
