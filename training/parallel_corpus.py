"""Figure 4's parallel corpus: English sentences, their French translations, and the word alignment of each.

A small grammar writes an English sentence and its French translation side by side, so every French token
knows which English words it came from. The grammar covers what makes French differ from English word for
word:

* **gender and number**: determiners, adjectives and past participles agree with their noun
  ("the old crane" -> "la vieille grue", "the old cranes" -> "les vieilles grues");
* **adjective order**: most adjectives follow the noun ("the red door" -> "la porte rouge"), a few precede it
  (petit, grand, vieux, jeune, beau, bon, nouveau, joli, mauvais, long), two that follow are joined by an
  inserted "et" that no English word produced;
* **verbs**: the present agrees with the subject's number and person ("the dog sleeps" -> "le chien dort",
  "we sleep" -> "nous dormons"); the past is the imparfait for "to be" ("was" -> "était") and the passé
  composé elsewhere, with avoir ("slept" -> "a dormi") or with être, whose participle agrees
  ("she fell" -> "elle est tombée");
* **compounds**: two English words, one French noun ("river bank" -> "rive", "apple tree" -> "pommier");
* **contractions**: de + le -> du, de + les -> des, à + le -> au, à + les -> aux; the contracted word is
  aligned to both English words ("near the" -> "du").

French elision (l', d', qu') never arises: every French noun and preposed adjective starts with a consonant,
and "de" is never followed by "un"/"une" (a noun phrase after "of" or "near" never takes "a").

The words and their French forms are training/french_lexicon.py's. The alignment of a pair gives, for each
French token, the indices of the English tokens it translates; an inserted word ("et" between two adjectives)
has none. The same grammar builds the three examples of figure 1 (``example_pairs``), which always belong to
the training set.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from training.french_lexicon import (
    ADJECTIVE,
    ADJECTIVES,
    AND,
    AVOIR,
    CONTRACTIONS,
    COPULA_ENGLISH,
    DETERMINER,
    DETERMINERS,
    ETRE_PAST,
    ETRE_PRESENT,
    LIVING,
    NOUN,
    NOUNS,
    OF,
    PREPOSITION,
    PREPOSITIONS,
    PRONOUN,
    TO,
    VERB,
    VERBS,
    Adjective,
    Gender,
    Noun,
    Number,
    participle,
)

# ---------------------------------------------------------------------------------------------------------
# Pairs and the phrases they are built from.
# ---------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Pair:
    """An English sentence, its French translation, and for each French token the English words it renders."""

    english: tuple[str, ...]
    french: tuple[str, ...]
    alignment: tuple[tuple[int, ...], ...]  # alignment[j]: indices into english; () for an inserted word

    @property
    def source(self) -> str:
        return " ".join(self.english)

    @property
    def target(self) -> str:
        return " ".join(self.french)


@dataclass
class Phrase:
    """A stretch of both sentences: English words, and French tokens aligned to indices into those words."""

    en: list[str]
    fr: list[tuple[str, tuple[int, ...]]]
    gender: Gender = "m"
    number: Number = "sg"
    person: int = 3

    @staticmethod
    def word(en: Sequence[str], fr: Sequence[str]) -> Phrase:
        """English words translated as a whole: every French token aligned to every English word."""
        every = tuple(range(len(en)))
        return Phrase(list(en), [(token, every) for token in fr])


def concat(*phrases: Phrase) -> Phrase:
    """English words in order, French tokens in order, alignment indices shifted to the joined English."""
    en: list[str] = []
    fr: list[tuple[str, tuple[int, ...]]] = []
    for phrase in phrases:
        offset = len(en)
        en.extend(phrase.en)
        fr.extend((token, tuple(i + offset for i in source)) for token, source in phrase.fr)
    first = phrases[0]
    return Phrase(en, fr, first.gender, first.number, first.person)


def noun_phrase(
    determiner: str,
    noun: str,
    number: Number = "sg",
    adjectives: Sequence[str] = (),
) -> Phrase:
    """det [adjectives] noun, with French agreement and French adjective order.

    English:  det  pre…  post…  noun          ("the big black dog")
    French:   det  pre…  noun   post (et post) ("le grand chien noir")
    """
    n = NOUN[noun]
    det = DETERMINER[determiner]
    adjs = [ADJECTIVE[a] for a in adjectives]
    assert number in det.numbers, f"{determiner!r} does not go with a {number} noun"
    g = n.gender
    en = [determiner, *(a.english for a in adjs), *n.en(number)]
    if determiner in ("a", "an"):
        en[0] = "an" if en[1][0] in "aeiou" else "a"
    noun_at = tuple(range(1 + len(adjs), len(en)))  # one or two English words ("river bank")
    fr: list[tuple[str, tuple[int, ...]]] = [(det.fr(g, number), (0,))]
    pre = [(a.fr(g, number), (1 + k,)) for k, a in enumerate(adjs) if a.before_noun]
    post = [(a.fr(g, number), (1 + k,)) for k, a in enumerate(adjs) if not a.before_noun]
    fr.extend(pre)
    fr.append((n.fr(number), noun_at))
    for k, token in enumerate(post):
        if k > 0:
            fr.append((AND[1], ()))  # "froide et sombre": the "et" translates no English word
        fr.append(token)
    return Phrase(en, fr, g, number)


def pronoun(word: str) -> Phrase:
    p = PRONOUN[word]
    return Phrase([p.english], [(p.french, (0,))], p.gender, p.number, p.person)


def coordinated(left: Phrase, right: Phrase) -> Phrase:
    """NP and NP: plural, masculine unless both are feminine."""
    joined = concat(left, Phrase.word([AND[0]], [AND[1]]), right)
    joined.number = "pl"
    joined.gender = "f" if left.gender == right.gender == "f" else "m"
    return joined


def _attach(preposition: Phrase, np_: Phrase) -> Phrase:
    """preposition + noun phrase, contracting a final de/à with le/les ("près de" + "le" -> "près du")."""
    joined = concat(preposition, np_)
    (last, last_src), (first, first_src) = joined.fr[len(preposition.fr) - 1], joined.fr[len(preposition.fr)]
    contracted = CONTRACTIONS.get((last, first))
    if contracted is None:
        return joined
    k = len(preposition.fr) - 1
    joined.fr[k : k + 2] = [(contracted, tuple(sorted({*last_src, *first_src})))]
    return joined


def prepositional(words: str, np_: Phrase) -> Phrase:
    """A preposition of the table, then its noun phrase: "near the cave" -> "près de la grotte"."""
    p = PREPOSITION[words]
    return _attach(Phrase.word(p.english, p.french), np_)


def of(head: Phrase, complement: Phrase) -> Phrase:
    """NP of NP: "the door of the house" -> "la porte de la maison", "… of the garden" -> "… du jardin"."""
    return concat(head, _attach(Phrase.word([OF[0]], [OF[1]]), complement))


def _row(number: Number, person: int) -> int:
    return 2 if person == 1 else (0 if number == "sg" else 1)


def verb_phrase(subject: Phrase, past: str, tense: Literal["present", "past"]) -> Phrase:
    """The verb, agreeing with the subject: "slept" -> "a dormi"/"ont dormi", "fell" -> "est tombée"."""
    v = VERB[past]
    plural = subject.number == "pl" or subject.person == 1
    row = _row(subject.number, subject.person)
    if tense == "present":
        return Phrase.word([v.english[1 if plural else 0]], [v.french[row]])
    if v.auxiliary == "avoir":
        return Phrase.word([v.english[2]], [AVOIR[row], v.participle])
    return Phrase.word(
        [v.english[2]], [ETRE_PRESENT[row], participle(v.participle, subject.gender, subject.number)]
    )


def copula(subject: Phrase, tense: Literal["present", "past"]) -> Phrase:
    """is/are/was/were -> est/sont/sommes, était/étaient/étions."""
    plural = subject.number == "pl" or subject.person == 1
    row = _row(subject.number, subject.person)
    french = ETRE_PRESENT if tense == "present" else ETRE_PAST
    return Phrase.word([COPULA_ENGLISH[tense][int(plural)]], [french[row]])


def predicate(subject: Phrase, adjective: str) -> Phrase:
    a = ADJECTIVE[adjective]
    return Phrase.word([a.english], [a.fr(subject.gender, subject.number)])


def to_pair(sentence: Phrase) -> Pair:
    return Pair(
        english=tuple(sentence.en),
        french=tuple(token for token, _ in sentence.fr),
        alignment=tuple(source for _, source in sentence.fr),
    )


def example_pairs() -> list[Pair]:
    """Figure 1's sentences, built by the same functions as every other pair."""
    bank = noun_phrase("the", "river bank")
    farmer = noun_phrase("a", "farmer")
    she = pronoun("she")
    return [
        to_pair(concat(bank, copula(bank, "past"), predicate(bank, "steep"))),
        to_pair(
            concat(
                farmer,
                verb_phrase(farmer, "sold", "past"),
                noun_phrase("the", "bat"),
                prepositional("near", noun_phrase("the", "cave")),
            )
        ),
        to_pair(
            concat(
                she,
                verb_phrase(she, "saw", "past"),
                noun_phrase("the", "crane", adjectives=["old"]),
                prepositional("on", noun_phrase("the", "dock")),
            )
        ),
    ]


