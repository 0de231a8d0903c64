"""The sentence writer of figure 1's training corpus: one sentence at a time, a skeleton of clauses whose
content words come from the pools of training/relation_words.py.

It writes the constructions readers type first, from 3 to about 25 words: statements in the past and
present, auxiliaries and modals ("was sleeping", "has eaten", "can swim", "did not finish"), adverbs, several
adjectives, prepositional phrases (also between a subject and its verb), pronouns and possessives, relative
clauses ("the man who ...", "the book that she ..."), subordinate clauses (because, when, if, while),
coordination of phrases and clauses, yes/no and wh- questions, imperatives and infinitives ("wants to
swim"). The words to plant (an ambiguous word and its cues) come from training/relation_corpus.py.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Callable

from app.models.lexicon import LEXICON
from app.models.lexicon_entries import FIELDS
from training.relation_words import (
    ADVERBS,
    COORDINATORS,
    DEGREE,
    DETERMINERS_PL,
    DETERMINERS_SG,
    MODALS,
    OBJECT_PRONOUNS,
    PREPOSITIONS,
    SUBJECT_PRONOUNS,
    SUBORDINATORS,
    Pools,
    held_out,
)


@functools.cache
def _evoked(word: str) -> frozenset[str]:
    """The fields and topics ``word`` calls to mind (none for a word the lexicon lacks): asked millions of
    times while a corpus is written, so worked out once a word."""
    e = LEXICON.get(word)
    return frozenset() if e is None else frozenset((*e.fields, *getattr(e, "topics", ())))


# A pool's words that evoke none of a set of fields, by the pool's tuple (its id, and the tuple kept to check
# that it is the same one) and the set: a sentence asks the same few a hundred times.
_ALLOWED: dict[tuple[int, frozenset[str]], tuple[tuple[str, ...], list[str]]] = {}


def _allowed(words: tuple[str, ...], avoid: frozenset[str]) -> list[str]:
    """The words of ``words`` that call none of ``avoid`` to mind, in their order (a shared list: not to be
    changed)."""
    key = (id(words), avoid)
    kept = _ALLOWED.get(key)
    if kept is None or kept[0] is not words:
        kept = (words, [w for w in words if avoid.isdisjoint(_evoked(w))])
        _ALLOWED[key] = kept
    return kept[1]


class Writer:
    """Writes one sentence: a skeleton of clauses whose content words come from ``pick``, which plants the
    ambiguous word and its cue in the first slots that fit and fills the rest with other words."""

    def __init__(
        self, rng: random.Random, pool: Pools, plant: list[tuple[str, str]], fallback: Pools
    ) -> None:
        self.rng = rng
        self.pool = pool
        self.fallback = fallback  # where a word comes from when ``pool`` has none of the kind wanted
        self.plant = plant  # (slot kind, word) still to place: "noun", "adj", "verb:<form>:<transitive>"
        self.avoid: frozenset[str] = frozenset()  # fields other content words must not evoke
        self.phrase = 0  # counts the phrases begun, so that two planted words land in different phrases
        self.planted_in = -1  # the phrase the last planted word went into

    # ---- words ----

    def _choice(self, options: tuple[str, ...] | list[str]) -> str:
        return self.rng.choice(options)

    def _field(self) -> str:
        fields = [f for f in FIELDS if f not in self.avoid] + [""] * 4
        return self.rng.choice(fields)

    def _fill(self, options: Callable[[Pools, str], tuple[str, ...]]) -> str:
        for pool in (self.pool, self.fallback):
            for _ in range(12):
                found = _allowed(options(pool, self._field()), self.avoid)
                if found:
                    return self._choice(found)
            anywhere = [w for f in ("", *FIELDS) for w in _allowed(options(pool, f), self.avoid)]
            if anywhere:
                return self._choice(anywhere)
        return self._choice([w for f in ("", *FIELDS) for w in options(self.fallback, f)])

    def _planted(self, kind: str) -> str | None:
        if self.phrase == self.planted_in:
            return None
        for k, (slot, word) in enumerate(self.plant):
            if slot == kind:
                del self.plant[k]
                self.planted_in = self.phrase
                return word
        return None

    def noun(self, number: str = "sg") -> str:
        planted = self._planted("noun")
        if planted is not None:
            return planted
        return self._fill(lambda pool, f: pool.nouns.get((f, number), ()))

    def adjective(self) -> str:
        planted = self._planted("adj")
        if planted is not None:
            return planted
        return self._fill(lambda pool, f: pool.adjectives.get(f, ()))

    def verb(self, form: str, transitive: bool) -> str:
        planted = self._planted(f"verb:{form}:{transitive}")
        if planted is not None:
            return planted
        return self._fill(lambda pool, f: pool.verbs.get((f, form, transitive), ()))

    # ---- phrases ----

    def noun_phrase(
        self, number: str | None = None, depth: int = 0, pronoun: bool = True
    ) -> tuple[list[str], str]:
        """A noun phrase and its number: [det] [adverb] [adjective]* [modifier noun] noun [PP] [relative]."""
        rng = self.rng
        self.phrase += 1
        number = number or ("pl" if rng.random() < 0.3 else "sg")
        if pronoun and rng.random() < 0.12:
            word, n = rng.choice(SUBJECT_PRONOUNS)
            return [word], n
        words: list[str] = []
        if number == "sg" or rng.random() < 0.8:
            words.append(rng.choice(DETERMINERS_SG if number == "sg" else DETERMINERS_PL))
        for _ in range(rng.choice((0, 0, 0, 1, 1, 2))):
            if rng.random() < 0.2:
                words.append(rng.choice(DEGREE))
            words.append(self.adjective())
        if rng.random() < 0.12:
            words.append(self.noun("sg"))  # a modifier noun: "the river bank"
        words.append(self.noun(number))
        if words[0] == "a" and len(words) > 1 and words[1][0] in "aeiou":
            words[0] = "an"
        if depth == 0 and rng.random() < 0.25:
            words += self.prepositional(depth + 1)
        elif depth == 0 and rng.random() < 0.1:
            words += self.relative(number)
        return words, number

    def prepositional(self, depth: int = 1) -> list[str]:
        phrase, _ = self.noun_phrase(depth=depth, pronoun=False)
        return [self.rng.choice(PREPOSITIONS), *phrase]

    def relative(self, number: str) -> list[str]:
        rng = self.rng
        if rng.random() < 0.5:  # the subject of the clause: "who lives next door"
            return [rng.choice(("who", "that", "which")), *self.predicate(number, allow_question=False)[0]]
        subject, n = self.noun_phrase(depth=1)
        return [rng.choice(("that", "which")), *subject, self.verb("past", True)]

    def object_phrase(self) -> list[str]:
        if self.rng.random() < 0.1:
            return [self.rng.choice(OBJECT_PRONOUNS)]
        return self.noun_phrase(depth=1 if self.rng.random() < 0.5 else 0, pronoun=False)[0]

    def predicate(self, number: str, allow_question: bool = True) -> tuple[list[str], str]:
        """A verb group and what follows it; returns the words and the tense used."""
        rng = self.rng
        self.phrase += 1
        kind = rng.random()
        be = {
            ("sg", "past"): "was",
            ("pl", "past"): "were",
            ("sg", "present"): "is",
            ("pl", "present"): "are",
        }
        tense = "past" if rng.random() < 0.6 else "present"
        negate = rng.random() < 0.15
        words: list[str] = []
        if kind < 0.3:  # copula and adjective: "was not very steep"
            words.append(be[(number, tense)])
            if negate:
                words.append("not")
            if rng.random() < 0.3:
                words.append(rng.choice(DEGREE))
            words.append(self.adjective())
            if rng.random() < 0.2:
                words += [rng.choice(COORDINATORS[:2]), self.adjective()]
            return words, tense
        transitive = rng.random() < 0.6
        aux = rng.random()
        if aux < 0.15:  # a modal: "can swim"
            words += [rng.choice(MODALS), *(["not"] if negate else []), self.verb("plain", transitive)]
        elif aux < 0.25:  # do-support: "did not finish"
            words += [
                "did" if tense == "past" else ("does" if number == "sg" else "do"),
                "not",
                self.verb("plain", transitive),
            ]
        elif aux < 0.35:  # the progressive: "was sleeping"
            plain = self.verb("plain", transitive)
            if _ing_crosses_the_split(plain):  # "greeting" is a listed noun, held out where greet is not
                words += ["will" if tense == "present" else "would", *(["not"] if negate else []), plain]
            else:
                words += [be[(number, tense)], *(["not"] if negate else []), _ing(plain)]
        elif aux < 0.45:  # the perfect: "has eaten"
            words += ["has" if number == "sg" else "have", self.verb("past", transitive)]
        elif aux < 0.52:  # an infinitive: "wanted to swim"
            words += [rng.choice(("wanted", "tried", "needed", "hoped", "decided")), "to",
                      self.verb("plain", transitive)]  # fmt: skip
        else:
            form = "past" if tense == "past" else ("3sg" if number == "sg" else "plain")
            if rng.random() < 0.15:
                words.append(rng.choice(ADVERBS))
            words.append(self.verb(form, transitive))
        if transitive:
            words += self.object_phrase()
        if rng.random() < 0.4:
            words += self.prepositional()
        if rng.random() < 0.15:
            words.append(rng.choice(ADVERBS))
        return words, tense

    def clause(self) -> list[str]:
        subject, number = self.noun_phrase()
        return subject + self.predicate(number)[0]

    def question(self) -> list[str]:
        rng = self.rng
        subject, number = self.noun_phrase(depth=1)
        if rng.random() < 0.4:  # "is the bread still warm"
            be = (
                ("is" if number == "sg" else "are")
                if rng.random() < 0.5
                else ("was" if number == "sg" else "were")
            )
            return [be, *subject, *([rng.choice(("still", "very", "too"))] if rng.random() < 0.3 else []),
                    self.adjective()]  # fmt: skip
        aux = rng.choice(("did", "can", "will", "would", "should", "does" if number == "sg" else "do"))
        transitive = rng.random() < 0.5
        words = [aux, *subject, self.verb("plain", transitive)]
        if transitive:
            words += self.object_phrase()
        elif rng.random() < 0.6:
            words += self.prepositional()
        if rng.random() < 0.4:
            wh = rng.choice(("where", "when", "why", "how"))
            words = [wh, *words]
        return words

    def imperative(self) -> list[str]:
        words = [self.verb("plain", True), *self.object_phrase()]
        if self.rng.random() < 0.5:
            words += self.prepositional()
        return words

    def sentence(self) -> list[str]:
        rng = self.rng
        kind = rng.random()
        if kind < 0.12:
            words = self.question()
        elif kind < 0.17:
            words = self.imperative()
        else:
            words = self.clause()
            more = rng.random()
            if more < 0.2:
                words += [rng.choice(SUBORDINATORS), *self.clause()]
            elif more < 0.32:
                words += [rng.choice(COORDINATORS), *self.clause()]
            elif more < 0.38:
                words = [rng.choice(SUBORDINATORS), *self.clause(), *words]
        return words


@functools.cache
def _ing_crosses_the_split(plain: str) -> bool:
    """Is the -ing form of ``plain`` a listed word of another dictionary form that is held out where the verb
    is not, or the other way round ("greeting", a noun)? Then "was greeting" would carry a word of the other
    side of the split into the sentence."""
    ing, verb = LEXICON.get(_ing(plain)), LEXICON.get(plain)
    if ing is None or verb is None or ing.lemma == verb.lemma:
        return False
    return held_out(ing.lemma) != held_out(verb.lemma)


def _ing(plain: str) -> str:
    """The -ing form of a plain verb: swim -> swimming, bake -> baking, play -> playing."""
    if plain.endswith("ie"):
        return plain[:-2] + "ying"
    if plain.endswith("e") and not plain.endswith(("ee", "ye", "oe")):
        return plain[:-1] + "ing"
    if (
        len(plain) >= 3
        and plain[-1] not in "aeiouwxy"
        and plain[-2] in "aeiou"
        and plain[-3] not in "aeiou"
        and len(plain) <= 4
    ):
        return plain + plain[-1] + "ing"
    return plain + "ing"
