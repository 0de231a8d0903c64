"""When relations share pairs: which of a relation's pairs another relation also claims, and whether the
relation's score is borrowed.

In "the river bank was steep", bank → river is a meaning pair and a position pair, was → bank a grammar pair
and a position pair. A head that serves meaning earns position's score on bank → river too, so a relation's
best score can come from another relation's head. The relation's *own* pairs (the ones no other relation
claims) tell: its score is borrowed when its best head scores at least BORROWED less on them alone.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

BORROWED = 0.15  # how far below the score the own pairs' score must be for the score to count as borrowed

Pair = tuple[int, int]


@dataclass(frozen=True)
class Borrowing:
    """A relation's pairs that others claim too, each with the first other relation (in order) that does,
    the best head's mean weight on the remaining own pairs (None without shared or without own pairs), and
    whether that is at least BORROWED below the relation's score."""

    shared_pairs: list[tuple[Pair, str]]
    own_score: float | None
    borrowed: bool


def claimants(name: str, targets: Mapping[str, Sequence[Pair]]) -> dict[Pair, str]:
    """Every pair some relation other than `name` claims, with the first such relation (in order)."""
    claimed: dict[Pair, str] = {}
    for other, pairs in targets.items():
        if other != name:
            for i, j in pairs:
                claimed.setdefault((i, j), other)
    return claimed


def own_pairs(name: str, targets: Mapping[str, Sequence[Pair]]) -> list[Pair]:
    """Relation `name`'s pairs that no other relation in `targets` claims."""
    claimed = claimants(name, targets)
    return [(i, j) for i, j in targets[name] if (i, j) not in claimed]


class Claims:
    """Which relations claim which (query, key) pairs in one sentence, worked out once for every relation's
    borrowing: each relation's pairs as a set, so that the pairs a relation shares are found by set operations
    rather than by a walk over every other relation's pairs."""

    def __init__(self, targets: Mapping[str, Sequence[Pair]]) -> None:
        self.targets = targets
        self.sets = {name: set(pairs) for name, pairs in targets.items()}

    def shared(self, name: str) -> list[tuple[Pair, str]]:
        """Relation `name`'s pairs that another relation claims too, in the relation's order, each with the
        first other relation (in order) that does."""
        others = [(other, pairs) for other, pairs in self.sets.items() if other != name]
        also = self.sets[name].intersection(set().union(*(pairs for _, pairs in others)))
        if not also:
            return []
        return [
            ((i, j), next(other for other, pairs in others if (i, j) in pairs))
            for i, j in self.targets[name]
            if (i, j) in also
        ]


def borrowing(
    name: str,
    targets: Mapping[str, Sequence[Pair]],
    head_weights: NDArray[np.float64],
    score: float,
    claims: Claims | None = None,
) -> Borrowing:
    """How much of relation `name`'s `score` its best head (whose (T, T) weights are `head_weights`) owes to
    pairs that the other relations in `targets` also claim. `claims`, when given, are these targets' Claims
    (app.models.heads makes them once per sentence for all three relations).

    own_score = relation_scores on the own pairs alone; borrowed = score − own_score ≥ BORROWED.
    """
    claims = claims if claims is not None else Claims(targets)
    shared = claims.shared(name)
    if not shared or len(shared) == len(targets[name]):
        return Borrowing(shared_pairs=shared, own_score=None, borrowed=False)
    also = {pair for pair, _ in shared}
    own = [(i, j) for i, j in targets[name] if (i, j) not in also]
    own_score = float(relation_scores(head_weights[None], own)[0])  # (1, T, T) -> (1,)
    return Borrowing(shared_pairs=shared, own_score=own_score, borrowed=score - own_score >= BORROWED)


def relation_scores(weights: NDArray[np.float64], pairs: Sequence[Pair]) -> NDArray[np.float64]:
    """(h, T, T) weights -> (h,): per head, the weight each word puts on all of its partners in ``pairs``
    together, averaged over the words that have a partner there. 1 is all of every such word's weight.

    A word with two partners (a conjunction and its two conjuncts) scores 1 when its weight is split between
    them in any proportion, and the score of a relation is never capped below 1 by how many partners its
    words have."""
    queries = sorted({i for i, _ in pairs})
    row_of = {i: r for r, i in enumerate(queries)}
    wanted = np.zeros((len(queries), weights.shape[-1]))  # (words with partners, T): 1 on each partner
    for i, j in pairs:
        wanted[row_of[i], j] = 1.0
    return (weights[:, queries, :] * wanted).sum(axis=-1).mean(axis=-1)  # (h, Q, T) -> (h, Q) -> (h,)