# ---------------------------------------------------------------------------------------------------------
# The random grammar.
# ---------------------------------------------------------------------------------------------------------

MIN_WORDS, MAX_WORDS = 3, 14
# "près de" + "un" would need elision (d'un), so these take no "a"
_ENDS_IN_DE = frozenset(w for w, p in PREPOSITION.items() if p.french[-1] == "de")


class Grammar:
    """Draws sentences: a subject, a verb or "to be", and what follows, each with its French."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def _noun(self, kinds: frozenset[str]) -> Noun:
        return self.rng.choice([n for n in NOUNS if n.kind in kinds])

    def np(self, kinds: frozenset[str], indefinite: bool = True, adjectives: bool = True) -> Phrase:
        """A noun phrase whose noun is one of ``kinds``; ``indefinite=False`` keeps "a" out (after de)."""
        rng = self.rng
        noun = self._noun(kinds)
        number: Number = "pl" if noun.english[1] is not None and rng.random() < 0.35 else "sg"
        dets = [d for d in DETERMINERS if number in d.numbers and d.english != "an"]
        if not indefinite:
            dets = [d for d in dets if d.english != "a"]
        # "the" half the time, the others shared out
        det = "the" if rng.random() < 0.5 else rng.choice([d.english for d in dets])
        fitting = [a for a in ADJECTIVES if noun.kind in a.kinds]
        chosen: list[Adjective] = []
        roll = rng.random() if adjectives else 1.0
        if roll < 0.30:
            chosen = [rng.choice(fitting)]
        elif roll < 0.40:
            pre = rng.choice([a for a in fitting if a.before_noun])
            post = rng.choice([a for a in fitting if not a.before_noun])
            chosen = [pre, post]  # English: "the big black dog"
        elif roll < 0.45:
            chosen = rng.sample([a for a in fitting if not a.before_noun], 2)  # "the cold dark river"
        return noun_phrase(det, noun.english[0], number, [a.english for a in chosen])

    def pp(self, kinds: frozenset[str] | None = None) -> Phrase:
        rng = self.rng
        prep = rng.choice(
            [p for p in PREPOSITIONS if kinds is None or p.kinds & kinds],
        )
        words = " ".join(prep.english)
        allowed = prep.kinds if kinds is None else prep.kinds & kinds
        obj = self.np(allowed, indefinite=words not in _ENDS_IN_DE, adjectives=rng.random() < 0.5)
        return prepositional(words, obj)

    def maybe_of(self, np_: Phrase, kinds: frozenset[str]) -> Phrase:
        """Sometimes "the door of the house"."""
        if kinds & {"thing", "place"} and self.rng.random() < 0.12:
            return of(np_, self.np(frozenset({"place", "person"}), indefinite=False, adjectives=False))
        return np_

    def subject(self, kinds: frozenset[str]) -> tuple[Phrase, frozenset[str]]:
        """A subject and the kinds of noun it is made of (for choosing fitting adjectives)."""
        rng = self.rng
        roll = rng.random()
        if roll < 0.18 and kinds & LIVING:
            # "we" carries its own verb forms (nous dormons), so it gets a larger share
            word = "we" if rng.random() < 0.4 else rng.choice(("he", "she", "they"))
            return pronoun(word), frozenset({"person"})
        if roll < 0.28:
            kind = rng.choice(sorted(kinds))
            one = frozenset({kind})
            return coordinated(self.np(one, adjectives=False), self.np(one, adjectives=False)), one
        kind = rng.choice(sorted(kinds))
        one = frozenset({kind})
        np_ = self.np(one)
        if roll < 0.35:
            np_ = concat(np_, self.pp())  # "the dog near the house" is still the dog
        return np_, one

    def sentence(self) -> Phrase:
        rng = self.rng
        tense: Literal["present", "past"] = "past" if rng.random() < 0.55 else "present"
        roll = rng.random()
        if roll < 0.30:  # the river bank was steep
            subject, kinds = self.subject(frozenset({"person", "animal", "thing", "place"}))
            kind = next(iter(kinds))
            adjective = rng.choice([a for a in ADJECTIVES if kind in a.kinds])
            return concat(subject, copula(subject, tense), predicate(subject, adjective.english))
        if roll < 0.40:  # the cat was under the table
            subject, _ = self.subject(frozenset({"person", "animal", "thing"}))
            return concat(subject, copula(subject, tense), self.pp(frozenset({"thing", "place"})))
        subject, _ = self.subject(LIVING)
        frame = "intransitive" if roll < 0.65 else ("transitive" if roll < 0.92 else "ditransitive")
        verb = rng.choice([v for v in VERBS if v.frame == frame])
        parts = [subject, verb_phrase(subject, verb.english[2], tense)]
        if frame == "intransitive":
            if rng.random() < 0.7:
                parts.append(self.pp())
        elif frame == "transitive":
            kinds = frozenset(rng.choice([("person", "animal"), ("thing",), ("thing",), ("place",)]))
            parts.append(self.maybe_of(self.np(kinds), kinds))
            if rng.random() < 0.35:
                parts.append(self.pp())
        else:
            parts.append(self.np(frozenset({"thing"})))
            parts.append(_attach(Phrase.word([TO[0]], [TO[1]]), self.np(LIVING, adjectives=False)))
        return concat(*parts)


def pairs(seed: int) -> Iterator[Pair]:
    """An endless, reproducible stream of pairs of 3 to 14 English words (repeats possible)."""
    grammar = Grammar(random.Random(seed))
    while True:
        sentence = grammar.sentence()
        if MIN_WORDS <= len(sentence.en) <= MAX_WORDS:
            yield to_pair(sentence)


TRAINING_SEED, HELDOUT_SEED = 1, 2


def distinct_pairs(count: int, seed: int, exclude: frozenset[str] = frozenset()) -> list[Pair]:
    """The first ``count`` pairs of the stream whose English is new and not in ``exclude``."""
    seen = set(exclude)
    chosen: list[Pair] = []
    for pair in pairs(seed):
        if len(chosen) == count:
            break
        if pair.source not in seen:
            seen.add(pair.source)
            chosen.append(pair)
    return chosen


@lru_cache(maxsize=4)
def training_pairs(count: int) -> tuple[Pair, ...]:
    """figure 1's examples, then distinct pairs of the training seed: ``count`` in all."""
    examples = example_pairs()
    drawn = distinct_pairs(count - len(examples), TRAINING_SEED, frozenset(p.source for p in examples))
    return (*examples, *drawn)


@lru_cache(maxsize=4)
def heldout_pairs(count: int, training: int) -> tuple[Pair, ...]:
    """``count`` pairs from their own seed whose English never occurs among ``training_pairs(training)``."""
    seen = frozenset(p.source for p in training_pairs(training))
    return tuple(distinct_pairs(count, HELDOUT_SEED, seen))
