"""The noun phrases of the generator's parallel corpus's random grammar (training/parallel_grammar.py):
a noun with its determiner and up to three adjectives, a bare mass noun or plural, a prepositional phrase
(whose object may be a pronoun: "with them" -> "avec eux"), and a noun phrase extended by "of …", a
prepositional phrase or a relative clause.
"""

from __future__ import annotations

import random

from training import parallel_constructions as constructions
from training import parallel_phrases as phrases
from training.french_lexicon import (
    ADJECTIVE,
    ADJECTIVES,
    CONTAINERS,
    DETERMINERS,
    LIVING,
    NOUN,
    NOUNS,
    OBJECT_PRONOUNS,
    PREPOSITIONS,
    QUANTITIES,
    STATIVE,
    VERBS,
    Noun,
    Number,
)
from training.parallel_heldout import NOVEL_PAIRINGS, OBJECT, PAIRING
from training.parallel_phrases import Article, Phrase, Tense

PROGRESSIVE_SHARE = 0.3  # the share of clauses in the present with a verb in the progressive ("is sleeping")
RELATIVE_SHARE = 0.4  # the share of extended noun phrases that take a relative clause
SOME_SHARE = 0.25  # the share of bare objects that take the partitive that say "some" ("some bread")
QUANTITY_SHARE = 0.15  # the share of the others with "many" or "a lot of" ("many birds")
STRESSED_SHARE = 0.12  # the share of prepositions that take people whose object is a pronoun ("with them")
_CLASS_ORDER = {"opinion": 0, "size": 1, "age": 2, "quality": 3, "colour": 4}
_SINGLE_ONLY = {"a", "an", "every"}  # determiners a mass noun or the sun never takes


