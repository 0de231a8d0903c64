"""Numbers that summarise an attention pattern: how much of it looks ahead, and whether a model's own
attention is causal: the strict-upper-triangle verdict, and the fingerprint of each mask bug of the zoo
(×0, off by one either way, transposed, a faint finite mask, the mask applied after the softmax, NaN rows)
read from the weights alone, head by head and in blocks of bounded size (judge_block, diagnose_blocks)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from itertools import islice
from typing import Literal, get_args

import numpy as np
from numpy.typing import ArrayLike, NDArray

from app.core.attention import causal_mask
from app.web.refusal import Refusal

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


# --- The structural diagnosis: is a model's own attention causal, and if not, which bug is it? ----------

Verdict = Literal["causal", "leaks", "broken"]
Signature = Literal[
    "hides_self",
    "next_word",
    "transposed",
    "zero_fill",
    "faint",
    "unmasked",
    "after_softmax",
    "nan_rows",
    "causal",
]
# The signatures in the order they are tried (Signature's own order): a head gets the first that fits it
# (see head_signatures).
SIGNATURES: tuple[Signature, ...] = get_args(Signature)
CODE = {name: code for code, name in enumerate(SIGNATURES)}  # a head's signature is stored as its index
BROKEN: frozenset[Signature] = frozenset({"hides_self", "after_softmax", "nan_rows"})
# The signatures a leaking head can have (hides_self leaks when a finite mask value fills its first row).
LEAKING: tuple[Signature, ...] = ("hides_self", "next_word", "transposed", "zero_fill", "faint", "unmasked")

MIN_POSITIONS = 2
MAX_POSITIONS = 512
# A file's bytes do not bound the work: a 2 MB .npy of shape [500000, 2, 2] is half a million heads, and the
# work and the answer grow with the heads. These bound them whatever the file; check_shape judges them.
MAX_LAYERS = 256
MAX_HEADS_PER_LAYER = 256
MAX_HEADS = 8192  # layers × heads
# An answer lists every head up to this many; past it only the heads that are not causal, at most this many.
LISTED_HEADS = 1024
ROW_SUM_TOLERANCE = 1e-3  # how far from 1 a row may sum, at least: more where the dtype rounds coarser
# The relative rounding error of one weight (the unit roundoff) by how the weights came: a row of weights
# each rounded so sums within about that of 1, so a row may miss 1 by twice it (and by ROW_SUM_TOLERANCE at
# least). bfloat16 has no numpy dtype: its exports arrive as float32 whose low 16 bits are all 0.
UNIT_ROUNDOFF = {"float16": 2.0**-11, "bfloat16": 2.0**-8, "float32": 2.0**-24, "float64": 2.0**-53}
EQUAL_RTOL = 1e-6
# A leak whose every future weight is below this is "faint": the mask is there, but too weak for the scores.
FAINT = 1e-3
# Each signature in words, in one place: what its weights show and the code that makes them (the README's
# table is tested against these two), and the line the page writes for it (the grid's titles and the head's
# verdict, by way of the page's data). judge_block's docstring gives the rules in full.
SIGNATURE_RULES: dict[Signature, tuple[str, str, str]] = {
    "causal": (
        "nothing above the diagonal; rows sum to 1, or are all 0 (padding under a safe softmax)",
        "the −∞ mask",
        "nothing above the diagonal",
    ),
    "zero_fill": (
        "equal future weights along each row (padded keys, which no row reads, left out)",
        "`masked_fill(mask, 0)`, or any constant fill the scores outweigh",
        "×0: equal future weights along each row (masked_fill(mask, 0))",
    ),
    "next_word": (
        "future weight on j = i + 1 only",
        "`triu(ones, diagonal=2)`",
        "off by one: weight on the next word only (triu(…, diagonal=2))",
    ),
    "hides_self": (
        "a zero diagonal, and the first row NaN (or uniform under a finite mask value)",
        "`triu(ones, diagonal=0)`",
        "off by one: each word hidden from itself (triu(…, diagonal=0))",
    ),
    "transposed": (
        "no weight on the past, weight on the future",
        "`tril` where `triu` was meant",
        "transposed: the past hidden and the future seen (tril where triu was meant)",
    ),
    "faint": (
        f"unequal future weights, every one below {FAINT:g}",
        "a finite mask value added, too small for the scores (`(1 - mask) * -10000.0` against float16 "
        "scores near 1e4)",
        "a faint leak: tiny future weights (a finite mask value too small for the scores)",
    ),
    "unmasked": (
        "any other weight on the future",
        "no mask at all, or a 0/1 mask added instead of −∞: from weights alone the two cannot be told apart, "
        "since any positive rows W are the softmax of scores log W",
        "free weight on the future: no mask, or a 0/1 mask added instead of −∞",
    ),
    "after_softmax": (
        f"nothing above the diagonal, rows summing to less than 1 (by more than {ROW_SUM_TOLERANCE:g}, or "
        "twice what rounding to float16 or bfloat16 can do: a float32 file whose weights all lie on "
        "bfloat16's grid is read as a bfloat16 export)",
        "the mask applied to the weights, rows not renormalised",
        "masked after the softmax: rows sum to less than 1",
    ),
    "nan_rows": (
        "rows that are NaN throughout",
        "a fully masked row under −∞: left padding, or −1e9 and `finfo.min` overflowing to −∞ in float16",
        "fully masked rows gave NaN (−∞ on a whole row: a safe softmax gives 0 there)",
    ),
}

# Heads are judged in blocks of at most this many weights (one head when n² is larger): 4 MiB of float64 per
# working array, whatever the file holds, so the memory of a diagnosis does not grow with its heads.
BLOCK_ELEMENTS = 2**19


class MatrixError(Refusal):
    """Attention weights that cannot be diagnosed; the message is written for the reader who sent them."""


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
        # (layers, h) -> (layers,)
        leaking = self.leaks.sum(axis=1).tolist()
        zero_fill = self.zero_fill.sum(axis=1).tolist()
        unmasked = (self.codes == CODE["unmasked"]).sum(axis=1).tolist()
        broken = self.broken.sum(axis=1).tolist()
        max_future = self.max_future.max(axis=1).tolist()
        h = self.max_future.shape[1]
        return [
            LayerDiagnosis(
                layer=layer,
                heads=h,
                leaking=leaky,
                zero_fill=zero,
                unmasked=free,
                broken=bad,
                max_future=most,
            )
            for layer, (leaky, zero, free, bad, most) in enumerate(
                zip(leaking, zero_fill, unmasked, broken, max_future, strict=True)
            )
        ]


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


def grid_shape(shape: tuple[int, ...]) -> tuple[int, int]:
    """(layers, h) of an attention array's shape: [n, n] is one head, [h, n, n] one layer."""
    layers, heads = (1, 1, *shape[:-2])[-2:]
    return int(layers), int(heads)


