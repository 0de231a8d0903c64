"""The signature of each head of a block of attention weights: which mask bug of the zoo its weights show,
if any, read from the weights alone (judge_block), with the figures the diagnosis keeps per head; the
signatures in words (SIGNATURE_RULES); and the tolerances the rules use.

app/core/diagnostics.py gathers these figures, block after block, into a Diagnosis.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, get_args

import numpy as np
from numpy.typing import NDArray

from app.core.diagnosis_limits import MatrixError, cell_name, head_name
from app.core.masks import causal_mask

FloatArray = NDArray[np.float64]
AnyFloatArray = NDArray[np.floating]

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
# (see judge_block).
SIGNATURES: tuple[Signature, ...] = get_args(Signature)
CODE = {name: code for code, name in enumerate(SIGNATURES)}  # a head's signature is stored as its index
BROKEN: frozenset[Signature] = frozenset({"hides_self", "after_softmax", "nan_rows"})
# The signatures a leaking head can have (hides_self leaks when a finite mask value fills its first row).
LEAKING: tuple[Signature, ...] = ("hides_self", "next_word", "transposed", "zero_fill", "faint", "unmasked")

ROW_SUM_TOLERANCE = 1e-3  # how far from 1 a row may sum, at least: more where the dtype rounds coarser
# The relative rounding error of one weight (the unit roundoff) by how the weights came: a row of weights
# each rounded so sums within about that of 1, so a row may miss 1 by twice it (and by ROW_SUM_TOLERANCE at
# least). bfloat16 has no numpy dtype: its exports arrive as float32 whose low 16 bits are all 0.
UNIT_ROUNDOFF = {"float16": 2.0**-11, "bfloat16": 2.0**-8, "float32": 2.0**-24, "float64": 2.0**-53}
EQUAL_RTOL = 1e-6
# A leak whose every future weight is below this is "faint": the mask is there, but too weak for the scores.
FAINT = 1e-3
# Each signature in words, in one place: what its weights show and the code that makes them (docs/api.md's
# table is tested against these two), and the line the page writes for it (the grid's titles and the head's
# verdict, by way of the page's data). judge_block's docstring gives the rules in full.
# Each signature's mark on figure 7's grid of heads, in the order its legend lists them: a letter for each
# mask bug, none for a causal head (the page's data hands these to static/js/figures/interview/).
SIGNATURE_MARKS: dict[Signature, str] = {
    "causal": "",
    "zero_fill": "0",
    "next_word": "N",
    "transposed": "T",
    "faint": "f",
    "unmasked": "U",
    "hides_self": "S",
    "after_softmax": "A",
    "nan_rows": "∅",
}
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
    """The figures of a block of k consecutive heads, each (k,): what diagnose_blocks
    (app/core/diagnostics.py) stores per head."""

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
