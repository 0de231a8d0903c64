"""Close known words for an unknown one (app/models/close_words.py): the suggestions a refusal offers."""

import difflib
import random
import string
from collections import Counter

import pytest

from app.models.close_words import CloseWords, close_words, edit_distance
from app.models.translator.committed import get_translator


@pytest.mark.parametrize(
    ("a", "b", "distance"),
    [("", "", 0), ("", "abc", 3), ("apel", "apple", 2), ("teh", "the", 1), ("kitten", "sitting", 3)],
)
def test_edit_distance_counts_a_swap_of_neighbours_as_one_edit(a: str, b: str, distance: int) -> None:
    assert edit_distance(a, b) == distance == edit_distance(b, a)


def _table(a: str, b: str) -> int:
    """The optimal string alignment distance by its table, filled cell by cell: what edit_distance's bits
    must give."""
    previous2: list[int] = []
    previous = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        row = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            row[j] = min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + (a[i - 1] != b[j - 1]))
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                row[j] = min(row[j], previous2[j - 2] + 1)
        previous2, previous = previous, row
    return previous[-1]


def test_the_bit_parallel_edit_distance_is_the_tables() -> None:
    """On random words of a four-letter alphabet, where swaps and repeats are common, and on long words."""
    rng = random.Random(7)
    for _ in range(5000):
        a = "".join(rng.choice("abcd") for _ in range(rng.randint(0, 10)))
        b = "".join(rng.choice("abcd") for _ in range(rng.randint(0, 10)))
        assert edit_distance(a, b) == _table(a, b), (a, b)
    for _ in range(50):
        a = "".join(rng.choice(string.ascii_lowercase[:5]) for _ in range(rng.randint(60, 90)))
        b = "".join(rng.choice(string.ascii_lowercase[:5]) for _ in range(rng.randint(60, 90)))
        assert edit_distance(a, b) == _table(a, b)


def test_the_closest_words_come_first_and_weak_ones_are_dropped() -> None:
    vocabulary = ["apple", "apples", "are", "ate", "the", "dog", "bank", "banks", "black"]
    assert close_words("apel", vocabulary) == ["apple"]  # "are" and "ate" share too little
    assert close_words("teh", vocabulary) == ["the"]
    assert close_words("bnak", vocabulary) == ["bank", "banks", "black"]
    assert close_words("zorblax", vocabulary) == []
    assert close_words("bank", vocabulary, n=1) == ["bank"]


@pytest.mark.parametrize(
    ("typed", "first"), [("apel", "apple"), ("rivr", "river"), ("stepe", "steep"), ("dgo", "dog")]
)
def test_typos_of_the_translators_words_are_caught(typed: str, first: str) -> None:
    assert close_words(typed, get_translator().translator.words)[0] == first


def _by_the_definition(word: str, vocabulary: list[str], n: int = 3) -> list[str]:
    """close_words as the module's note defines it, every known word aligned: what the index must equal."""
    limit = 1 if len(word) <= 3 else 2 if len(word) <= 7 else 3
    scored = []
    for known in vocabulary:
        distance = edit_distance(word, known)
        ratio = difflib.SequenceMatcher(None, word, known).ratio()
        shared = sum((Counter(word) & Counter(known)).values())  # letters in common, each as often as both
        if distance <= limit and ratio >= 0.6:
            scored.append((distance, -shared, -ratio, known))
    scored.sort()
    return [k for d, _, _, k in scored if d <= scored[0][0] + 1][:n] if scored else []


def test_ruling_words_out_by_length_and_letter_counts_drops_no_close_word() -> None:
    """Typos of the translator's words (a letter dropped, doubled, changed, two swapped, and two such
    edits) and strings of random letters: the index answers exactly what aligning every word would."""
    vocabulary = get_translator().translator.words
    rng = random.Random(5)
    typed = set()
    for word in rng.sample(vocabulary, 50):
        for _ in range(2):
            w = word
            for _ in range(rng.choice((1, 2))):
                k = rng.randrange(len(w))
                edit = rng.choice(("drop", "double", "change", "swap"))
                if edit == "drop" and len(w) > 1:
                    w = w[:k] + w[k + 1 :]
                elif edit == "double":
                    w = w[:k] + w[k] + w[k:]
                elif edit == "change":
                    w = w[:k] + rng.choice(string.ascii_lowercase + "é") + w[k + 1 :]
                elif k + 1 < len(w):
                    w = w[:k] + w[k + 1] + w[k] + w[k + 2 :]
            typed.add(w)
    typed |= {"".join(rng.choices(string.ascii_lowercase, k=rng.randint(2, 9))) for _ in range(30)}
    index = CloseWords(vocabulary)
    found = 0
    for word in sorted(typed):
        expected = _by_the_definition(word, vocabulary)
        assert list(index.find(word)) == expected, word
        found += bool(expected)
    assert found > 60  # most typos do have close words: the comparison is not between two empty lists
