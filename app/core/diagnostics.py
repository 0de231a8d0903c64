"""Numbers that summarise an attention pattern: how much of it looks ahead, and whether a model's own
attention is causal: the strict-upper-triangle verdict, and the fingerprint of each mask bug of the zoo
(×0, off by one either way, transposed, a faint finite mask, the mask applied after the softmax, NaN rows)
read from the weights alone, head by head and in blocks of bounded size (diagnose_blocks).

The work below the verdict has modules of its own, which import nothing from here: the limits on a shape
(app/core/diagnosis_limits.py), an array's heads in blocks (app/core/head_blocks.py) and the signature of
each head of a block (app/core/head_signatures.py). This module gathers a block's figures into a Diagnosis
and puts them in words.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from itertools import islice
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from app.core.diagnosis_limits import MatrixError, check_shape, grid_shape, head_name
from app.core.head_blocks import array_blocks, as_heads, block_heads
from app.core.head_signatures import (
    BROKEN,
    CODE,
    FAINT,
    LEAKING,
    SIGNATURES,
    Signature,
    judge_block,
    row_sum_tolerance,
)
from app.core.masks import causal_mask

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


# --- The structural diagnosis: is a model's own attention causal, and if not, which bug is it? ----------

Verdict = Literal["causal", "leaks", "broken"]

# An answer lists every head up to this many; past it only the heads that are not causal, at most this many.
LISTED_HEADS = 1024


@dataclass(frozen=True)
class HeadDiagnosis:
    """The verdict on one head, numbered (layer, head). Figures "over valid rows" leave out the rows that
    are entirely NaN (nan_rows) or entirely 0 (empty_rows, padding); they are None when no row is valid."""

    layer: int
    head: int
    max_future: float
    future_mass: float | None
    verdict: Verdict
    signature: Signature
    nan_rows: int
    empty_rows: int
    row_sum_min: float | None
    row_sum_max: float | None
    entropy: float | None


@dataclass(frozen=True)
class LayerDiagnosis:
    """How many heads of one layer leak or are broken; zero_fill and unmasked count those two signatures
    (the other leaking signatures are counted by Diagnosis.signature_counts)."""

    layer: int
    heads: int
    leaking: int
    zero_fill: int
    unmasked: int
    broken: int
    max_future: float  # the largest of its heads'


def _none_if_nan(value: float) -> float | None:
    return None if value != value else value


@dataclass(frozen=True)
class Diagnosis:
    """Every head's figures as (layers, h) arrays, built block by block (diagnose_blocks).

    The figures stay arrays: a record per head is a Python object, and 8,192 of them cost more than the
    numpy work. Records are built only for the heads a caller asks for (each_head, listed_heads), one at a
    time; the verdict, the summary and the per-layer counts are computed on the arrays. A figure that is
    undefined (no valid row in the head) is NaN here and None in a record.
    """

    shape: tuple[int, ...]
    max_future: FloatArray  # (layers, h): the largest weight on a key j > i
    future_mass: FloatArray  # (layers, h): mean over valid rows of Σ_{j > i} w_ij
    nan_rows: NDArray[np.int64]  # (layers, h): rows entirely NaN
    empty_rows: NDArray[np.int64]  # (layers, h): rows entirely 0
    row_sum_min: FloatArray  # (layers, h), over valid rows
    row_sum_max: FloatArray
    entropy: FloatArray  # (layers, h): mean over valid rows of -Σ_j w_ij log w_ij, in nats
    codes: NDArray[np.uint8]  # (layers, h): each head's signature, an index into SIGNATURES

    @property
    def n(self) -> int:
        return self.shape[-1]

    @property
    def leaks(self) -> NDArray[np.bool_]:
        """(layers, h): any positive weight above the diagonal."""
        leaks: NDArray[np.bool_] = self.max_future > 0.0
        return leaks

    @property
    def broken(self) -> NDArray[np.bool_]:
        """(layers, h): no leak, but a zero diagonal, rows summing to less than 1 or NaN rows."""
        named = np.isin(self.codes, [CODE[name] for name in BROKEN])
        broken: NDArray[np.bool_] = named & ~self.leaks
        return broken

    @property
    def zero_fill(self) -> NDArray[np.bool_]:
        """(layers, h): the heads named zero_fill."""
        zero: NDArray[np.bool_] = self.codes == CODE["zero_fill"]
        return zero

    @property
    def signatures(self) -> NDArray[np.str_]:
        """(layers, h): each head's signature by name."""
        names: NDArray[np.str_] = np.array(SIGNATURES)[self.codes]
        return names

    @property
    def head_verdicts(self) -> NDArray[np.str_]:
        """(layers, h): each head's verdict, "leaks", "broken" or "causal"."""
        verdicts: NDArray[np.str_] = np.where(self.leaks, "leaks", np.where(self.broken, "broken", "causal"))
        return verdicts

    @property
    def head_count(self) -> int:
        """layers × h."""
        return int(self.max_future.size)

    @property
    def verdict(self) -> Verdict:
        """ "leaks" if any head leaks, else "broken" if any head is, else "causal"."""
        return "leaks" if self.leaks.any() else "broken" if self.broken.any() else "causal"

    def signature_counts(self) -> dict[str, int]:
        """How many heads carry each signature, in SIGNATURES order, only those that some head carries."""
        counts = np.bincount(self.codes.ravel(), minlength=len(SIGNATURES))
        return {name: int(count) for name, count in zip(SIGNATURES, counts, strict=True) if count}

    @property
    def summary(self) -> str:
        """One to three sentences a reader can act on, made from the counts, the kinds and the worst head."""
        total = self.head_count
        leaky, broken = int(self.leaks.sum()), int(self.broken.sum())
        sentences = []
        if leaky:
            # A hides_self head counts here only when it leaks (a finite mask value over its first row).
            kinds = [
                self._kind(name, int((self.leaks & (self.codes == CODE[name])).sum()), leaking=True)
                for name in LEAKING
            ]
            layer, head = self._first_largest(self.max_future)
            sentences.append(
                f"leaks: {self._some(leaky, 'puts', 'put')} weight on future positions (j > i): "
                f"{_joined([k for k in kinds if k])}. Worst: {head_name(layer, head)}, "
                f"with {self.max_future[layer, head]:.3g} on a single future key."
            )
            if broken:
                sentences.append(f"Also broken without leaking: {self._broken_text(broken)}.")
        elif broken:
            sentences.append(
                f"broken: no head puts weight on future positions (j > i), but {self._broken_text(broken)}. "
                f"{self._broken_example()}."
            )
        else:
            every = "the head puts" if total == 1 else f"all {total:,} heads put"
            sentences.append(f"causal: {every} exactly zero weight on future positions (j > i).")
        empty = int(self.empty_rows.sum())
        if empty:
            rows = "row" if empty == 1 else "rows"
            sentences.append(
                f"{empty:,} all-zero {rows} (padding, under a safe softmax) "
                f"{'was' if empty == 1 else 'were'} set aside."
            )
        return " ".join(sentences)

    def _some(self, count: int, one: str, many: str) -> str:
        if self.head_count == 1:
            return f"the head {one}"
        return f"{count:,} of {self.head_count:,} heads {one if count == 1 else many}"

    def _first_largest(self, figure: FloatArray) -> tuple[int, int]:
        """The first (layer, head) in (layer, head) order where ``figure`` is largest."""
        layer, head = np.unravel_index(int(np.argmax(figure)), figure.shape)
        return int(layer), int(head)

    def _kind(self, name: Signature, count: int, leaking: bool = False) -> str:
        """``count`` heads of signature ``name``, and what the weights show; "" for none."""
        if not count:
            return ""
        if name == "hides_self":
            how = (
                "the fully masked first row spreads over every key, as a finite mask value does"
                if leaking
                else "the first row has nothing left to see"
            )
            return (
                f"{count:,} hiding each word from itself (hides_self: a zero diagonal, as "
                f"triu(ones, diagonal=0) masks it; {how})"
            )
        if name == "after_softmax":
            lowest = float(np.nanmin(np.where(self.codes == CODE[name], self.row_sum_min, np.nan)))
            return (
                f"{count:,} masked after the softmax (after_softmax: rows sum to as little as {lowest:.3g}, "
                "the weights zeroed but not renormalised)"
            )
        if name == "nan_rows":
            rows = int(self.nan_rows[self.codes == CODE[name]].sum())
            return (
                f"{count:,} with NaN rows (nan_rows: {rows:,} rows masked throughout by -inf, as a padded "
                "batch's are, or a float16 mask value that overflowed; a safe softmax gives zeros instead)"
            )
        return f"{count:,} {LEAK_TEXT[name]}"

    def _broken_text(self, broken: int) -> str:
        kinds = [
            self._kind(name, int((self.broken & (self.codes == CODE[name])).sum()))
            for name in SIGNATURES
            if name in BROKEN
        ]
        some = (
            "the head is"
            if self.head_count == 1
            else f"{broken:,} of {self.head_count:,} heads {'is' if broken == 1 else 'are'}"
        )
        return f"{some} broken: {_joined([k for k in kinds if k])}"

    def _broken_example(self) -> str:
        """The worst broken head, by the first broken kind present."""
        broken = self.broken
        if (broken & (self.codes == CODE["hides_self"])).any():
            layer, head = self._first_largest(broken & (self.codes == CODE["hides_self"]))
            return f"First: {head_name(layer, head)}"
        if (broken & (self.codes == CODE["after_softmax"])).any():
            sums = np.where(self.codes == CODE["after_softmax"], -self.row_sum_min, -np.inf)
            layer, head = self._first_largest(sums)
            return f"Lowest row sum: {self.row_sum_min[layer, head]:.3g}, in {head_name(layer, head)}"
        layer, head = self._first_largest(np.where(broken, self.nan_rows, -1))
        return f"Most NaN rows: {self.nan_rows[layer, head]:,} of {self.n}, in {head_name(layer, head)}"

    def each_head(self, which: NDArray[np.bool_] | None = None) -> Iterator[HeadDiagnosis]:
        """A record for every head where ``which`` (layers, h) is True, or for every head, in (layer, head)
        order, built as the caller asks for it: a caller that stops early or prints as it goes never holds
        a record per head."""
        h = self.max_future.shape[1]
        # (layers, h) -> (k,) flat indices, in C order: (layer, head) order
        chosen = np.arange(self.head_count) if which is None else np.flatnonzero(which)
        # Python values for the chosen heads, made in one call per figure rather than one per head
        columns = [
            figure.ravel()[chosen].tolist()
            for figure in (
                self.max_future,
                self.future_mass,
                self.nan_rows,
                self.empty_rows,
                self.row_sum_min,
                self.row_sum_max,
                self.entropy,
                self.codes,
                self.leaks,
            )
        ]
        for k, most, mass, nan, empty, low, high, entropy, code, leak in zip(
            chosen.tolist(), *columns, strict=True
        ):
            layer, head = divmod(k, h)
            signature = SIGNATURES[code]
            yield HeadDiagnosis(
                layer=layer,
                head=head,
                max_future=most,
                future_mass=_none_if_nan(mass),
                verdict="leaks" if leak else "broken" if signature in BROKEN else "causal",
                signature=signature,
                nan_rows=nan,
                empty_rows=empty,
                row_sum_min=_none_if_nan(low),
                row_sum_max=_none_if_nan(high),
                entropy=_none_if_nan(entropy),
            )

    def listed_heads(self) -> list[HeadDiagnosis]:
        """The heads an answer lists: all of them up to LISTED_HEADS; past it only the heads that leak or
        are broken, the first LISTED_HEADS in (layer, head) order (by_layer still counts every head)."""
        which = None if self.head_count <= LISTED_HEADS else self.leaks | self.broken
        return list(islice(self.each_head(which), LISTED_HEADS))

    def by_layer(self) -> list[LayerDiagnosis]:
        """One record per layer (at most MAX_LAYERS): where the leaks are, whatever the heads listed."""
        h = self.max_future.shape[1]
        # (layers, h) -> (layers,): the figures of LayerDiagnosis after its layer and heads, in its order
        counts = (
            self.leaks.sum(axis=1),
            self.zero_fill.sum(axis=1),
            (self.codes == CODE["unmasked"]).sum(axis=1),
            self.broken.sum(axis=1),
            self.max_future.max(axis=1),
        )
        rows = zip(*(count.tolist() for count in counts), strict=True)
        return [LayerDiagnosis(layer, h, *row) for layer, row in enumerate(rows)]


