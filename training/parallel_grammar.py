"""The random grammar of the generator's parallel corpus: draws whole sentences, each with its French and its
alignment, from the phrase builders of training/parallel_phrases.py.

A clause is a subject (a pronoun, a noun phrase, perhaps extended by "of …", a prepositional phrase or a
relative clause, or two joined by "and"), then "to be" with adjectives, a comparison or a prepositional
phrase, or a verb (perhaps after a modal, in the progressive or negated) with its objects, perhaps ending on a
time word; a sentence is one clause, two joined by "and"/"but", or a question. ``novel=True`` draws towards
the held-out properties of training/parallel_heldout.py, and training/parallel_corpus.py keeps or rejects
what it draws.
"""

from __future__ import annotations

import random

from training import parallel_constructions as constructions
from training import parallel_phrases as phrases
from training.french_lexicon import (
    ADJECTIVE,
    ADJECTIVES,
    DETERMINERS,
    LIVING,
    NOUN,
    NOUNS,
    PLACE_WORDS,
    PREPOSITIONS,
    STATIVE,
    TIME_WORDS,
    VERB,
    VERBS,
    Noun,
    Number,
    Verb,
)
from training.parallel_heldout import (
    MODAL,
    NEGATION,
    NOVEL_MODAL,
    NOVEL_NEGATED,
    NOVEL_OBJECTS,
    NOVEL_PAIRINGS,
    OBJECT,
    PAIRING,
    PROGRESSIVE,
    QUESTION,
)
from training.parallel_phrases import Article, Phrase, Tense

NEGATED = 0.15  # the share of clauses negated, where the verb and object allow it
PROGRESSIVE_SHARE = 0.3  # the share of clauses in the present with a verb in the progressive ("is sleeping")
MODAL_SHARE = 0.2  # the share of the other clauses in the present with "can" or "want to" before the verb
QUESTION_SHARE = 0.15  # the share of sentences that are a question: yes/no, "who …" or "where …"
MOVING = frozenset({"went", "came"})  # verbs (by past) that may take "to" and a place
# How often the place after an intransitive verb is one named without an article ("at home", "at work":
# PLACE_WORDS), and twice as often a verb of motion's destination ("home", "to school"): fewer verbs take one
PLACE_WORD_SHARE = 0.3
DESTINATIONS = tuple(p for p in PLACE_WORDS if p.destination)
LOCATIONS = tuple(p for p in PLACE_WORDS if not p.destination)
VERY_SHARE = 0.1  # the share of predicate adjectives after "very"
COMPARISON_SHARE = 0.12  # the share of clauses of "to be" and adjectives that compare: "taller than"
RELATIVE_SHARE = 0.3  # the share of extended noun phrases that take a relative clause
TIME_SHARE = 0.15  # the share of clauses that end on a time word ("yesterday", "every morning")
_CLASS_ORDER = {"opinion": 0, "size": 1, "age": 2, "quality": 3, "colour": 4}
_SINGLE_ONLY = {"a", "an", "every"}  # determiners a mass noun or the sun never takes


