"""The relation model of figure 1: one attention layer of width 24, sliced into h heads, trained for each h.

Next to it, the same layer with its h query heads sharing g key/value heads (g divides h; g = 1 is
multi-query attention, 1 < g < h grouped-query): W_Q stays 24 × 24, W_K and W_V shrink to 24 × g·d_k, and
query head i reads key/value head i // (h/g). g = h is the ordinary layer.

The weights come from ``training/train_relations.py`` and ``training/train_sharing.py`` (see
``app/weights/README.md`` for the commands); this module only reads them and runs the layers in numpy.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from app.config import get_settings
from app.core.attention import valid_head_counts
from app.core.borrowing import Borrowing, Claims, borrowing, relation_scores
from app.core.masks import MaskMode, causal_mask
from app.models.relations import D_MODEL, RELATIONS, Analysis, Token, analyse, features, token_row, word_token
from app.models.verdicts import Verdict, head_verdicts, own_heads, verdict
from app.web.refusal import Refusal

FloatArray = NDArray[np.float64]
WEIGHTS_FILE = "relations.npz"
SHARED_FILE = "relations_shared.npz"  # the layers with fewer key/value heads than query heads
PROJECTIONS = ("w_q", "w_k", "w_v", "w_o")
VALID_HEADS = valid_head_counts(D_MODEL)


@dataclass(frozen=True)
class Layer:
    """One trained (or freshly initialised) set of projections for a given head count."""

    w_q: FloatArray
    w_k: FloatArray
    w_v: FloatArray
    w_o: FloatArray


def kv_head_of(heads: int, kv_heads: int) -> list[int]:
    """For each of the h query heads, the key/value head it reads: consecutive query heads share one,
    h/g of them each."""
    return [i // (heads // kv_heads) for i in range(heads)]


def as_multi_head(layer: Layer, heads: int, kv_heads: int) -> Layer:
    """A sharing layer written as an ordinary h-head one: W_K's and W_V's column blocks repeated, block j once
    for each query head that reads key/value head j. It gives the same weights and output through
    app.core.attention's multi_head_attention (the evaluation and the tests use it; serving repeats the
    keys instead, RelationHeads.weights)."""

    def widen(w: FloatArray) -> FloatArray:
        rows, d_k = w.shape[0], D_MODEL // heads
        blocks = w.reshape(rows, kv_heads, d_k)  # (d_model, g·d_k) -> (d_model, g, d_k)
        return np.repeat(blocks, heads // kv_heads, axis=1).reshape(rows, heads * d_k)

    return Layer(w_q=layer.w_q, w_k=widen(layer.w_k), w_v=widen(layer.w_v), w_o=layer.w_o)


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
    verdicts: list[Verdict]  # per head, from its scores on the relations the sentence has

    @property
    def own_heads(self) -> dict[str, int | None]:
        """Each relation the sentence has -> its own head (app.models.verdicts.own_heads), or None."""
        present = [fit.name for fit in self.relations if fit.head_scores is not None]
        return own_heads(self.verdicts, present)


class RelationHeads:
    """All head counts' layers, trained and untrained, and the field codes the inputs are built with; and,
    when ``shared`` is given, the layers whose query heads share fewer key/value heads."""

    def __init__(self, path: Path, shared: Path | None = None) -> None:
        with np.load(path, allow_pickle=False) as data:
            names = [str(n) for n in data["field_names"]]
            self.field_codes = {name: data["field_codes"][k] for k, name in enumerate(names)}
            self.layers = {
                (h, kind): Layer(*(data[f"{kind}/{h}/{p}"].astype(np.float64) for p in PROJECTIONS))
                for h in VALID_HEADS
                for kind in ("trained", "init")
            }
        # (h, g, kind) for every g < h that was trained; keys "trained/<h>/<g>/w_q" and so on
        self.shared_layers: dict[tuple[int, int, str], Layer] = {}
        if shared is not None:
            with np.load(shared, allow_pickle=False) as data:
                found = {tuple(name.split("/")[:3]) for name in data.files}
                for kind, h, g in sorted(found):
                    arrays = (data[f"{kind}/{h}/{g}/{p}"].astype(np.float64) for p in PROJECTIONS)
                    self.shared_layers[(int(h), int(g), kind)] = Layer(*arrays)
        # per h, the key/value head counts it can be served with: the trained ones, and h itself
        self.kv_heads = {
            h: sorted({h} | {g for (hh, g, kind) in self.shared_layers if hh == h and kind == "trained"})
            for h in VALID_HEADS
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

    def weights(
        self, x: FloatArray, heads: int, mask: MaskMode, trained: bool, kv_heads: int | None = None
    ) -> FloatArray:
        """(h, T, T) attention weights of the layer for h heads: app.core.attention's multi_head_attention,
        operation for operation (so bit for bit the same weights), with only what the weights need. No values,
        no context and no W_O are computed to be thrown away, and the arrays are worked on in place.

        With the -inf mask the future is left out of the row maxima and of the exponentials (whose exp(-inf)
        is exactly 0) and set to 0 afterwards: the same numbers, without the slow exponentials of -inf.

        ``kv_heads`` = g below h takes the layer whose h query heads share g key/value heads: the g heads'
        keys are computed once and each is repeated for the h/g query heads that read it. None or h is the
        ordinary layer, on the same code path as before sharing existed."""
        g = heads if kv_heads is None else kv_heads
        kind = "trained" if trained else "init"
        layer = self.layers[(heads, kind)] if g == heads else self.shared_layers[(heads, g, kind)]
        T, d_k = len(x), D_MODEL // heads
        q = (x @ layer.w_q).reshape(T, heads, d_k).transpose(1, 0, 2)  # (T, d_model) -> (h, T, d_k)
        k = (x @ layer.w_k).reshape(T, g, d_k).transpose(1, 0, 2)  # (T, g·d_k) -> (g, T, d_k)
        if g < heads:
            k = np.repeat(k, heads // g, axis=0)  # (g, T, d_k) -> (h, T, d_k): query head i reads i // (h/g)
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

    def check_kv_heads(self, heads: int, kv_heads: int) -> None:
        """Refuse a key/value head count that does not divide ``heads``, or one that was never trained for it
        (a Refusal naming the ones that can be served)."""
        valid = ", ".join(map(str, self.kv_heads[heads]))
        if kv_heads < 1 or heads % kv_heads:
            raise Refusal(f"kv_heads must divide heads = {heads}: one of {valid} (got {kv_heads})")
        if kv_heads not in self.kv_heads[heads]:
            raise Refusal(f"kv_heads = {kv_heads} was not trained for heads = {heads}: one of {valid}")

    def attend(
        self,
        words: list[str],
        heads: int = 3,
        mask: MaskMode = "none",
        trained: bool = True,
        kv_heads: int | None = None,
    ) -> RelationAttention:
        """The layer for ``heads`` heads on the words: its weights, and how well each head serves each
        relation. A head count that does not divide D_MODEL is refused (a Refusal naming the valid ones), and
        so is a ``kv_heads`` that does not divide it or was not trained (RelationHeads.check_kv_heads)."""
        if heads not in VALID_HEADS:
            valid = ", ".join(map(str, VALID_HEADS))
            raise Refusal(f"heads must divide d_model = {D_MODEL}: one of {valid} (got {heads})")
        if kv_heads is not None:
            self.check_kv_heads(heads, kv_heads)
        analysis, x = self.inputs(words)
        weights = self.weights(x, heads, mask, trained, kv_heads)
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
        present = {fit.name: fit.head_scores.tolist() for fit in relations if fit.head_scores is not None}
        verdicts = head_verdicts(present) if present else [verdict({})] * heads
        return RelationAttention(analysis.tokens, weights, relations, verdicts)


@lru_cache
def get_relation_heads() -> RelationHeads:
    """The shared model, loaded once per process, with the key/value-sharing layers when they are there."""
    weights_dir = get_settings().weights_dir
    shared = weights_dir / SHARED_FILE
    return RelationHeads(weights_dir / WEIGHTS_FILE, shared if shared.is_file() else None)
