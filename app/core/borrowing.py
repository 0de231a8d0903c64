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


def borrowing(
    name: str, targets: Mapping[str, Sequence[Pair]], head_weights: NDArray[np.float64], score: float
) -> Borrowing:
    """How much of relation `name`'s `score` its best head (whose (T, T) weights are `head_weights`) owes to
    pairs that the other relations in `targets` also claim.

    own_score = mean over the own pairs (i, j) of head_weights[i, j]; borrowed = score − own_score ≥ BORROWED.
    """
    claimed = claimants(name, targets)
    mine = [(i, j) for i, j in targets[name]]
    shared = [(pair, claimed[pair]) for pair in mine if pair in claimed]
    own = [pair for pair in mine if pair not in claimed]
    if not shared or not own:
        return Borrowing(shared_pairs=shared, own_score=None, borrowed=False)
    rows = np.array([i for i, _ in own], dtype=int)
    cols = np.array([j for _, j in own], dtype=int)
    own_score = float(head_weights[rows, cols].mean())
    return Borrowing(shared_pairs=shared, own_score=own_score, borrowed=score - own_score >= BORROWED)