class NounPhrases:
    """Draws noun phrases from the lexicon; training/parallel_grammar.py's Grammar draws the clauses around
    them (and the subject of a relative clause: ``subject``)."""

    def __init__(
        self, rng: random.Random, novel: bool = False, goals: tuple[str, ...] = (PAIRING, OBJECT)
    ) -> None:
        self.rng = rng
        self.novel = novel
        self.goals = goals  # the held-out properties the novel grammar draws towards
        self.goal = ""  # in the novel grammar, the held-out property the sentence being drawn aims at
        self.nouns_of = {
            k: [n for n in NOUNS if n.kind == k]
            for k in ("person", "animal", "thing", "food", "place", "event")
        }
        self.fitting = {k: [a for a in ADJECTIVES if k in a.kinds] for k in self.nouns_of}
        self.dets = {
            (number, use): [
                d.english
                for d in DETERMINERS
                if number in d.numbers
                and d.english != "an"
                and not (use != "count" and d.english in _SINGLE_ONLY)
            ]
            for number in ("sg", "pl")
            for use in ("count", "mass", "one")
        }
        self.verbs = {
            f: [v for v in VERBS if v.frame == f]
            for f in ("intransitive", "transitive", "ditransitive", "weather", "clause")
        }

    # -- noun phrases ---------------------------------------------------------------------------------------

    def _noun(self, kinds: frozenset[str]) -> Noun:
        return self.rng.choice([n for k in sorted(kinds) for n in self.nouns_of[k]])

    def adjectives(self, noun: Noun, count: int, preposed: bool = True) -> list[str]:
        """``count`` (0 to 3) adjectives fitting the noun, at most two before and two after it in French, in
        English order; two of one class (small, big) or two colours never go together."""
        rng = self.rng
        if count == 0:
            return []
        fitting = self.fitting[noun.kind]
        pre = [a for a in fitting if a.before_noun] if preposed else []
        post = [a for a in fitting if not a.before_noun]
        shapes = {1: [(1, 0), (0, 1)], 2: [(2, 0), (1, 1), (0, 2)], 3: [(2, 1), (1, 2)]}[count]
        shapes = [(p, q) for p, q in shapes if (p == 0 or pre) and (q == 0 or post)]
        if not shapes:
            return []
        n_pre, n_post = rng.choice(shapes)
        for _ in range(20):
            chosen = rng.sample(pre, n_pre) + rng.sample(post, n_post)
            classes = [a.kind_of for a in chosen]
            if len(set(classes) - {"quality"}) < len([c for c in classes if c != "quality"]):
                continue  # two of one class, or two colours
            if n_pre == 2 and any(a.english == "long" for a in chosen):
                continue  # "long" stands alone before a noun
            break
        else:
            return []
        chosen.sort(key=lambda a: (not a.before_noun, _CLASS_ORDER[a.kind_of]))
        return [a.english for a in chosen]

    def _adjective_count(self) -> int:
        roll = self.rng.random()
        return 0 if roll < 0.5 else 1 if roll < 0.78 else 2 if roll < 0.92 else 3

    def _forced_pairing(self, kinds: frozenset[str]) -> tuple[str, str] | None:
        """In the novel grammar, sometimes a held-out adjective-noun pairing that fits ``kinds``."""
        if self.goal != PAIRING or self.rng.random() > 0.4:
            return None
        fits = sorted((a, n) for a, n in NOVEL_PAIRINGS if NOUN[n].kind in kinds)
        return self.rng.choice(fits) if fits else None

    def np(
        self,
        kinds: frozenset[str],
        indefinite: bool = True,
        adjectives: bool = True,
        noun: Noun | None = None,
    ) -> Phrase:
        """A noun phrase whose noun is one of ``kinds`` (or ``noun``); ``indefinite=False`` keeps "a" out."""
        rng = self.rng
        forced = self._forced_pairing(kinds) if noun is None else None
        if forced:
            noun = NOUN[forced[1]]
        if noun is None:
            noun = self._noun(kinds)
        number: Number = "pl" if noun.english[1] is not None and rng.random() < 0.35 else "sg"
        dets = self.dets[(number, noun.use)]
        if not indefinite:
            dets = [d for d in dets if d != "a"]
        # "the" half the time, the others shared out
        det = "the" if rng.random() < 0.5 else rng.choice(dets)
        chosen = self.adjectives(noun, self._adjective_count() if adjectives else 0)
        if forced and forced[0] not in chosen:
            a = ADJECTIVE[forced[0]]
            chosen = [c for c in chosen if ADJECTIVE[c].before_noun != a.before_noun][:1] + [a.english]
            chosen.sort(key=lambda w: (not ADJECTIVE[w].before_noun, _CLASS_ORDER[ADJECTIVE[w].kind_of]))
            if len([w for w in chosen if ADJECTIVE[w].kind_of == "colour"]) > 1:
                chosen = [a.english]
        return phrases.noun_phrase(det, noun.english[0], number, chosen)

    def bare_nouns(self, kinds: frozenset[str]) -> list[Noun]:
        """The nouns of ``kinds`` that can go without an article: mass nouns and those with a plural."""
        return [n for k in sorted(kinds) for n in self.nouns_of[k] if n.use == "mass" or n.english[1]]

    def bare(self, kinds: frozenset[str], article: Article, noun: Noun | None = None) -> Phrase | None:
        """A bare object: a mass noun ("bread") or a plural ("apples"), if one fits ``kinds``."""
        rng = self.rng
        if noun is None:
            choices = self.bare_nouns(kinds)
            if not choices:
                return None
            noun = rng.choice(choices)
        if noun.use == "mass":
            number: Number = "sg"
        elif noun.english[1] is not None:
            number = "pl"
        else:
            return None
        count = 0 if rng.random() < 0.7 else 1
        chosen = self.adjectives(noun, count, preposed=article == "generic")
        some = article == "partitive" and rng.random() < SOME_SHARE  # "some bread" -> "du pain"
        bare = phrases.bare_noun_phrase(noun.english[0], number, chosen, article, some)
        if article == "partitive" and not some and rng.random() < QUANTITY_SHARE:
            amounts = [q for q in QUANTITIES if q != ("more",) and (number == "pl" or q != ("many",))]
            return constructions.quantity(rng.choice(amounts), bare)  # "beaucoup de pain"
        return bare

    def container(self, kinds: frozenset[str]) -> Phrase | None:
        """ "a cup of tea", "two bottles of milk": a container and a mass noun it holds, if one fits."""
        rng = self.rng
        held = {k: [m for m in v if NOUN[m].kind in kinds] for k, v in CONTAINERS.items()}
        name = rng.choice(sorted(k for k, v in held.items() if v) or [""])
        if not name:
            return None
        np_ = self.np(frozenset({"thing"}), adjectives=rng.random() < 0.2, noun=NOUN[name])
        return constructions.container(np_, phrases.bare_noun_phrase(rng.choice(held[name])))

    def pp(self, kinds: frozenset[str] | None = None, depth: int = 0) -> Phrase:
        """A prepositional phrase; its noun phrase may carry "of …" or another one, up to two deep."""
        rng = self.rng
        prep = rng.choice([p for p in PREPOSITIONS if kinds is None or p.kinds & kinds])
        words = " ".join(prep.english)
        allowed = prep.kinds if kinds is None else prep.kinds & kinds
        if "person" in allowed and rng.random() < STRESSED_SHARE:  # "with them" -> "avec eux"
            p = rng.choice(OBJECT_PRONOUNS)
            return phrases.prepositional(words, Phrase.word([p.english], [p.stressed]))
        obj = self.np(allowed, adjectives=rng.random() < 0.5)
        if depth < 1 and rng.random() < 0.25:
            obj = self.extend(obj, depth + 1)
        return phrases.prepositional(words, obj)

    def extend(self, np_: Phrase, depth: int) -> Phrase:
        """np + "of NP", a prepositional phrase or (not nested) a relative clause: "the door of the house",
        "the cat near the door", "the man who sings", "the cake that she made"."""
        if depth == 0 and self.rng.random() < RELATIVE_SHARE:
            relative = self.relative(np_)
            if relative is not None:
                return relative
        if self.rng.random() < 0.55:
            head = NOUN[np_.heads[0]]
            kinds = {"person", "place"} | ({"thing"} if head.kind == "thing" else set())
            complement = self.np(frozenset(kinds), adjectives=self.rng.random() < 0.3)
            if depth < 1 and self.rng.random() < 0.2:
                complement = self.extend(complement, depth + 1)
            return phrases.of(np_, complement)
        return phrases.concat(np_, self.pp(depth=depth))

    def relative(self, np_: Phrase) -> Phrase | None:
        """A relative clause on ``np_``: of its subject ("the man who lives near the river", a person or an
        animal) or of its object ("the cake that she made"); None when no verb takes it as its object."""
        rng = self.rng
        head = NOUN[np_.heads[0]]
        tense: Tense = "past" if rng.random() < 0.6 else "present"
        if head.kind in LIVING and rng.random() < 0.6:
            verbs = [v for f in ("intransitive", "transitive") for v in self.verbs[f]]
            verb = rng.choice([v for v in verbs if tense == "present" or not v.past_is_plain])
            progressive = tense == "present" and rng.random() < PROGRESSIVE_SHARE
            progressive = progressive and verb.english[2] not in STATIVE
            if verb.frame == "transitive":
                rest = [self.np(verb.objects, adjectives=rng.random() < 0.3)]
            else:
                rest = [self.pp()] if rng.random() < 0.5 else []
            word = "who" if rng.random() < 0.7 else "that"
            return constructions.relative_subject(
                np_, word, verb.english[2], tense, *rest, progressive=progressive
            )
        verbs = [v for v in self.verbs["transitive"] if head.kind in v.objects]
        verbs = [v for v in verbs if tense == "present" or not v.past_is_plain]
        if not verbs:
            return None
        subject = self.subject(LIVING, second=True)
        return constructions.relative_object(np_, subject, rng.choice(verbs).english[2], tense)

    def subject(self, kinds: frozenset[str], second: bool = False) -> Phrase:
        raise NotImplementedError  # the clause grammar's
