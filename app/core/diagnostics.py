"""Numbers that summarise an attention pattern: how much of it looks ahead, and whether a model's own
attention is causal (the strict-upper-triangle verdict and the fingerprint of the ×0 mask bug)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from itertools import islice
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from app.core.attention import causal_mask
from app.refusal import Refusal

FloatArray = NDArray[np.float64]
AnyFloatArray = NDArray[np.floating]


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


# --- The structural diagnosis: is a model's own attention causal? ---------------------------------------

Verdict = Literal["causal", "leaks"]
Signature = Literal["causal", "zero_fill", "unmasked"]

MIN_POSITIONS = 2
MAX_POSITIONS = 512
# A file's bytes do not bound the work: a 2 MB .npy of shape [500000, 2, 2] is half a million heads, and the
# work and the answer grow with the heads. These bound them whatever the file; check_shape judges them.
MAX_LAYERS = 256
MAX_HEADS_PER_LAYER = 256
MAX_HEADS = 8192  # layers × heads
# An answer lists every head up to this many; past it only the leaking heads, at most this many.
LISTED_HEADS = 1024
ROW_SUM_TOLERANCE = 1e-3
EQUAL_RTOL = 1e-6


class MatrixError(Refusal):
    """Attention weights that cannot be diagnosed; the message is written for the reader who sent them."""


@dataclass(frozen=True)
class HeadDiagnosis:
    """The verdict on one head, numbered (layer, head)."""

    layer: int
    head: int
    max_future: float
    future_mass: float
    verdict: Verdict
    signature: Signature


@dataclass(frozen=True)
class LayerDiagnosis:
    """How many heads of one layer leak, and how: leaking = zero_fill + unmasked."""

    layer: int
    heads: int
    leaking: int
    zero_fill: int
    unmasked: int
    max_future: float  # the largest of its heads'


@dataclass(frozen=True)
class Diagnosis:
    """Every head's figures as (layers, h) arrays, and the weights normalised to (layers, h, n, n).

    The figures stay arrays: a record per head is a Python object, and 8,192 of them cost more than the
    numpy work. Records are built only for the heads a caller asks for (each_head, listed_heads), one at a
    time; the verdict, the summary and the per-layer counts are computed on the arrays.
    """

    shape: tuple[int, ...]
    weights: AnyFloatArray  # the input viewed as (layers, h, n, n), in its own float dtype
    max_future: AnyFloatArray  # (layers, h), in the weights' dtype
    future_mass: FloatArray  # (layers, h)
    zero_fill: NDArray[np.bool_]  # (layers, h): the ×0 signature, which only a leaking head can show

    @property
    def leaks(self) -> NDArray[np.bool_]:
        """(layers, h): any positive weight above the diagonal."""
        leaks: NDArray[np.bool_] = self.max_future > 0.0
        return leaks

    @property
    def head_count(self) -> int:
        """layers × h."""
        return int(self.max_future.size)

    @property
    def verdict(self) -> Verdict:
        return "leaks" if self.leaks.any() else "causal"

    @property
    def summary(self) -> str:
        """One or two sentences a reader can act on."""
        total = self.head_count
        leaky = int(self.leaks.sum())
        if not leaky:
            every = "the head puts" if total == 1 else f"all {total:,} heads put"
            return f"causal: {every} exactly zero weight on future positions (j > i)."
        zero_fill = int(self.zero_fill.sum())
        unmasked = leaky - zero_fill
        # The first largest in (layer, head) order: (layers, h) -> (layer, head)
        layer, head = np.unravel_index(int(np.argmax(self.max_future)), self.max_future.shape)
        kinds = []
        if zero_fill:
            kinds.append(
                f"{zero_fill:,} with the ×0 signature (equal future weights along each row: "
                "masked_fill(mask, 0) instead of -inf)"
            )
        if unmasked:
            kinds.append(f"{unmasked:,} unmasked (free weight on the future)")
        if total == 1:
            some = "the head puts"
        else:
            some = f"{leaky:,} of {total:,} heads {'puts' if leaky == 1 else 'put'}"
        return (
            f"leaks: {some} weight on future positions (j > i): {' and '.join(kinds)}. "
            f"Worst: {head_name(layer, head)}, "
            f"with {self.max_future[layer, head]:.3g} on a single future key."
        )

    def each_head(self, which: NDArray[np.bool_] | None = None) -> Iterator[HeadDiagnosis]:
        """A record for every head where ``which`` (layers, h) is True, or for every head, in (layer, head)
        order, built as the caller asks for it: a caller that stops early or prints as it goes never holds
        a record per head."""
        h = self.max_future.shape[1]
        # (layers, h) -> (k,) flat indices, in C order: (layer, head) order
        chosen = np.arange(self.head_count) if which is None else np.flatnonzero(which)
        # Python numbers for the chosen heads, made in one call per figure rather than one per head
        max_future = self.max_future.ravel()[chosen].tolist()
        future_mass = self.future_mass.ravel()[chosen].tolist()
        leaks = self.leaks.ravel()[chosen].tolist()
        zero_fill = self.zero_fill.ravel()[chosen].tolist()
        for k, most, mass, leak, zero in zip(
            chosen.tolist(), max_future, future_mass, leaks, zero_fill, strict=True
        ):
            layer, head = divmod(k, h)
            yield HeadDiagnosis(
                layer=layer,
                head=head,
                max_future=most,
                future_mass=mass,
                verdict="leaks" if leak else "causal",
                signature="causal" if not leak else "zero_fill" if zero else "unmasked",
            )

    def listed_heads(self) -> list[HeadDiagnosis]:
        """The heads an answer lists: all of them up to LISTED_HEADS; past it only the leaking heads, the
        first LISTED_HEADS in (layer, head) order (by_layer still counts every head)."""
        which = None if self.head_count <= LISTED_HEADS else self.leaks
        return list(islice(self.each_head(which), LISTED_HEADS))

    def by_layer(self) -> list[LayerDiagnosis]:
        """One record per layer (at most MAX_LAYERS): where the leaks are, whatever the heads listed."""
        # (layers, h) -> (layers,)
        leaking = self.leaks.sum(axis=1).tolist()
        zero_fill = self.zero_fill.sum(axis=1).tolist()
        max_future = self.max_future.max(axis=1).tolist()
        h = self.max_future.shape[1]
        return [
            LayerDiagnosis(
                layer=layer, heads=h, leaking=leaky, zero_fill=zero, unmasked=leaky - zero, max_future=most
            )
            for layer, (leaky, zero, most) in enumerate(zip(leaking, zero_fill, max_future, strict=True))
        ]


def check_limits(shape: tuple[int, ...]) -> None:
    """A MatrixError when a shape of 2 to 4 dimensions is past a limit on the work: more than MAX_POSITIONS
    positions, MAX_LAYERS layers, MAX_HEADS_PER_LAYER heads per layer or MAX_HEADS heads in all.

    Only the upper bounds, so that a reader can judge the shape a file claims before building anything
    from it (app.core.matrix_files: a .npy header, the first element at each depth of nested lists); the
    number of dimensions and the square are judged by check_shape, once the shape is known for sure.
    """
    if not 2 <= len(shape) <= 4:
        return
    *lead, rows, keys = shape
    if max(rows, keys) > MAX_POSITIONS:
        size = f"n = {rows:,}" if rows == keys else f"a head of {rows:,} × {keys:,}"
        raise MatrixError(f"{size} is too large: at most {MAX_POSITIONS} positions")
    layers, heads = (1, 1, *lead)[-2:]  # [n, n] is one head; [h, n, n] one layer
    where = f"shape {list(shape)}"
    if layers * heads > MAX_HEADS:
        raise MatrixError(
            f"the array holds {layers * heads:,} heads ({where}): "
            f"at most {MAX_HEADS:,} heads are diagnosed (layers × heads)"
        )
    if layers > MAX_LAYERS:
        raise MatrixError(
            f"the array holds {layers:,} layers ({where}): at most {MAX_LAYERS} layers are diagnosed"
        )
    if heads > MAX_HEADS_PER_LAYER:
        raise MatrixError(
            f"the array holds {heads:,} heads per layer ({where}): "
            f"at most {MAX_HEADS_PER_LAYER} heads per layer are diagnosed"
        )


def check_shape(shape: tuple[int, ...]) -> None:
    """A MatrixError naming the first thing wrong with the shape of an attention array: the number of
    dimensions, a non-square block, n out of range, a limit passed (check_limits) or no heads at all."""
    if len(shape) not in (2, 3, 4):
        raise MatrixError(
            f"expected shape [n, n], [h, n, n] or [layers, h, n, n], got shape {list(shape)} "
            f"({len(shape)} dimension{'' if len(shape) == 1 else 's'})"
        )
    if shape[-1] != shape[-2]:
        raise MatrixError(
            f"the last two dimensions must be equal (queries × keys over the same positions), "
            f"got {shape[-2]} × {shape[-1]}"
        )
    n = shape[-1]
    if n < MIN_POSITIONS:
        raise MatrixError(f"n = {n} is too small: a causal check needs at least {MIN_POSITIONS} positions")
    check_limits(shape)
    if 0 in shape:
        raise MatrixError(f"the array holds no heads: shape {list(shape)}")


def _as_heads(weights: ArrayLike) -> tuple[tuple[int, ...], AnyFloatArray]:
    """The given shape and the weights viewed as (layers, h, n, n), or a MatrixError.

    Floats keep their dtype (a float32 export is not copied to float64: comparisons with 0.0 and equality
    are exact in any float type, and sums accumulate in float64); integers become float64.
    """
    try:
        w = np.asarray(weights)
    except ValueError as error:  # ragged nested sequences
        raise MatrixError(f"the weights do not form a rectangular array: {error}") from error
    if w.dtype.kind not in "fiu":
        raise MatrixError(f"the weights must be real numbers, got values of type {w.dtype}")
    shape = tuple(int(s) for s in w.shape)
    check_shape(shape)
    # (n, n) -> (1, 1, n, n);  (h, n, n) -> (1, h, n, n)
    floats = w if w.dtype.kind == "f" else w.astype(np.float64)
    return shape, floats.reshape((1,) * (4 - w.ndim) + shape)


def head_name(layer: int, head: int) -> str:
    """A head as a reader reads it, counted from 1: "layer 1, head 3" for the array's [0, 2]."""
    return f"layer {layer + 1}, head {head + 1}"


