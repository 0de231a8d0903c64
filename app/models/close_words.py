"""Close known words for a word a model does not know: what a reader most likely meant ("apel" -> "apple").

A known word is close when few edits turn the typed word into it and the two still share most of their
letters:

* the edit distance is the optimal-string-alignment distance (insert, delete, substitute, or swap two
  neighbouring letters, each costing 1): at most 1 for a word of up to 3 letters, 2 up to 7, 3 beyond;
* difflib's similarity ratio (2 · matching letters / total letters) is at least 0.6, which drops words that
  are near only because both are short ("apel" and "are" are 2 edits apart but share two letters of seven).

The closest come first (fewest edits, then the most letters in common, then the higher ratio, then
alphabetically: "dgo" is a swap from "dog" and a deletion from "do", and shares all three letters with
"dog"), and only those at most one edit further than the best one, so a clear best guess is not buried under
weak ones.

Most known words are ruled out before any alignment is worked out: by length (each insertion or deletion
changes it by one), and by counting letters (an edit changes the counts of at most two letters by one each,
so half the summed difference of the counts is a lower bound on the edits; and the letters two words have
in common bound the matching letters of the ratio). ``CloseWords`` keeps a
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
    """Optimal string alignment distance: insertions, deletions, substitutions and adjacent swaps, each 1.

    Worked out a column of the alignment table at a time, the column held as bits: bit i of ``vp`` (``vn``)
    says that the cell for a[: i + 1] is one more (one less) than the cell above it, and ``d0`` which
    cells equal the cell up and to the left. Each letter of ``b`` updates every bit at once, from the
    positions of that letter in ``a`` (Hyyrö's bit-parallel form of the table, with his term for swaps);
    the last row's value is tracked through the top bit. tests/models/test_close_words.py checks it
    against the table filled cell by cell."""
    if not a:
        return len(b)
    positions: dict[str, int] = {}
    for i, letter in enumerate(a):
        positions[letter] = positions.get(letter, 0) | 1 << i
    full, top = (1 << len(a)) - 1, 1 << (len(a) - 1)
    vp, vn, d0, previous = full, 0, 0, 0
    distance = len(a)
    for letter in b:
        here = positions.get(letter, 0)
        swap = ((~d0 & here) << 1) & previous
        d0 = ((((here & vp) + vp) ^ vp) | here | vn | swap) & full
        hp = (vn | ~(d0 | vp)) & full
        hn = d0 & vp
        if hp & top:
            distance += 1
        elif hn & top:
            distance -= 1
        hp = ((hp << 1) | 1) & full
        hn = (hn << 1) & full
        vp = (hn | ~(d0 | hp)) & full
        vn = hp & d0
        previous = here
    return distance


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
        counts = _counts(word)
        near &= (np.abs(self._counts - counts).sum(axis=1) + 1) // 2 <= limit
        # the ratio counts matching letters, at most the letters the two words have in common
        shared = np.minimum(self._counts, counts).sum(
            axis=1
        )  # letters in common, each as often as both have it
        near &= 2 * shared >= MIN_RATIO * (self._lengths + len(word))
        scored = []
        for k in np.flatnonzero(near).tolist():
            known = self.words[k]
            distance = edit_distance(word, known)
            if distance > limit:
                continue
            ratio = difflib.SequenceMatcher(None, word, known).ratio()
            if ratio >= MIN_RATIO:
                scored.append((distance, -int(shared[k]), -ratio, known))
        scored.sort()
        if not scored:
            return ()
        best = scored[0][0]
        return tuple(known for distance, _, _, known in scored if distance <= best + 1)[: self.n]


def close_words(word: str, vocabulary: Iterable[str], n: int = 3) -> list[str]:
    """Up to ``n`` words of ``vocabulary`` close to ``word``, the closest first (see the module's note). For
    many words against one vocabulary, index it once with ``CloseWords``."""
    return list(CloseWords(vocabulary, n).find(word))