def head_name(layer: int, head: int) -> str:
    """A head as a reader reads it, counted from 1: "layer 1, head 3" for the array's [0, 2]."""
    return f"layer {layer + 1}, head {head + 1}"


def cell_name(layer: int, head: int, i: int, j: int) -> str:
    """A weight as a reader reads it, counted from 1: "row 2, column 1 of layer 1, head 1" is [0, 0, 1, 0]."""
    return f"row {i + 1}, column {j + 1} of {head_name(layer, head)}"


def _first(bad: NDArray[np.bool_]) -> tuple[int, ...]:
    """The first True index of a boolean array, in C order."""
    return tuple(int(i) for i in np.unravel_index(int(np.argmax(bad)), bad.shape))


def zero_fill_signature(w: AnyFloatArray, unread: NDArray[np.bool_] | None = None) -> NDArray[np.bool_]:
    """Which heads of (..., n, n) leaky weights carry the fingerprint of ``masked_fill(mask, 0)``: (...,).

    The ×0 bug sets every future score to the same constant before the softmax,

        s_ij = 0  for j > i    =>    w_ij = e^0 / Z_i = 1 / Z_i,    Z_i = Σ_{l ≤ i} e^{s_il} + (n - 1 - i)

    so within a row every future key gets exactly the same weight, whatever the past scores are. An
    unmasked head computes a different score for each future key, and its future weights differ. The test:
    in every row with at least two future keys the future weights are equal, to a relative tolerance
    EQUAL_RTOL, and at least one such row has positive weight on them (rows whose future weights all
    underflowed to 0 are consistent with the bug but prove nothing). With n = 2 no row has two future keys,
    so the signature cannot be seen. A head whose rows are exactly uniform also matches: on its weights alone
    it is indistinguishable from the bug. ``unread`` (..., n) marks each head's padded keys, which the
    padding mask hides from every row: they are not future keys of the bug's kind, and are left out.
    """
    n = w.shape[-1]
    future = causal_mask(n)  # (n, n): True for j > i
    if unread is not None:
        future = future & ~unread[..., None, :]  # (..., n, n)
    several = future.sum(axis=-1) >= 2  # the rows with at least two future keys
    hi = np.max(w, axis=-1, where=future, initial=-np.inf)  # (..., n, n) -> (..., n)
    lo = np.min(w, axis=-1, where=future, initial=np.inf)
    equal = np.all(~several | (hi - lo <= EQUAL_RTOL * hi), axis=-1)
    evidence = np.any(several & (hi > 0), axis=-1)
    result: NDArray[np.bool_] = equal & evidence
    return result