LEAK_TEXT: dict[str, str] = {
    "transposed": "transposed (transposed: no weight on the past and weight on the future, as tril where "
    "triu was meant masks the past instead)",
    "next_word": "leaking only the next word (next_word: future weight on j = i + 1 alone, as "
    "triu(ones, diagonal=2) masks)",
    "zero_fill": "with the ×0 signature (equal future weights along each row: masked_fill(mask, 0) "
    "instead of -inf, or another finite fill the scores outweigh)",
    "faint": f"with a faint leak (faint: unequal future weights all below {FAINT:g}, as a finite mask value "
    "added to the scores and too small for them leaves)",
    "unmasked": "unmasked (free weight on the future: no mask at all, or an additive 0/1 mask, the boolean "
    "mask added as +1 or a 1-for-keep mask added raw, which the weights alone cannot tell apart)",
}


def _joined(parts: list[str]) -> str:
    """ "a", "a and b", "a, b and c"."""
    return parts[0] if len(parts) == 1 else f"{', '.join(parts[:-1])} and {parts[-1]}"


def diagnose_blocks(shape: tuple[int, ...], blocks: Iterable[NDArray[np.generic]]) -> Diagnosis:
    """The diagnosis of an attention array of ``shape`` that arrives as ``blocks``: consecutive runs of
    whole heads (k, n, n), in (layer, head) order, of any real dtype (a reader may hand the same buffer
    again with new contents: each block is copied into float64 before the next is asked for).

    The memory this takes is the figures (a few numbers per head) and one block in float64 with its working
    arrays, whatever the number of heads; the time grows with the weights. judge_block defines every
    figure and signature; check_shape judges ``shape`` before the first block is read.
    """
    shape = tuple(int(s) for s in shape)
    check_shape(shape)
    layers, h = grid_shape(shape)
    total, n = layers * h, shape[-1]
    figures: dict[str, NDArray[np.generic]] = {
        name: np.empty(total, dtype=dtype)
        for name, dtype in (
            ("max_future", np.float64),
            ("future_mass", np.float64),
            ("nan_rows", np.int64),
            ("empty_rows", np.int64),
            ("row_sum_min", np.float64),
            ("row_sum_max", np.float64),
            ("entropy", np.float64),
            ("codes", np.uint8),
        )
    }
    work = np.empty((min(block_heads(n), total), n, n))  # reused for every block
    done = 0
    for block in blocks:
        if block.dtype.kind not in "fiu":
            raise MatrixError(f"the weights must be real numbers, got values of type {block.dtype}")
        k = block.shape[0]
        if block.shape[1:] != (n, n) or done + k > total:
            raise ValueError(f"a block of shape {block.shape} does not continue an array of shape {shape}")
        for start in range(0, k, len(work)):  # a block larger than the work buffer is judged in parts
            part = block[start : start + len(work)]
            w = work[: len(part)]
            w[...] = part
            judged = judge_block(w, done, h, row_sum_tolerance(part))
            for name, values in figures.items():
                values[done : done + len(part)] = getattr(judged, name)
            done += len(part)
    if done != total:
        raise ValueError(f"the blocks held {done} heads, the shape {list(shape)} promises {total}")
    return Diagnosis(shape=shape, **{name: values.reshape(layers, h) for name, values in figures.items()})  # type: ignore[arg-type]


