"""The relation model of figure 1: one attention layer of width 24, sliced into h heads, trained for each h.

The weights come from ``training/train_relations.py`` (see ``app/weights/README.md`` for the command); this
module only reads them and runs the layer in numpy.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from app.config import get_settings
from app.core.attention import MaskMode, multi_head_attention, valid_head_counts
from app.core.diagnostics import future_leak
from app.models.relations import D_MODEL, RELATIONS, Analysis, analyse, features, tokenize
from app.schemas import AttentionResponse, Relation, RelationName

WEIGHTS_FILE = "relations.npz"
PROJECTIONS = ("w_q", "w_k", "w_v", "w_o")
VALID_HEADS = valid_head_counts(D_MODEL)
RELATION_NAMES: tuple[RelationName, ...] = ("meaning", "grammar", "position")
assert RELATION_NAMES == RELATIONS


class BadInput(ValueError):
    """The request cannot be answered as asked; the message says why, for the reader."""


@dataclass(frozen=True)
class Layer:
    """One trained (or freshly initialised) set of projections for a given head count."""

    w_q: NDArray[np.float64]
    w_k: NDArray[np.float64]
    w_v: NDArray[np.float64]
    w_o: NDArray[np.float64]


def sentence_words(sentence: str, max_tokens: int = 64) -> list[str]:
    """The sentence's words as figure 1 counts them, or BadInput when there are none or too many."""
    words = tokenize(sentence)
    if not words:
        raise BadInput("sentence has no words: type at least one word")
    if len(words) > max_tokens:
        raise BadInput(f"sentence has {len(words)} tokens; at most {max_tokens} are allowed")
    return words


def relation_scores(weights: NDArray[np.float64], pairs: list[tuple[int, int]]) -> NDArray[np.float64]:
    """Per head, the mean weight that query i puts on key j over the relation's (i, j) pairs."""
    rows = np.array([i for i, _ in pairs], dtype=int)
    cols = np.array([j for _, j in pairs], dtype=int)
    return weights[:, rows, cols].mean(axis=1)  # (h, P) -> (h,)


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

    def inputs(self, words: list[str]) -> tuple[Analysis, NDArray[np.float64]]:
        analysis = analyse(words)
        return analysis, features(analysis, self.field_codes)

    def weights(
        self, x: NDArray[np.float64], heads: int, mask: MaskMode, trained: bool
    ) -> NDArray[np.float64]:
        """(h, T, T) attention weights of the layer for h heads."""
        layer = self.layers[(heads, "trained" if trained else "init")]
        result = multi_head_attention(x, layer.w_q, layer.w_k, layer.w_v, heads, w_o=layer.w_o, mask=mask)
        return result.stages.weights

    def attend(
        self,
        sentence: str,
        heads: int = 3,
        mask: MaskMode = "none",
        trained: bool = True,
        max_tokens: int = 64,
    ) -> AttentionResponse:
        """Answer for /api/attention: the weights of every head and each relation's best head."""
        if heads not in VALID_HEADS:
            valid = ", ".join(map(str, VALID_HEADS))
            raise BadInput(f"heads must divide d_model = {D_MODEL}: one of {valid} (got {heads})")
        words = sentence_words(sentence, max_tokens)
        analysis, x = self.inputs(words)
        weights = self.weights(x, heads, mask, trained)
        relations = []
        for name in RELATION_NAMES:
            pairs = analysis.targets[name]
            if not pairs:
                relations.append(
                    Relation(name=name, targets=[], best_head=None, score=None, head_scores=None)
                )
                continue
            per_head = relation_scores(weights, pairs)
            best = int(np.argmax(per_head))
            relations.append(
                Relation(
                    name=name,
                    targets=pairs,
                    best_head=best,
                    score=float(per_head[best]),
                    head_scores=[float(s) for s in per_head],
                )
            )
        return AttentionResponse(
            tokens=[t.text for t in analysis.tokens],
            known=[t.known for t in analysis.tokens],
            d_model=D_MODEL,
            heads=heads,
            valid_heads=VALID_HEADS,
            mask=mask,
            trained=trained,
            weights=weights.tolist(),
            future_leak=future_leak(weights),
            relations=relations,
        )


def evaluate(
    layer: Layer, heads: int, held_out: list[list[str]], field_codes: dict[str, NDArray[np.float64]]
) -> dict[str, Any]:
    """Per relation and head, the mean weight on the targets over the held-out sentences (numpy inference)."""
    sums = {name: np.zeros(heads) for name in RELATIONS}
    counts = dict.fromkeys(RELATIONS, 0)
    diversity = []
    for words in held_out:
        analysis = analyse(words)
        x = features(analysis, field_codes)
        w = multi_head_attention(x, layer.w_q, layer.w_k, layer.w_v, heads).stages.weights
        for name in RELATIONS:
            pairs = analysis.targets[name]
            if pairs:
                sums[name] += relation_scores(w, pairs) * len(pairs)
                counts[name] += len(pairs)
        diversity.append(head_spread(w))
    per_head = {name: (sums[name] / max(counts[name], 1)).tolist() for name in RELATIONS}
    return {
        "per_head": per_head,
        "best_head": {name: int(np.argmax(s)) for name, s in per_head.items()},
        "best_score": {name: float(max(s)) for name, s in per_head.items()},
        "head_spread": float(np.mean(diversity)) if heads > 1 else 0.0,
    }


def head_spread(weights: NDArray[np.float64]) -> float:
    """How differently the heads look: the mean total-variation distance between two heads' attention rows.

    0 means every head asks the same question (identical rows); 1 means two heads never look at the same
    token. Averaged over all pairs of heads and all query rows.
    """
    h = weights.shape[0]
    if h < 2:
        return 0.0
    distances = [
        0.5 * np.abs(weights[a] - weights[b]).sum(-1).mean() for a in range(h) for b in range(a + 1, h)
    ]
    return float(np.mean(distances))


@lru_cache
def get_relation_heads() -> RelationHeads:
    """The shared model, loaded once per process."""
    return RelationHeads(get_settings().weights_dir / WEIGHTS_FILE)
