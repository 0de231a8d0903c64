"""Close known words for a word a model does not know: what a reader most likely meant ("apel" -> "apple").

A known word is close when few edits turn the typed word into it and the two still share most of their
letters:

* the edit distance is the optimal-string-alignment distance (insert, delete, substitute, or swap two
  neighbouring letters, each costing 1): at most 1 for a word of up to 3 letters, 2 up to 7, 3 beyond;
* difflib's similarity ratio (2 · matching letters / total letters) is at least 0.6, which drops words that
  are near only because both are short ("apel" and "are" are 2 edits apart but share two letters of seven).

The closest come first (fewest edits, then the most letters in common, then alphabetically), and only those
at most one edit further than the best one, so a clear best guess is not buried under weak ones.

Most known words are ruled out before any alignment is worked out: by length (each insertion or deletion
changes it by one), and by counting letters (an edit changes the counts of at most two letters by one each,
so half the summed difference of the counts is a lower bound on the edits). ``CloseWords`` keeps a
vocabulary's letter counts as one array, worked out once, and remembers the answers for words asked before:
a refusal names what a reader typed, so the same unknown words come again.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from functools import lru_cache

import numpy as np

MIN_RATIO = 0.6
LETTERS = "abcdefghijklmnopqrstuvwxyz"  # counted one by one; any other character in one shared count
REMEMBERED = 4096  # the answers a CloseWords keeps, for the words most recently asked


def edit_distance(a: str, b: str) -> int:
    """Optimal string alignment distance: insertions, deletions, substitutions and adjacent swaps."""
    previous2: list[int] = []
    previous = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        row = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cost = a[i - 1] != b[j - 1]
            row[j] = min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                row[j] = min(row[j], previous2[j - 2] + 1)
        previous2, previous = previous, row
    return previous[-1]


def edit_limit(word: str) -> int:
    """How many edits a close word may be away from ``word``: more for a longer word."""
    return 1 if len(word) <= 3 else 2 if len(word) <= 7 else 3


def _counts(word: str) -> np.ndarray:
    counts = np.zeros(len(LETTERS) + 1, dtype=np.int32)
    for letter in word:
        index = LETTERS.find(letter)
        counts[index if index >= 0 else len(LETTERS)] += 1
    return counts


class CloseWords:
    """A vocabulary indexed for ``close_words``: its words, their lengths and letter counts (see the module's
    note), and the last REMEMBERED answers."""

    def __init__(self, vocabulary: Iterable[str], n: int = 3) -> None:
        self.words = list(vocabulary)
        self.n = n
        self._lengths = np.array([len(w) for w in self.words], dtype=np.int32)
        counts = [_counts(w) for w in self.words]
        self._counts = np.array(counts, dtype=np.int32).reshape(len(counts), len(LETTERS) + 1)
        self.find = lru_cache(maxsize=REMEMBERED)(self._find)

    def _find(self, word: str) -> tuple[str, ...]:
        """Up to ``n`` words of the vocabulary close to ``word``, the closest first."""
        limit = edit_limit(word)
        near = np.abs(self._lengths - len(word)) <= limit
        near &= (np.abs(self._counts - _counts(word)).sum(axis=1) + 1) // 2 <= limit
        scored = []
        for k in np.flatnonzero(near):
            known = self.words[k]
            distance = edit_distance(word, known)
            if distance > limit:
                continue
            ratio = difflib.SequenceMatcher(None, word, known).ratio()
            if ratio >= MIN_RATIO:
                scored.append((distance, -ratio, known))
        scored.sort()
        if not scored:
            return ()
        best = scored[0][0]
        return tuple(known for distance, _, known in scored if distance <= best + 1)[: self.n]


def close_words(word: str, vocabulary: Iterable[str], n: int = 3) -> list[str]:
    """Up to ``n`` words of ``vocabulary`` close to ``word``, the closest first (see the module's note). For
    many words against one vocabulary, index it once with ``CloseWords``."""
    return list(CloseWords(vocabulary, n).find(word))
