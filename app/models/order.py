"""Figure 10, order: figure 1's trained layer with and without its position code, and the permutation check.

Self-attention compares every word with every word; nothing in softmax(QKᵀ/√d_k) knows where a word sits. So
without positional information, shuffling the words shuffles the attention the same way and changes nothing
else (permutation equivariance): for a permutation π, W(x_π)[k, l] = W(x)[π(k), π(l)]. Adding a position code
to each word's input breaks the symmetry, and "dog bites man" stops attending like "man bites dog".

The model is figure 1's three-head layer. Its inputs hold a word's own features (part of speech, field of
meaning, spelling signature, ...) and three blocks that depend on word order (``ORDER_SLICES``): the place
code of where the word stands, the place code of where its grammatical partners stand (which the parser reads
off the order) and the mark of the word that settles an ambiguous word's sense (the nearest of equally strong
cues). The last two are always cleared here, and with ``positional=False`` the word's own place code is
cleared too, so each word's input depends on the word alone.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
from numpy.typing import NDArray

from app.models.heads import RelationHeads
from app.models.relations import ORDER_SLICES, POSITION_SLICE, position_code
from app.web.refusal import Refusal

HEADS = 3  # figure 1's default layer: one head each for meaning, grammar and position
EXACT = 1e-12  # equivariance holds up to floating-point rounding; this is the tolerance the page reports


@dataclass(frozen=True)
class OrderCheck:
    """Attention before and after a permutation; the rest follows from them: the permuted sentence, and how
    far apart the two are once the permutation is undone."""

    tokens: list[str]
    permutation: list[int]  # permuted[k] = tokens[permutation[k]]
    weights: NDArray[np.float64]  # (h, T, T) for the sentence as written
    permuted_weights: NDArray[np.float64]  # (h, T, T) for the permuted sentence

    @property
    def permuted_tokens(self) -> list[str]:
        return [self.tokens[p] for p in self.permutation]

    @cached_property
    def unpermuted_weights(self) -> NDArray[np.float64]:
        """(h, T, T): permuted_weights put back in the written order."""
        return unpermute(self.permuted_weights, self.permutation)

    @cached_property
    def differences(self) -> NDArray[np.float64]:
        """(h, T, T): |unpermuted_weights - weights|."""
        return np.abs(self.unpermuted_weights - self.weights)

    @property
    def row_differences(self) -> NDArray[np.float64]:
        """(T,) per word of the original: max |difference| over heads and keys."""
        return self.differences.max(axis=(0, 2))

    @property
    def max_difference(self) -> float:
        return float(self.differences.max())

    @property
    def equivariant(self) -> bool:
        return self.max_difference <= EXACT


def reversed_order(n: int) -> list[int]:
    """The default shuffle: the sentence backwards ("dog bites man" -> "man bites dog")."""
    return list(range(n - 1, -1, -1))


def check_permutation(permutation: list[int], n: int) -> None:
    """A Refusal unless `permutation` lists 0..n-1 once each."""
    if len(permutation) != n or sorted(permutation) != list(range(n)):
        raise Refusal(
            f"permutation must list each position 0 to {n - 1} exactly once "
            f"(the sentence has {n} words; got {','.join(map(str, permutation))})"
        )


def unpermute(permuted: NDArray[np.float64], permutation: list[int]) -> NDArray[np.float64]:
    """Put (h, T, T) weights of the permuted sentence back in the original word order.

    permuted[:, k, l] belongs to words permutation[k] and permutation[l]; the inverse puts it at their places.
    """
    inverse = np.argsort(permutation)  # inverse[i] = where original word i went
    return permuted[:, inverse][:, :, inverse]  # (h, T, T) rows then columns reordered


def attention_of(model: RelationHeads, words: list[str], positional: bool) -> NDArray[np.float64]:
    """(h, T, T) weights of figure 1's trained layer, with or without the order-dependent input columns."""
    _, x = model.inputs(words)  # (T, d_model)
    T = len(words)
    for columns in ORDER_SLICES:  # where the parser puts each word's partners, and which word is the cue,
        x[:, columns] = 0.0  # come from word order: left out
    if positional:
        x[:, POSITION_SLICE] = position_code(T)
    return model.weights(x, HEADS, "none", trained=True)


def order_check(
    model: RelationHeads, words: list[str], positional: bool, permutation: list[int] | None = None
) -> OrderCheck:
    """Attention of the words and of their permutation, and their difference with the permutation undone."""
    n = len(words)
    perm = reversed_order(n) if permutation is None else list(permutation)
    check_permutation(perm, n)
    weights = attention_of(model, words, positional)
    permuted = attention_of(model, [words[p] for p in perm], positional)
    return OrderCheck(tokens=words, permutation=perm, weights=weights, permuted_weights=permuted)
