"""The relation model of figure 1: one attention layer of width 24, sliced into h heads, trained for each h.

The weights come from ``training/train_relations.py`` (see ``app/weights/README.md`` for the command); this
module only reads them and runs the layer in numpy.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from app.config import get_settings
from app.core.attention import MaskMode, causal_mask, valid_head_counts
from app.core.borrowing import Borrowing, Claims, borrowing
from app.models.relations import D_MODEL, RELATIONS, Analysis, Token, analyse, features, token_row, word_token
from app.refusal import Refusal

FloatArray = NDArray[np.float64]
WEIGHTS_FILE = "relations.npz"
PROJECTIONS = ("w_q", "w_k", "w_v", "w_o")
VALID_HEADS = valid_head_counts(D_MODEL)


@dataclass(frozen=True)
class Layer:
    """One trained (or freshly initialised) set of projections for a given head count."""

    w_q: FloatArray
    w_k: FloatArray
    w_v: FloatArray
    w_o: FloatArray


def relation_scores(weights: FloatArray, pairs: list[tuple[int, int]]) -> FloatArray:
    """Per head, the mean weight that query i puts on key j over the relation's (i, j) pairs."""
    rows = np.array([i for i, _ in pairs], dtype=int)
    cols = np.array([j for _, j in pairs], dtype=int)
    return weights[:, rows, cols].mean(axis=1)  # (h, P) -> (h,)


@lru_cache(maxsize=128)
def future_and_past(n: int) -> tuple[NDArray[np.bool_], NDArray[np.bool_]]:
    """causal_mask(n) and its complement, worked out once per length and shared, so read-only."""
    future = causal_mask(n)
    past = ~future
    future.flags.writeable = past.flags.writeable = False
    return future, past


@dataclass(frozen=True)
class RelationFit:
    """One relation in the sentence: its (query, key) pairs, each head's score on them, the best head and its
    score (None without pairs), and how much of that score the best head owes to pairs another relation
    claims too (app.core.borrowing)."""

    name: str
    targets: list[tuple[int, int]]
    head_scores: FloatArray | None  # (h,): relation_scores; None when the sentence has no pair
    best_head: int | None
    score: float | None
    borrowing: Borrowing


@dataclass(frozen=True)
class RelationAttention:
    """The layer on one sentence: the analysed tokens, every head's weights, and each relation's fit."""

    tokens: tuple[Token, ...]
    weights: FloatArray  # (h, T, T): rows sum to 1
    relations: list[RelationFit]


class RelationHeads:
    """All head counts' layers, trained and untrained, and the field codes the inputs are built with."""

    def __init__(self, path: Path) -> None:
        with np.load(path, allow_pickle=False) as data:
            names = [str(n) for n in data["field_names"]]
            self.field_codes = {name: data["field_codes"][k] for k, name in enumerate(names)}
            self.layers = {
                (h, kind): Layer(*(data[f"{kind}/{h}/{p}"].astype(np.float64) for p in PROJECTIONS))
                for h in VALID_HEADS
                for kind in ("trained", "init")
            }
        # A word's row of inputs depends on the word alone (relations.token_row), so it is worked out once
        # per spelling; the rest of a row (position, subject, verb) is the sentence's.
        self._row = lru_cache(maxsize=8192)(self._spelling_row)

    def _spelling_row(self, text: str) -> FloatArray:
        row = token_row(word_token(text), self.field_codes)
        row.flags.writeable = False  # shared by every sentence the word is in
        return row

    def inputs(self, words: list[str]) -> tuple[Analysis, FloatArray]:
        analysis = analyse(words)
        return analysis, features(analysis, self.field_codes, row=self._row)

    def weights(self, x: FloatArray, heads: int, mask: MaskMode, trained: bool) -> FloatArray:
        """(h, T, T) attention weights of the layer for h heads: app.core.attention's multi_head_attention,
        operation for operation (so bit for bit the same weights), with only what the weights need. No values,
        no context and no W_O are computed to be thrown away, and the arrays are worked on in place.

        With the -inf mask the future is left out of the row maxima and of the exponentials (whose exp(-inf)
        is exactly 0) and set to 0 afterwards: the same numbers, without the slow exponentials of -inf."""
        layer = self.layers[(heads, "trained" if trained else "init")]
        T, d_k = len(x), D_MODEL // heads
        q = (x @ layer.w_q).reshape(T, heads, d_k).transpose(1, 0, 2)  # (T, d_model) -> (h, T, d_k)
        k = (x @ layer.w_k).reshape(T, heads, d_k).transpose(1, 0, 2)  # (T, d_model) -> (h, T, d_k)
        scores = q @ k.transpose(0, 2, 1)  # (h, T, d_k) @ (h, d_k, T) -> (h, T, T)
        scores /= np.sqrt(d_k)
        # softmax over keys; every row keeps its diagonal, so its maximum is finite and its sum positive
        future, past = future_and_past(T)  # (T, T), broadcast over the heads
        if mask == "neg_inf":
            scores -= scores.max(axis=-1, keepdims=True, initial=-np.inf, where=past)
            np.exp(scores, out=scores, where=past)
            np.copyto(scores, 0.0, where=future)  # exp(-inf - max) = 0
        else:
            if mask == "zero":
                np.copyto(scores, 0.0, where=future)  # the future, as apply_mask
            scores -= scores.max(axis=-1, keepdims=True)
            np.exp(scores, out=scores)
        scores /= scores.sum(axis=-1, keepdims=True)
        return scores

    def attend(
        self, words: list[str], heads: int = 3, mask: MaskMode = "none", trained: bool = True
    ) -> RelationAttention:
        """The layer for ``heads`` heads on the words: its weights, and how well each head serves each
        relation. A head count that does not divide D_MODEL is refused (a Refusal naming the valid ones)."""
        if heads not in VALID_HEADS:
            valid = ", ".join(map(str, VALID_HEADS))
            raise Refusal(f"heads must divide d_model = {D_MODEL}: one of {valid} (got {heads})")
        analysis, x = self.inputs(words)
        weights = self.weights(x, heads, mask, trained)
        claims = Claims(analysis.targets)  # which relations claim each pair, for all three borrowings
        relations = []
        for name in RELATIONS:
            pairs = analysis.targets[name]
            if not pairs:
                nothing = Borrowing(shared_pairs=[], own_score=None, borrowed=False)
                relations.append(RelationFit(name, [], None, None, None, nothing))
                continue
            per_head = relation_scores(weights, pairs)  # (h,)
            best = int(np.argmax(per_head))
            score = float(per_head[best])
            shares = borrowing(name, analysis.targets, weights[best], score, claims)
            relations.append(RelationFit(name, pairs, per_head, best, score, shares))
        return RelationAttention(tokens=analysis.tokens, weights=weights, relations=relations)


@lru_cache
def get_relation_heads() -> RelationHeads:
    """The shared model, loaded once per process."""
    return RelationHeads(get_settings().weights_dir / WEIGHTS_FILE)
