"""Attention written out with plain loops and math.exp: the yardstick the numpy code and the server's
answers are checked against, independent of both."""

from __future__ import annotations

import math


def softmax_row(scores: list[float], i: int, mask: str = "none") -> list[float]:
    """Row `i` of the attention weights from its raw scores: the scores of later positions (j > i) set to
    −∞ (mask "neg_inf") or to 0 (mask "zero", the bug) or left alone ("none"), then a softmax."""
    future = {"neg_inf": -math.inf, "zero": 0.0}.get(mask)  # what a later position's score becomes
    masked = [s if j <= i or future is None else future for j, s in enumerate(scores)]
    top = max(masked)
    exps = [math.exp(s - top) for s in masked]  # math.exp(-inf) is 0.0
    total = sum(exps)
    return [e / total for e in exps]