def cell_name(layer: int, head: int, i: int, j: int) -> str:
    """A weight as a reader reads it, counted from 1: "row 2, column 1 of layer 1, head 1" is [0, 0, 1, 0]."""
    return f"row {i + 1}, column {j + 1} of {head_name(layer, head)}"


def _first(bad: NDArray[np.bool_]) -> tuple[int, ...]:
    """The first True index of a boolean array, in C order."""
    return tuple(int(i) for i in np.unravel_index(int(np.argmax(bad)), bad.shape))


def _check_distributions(w: AnyFloatArray) -> None:
    """Every weight finite and ≥ 0, every row summing to 1 (within ROW_SUM_TOLERANCE); else a MatrixError."""
    not_finite = ~np.isfinite(w)
    if not_finite.any():
        layer, head, i, j = _first(not_finite)
        value = w[layer, head, i, j]
        name = "NaN" if np.isnan(value) else "Infinity" if value > 0 else "-Infinity"
        raise MatrixError(
            f"{cell_name(layer, head, i, j)} is {name}: attention weights must be finite numbers"
        )
    negative = w < 0
    if negative.any():
        layer, head, i, j = _first(negative)
        raise MatrixError(
            f"{cell_name(layer, head, i, j)} is {w[layer, head, i, j]:.6g}: "
            "attention weights cannot be negative"
        )
    sums = w.sum(axis=-1, dtype=np.float64)  # (layers, h, n, n) -> (layers, h, n)
    off = np.abs(sums - 1.0) > ROW_SUM_TOLERANCE
    if off.any():
        layer, head, i = _first(off)
        raise MatrixError(
            f"row {i + 1} of {head_name(layer, head)} sums to {sums[layer, head, i]:.6g}, not 1: "
            "attention rows are distributions"
        )