@dataclass(frozen=True)
class BlockFigures:
    """The figures of a block of k consecutive heads, each (k,): what diagnose_blocks stores per head."""

    max_future: FloatArray
    future_mass: FloatArray
    nan_rows: NDArray[np.int64]
    empty_rows: NDArray[np.int64]
    row_sum_min: FloatArray
    row_sum_max: FloatArray
    entropy: FloatArray
    codes: NDArray[np.uint8]


def _refuse_values(w: FloatArray, first: int, h: int) -> None:
    """A MatrixError for the first weight (in C order) that is not finite or is negative, once NaN rows
    have been set to 0; ``first`` is the flat index of the block's first head among h heads a layer."""

    def where(k: int, i: int, j: int) -> str:
        return cell_name(*divmod(first + k, h), i, j)

    not_finite = ~np.isfinite(w)
    if not_finite.any():
        k, i, j = _first(not_finite)
        value = w[k, i, j]
        name = "NaN" if np.isnan(value) else "Infinity" if value > 0 else "-Infinity"
        extra = " (a row may be NaN only throughout: a fully masked row)" if name == "NaN" else ""
        raise MatrixError(f"{where(k, i, j)} is {name}: attention weights must be finite numbers{extra}")
    negative = w < 0
    if negative.any():
        k, i, j = _first(negative)
        raise MatrixError(f"{where(k, i, j)} is {w[k, i, j]:.6g}: attention weights cannot be negative")


def row_sum_tolerance(block: NDArray[np.generic]) -> float:
    """How far from 1 a row of ``block`` may sum: ROW_SUM_TOLERANCE, or twice the unit roundoff of the
    precision its weights were rounded to (UNIT_ROUNDOFF), whichever is larger."""
    name = block.dtype.name
    if name == "float32" and block.size and not (np.ascontiguousarray(block).view(np.uint32) & 0xFFFF).any():
        name = "bfloat16"  # every weight on bfloat16's grid: a bfloat16 model's weights, widened
    return max(ROW_SUM_TOLERANCE, 2 * UNIT_ROUNDOFF.get(name, 0.0))


