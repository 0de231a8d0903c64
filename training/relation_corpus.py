"""What figure 1's relation heads are trained and tested on: sentences from a small grammar over the
lexicon, and the codes that tell the semantic fields apart in the inputs.

Sentences look like "the river bank was steep", "a farmer sold the bat near the cave" or "she saw the old
crane on the dock": a subject noun phrase, a verb, then an adjective, an object or a prepositional phrase.
Most sentences hold an ambiguous word with a word that fixes its sense somewhere near it, so the meaning
relation has something to find; the rules in ``app/models/relations.py``, not this generator, decide every
target.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

import numpy as np
from numpy.typing import NDArray

from app.models.lexicon import FIELDS, lookup, words
from app.models.relations import FIELD_DIM

COPULAS = ("was", "is")
DETERMINERS = ("the", "the", "the", "a", "this", "that", "his", "her", "their", "our")
PREPOSITIONS = ("by", "near", "on", "under", "behind", "across", "along", "at", "in", "with")
PRONOUNS = ("she", "he", "they", "we", "it")


class Grammar:
    """Word pools drawn once from the lexicon, and a ``sentence`` method that samples from them."""

    def __init__(self) -> None:
        self.ambiguous = words("noun", ambiguous=True)
        self.nouns = {f: words("noun", field=f, number="sg", ambiguous=False) for f in FIELDS}
        self.adjectives = {f: words("adj", field=f, ambiguous=False) for f in FIELDS}
        self.intransitive = {
            f: tuple(w for w in words("verb", field=f, tense="past", ambiguous=False) if not _transitive(w))
            for f in FIELDS
        }
        self.transitive = {
            f: tuple(w for w in words("verb", field=f, tense="past", ambiguous=False) if _transitive(w))
            for f in FIELDS
        }
        self.fields = tuple(f for f in FIELDS if self.nouns[f])

    def _pick(self, rng: random.Random, pools: dict[str, tuple[str, ...]], field: str | None = None) -> str:
        if field is not None and pools.get(field):
            return rng.choice(pools[field])
        candidates = [f for f in self.fields if pools.get(f)]
        return rng.choice(pools[rng.choice(candidates)])

    def noun_phrase(self, rng: random.Random, head: str, cue: str | None = None) -> list[str]:
        """det [adjective] [cue noun as a compound] head."""
        phrase = [rng.choice(DETERMINERS)]
        if rng.random() < 0.25:
            phrase.append(self._pick(rng, self.adjectives))
        if cue is not None:
            phrase.append(cue)
        phrase.append(head)
        if phrase[0] == "a" and phrase[1][0] in "aeiou":
            phrase[0] = "an"
        return phrase

    def prepositional(self, rng: random.Random, noun: str) -> list[str]:
        return [rng.choice(PREPOSITIONS), "the", noun]

    def sentence(self, rng: random.Random) -> list[str]:
        """One sentence of 3 to 14 words."""
        ambiguous = rng.choice(self.ambiguous) if rng.random() < 0.85 else None
        entry = lookup(ambiguous) if ambiguous else None
        sense = rng.choice(entry.fields) if entry else None
        cue = self._pick(rng, self.nouns, sense) if sense else None
        other = self._pick(rng, self.nouns)
        placement = rng.choice(("compound", "subject_pp", "object", "object_pp", "pronoun"))

        if ambiguous is None:
            subject = self.noun_phrase(rng, other)
        elif placement == "compound":
            subject = self.noun_phrase(rng, ambiguous, cue=cue)
        elif placement == "subject_pp":
            subject = self.noun_phrase(rng, ambiguous) + self.prepositional(rng, cue or other)
        elif placement == "pronoun":
            subject = [rng.choice(PRONOUNS)]
        else:
            subject = self.noun_phrase(rng, other)

        if ambiguous is not None and placement in ("object", "object_pp", "pronoun"):
            verb = self._pick(rng, self.transitive)
            obj = self.noun_phrase(rng, ambiguous, cue=cue if placement != "object_pp" else None)
            tail = self.prepositional(rng, cue or other) if placement == "object_pp" else []
            return subject + [verb] + obj + tail
        kind = rng.random()
        if kind < 0.45:
            return subject + [rng.choice(COPULAS), self._pick(rng, self.adjectives, sense)]
        if kind < 0.75:
            return (
                subject
                + [self._pick(rng, self.intransitive)]
                + self.prepositional(rng, self._pick(rng, self.nouns))
            )
        return (
            subject + [self._pick(rng, self.transitive)] + self.noun_phrase(rng, self._pick(rng, self.nouns))
        )


def _transitive(word: str) -> bool:
    entry = lookup(word)
    return bool(entry and entry.transitive)


def sentences(seed: int, exclude: frozenset[str] = frozenset()) -> Iterator[list[str]]:
    """An endless, reproducible stream of sentences, skipping any whose text is in ``exclude``."""
    grammar = Grammar()
    rng = random.Random(seed)
    while True:
        words_ = grammar.sentence(rng)
        if 3 <= len(words_) <= 14 and " ".join(words_) not in exclude:
            yield words_


TRAINING_SEED, HELDOUT_SEED = 1, 2


def training_sentences(count: int, seed: int = TRAINING_SEED) -> list[list[str]]:
    """The first ``count`` distinct sentences of the training stream."""
    seen: set[str] = set()
    chosen: list[list[str]] = []
    for words_ in sentences(seed):
        if len(chosen) == count:
            return chosen
        text = " ".join(words_)
        if text not in seen:
            seen.add(text)
            chosen.append(words_)
    raise AssertionError("unreachable: the stream is endless")


def heldout_sentences(count: int, exclude: frozenset[str], seed: int = HELDOUT_SEED) -> list[list[str]]:
    """An evaluation set: ``count`` sentences from their own seed, none of them in ``exclude``."""
    stream = sentences(seed=seed, exclude=exclude)
    return [next(stream) for _ in range(count)]


def spread_field_codes(
    fields: tuple[str, ...], seed: int = 0, steps: int = 3000
) -> dict[str, NDArray[np.float64]]:
    """Unit FIELD_DIM-vectors, one per field, pushed apart so that no two fields point the same way.

    Each step moves every code away from the others, weighted by exp(8 cos) so the closest pairs push
    hardest. The codes are stored with the trained weights, so serving never recomputes them.
    """
    rng = np.random.default_rng(seed)
    codes = rng.normal(size=(len(fields), FIELD_DIM))
    codes /= np.linalg.norm(codes, axis=1, keepdims=True)
    for _ in range(steps):
        push = np.exp(8.0 * (codes @ codes.T))  # (F, F)
        np.fill_diagonal(push, 0.0)
        codes -= 0.01 * (push @ codes) / push.sum(axis=1, keepdims=True)
        codes /= np.linalg.norm(codes, axis=1, keepdims=True)
    return {field: codes[k] for k, field in enumerate(fields)}