def zero_fill_signature(w: AnyFloatArray) -> NDArray[np.bool_]:
    """Which heads of (..., n, n) leaky weights carry the fingerprint of ``masked_fill(mask, 0)``: (...,).

    The ×0 bug sets every future score to the same constant before the softmax,

        s_ij = 0  for j > i    =>    w_ij = e^0 / Z_i = 1 / Z_i,    Z_i = Σ_{l ≤ i} e^{s_il} + (n - 1 - i)

    so within a row every future key gets exactly the same weight, whatever the past scores are. An
    unmasked head computes a different score for each future key, and its future weights differ. The test:
    in every row with at least two future keys (i ≤ n - 3) the future weights are equal, to a relative
    tolerance EQUAL_RTOL, and at least one such row has positive weight on them (rows whose future weights
    all underflowed to 0 are consistent with the bug but prove nothing). With n = 2 no row has two future
    keys, so the signature cannot be seen. A head whose rows are exactly uniform also matches: on its
    weights alone it is indistinguishable from the bug.
    """
    n = w.shape[-1]
    future = causal_mask(n)  # (n, n): True for j > i
    rows = slice(0, max(n - 2, 0))  # the rows with at least two future keys
    hi = np.max(w, axis=-1, where=future, initial=-np.inf)[..., rows]  # (..., n) -> (..., n - 2)
    lo = np.min(w, axis=-1, where=future, initial=np.inf)[..., rows]
    equal = np.all(hi - lo <= EQUAL_RTOL * hi, axis=-1)
    evidence = np.any(hi > 0, axis=-1)
    result: NDArray[np.bool_] = equal & evidence
    return result