class Grammar:
    """Draws sentences: clauses of a subject, a verb or "to be", and what follows, each with its French.

    ``novel=True`` draws towards the held-out properties (NOVEL_PAIRINGS, NOVEL_OBJECTS, a pronoun after
    "and"): the stream of ``pairs`` then keeps only the sentences that have one."""

    def __init__(
        self, rng: random.Random, novel: bool = False, goals: tuple[str, ...] = (PAIRING, OBJECT)
    ) -> None:
        self.rng = rng
        self.novel = novel
        self.goals = goals  # the held-out properties the novel grammar draws towards
        self.goal = ""  # in the novel grammar, the held-out property the sentence being drawn aims at
        self.nouns_of = {
            k: [n for n in NOUNS if n.kind == k] for k in ("person", "animal", "thing", "food", "place")
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
            f: [v for v in VERBS if v.frame == f] for f in ("intransitive", "transitive", "ditransitive")
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

    def bare(self, kinds: frozenset[str], article: Article, noun: Noun | None = None) -> Phrase | None:
        """A bare object: a mass noun ("bread") or a plural ("apples"), if one fits ``kinds``."""
        rng = self.rng
        if noun is None:
            choices = [n for k in sorted(kinds) for n in self.nouns_of[k] if n.use == "mass" or n.english[1]]
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
        return phrases.bare_noun_phrase(noun.english[0], number, chosen, article)

    def pp(self, kinds: frozenset[str] | None = None, depth: int = 0) -> Phrase:
        """A prepositional phrase; its noun phrase may carry "of …" or another one, up to two deep."""
        rng = self.rng
        prep = rng.choice([p for p in PREPOSITIONS if kinds is None or p.kinds & kinds])
        words = " ".join(prep.english)
        allowed = prep.kinds if kinds is None else prep.kinds & kinds
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
        if head.kind in LIVING and rng.random() < 0.5:
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

    # -- clauses --------------------------------------------------------------------------------------------

    def subject(self, kinds: frozenset[str], second: bool = False) -> Phrase:
        """A subject: a pronoun, one noun phrase, perhaps extended, or two (not after "and": see below)."""
        rng = self.rng
        roll = rng.random()
        if kinds & LIVING and roll < 0.2:
            word = rng.choice(("we", "i", "you", "he", "she", "they", "we", "i", "you"))
            return phrases.pronoun(word)
        kind = rng.choice(sorted(kinds))
        one = frozenset({kind})
        if roll < 0.3 and not second:  # (after "and", "the boy and the cows were" could split two ways)
            return phrases.coordinated(
                self.np(one, adjectives=rng.random() < 0.4), self.np(one, adjectives=rng.random() < 0.4)
            )
        np_ = self.np(one)
        if roll < 0.45:
            np_ = self.extend(np_, 0)  # "the dog near the house" is still the dog
        return np_

    def objects(self, verb: Verb) -> Phrase:
        """The object of a transitive verb: a noun phrase, a bare noun, or two of them joined by "and"."""
        rng = self.rng
        kinds = verb.objects
        if self.goal in (OBJECT, PROGRESSIVE, QUESTION):
            fits = sorted(n for p, n in NOVEL_OBJECTS if p == verb.english[2])
            if fits:
                noun = NOUN[fits[0]]
                if verb.bare != "-" and rng.random() < 0.4:
                    found = self.bare(kinds, verb.bare, noun)  # type: ignore[arg-type]
                    if found is not None:
                        return found
                return self.np(kinds, noun=noun)

        def one() -> Phrase:
            if verb.bare != "-" and rng.random() < 0.35:
                found = self.bare(kinds, verb.bare)  # type: ignore[arg-type]
                if found is not None:
                    return found
            np_ = self.np(kinds)
            return self.extend(np_, 0) if rng.random() < 0.12 else np_

        first = one()
        if rng.random() < 0.2:
            return phrases.coordinated(first, one())
        return first

    def held_out_verb(self, frame: str, held_out: frozenset[str]) -> Verb:
        """A verb (by past) of ``held_out`` with this frame, or else an intransitive one."""
        for f in (frame, "intransitive"):
            held = [v for v in self.verbs[f] if v.english[2] in held_out]
            if held:
                return self.rng.choice(held)
        raise ValueError(f"no verb of {sorted(held_out)} is {frame} or intransitive")

    def clause(self, tense: Tense, second: bool = False, asking: str = "") -> Phrase:
        """A statement, or with ``asking`` a question: "yes/no" ("does the dog sleep", "is the soup hot") or
        "who" ("who ate the bread"); a time word may end it."""
        clause = self._clause(tense, second, asking)
        fitting = [t for t in TIME_WORDS if tense in t.tenses]
        if self.goal in ("", PAIRING, OBJECT) and self.rng.random() < TIME_SHARE:
            clause = phrases.concat(clause, constructions.fixed_phrase(self.rng.choice(fitting)))
        return clause

    def _clause(self, tense: Tense, second: bool, asking: str) -> Phrase:
        rng = self.rng
        roll = rng.random()
        if self.goal in (OBJECT, PROGRESSIVE, QUESTION) and (second or rng.random() < 0.5):
            roll = 0.8  # a transitive verb whose held-out object is drawn below
        if self.goal in (NEGATION, MODAL) and (second or rng.random() < 0.5):
            roll = 0.4 + 0.6 * rng.random()  # a verb, negated or after "want to" below
        if self.goal == MODAL:
            tense = "present"
        question = asking == "yes/no"
        copular = self.goal != NEGATION and not question and rng.random() < NEGATED  # "was not steep"

        def subject_of(kinds: frozenset[str]) -> Phrase:
            return constructions.who() if asking == "who" else self.subject(kinds, second)

        def be(subject: Phrase, *rest: Phrase) -> Phrase:
            if question:  # "is the soup hot" -> "est-ce que la soupe est chaude"
                return constructions.ask(subject, phrases.copula(subject, tense), *rest)
            return phrases.concat(subject, phrases.copula(subject, tense, copular), *rest)

        if roll < 0.30:  # the river bank was steep; the soup is hot and salty
            subject = subject_of(frozenset({"person", "animal", "thing", "food", "place"}))
            kind = NOUN[subject.heads[0]].kind if subject.heads else "person"
            fitting = [a.english for a in self.fitting[kind]]
            chosen = rng.sample(fitting, 2 if rng.random() < 0.25 else 1)
            if len(chosen) == 2 and ADJECTIVE[chosen[0]].french == ADJECTIVE[chosen[1]].french:
                chosen = chosen[:1]  # "small and little" would be "petit et petit"
            if self.goal == PAIRING and subject.heads and rng.random() < 0.4:
                fits = [a for a, n in NOVEL_PAIRINGS if n in subject.heads]
                if fits:
                    chosen = [fits[0]]
            compared = [a for a in fitting if ADJECTIVE[a].comparative]
            if compared and not question and not copular and rng.random() < COMPARISON_SHARE:
                other = self.np(frozenset({kind}), adjectives=rng.random() < 0.3)
                return constructions.comparison(subject, tense, rng.choice(compared), other)
            very = rng.random() < VERY_SHARE
            return be(subject, phrases.predicate(subject, *chosen, very=very))
        if roll < 0.40:  # the cat was under the table
            subject = subject_of(frozenset({"person", "animal", "thing", "food"}))
            return be(subject, self.pp(frozenset({"thing", "place"})))
        subject = subject_of(LIVING)
        frame = "intransitive" if roll < 0.62 else ("transitive" if roll < 0.92 else "ditransitive")
        verb = rng.choice([v for v in self.verbs[frame] if tense == "present" or not v.past_is_plain])
        if self.goal in (OBJECT, PROGRESSIVE, QUESTION) and frame == "transitive":
            verb = VERB[rng.choice(sorted(p for p, _ in NOVEL_OBJECTS))]
        # the progressive, in the present: PROGRESSIVE_SHARE of those clauses
        progressive = tense == "present" and rng.random() < PROGRESSIVE_SHARE
        progressive = progressive and verb.english[2] not in STATIVE
        if self.goal == PROGRESSIVE:  # a held-out verb-object pairing in the progressive
            frame, tense, progressive = "transitive", "present", True
            verb = VERB[rng.choice(sorted(p for p, _ in NOVEL_OBJECTS))]
        # a modal: MODAL_SHARE of the other clauses in the present, "can" or "want to", never "want to" before
        # a held-out verb, except in the modal set, which has only those
        modal = None
        if tense == "present" and not progressive and rng.random() < MODAL_SHARE:
            modal = rng.choice(("can", "want") if question else ("can", "want", "must"))
            if modal == "want" and verb.english[2] in NOVEL_MODAL:
                modal = "can"
        if self.goal == MODAL:
            verb = self.held_out_verb(frame, NOVEL_MODAL)
            frame, modal, progressive = verb.frame, "want", False
        # negated: NEGATED of the clauses, never a verb held out of negation in the present, except in the
        # negated set, which negates only those, in the present; never a question
        negated = rng.random() < NEGATED and not (verb.english[2] in NOVEL_NEGATED and tense == "present")
        negated = negated and not question
        if self.goal == NEGATION:  # a held-out verb of this frame, or else an intransitive one
            verb = self.held_out_verb(frame, NOVEL_NEGATED)
            frame, negated, tense, progressive, modal = verb.frame, True, "present", False, None
        past = verb.english[2]
        if frame == "intransitive":
            verb_phrase = phrases.verb_phrase(subject, past, tense, negated, progressive, modal, question)
            parts = [subject, verb_phrase]
            if past in MOVING and rng.random() < 0.5:  # "went to the market" -> "est allé au marché"
                if rng.random() < 2 * PLACE_WORD_SHARE:  # "went home" -> "est allé à la maison"
                    parts.append(constructions.fixed_phrase(rng.choice(DESTINATIONS)))
                else:
                    parts.append(phrases.to(self.np(frozenset({"place"}), adjectives=rng.random() < 0.3)))
            elif rng.random() < 0.6:  # "stayed at home" -> "est resté à la maison", or "slept near the door"
                at = rng.random() < PLACE_WORD_SHARE and past not in MOVING  # not "went at home"
                parts.append(constructions.fixed_phrase(rng.choice(LOCATIONS)) if at else self.pp())
            return (constructions.ask if question else phrases.concat)(*parts)
        obj = self.objects(verb)
        for _ in range(4 if self.goal == NEGATION else 0):  # the negated set looks for a definite object
            if phrases.negatable(obj):
                break
            obj = self.objects(verb)
        negated = negated and phrases.negatable(obj)
        rest = [self.pp()] if frame == "transitive" and rng.random() < 0.3 else []
        if frame == "ditransitive":
            rest = [phrases.to(self.np(LIVING, adjectives=rng.random() < 0.3))]
        return constructions.transitive(
            subject,
            past,
            tense,
            obj,
            *rest,
            negated=negated,
            progressive=progressive,
            modal=modal,
            question=question,
        )

    def where(self, tense: Tense) -> Phrase:
        """ "where is the cat" -> "où est le chat", or "where does the man work" -> "où est-ce que l' homme
        travaille" (an intransitive verb, perhaps in the progressive)."""
        rng = self.rng
        if rng.random() < 0.5:
            return constructions.where(self.np(frozenset({"person", "animal", "thing", "food"})), None, tense)
        subject = self.subject(LIVING, second=True)
        verb = rng.choice(self.verbs["intransitive"])
        progressive = tense == "present" and rng.random() < PROGRESSIVE_SHARE
        asked = phrases.verb_phrase(subject, verb.english[2], tense, progressive=progressive, question=True)
        return constructions.where(subject, asked, tense)

    def sentence(self) -> Phrase:
        rng = self.rng
        tense: Tense = "past" if rng.random() < 0.55 else "present"
        if self.novel:
            self.goal = rng.choice(self.goals)
        if self.goal == QUESTION or (self.goal in ("", PAIRING, OBJECT) and rng.random() < QUESTION_SHARE):
            kind = "yes/no" if self.goal == QUESTION else rng.choice(("yes/no", "yes/no", "who", "where"))
            if kind == "where":
                return self.where(tense)
            return self.clause(tense, asking=kind)
        if rng.random() < 0.3:
            left = self.clause(tense)
            second_tense: Tense = tense if rng.random() < 0.8 else ("present" if tense == "past" else "past")
            right = self.clause(second_tense, second=True)
            return phrases.clauses(left, right, "and" if rng.random() < 0.75 else "but")
        return self.clause(tense)