def judge_block(w: FloatArray, first: int, h: int, tolerance: float = ROW_SUM_TOLERANCE) -> BlockFigures:
    """The figures and signature of each head of ``w``, a block of k heads (k, n, n) in float64, which this
    overwrites (its NaN rows become 0). ``first`` is the flat (layer · h + head) index of its first head.

    Rows: a row entirely NaN (a fully masked row under -inf) is counted in nan_rows and a row entirely 0
    (padding under a safe softmax) in empty_rows; both are then left out ("valid" rows are the others). A
    MatrixError names the first weight that is NaN in a row that also holds numbers, infinite or negative,
    then the first valid row summing to more than 1 + ``tolerance``: such numbers are not attention
    weights. A valid row summing to less than 1 is a finding (after_softmax), not an error. ``tolerance`` is
    the block's row_sum_tolerance: ROW_SUM_TOLERANCE, more for weights rounded to float16 or bfloat16.

    The signatures, tried in the order of SIGNATURES; a head gets the first that fits (the future is j > i,
    the past j < i, "leaks" means some future weight is positive):

    - hides_self: on every valid row i ≥ 1 the diagonal is exactly 0 and nothing is above it, there is at
      least one such row, and row 0 shows it: triu(ones, diagonal=0) hides each word from itself, which
      leaves row 0 with nothing to see, NaN under -inf and under a finite mask value uniform over every key,
      a leak confined to row 0. It is tried first so that this form is named too (it leaks, so its verdict
      is "leaks"). A correct head whose rows i ≥ 1 all look elsewhere (an attention sink on token 0, or a
      previous-token head whose self-weights round to 0 in float16) keeps its row 0 on token 0: causal.
    - next_word: leaks only on j = i + 1 (triu(ones, diagonal=2) leaves the next word visible); n ≥ 3, as
      with n = 2 the next word is the whole future. A head that reads only the next word, and nothing
      behind it, is next_word rather than transposed: the more particular of the two.
    - transposed: leaks, and no valid row i ≥ 1 puts weight on the past (tril where triu was meant).
    - zero_fill: leaks with equal future weights along each row (zero_fill_signature): the future's
      scores were all set to one constant, masked_fill(mask, 0) or any finite fill the scores outweigh.
    - faint: leaks, unequally, but every future weight is below FAINT: a finite mask value ADDED to the
      scores and too small for them ((1 - mask) * -10000.0 against float16 scores near 1e4 leaves
      e^(mask value + score - largest score)). A constant fill, however faint, is zero_fill: filled scores
      give equal weights whatever the constant.
    - unmasked: any other leak. This includes an additive 0/1 mask (the boolean mask added to the scores
      as +1, or a 1-for-keep mask added raw): from weights alone it cannot be told from no mask at all,
      because any matrix of positive rows W is softmax(log W), the weights of an unmasked head whose
      scores happen to be log W. Adding 1 to some scores only makes other scores of the same kind.
    - after_softmax: no leak, and some valid row sums to less than 1 - ``tolerance`` (the future was
      zeroed after the softmax and the rows not renormalised; the last row, with no future, sums to 1).
    - nan_rows: no leak, and some rows are entirely NaN.
    - causal: none of these. A padded batch done right (zero rows for padding, zero columns for padded
      keys) is causal. Left padding under -inf leaves the padded queries' rows NaN: nan_rows, rightly, as
      the NaN reaches every position's output through the next layer's values (0 · NaN is NaN).
    """
    k, n, _ = w.shape
    rows_nan = np.isnan(w[:, :, 0])  # (k, n): a NaN row has a NaN first column; checked whole below
    if rows_nan.any():
        rows_nan &= np.isnan(w).all(axis=-1)
        w[rows_nan] = 0.0  # judged as empty from here on; counted apart
    _refuse_values(w, first, h)
    sums = w.sum(axis=-1)  # (k, n, n) -> (k, n)
    empty = (sums == 0.0) & ~rows_nan  # weights are ≥ 0, so a row summing to 0 is all 0
    valid = ~(empty | rows_nan)
    valid_count = valid.sum(axis=-1)  # (k,)
    over = valid & (sums > 1.0 + tolerance)
    if over.any():
        head, i = _first(over)
        raise MatrixError(
            f"row {i + 1} of {head_name(*divmod(first + head, h))} sums to {sums[head, i]:.6g}, not 1: "
            "attention rows are distributions"
        )
    future = causal_mask(n)  # (n, n): True for j > i
    # Invalid rows are all 0 now, so maxima and sums over every row are those over the valid rows.
    future_row = np.sum(w, axis=-1, where=future)  # (k, n, n) -> (k, n)
    max_future = np.max(w, axis=(-2, -1), where=future, initial=0.0)  # (k, n, n) -> (k,)
    with np.errstate(invalid="ignore", divide="ignore"):
        future_mass = future_row.sum(axis=-1) / valid_count  # NaN when no row is valid
        log_w = np.log(w, out=np.zeros_like(w), where=w > 0.0)
        entropy = -np.einsum("kij,kij->k", w, log_w) / valid_count
    del log_w
    row_sum_min = np.min(sums, axis=-1, where=valid, initial=np.inf)
    row_sum_max = np.max(sums, axis=-1, where=valid, initial=-np.inf)
    no_rows = valid_count == 0
    row_sum_min[no_rows] = row_sum_max[no_rows] = np.nan

    leaks = max_future > 0.0
    diagonal = np.diagonal(w, axis1=-2, axis2=-1)  # (k, n), a view
    later = valid[:, 1:].any(axis=-1)  # some valid row i ≥ 1
    first_row_hidden = rows_nan[:, 0] | (future_row[:, 0] > 0.0)  # row 0 NaN, or spread over the future
    hides_self = (
        later
        & first_row_hidden
        & np.all(diagonal[:, 1:] == 0.0, axis=-1)
        & np.all(future_row[:, 1:] == 0.0, axis=-1)
    )
    conditions = [hides_self]
    if leaks.any():
        past = np.tril(np.ones((n, n), dtype=np.bool_), k=-1)
        beyond_next = np.triu(np.ones((n, n), dtype=np.bool_), k=2)
        no_past = np.max(w, axis=(-2, -1), where=past, initial=0.0) == 0.0
        no_beyond = np.max(w, axis=(-2, -1), where=beyond_next, initial=0.0) == 0.0
        unread = ~w.any(axis=-2)  # (k, n, n) -> (k, n): keys no row reads, padded ones among them
        conditions += [
            leaks & no_beyond & (n >= 3),  # next_word
            leaks & later & no_past,  # transposed
            leaks & zero_fill_signature(w, unread),  # zero_fill
            leaks & (max_future < FAINT),  # faint
            leaks,  # unmasked
        ]
    else:
        conditions += [np.zeros(k, dtype=np.bool_)] * 5
    short = valid & (sums < 1.0 - tolerance)
    conditions += [short.any(axis=-1), rows_nan.any(axis=-1)]  # after_softmax, nan_rows
    codes = np.select(conditions, range(len(conditions)), default=CODE["causal"]).astype(np.uint8)
    return BlockFigures(
        max_future=max_future,
        future_mass=future_mass,
        nan_rows=rows_nan.sum(axis=-1),
        empty_rows=empty.sum(axis=-1),
        row_sum_min=row_sum_min,
        row_sum_max=row_sum_max,
        entropy=entropy,
        codes=codes,
    )