def diagnose(weights: ArrayLike) -> Diagnosis:
    """The strict-upper-triangle verdict for every head of an attention array.

    ``weights`` has shape [n, n], [h, n, n] or [layers, h, n, n] (2 ≤ n ≤ 512, at most 256 layers of at
    most 256 heads and 8,192 heads in all), each row a distribution over keys. Heads are numbered
    (layer, head): an [n, n] array is head (0, 0), an [h, n, n] one layer 0. For each head, with the
    future being the keys j > i:

        max_future  = max_{j > i} w_ij
        future_mass = mean_i Σ_{j > i} w_ij
        verdict     = "causal" if max_future == 0.0 else "leaks"    (any positive future weight fails)
        signature   = "causal", "zero_fill" (the ×0 bug, see zero_fill_signature) or "unmasked"

    A MatrixError names the first thing wrong: the shape (check_shape), a non-finite or negative weight,
    or a row that does not sum to 1 within 1e-3. The shape is judged before any per-element work.
    """
    shape, w = _as_heads(weights)  # (layers, h, n, n)
    _check_distributions(w)
    n = w.shape[-1]
    future = causal_mask(n)  # (n, n): True for j > i
    max_future = np.max(w, axis=(-2, -1), where=future, initial=0.0)  # (layers, h, n, n) -> (layers, h)
    # future_share without its masked copy of w: (layers, h, n, n) -> (layers, h, n) -> (layers, h)
    future_mass = np.sum(w, axis=-1, where=future, dtype=np.float64).mean(axis=-1)
    zero_fill = zero_fill_signature(w)  # (layers, h)
    return Diagnosis(
        shape=shape, weights=w, max_future=max_future, future_mass=future_mass, zero_fill=zero_fill
    )
