"""The generator's parallel corpus: the stream of English-French pairs the translator trains on, and the sets
it is measured on.

``pairs`` draws sentences from the random grammar (training/parallel_grammar.py) and keeps those of
MIN_WORDS to MAX_WORDS English words: sentences have 3 to 30 English words; coordination and nesting make
the long ones. ``training_pairs`` are figure 1's examples, then distinct pairs of the training seed.

Two held-out sets measure the translator. ``heldout_pairs`` draws from the training grammar with another
seed (sentences never in training, but of the kind training had). ``novel_pairs`` draws sentences the
training stream is built never to contain, held out by construction (training/parallel_heldout.py says
which combinations). Each construction has a held-out set of its own, drawn the same way (CONSTRUCTION_SETS):
a verb negated in the present, the progressive and a yes/no question with a held-out object, a verb after
"want to".
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from functools import lru_cache
from itertools import islice

from training.french_vocabulary import ENGLISH_WORDS, FRENCH_WORDS
from training.parallel_constructions import example_pairs
from training.parallel_grammar import Grammar
from training.parallel_heldout import (
    MODAL,
    NEGATION,
    OBJECT,
    PAIRING,
    PROGRESSIVE,
    QUESTION,
    modal_description,
    negated_description,
    progressive_description,
    question_description,
)
from training.parallel_phrases import Pair, to_pair

MIN_WORDS, MAX_WORDS = 3, 30
TRAINING_PAIRS = 80000  # how many pairs the translator trains on (training/train_translator.py's default)


def pairs(seed: int, novel: bool = False, goals: tuple[str, ...] = (PAIRING, OBJECT)) -> Iterator[Pair]:
    """An endless, reproducible stream of pairs of 3 to 30 English words (repeats possible): none with a
    held-out property, or (``novel=True``) only those with one of ``goals``, drawn towards them."""
    grammar = Grammar(random.Random(seed), novel, goals)
    while True:
        sentence = grammar.sentence()
        if MIN_WORDS <= len(sentence.en) <= MAX_WORDS and (
            bool(sentence.novel & set(goals)) if novel else not sentence.novel
        ):
            yield to_pair(sentence)


TRAINING_SEED, HELDOUT_SEED, NOVEL_SEED, NEGATED_SEED, PROGRESSIVE_SEED, MODAL_SEED, QUESTION_SEED = range(
    1, 8
)


def distinct_pairs(
    count: int,
    seed: int,
    exclude: frozenset[str] = frozenset(),
    novel: bool = False,
    goals: tuple[str, ...] = (PAIRING, OBJECT),
) -> list[Pair]:
    """The first ``count`` pairs of the stream whose English is new and not in ``exclude``."""
    seen = set(exclude)
    chosen: list[Pair] = []
    for pair in pairs(seed, novel, goals):
        if len(chosen) == count:
            break
        if pair.source not in seen:
            seen.add(pair.source)
            chosen.append(pair)
    return chosen


@lru_cache(maxsize=4)
def training_pairs(count: int) -> tuple[Pair, ...]:
    """figure 1's examples, then distinct pairs of the training seed: ``count`` in all, holding every word
    form of both vocabularies (``covering``)."""
    examples = example_pairs()
    drawn = distinct_pairs(count - len(examples), TRAINING_SEED, frozenset(p.source for p in examples))
    return covering((*examples, *drawn), TRAINING_SEED)


def covering(chosen: tuple[Pair, ...], seed: int, further: int = 5) -> tuple[Pair, ...]:
    """``chosen`` with every word form of both vocabularies in it: for each form no chosen pair has (a rare
    agreement, "mangées"), the next pair of the stream that has it takes the place of one of the last chosen
    pairs that has no such form. Looks at most ``further`` times as many pairs again; a form still missing
    stays missing (tests/training/test_parallel_corpus.py checks there is none)."""
    missing = set(ENGLISH_WORDS) | set(FRENCH_WORDS)
    missing -= {w for p in chosen for w in (*p.english, *p.french)}
    seen = {p.source for p in chosen}
    added: list[Pair] = []
    for pair in islice(pairs(seed), further * len(chosen)):
        if not missing:
            break
        found = missing & {*pair.english, *pair.french}
        if found and pair.source not in seen:
            added.append(pair)
            missing -= found
            seen.add(pair.source)
    return (*chosen[: len(chosen) - len(added)], *added) if added else chosen


@lru_cache(maxsize=4)
def heldout_pairs(count: int, training: int) -> tuple[Pair, ...]:
    """``count`` pairs from their own seed whose English never occurs among ``training_pairs(training)``."""
    seen = frozenset(p.source for p in training_pairs(training))
    return tuple(distinct_pairs(count, HELDOUT_SEED, seen))


@lru_cache(maxsize=4)
def novel_pairs(count: int, training: int) -> tuple[Pair, ...]:
    """``count`` pairs held out by construction: each has a property no training pair has (see the module's
    docstring), and its English is not among ``training_pairs(training)``."""
    seen = frozenset(p.source for p in training_pairs(training))
    return tuple(distinct_pairs(count, NOVEL_SEED, seen, novel=True))


@lru_cache(maxsize=4)
def negated_pairs(count: int, training: int) -> tuple[Pair, ...]:
    """``count`` pairs held out by construction that negate in the present a verb training negates only in
    the past (NOVEL_NEGATED), none among ``training_pairs(training)``."""
    seen = frozenset(p.source for p in training_pairs(training))
    return tuple(distinct_pairs(count, NEGATED_SEED, seen, novel=True, goals=(NEGATION,)))


@lru_cache(maxsize=4)
def progressive_pairs(count: int, training: int) -> tuple[Pair, ...]:
    """``count`` pairs held out by construction that put in the progressive a verb with an object it never
    takes in training (NOVEL_OBJECTS), none among ``training_pairs(training)``."""
    seen = frozenset(p.source for p in training_pairs(training))
    return tuple(distinct_pairs(count, PROGRESSIVE_SEED, seen, novel=True, goals=(PROGRESSIVE,)))


@lru_cache(maxsize=4)
def modal_pairs(count: int, training: int) -> tuple[Pair, ...]:
    """``count`` pairs held out by construction that put after "want to" a verb training puts only after
    "can" (NOVEL_MODAL), none among ``training_pairs(training)``."""
    seen = frozenset(p.source for p in training_pairs(training))
    return tuple(distinct_pairs(count, MODAL_SEED, seen, novel=True, goals=(MODAL,)))


@lru_cache(maxsize=4)
def question_pairs(count: int, training: int) -> tuple[Pair, ...]:
    """``count`` yes/no questions held out by construction, whose verb takes an object it never takes in
    training (NOVEL_OBJECTS), none among ``training_pairs(training)``."""
    seen = frozenset(p.source for p in training_pairs(training))
    return tuple(distinct_pairs(count, QUESTION_SEED, seen, novel=True, goals=(QUESTION,)))


# The held-out sets of one construction each, by the name the record and the page give them: how each is
# drawn, and the phrase that says what it holds.
CONSTRUCTION_SETS: dict[str, tuple[Callable[[int, int], tuple[Pair, ...]], Callable[[], str]]] = {
    "negated": (negated_pairs, negated_description),
    "progressive": (progressive_pairs, progressive_description),
    "modal": (modal_pairs, modal_description),
    "question": (question_pairs, question_description),
}