def diagnose(weights: ArrayLike) -> Diagnosis:
    """The verdict and the signature of every head of an attention array held in memory.

    ``weights`` has shape [n, n], [h, n, n] or [layers, h, n, n] (2 ≤ n ≤ 512, at most 256 layers of at
    most 256 heads and 8,192 heads in all), each row a distribution over keys, or a fully masked row (all
    NaN, or all 0). Heads are numbered (layer, head): an [n, n] array is head (0, 0), an [h, n, n] one layer
    0. For each head, with the future being the keys j > i and the valid rows those neither all NaN nor all
    0:

        max_future  = max_{j > i} w_ij
        future_mass = mean over valid rows i of Σ_{j > i} w_ij
        entropy     = mean over valid rows i of -Σ_j w_ij log w_ij   (nats)
        verdict     = "leaks" if max_future > 0, else "broken" for hides_self, after_softmax and nan_rows,
                      else "causal"
        signature   = see judge_block

    A MatrixError names the first thing wrong: the shape (check_shape), then, head by head, a NaN that is
    not a whole row, an infinite or negative weight, or a row summing to more than 1 + 1e-3. The shape is
    judged before any per-element work. A file is diagnosed the same way without being held whole:
    app.core.head_blocks.npy_blocks reads its heads in blocks for diagnose_blocks.
    """
    shape, heads = as_heads(weights)
    return diagnose_blocks(shape, array_blocks(heads))
