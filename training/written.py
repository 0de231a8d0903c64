"""Sentences whose relation pairs were written by hand: read from the files in tests/models/.

``relation_sentences_written.txt`` holds everyday sentences written for figure 1's test and sealed until the
rules and the layer's training were last changed, each with its meaning pair and every word's grammar
partners written by judgement; position is every word and the word before it.
``relation_sentences_dev.txt`` holds those written the same way earlier, on which the rules and the training
were developed. The training record and the tests score the layer on these pairs as well as on the rules'
(``training.evaluation.story``). ``relation_sentences_written_second.txt`` annotates some of the development
ones again, blind, by two other people: how far people agree is the ceiling for the rules.
``relation_sentences_sealed.txt`` holds those written blind for the next round; nothing scores them until the
rules and the training are next frozen, when they become the written set. Each file's header says how many
it holds and how they were written.

Format: a sentence on its own line; under it, indented, ``meaning: a <-> b`` (or ``meaning: -``) and then one
line per word, in order, ``word -> partner, partner`` (``-`` for none). A word that occurs more than once is
named ``word#k``, its k-th occurrence.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

DATA = Path(__file__).resolve().parent.parent / "tests" / "models"
WRITTEN = DATA / "relation_sentences_written.txt"
DEVELOPMENT = DATA / "relation_sentences_dev.txt"
SECOND = DATA / "relation_sentences_written_second.txt"
SEALED = DATA / "relation_sentences_sealed.txt"  # written blind; nothing scores it until the next freeze

Pair = tuple[int, int]


@dataclass(frozen=True)
class Written:
    """A sentence and the pairs written for it: {"meaning", "grammar", "position"} -> [(query, key)]."""

    words: list[str]
    targets: dict[str, list[Pair]]


def _index(words: list[str], name: str) -> int:
    """The position of ``name`` ("word", or "word#k" for its k-th occurrence) in ``words``."""
    word, _, k = name.partition("#")
    places = [i for i, w in enumerate(words) if w == word]
    if not places:
        raise ValueError(f"{name!r} is not a word of {' '.join(words)!r}")
    if not k and len(places) > 1:
        raise ValueError(f"{name!r} occurs {len(places)} times in {' '.join(words)!r}: write {word}#k")
    return places[int(k) - 1 if k else 0]


def load(path: Path = WRITTEN) -> list[Written]:
    """Every sentence of the file with its written pairs, checked as it is read."""
    sentences: list[tuple[list[str], list[Pair], list[tuple[str, str]]]] = []
    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.rstrip()
        if not line or line.startswith("#"):
            continue
        if not line.startswith(" "):
            sentences.append((line.split(), [], []))
            continue
        words, meaning, grammar = sentences[-1]
        text = line.strip()
        if text.startswith("meaning:"):
            value = text.removeprefix("meaning:").strip()
            if value != "-":
                a, _, b = (part.strip() for part in value.partition("<->"))
                i, j = _index(words, a), _index(words, b)
                meaning += [(i, j), (j, i)]
            continue
        word, _, partners = (part.strip() for part in text.partition("->"))
        grammar.append((word.partition("#")[0], partners))  # "the#2 -> market" names the word's own line too
    result = []
    for words, meaning, grammar in sentences:
        if [w for w, _ in grammar] != words:
            raise ValueError(f"one grammar line per word, in order: {' '.join(words)!r}")
        pairs = [
            (i, _index(words, name.strip()))
            for i, (_, partners) in enumerate(grammar)
            if partners != "-"
            for name in partners.split(",")
        ]
        position = [(i, i - 1) for i in range(1, len(words))]
        result.append(
            Written(words, {"meaning": sorted(meaning), "grammar": sorted(pairs), "position": position})
        )
    return result


@dataclass(frozen=True)
class Agreement:
    """How far two annotations of the same sentences agree: sentences with the same meaning pair, and words
    given the same set of grammatical partners."""

    sentences: int
    same_meaning: int
    words: int
    same_partners: int


def agreement(first: list[Written], second: list[Written]) -> Agreement:
    """Compare two annotations of the same sentences, matched by their text (every sentence of ``second``
    must be in ``first``)."""
    by_text = {" ".join(w.words): w for w in first}
    same_meaning = words = same_partners = 0
    for b in second:
        a = by_text[" ".join(b.words)]
        same_meaning += set(a.targets["meaning"]) == set(b.targets["meaning"])
        for i in range(len(b.words)):
            words += 1
            same_partners += {j for k, j in a.targets["grammar"] if k == i} == {
                j for k, j in b.targets["grammar"] if k == i
            }
    return Agreement(len(second), same_meaning, words, same_partners)