def block_heads(n: int) -> int:
    """How many heads of n positions a block holds: BLOCK_ELEMENTS weights, and at least one head."""
    return max(1, BLOCK_ELEMENTS // (n * n))


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


def as_heads(weights: ArrayLike) -> tuple[tuple[int, ...], NDArray[np.generic]]:
    """The given shape and the weights viewed as (layers · h, n, n), or a MatrixError. Nothing is copied
    for an array already in memory; ragged nested sequences and values that are not real numbers are
    refused, and the shape is judged (check_shape) before any work on the weights."""
    try:
        w = np.asarray(weights)
    except ValueError as error:  # ragged nested sequences
        raise MatrixError(f"the weights do not form a rectangular array: {error}") from error
    if w.dtype.kind not in "fiu":
        raise MatrixError(f"the weights must be real numbers, got values of type {w.dtype}")
    shape = tuple(int(s) for s in w.shape)
    check_shape(shape)
    return shape, w.reshape(-1, shape[-1], shape[-1])


def array_blocks(heads: NDArray[np.generic]) -> Iterator[NDArray[np.generic]]:
    """(heads, n, n) in blocks of block_heads(n) heads: views, nothing copied."""
    step = block_heads(heads.shape[-1])
    for start in range(0, len(heads), step):
        yield heads[start : start + step]


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
    app.core.matrix_files reads its heads in blocks for diagnose_blocks.
    """
    shape, heads = as_heads(weights)
    return diagnose_blocks(shape, array_blocks(heads))
