"""Figure 1's grammar relation on ordinary sentences, against partners written by hand.

``reader_sentences.txt`` holds forty sentences of the kind readers type and, for every word, the grammar
partner(s) it should point at, written by linguistic judgement following the conventions in the docstring of
``app/models/grammar/__init__.py`` before the rules were extended to meet them.
``reader_sentences_heldout.txt`` holds twenty-four more, written after the rules were built, before the
analysis had seen them.

A word counts as right when the set of words the analysis makes it point at is exactly the set written
there. Measured (words right / words):

* the forty: 309 / 309 (100%) now; 177 / 309 (57.3%) with the rules before issue #15;
* the held-out twenty-four: 162 / 176 (92.0%) on first contact, 171 / 176 (97.2%) after general fixes
  (fronted "how old", embedded wh-clauses, "did the dog bark", "broke" as a verb); 94 / 176 (53.4%) before
  issue #15.

The share must stay at or above each file's floor, and the words still wrong are listed below with what the
analysis gives them, so a known miss cannot change silently (fixing one means deleting its entry).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from app.models.relations import analyse
from training import written

HERE = Path(__file__).parent
FILES = ("reader_sentences.txt", "reader_sentences_heldout.txt")
FLOORS = {"reader_sentences.txt": 0.97, "reader_sentences_heldout.txt": 0.95}

# (file, sentence number from 1, word position from 0) -> the partners the analysis gives that word today.
KNOWN_MISSES: dict[tuple[str, int, int], frozenset[str]] = {
    # "they were very happy and a little tired": "a little" is a degree modifier of "tired"; the rules read
    # "a little" as a noun phrase after the verb and "and" as joining happy to it.
    ("reader_sentences_heldout.txt", 12, 4): frozenset({"happy", "a"}),  # and: want happy, tired
    ("reader_sentences_heldout.txt", 12, 5): frozenset({"they"}),  # a: want little
    ("reader_sentences_heldout.txt", 12, 6): frozenset({"they"}),  # little: want tired
    # "it is cold outside so wear a warm coat": "wear" is an imperative with no subject; the rules share
    # the first clause's subject with the verb after "so".
    ("reader_sentences_heldout.txt", 24, 0): frozenset({"is", "wear"}),  # it: want is
    ("reader_sentences_heldout.txt", 24, 5): frozenset({"it"}),  # wear: want none
}

Expected = list[tuple[str, frozenset[str]]]


def _name(words: list[str], j: int) -> str:
    """A word as the data files name a partner: plain when unique, word#k (k-th occurrence) otherwise."""
    if words.count(words[j]) == 1:
        return words[j]
    return f"{words[j]}#{words[: j + 1].count(words[j])}"


def load(name: str) -> list[tuple[list[str], Expected]]:
    """[(words, [(word, expected partner names)])] in file order, read (and checked) by training.written."""
    return [
        (w.words, [(word, frozenset(_name(w.words, j) for i, j in w.targets["grammar"] if i == k))
                   for k, word in enumerate(w.words)])
        for w in written.load(HERE / name)
    ]  # fmt: skip


def predicted(words: list[str]) -> list[frozenset[str]]:
    """For every word, the names of the words the analysis's grammar relation makes it point at."""
    partners: list[set[str]] = [set() for _ in words]
    for i, j in analyse(words).targets["grammar"]:
        partners[i].add(_name(words, j))
    return [frozenset(p) for p in partners]


def misses(name: str) -> dict[tuple[str, int, int], frozenset[str]]:
    found = {}
    for n, (words, expected) in enumerate(load(name), start=1):
        for position, ((_, want), got) in enumerate(zip(expected, predicted(words), strict=True)):
            if got != want:
                found[(name, n, position)] = got
    return found


def test_the_files_hold_forty_and_twenty_four_annotated_sentences() -> None:
    assert [len(load(name)) for name in FILES] == [40, 24]


@pytest.mark.parametrize("name", FILES)
def test_the_share_of_words_right_stays_above_the_floor(name: str) -> None:
    total = sum(len(words) for words, _ in load(name))
    share = 1 - len(misses(name)) / total
    assert share >= FLOORS[name], f"{share:.3f} of {total} words right, below the floor {FLOORS[name]}"


@pytest.mark.parametrize("name", FILES)
def test_the_known_misses_are_exactly_the_listed_ones(name: str) -> None:
    sentences = load(name)
    found = misses(name)
    listed = {key: got for key, got in KNOWN_MISSES.items() if key[0] == name}
    described = {
        key: (" ".join(sentences[key[1] - 1][0]), sentences[key[1] - 1][0][key[2]], sorted(got))
        for key, got in found.items()
    }
    assert found == listed, described


@pytest.mark.parametrize(
    "sentence",
    [
        "the dogs in the park were barking",
        "the quick brown fox jumped over the lazy dog",
        "is the fresh bread still warm",
        "my dog loves the rainbow",
        "she saw the old crane on the dock",
    ],
)
def test_the_reviewers_examples_are_entirely_right(sentence: str) -> None:
    words, expected = next((w, e) for w, e in load(FILES[0]) if " ".join(w) == sentence)
    assert predicted(words) == [names for _, names in expected]
