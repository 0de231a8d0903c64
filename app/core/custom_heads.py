"""Attention over a reader's own matrices (figure 4, the head lab): shape checks that name the field, every
stage of every head, what the heads cost in weights, and how far head 2's context vectors are from head 1's.

The maths itself is app.core.attention.attention_per_head; this module turns nested lists from a reader into
matrices, refusing ragged rows, non-finite numbers and shapes that do not fit together with a Refusal whose
message names the field and both clashing sizes (the web layer shows it as is).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from app.core.attention import FloatArray, PerHeadResult, attention_per_head
from app.core.masks import MaskMode
from app.web.refusal import Refusal

Rows = Sequence[Sequence[float]]


def _numbers(k: int) -> str:
    return f"{k} number" if k == 1 else f"{k} numbers"


def as_matrix(rows: Rows, name: str) -> FloatArray:
    """`rows` as an (r, c) float64 matrix, or a Refusal naming `name`, the ragged row and both lengths."""
    if len(rows) == 0:
        raise Refusal(f"{name} has no rows")
    width = len(rows[0])
    for i, row in enumerate(rows):
        if len(row) != width:
            raise Refusal(
                f"{name}[{i}] has {_numbers(len(row))} but {name}[0] has {_numbers(width)}: "
                "every row needs the same length"
            )
    if width == 0:
        raise Refusal(f"{name} has rows of no numbers")
    m = np.array(rows, dtype=np.float64)
    bad = np.argwhere(~np.isfinite(m))
    if len(bad):
        i, j = (int(v) for v in bad[0])
        raise Refusal(f"{name}[{i}][{j}] is {m[i, j]}: every number must be finite")
    return m


@dataclass(frozen=True)
class HeadMatrices:
    """One head's projections: W_Q and W_K are (d_in, d_k), W_V is (d_in, d_v)."""

    w_q: Rows
    w_k: Rows
    w_v: Rows


@dataclass(frozen=True)
class LabParameters:
    """Weights (biases not counted): per head |W_Q| + |W_K| + |W_V|, then |W_O| (0 without W_O)."""

    per_head: list[int]
    w_o: int
    total: int


@dataclass(frozen=True)
class LabResult:
    result: PerHeadResult
    parameters: LabParameters
    sqrt_d_k: list[float]  # per head: what its scores are divided by when scaling is on
    head_difference: float | None  # head 1 against head 2: see head_difference


def head_difference(contexts: Sequence[FloatArray]) -> float | None:
    """How far apart head 1's and head 2's context vectors are: max |C_1 - C_2| over every entry.

    Exactly 0 when head 2 has head 1's projections (tied). None with fewer than two heads, or when the two
    heads' value widths differ, so that their context vectors differ in shape.
    """
    if len(contexts) < 2 or contexts[0].shape != contexts[1].shape:
        return None
    return float(np.max(np.abs(contexts[0] - contexts[1])))


def check_tokens(tokens: Sequence[str] | None, n: int) -> None:
    """Token labels, when given, must name every row of the embeddings."""
    if tokens is not None and len(tokens) != n:
        raise Refusal(f"tokens has {len(tokens)} entries but embeddings have {n} rows")


def custom_attention(
    embeddings: Rows,
    heads: Sequence[HeadMatrices],
    w_o: Rows | None = None,
    mask: MaskMode = "none",
    scale: bool = True,
    tokens: Sequence[str] | None = None,
) -> LabResult:
    """Every stage of multi-head self-attention with the reader's own numbers.

        head_i = Attention(X W_Q^i, X W_K^i, X W_V^i)       X: (n, d_in)
        output = Concat(head_1, …, head_h) W_O              W_O: (Σ d_v^i, d_out)

    Heads may differ in d_k and d_v; within a head W_Q and W_K must share d_k.
    """
    x = as_matrix(embeddings, "embeddings")
    n, _d_in = x.shape
    check_tokens(tokens, n)
    triples = [
        (
            as_matrix(head.w_q, f"heads[{i}].w_q"),
            as_matrix(head.w_k, f"heads[{i}].w_k"),
            as_matrix(head.w_v, f"heads[{i}].w_v"),
        )
        for i, head in enumerate(heads)
    ]
    o = None if w_o is None else as_matrix(w_o, "w_o")
    try:  # attention_per_head checks every remaining shape, naming the field and both sizes
        result = attention_per_head(x, triples, w_o=o, mask=mask, scale=scale)
    except ValueError as error:  # the maths' own error, worded for the reader: refused as it is
        raise Refusal(str(error)) from error
    per_head = [int(w_q.size + w_k.size + w_v.size) for w_q, w_k, w_v in triples]
    w_o_count = 0 if o is None else int(o.size)
    parameters = LabParameters(per_head=per_head, w_o=w_o_count, total=sum(per_head) + w_o_count)
    return LabResult(
        result=result,
        parameters=parameters,
        sqrt_d_k=[float(np.sqrt(w_q.shape[1])) for w_q, _, _ in triples],
        head_difference=head_difference([stage.context for stage in result.stages]),
    )
