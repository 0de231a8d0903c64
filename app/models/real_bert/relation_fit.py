"""all-MiniLM-L6-v2 next to figure 1: the same rules (``app.models.relations.analyse``) name which word
should attend to which, and every head of every layer gets a score per relation, twice: on the attention as
the model gives it, [CLS] and [SEP] kept (what figure 11 draws by default), and with the two markers left out
and every row renormalised (what it draws with "Hide [CLS] and [SEP]"). The model reads pieces, the rules
read words: ``word_attention`` turns the one into the other."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from app.core.borrowing import relation_scores as figure1_scores
from app.models.real_bert.pieces import Pieces
from app.models.relations import RELATIONS, analyse
from app.words import tokenize

FloatArray = NDArray[np.float64]


def _best(scores: FloatArray | None) -> tuple[int, int, float] | None:
    """(layer, head, score) of the highest of (layers, heads) ``scores``, the first of equals (None: None)."""
    if scores is None:
        return None
    layer, head = np.unravel_index(int(np.argmax(scores)), scores.shape)
    return int(layer), int(head), float(scores[layer, head])


@dataclass(frozen=True)
class RealRelationFit:
    """One of figure 1's relations in the sentence: its pairs of word indices and every head's score on
    them, (layers, heads) rounded to DECIMALS, None when the sentence has no pair for it.

    ``scores`` are on the words alone ([CLS] and [SEP] left out, rows renormalised: ``word_attention``);
    ``scores_with_markers`` on the attention as the model gives it, the two markers kept in every row's sum
    (``word_attention(..., renormalise=False)``). A head that parks most of a row on [CLS] scores far lower on
    the second.
    """

    name: str
    targets: list[tuple[int, int]]
    scores: FloatArray | None
    scores_with_markers: FloatArray | None = None

    @property
    def best(self) -> tuple[int, int, float] | None:
        """(layer, head, score) of the highest of ``scores``, the first of equals; None without pairs."""
        return _best(self.scores)

    @property
    def best_with_markers(self) -> tuple[int, int, float] | None:
        """(layer, head, score) of the highest of ``scores_with_markers``; None without pairs."""
        return _best(self.scores_with_markers)


def word_attention(attention: FloatArray, pieces: Pieces, *, renormalise: bool = True) -> FloatArray:
    """Piece-level attention (..., n, n) -> word-level attention (..., W, W): how much word a attends to b.

    [CLS] and [SEP] are dropped as queries and as keys, and (``renormalise``) each piece's row is
    renormalised over the real words' pieces; then a word's key pieces are summed (the weight on a word is
    the weight on any of its pieces) and its query pieces averaged (a word asks what its pieces ask, on
    average). Renormalised, rows sum to 1 (0 for a row that gave the markers everything); without it each
    entry is the share of the word's whole row, [CLS] and [SEP] included, and rows sum to what the words get.
    """
    real = np.array([w is not None for w in pieces.word_index])
    owner = np.array([w for w in pieces.word_index if w is not None], dtype=np.intp)
    if owner.size == 0:
        raise ValueError("no real pieces: every piece is [CLS] or [SEP]")
    membership = np.zeros((owner.size, len(pieces.words)))  # (P, W): piece p belongs to word w
    membership[np.arange(owner.size), owner] = 1.0
    a = attention[..., real, :][..., real]  # (..., n, n) -> (..., P, P)
    if renormalise:
        a = a / np.maximum(a.sum(axis=-1, keepdims=True), np.finfo(np.float64).tiny)
    keys = a @ membership  # (..., P, P) @ (P, W) -> (..., P, W): summed over each word's key pieces
    queries = membership / membership.sum(axis=0, keepdims=True)  # (P, W): each column averages a word
    return np.swapaxes(queries, 0, 1) @ keys  # (W, P) @ (..., P, W) -> (..., W, W)


def word_attentions(attention: FloatArray, pieces: Pieces) -> tuple[FloatArray, FloatArray]:
    """``word_attention(attention, pieces)`` and ``word_attention(attention, pieces, renormalise=False)``,
    both from one product over the pieces: (..., n, n) -> two (..., W, W).

    The weight each piece gives each word (its key pieces summed) is computed once, every piece kept as a
    row; the markers' rows get no share in the average of any word, and a row's sum over the words is what
    renormalising divides by, so neither the markers' rows and columns nor a second pass are needed.
    """
    owner = np.array([-1 if w is None else w for w in pieces.word_index], dtype=np.intp)  # (n,)
    real = owner >= 0
    if not real.any():
        raise ValueError("no real pieces: every piece is [CLS] or [SEP]")
    keys = np.zeros((owner.size, len(pieces.words)))  # (n, W): piece p belongs to word w; markers' rows 0
    keys[real.nonzero()[0], owner[real]] = 1.0
    queries = keys.T / keys.sum(axis=0)[:, None]  # (W, n): row w averages word w's pieces
    per_key = attention @ keys  # (..., n, n) @ (n, W) -> (..., n, W): each piece's weight on each word
    on_words = np.maximum(per_key.sum(axis=-1, keepdims=True), np.finfo(np.float64).tiny)  # (..., n, 1)
    return queries @ (per_key / on_words), queries @ per_key  # (W, n) @ (..., n, W) -> (..., W, W) each


def relation_targets(words: list[str]) -> dict[str, list[tuple[int, int]]]:
    """Figure 1's targets for each relation, as pairs of indices into ``words``.

    The rules (``app.models.relations.analyse``, the function figure 1 uses) read the words with a letter or
    a digit (those in which app.words.tokenize finds a word); punctuation marks are words to the model but
    not to the rules, so they are left out of the analysis and take part in no pair. For a sentence without
    punctuation the pairs are figure 1's.
    """
    wordlike = [i for i, word in enumerate(words) if tokenize(word)]
    if not wordlike:
        return {name: [] for name in RELATIONS}
    analysis = analyse([words[i] for i in wordlike])
    return {name: [(wordlike[i], wordlike[j]) for i, j in analysis.targets[name]] for name in RELATIONS}


def relation_scores(word_weights: FloatArray, pairs: list[tuple[int, int]]) -> FloatArray:
    """(layers, heads, W, W) word-level attention -> (layers, heads): figure 1's score of every head, the mean
    weight of word i on word j over the relation's (i, j) pairs."""
    L, h, W, _ = word_weights.shape
    flat = word_weights.reshape(L * h, W, W)  # (L, h, W, W) -> (L·h, W, W): every head of every layer
    return figure1_scores(flat, pairs).reshape(L, h)  # (L·h,) -> (L, h)
