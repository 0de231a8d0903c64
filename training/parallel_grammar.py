"""The random grammar of the generator's parallel corpus: draws whole sentences, each with its French and its
alignment, from the phrase builders of training/parallel_phrases.py.

A clause is a subject (a pronoun, a noun phrase, perhaps extended by "of …", a prepositional phrase or a
relative clause, or two joined by "and"), then "to be" with adjectives, a comparison or a prepositional
phrase, or a verb (perhaps after a modal, in the progressive or negated) with its objects (noun phrases, an
object pronoun, or a recipient and an object); or "there is …", or the weather; a time word may open or end
it. A sentence is one clause, two joined by "and"/"but", or a question. The noun phrases are
training/parallel_noun_phrases.py's. ``novel=True`` draws towards the held-out properties of
training/parallel_heldout.py, and training/parallel_corpus.py keeps or rejects what it draws.
"""

from __future__ import annotations

from training import parallel_constructions as constructions
from training import parallel_phrases as phrases
from training.french_lexicon import (
    ADJECTIVE,
    GAMES,
    LIVING,
    NOUN,
    OBJECT_PRONOUNS,
    PARTICLES,
    PLACE_WORDS,
    PLEASE,
    STATIVE,
    SUBORDINATORS,
    THAN,
    TIME_WORDS,
    TO,
    VERB,
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
from training.parallel_noun_phrases import PROGRESSIVE_SHARE, NounPhrases
from training.parallel_phrases import Phrase, Tense

NEGATED = 0.18  # the share of clauses negated, where the verb and object allow it
MODAL_SHARE = 0.2  # the share of the other clauses in the present with a modal ("can", "will" …)
QUESTION_SHARE = 0.17  # the share of sentences that are a question: yes/no, "who …", "where …" or "what …"
MOVING = frozenset({"went", "came"})  # verbs (by past) that may take "to" and a place
# How often the place after an intransitive verb is one named without an article ("at home", "at work":
# PLACE_WORDS), and twice as often a verb of motion's destination ("home", "to school"): fewer verbs take one
PLACE_WORD_SHARE = 0.4
DESTINATIONS = tuple(p for p in PLACE_WORDS if p.destination)
LOCATIONS = tuple(p for p in PLACE_WORDS if not p.destination)
VERY_SHARE = 0.1  # the share of predicate adjectives after "very"
COMPARISON_SHARE = 0.12  # the share of clauses of "to be" and adjectives that compare: "taller than"
TIME_SHARE = 0.27  # the share of clauses with a time word ("yesterday", "every morning", "on sunday")
TIME_FIRST_SHARE = 0.35  # the share of those, in statements, where it comes first ("yesterday the sky …")
PRONOUN_OBJECT_SHARE = 0.15  # the share of objects of people or animals that are a pronoun ("saw her")
THERE_SHARE = 0.06  # the share of clauses that say "there is …"
WEATHER_SHARE = 0.03  # the share of clauses about the weather ("it is raining")
GENERIC_SHARE = 0.05  # the share of subjects that are a plural without a determiner ("apples are red")
PURPOSE_SHARE = 0.15  # the share of verbs of motion followed by "to" and a verb ("came to see us")
GAMES_AFTER = frozenset({"played"})  # verbs (by past) that may take a game ("played football")
PARTICLE_SHARE = 0.6  # the share of wait, listen, look with an object after their preposition ("for us")
CONTAINER_SHARE = 0.08  # the share of objects of eat, drink, buy... that are a container ("a cup of tea")
MORE_THAN_SHARE = 0.06  # the share of those clauses that compare how much ("eats more bread than his sister")
# How two clauses are joined ("and", "but", or a clause "because", "if", "when" …), and how often
JOINS = {"and": 0.45, "but": 0.15, "because": 0.15, "if": 0.1, "when": 0.15}
REQUEST_SHARE = 0.15  # the share of yes/no questions that ask "can you …" or "will you …"
PLEASE_SHARE = 0.5  # the share of those that end with "please" ("s' il vous plaît")
SAID_SHARE = 0.06  # the share of sentences that report a clause ("she said that …", "i think …")
DOUBLE_OBJECT_SHARE = 0.3  # the share of give, show, send… whose recipient comes first ("gave him a book")
THERE_DETERMINERS = frozenset({"a", "one", "two", "three", "four", "five", "six", "seven", "nine", "ten"})


class Grammar(NounPhrases):
    """Draws sentences: clauses of a subject, a verb or "to be", and what follows, each with its French.

    ``novel=True`` draws towards the held-out properties (NOVEL_PAIRINGS, NOVEL_OBJECTS, a pronoun after
    "and"): the stream of ``pairs`` then keeps only the sentences that have one."""

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
        if roll < 0.3 + GENERIC_SHARE and self.goal in ("", PAIRING):  # "apples are red" -> "les pommes …"
            found = [n for n in self.nouns_of[kind] if n.use == "count" and n.english[1]]
            if found:
                noun = rng.choice(found)
                chosen = self.adjectives(noun, self._adjective_count() // 2)
                return phrases.bare_noun_phrase(noun.english[0], "pl", chosen, "generic")
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
            if verb.bare == "partitive" and rng.random() < CONTAINER_SHARE:  # "a cup of tea"
                found = self.container(kinds)
                if found is not None:
                    return found
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
        "who" ("who ate the bread"), or "request" ("can you help me", perhaps with "please"); a time word may
        end it."""
        tense = "present" if asking == "request" else tense
        clause = self._clause(tense, second, asking)
        fitting = [t for t in TIME_WORDS if tense in t.tenses]
        if self.goal in ("", PAIRING, OBJECT) and self.rng.random() < TIME_SHARE:
            time = constructions.fixed_phrase(self.rng.choices(fitting, [t.weight for t in fitting])[0])
            first = not asking and self.rng.random() < TIME_FIRST_SHARE  # "yesterday the sky was grey"
            clause = phrases.concat(time, clause) if first else phrases.concat(clause, time)
        if asking == "request" and self.rng.random() < PLEASE_SHARE:  # "can you help me please"
            clause = phrases.concat(clause, Phrase.word([PLEASE[0]], list(PLEASE[1])))
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
        request = asking == "request"  # "can you help me", "will you open the door"
        question = asking in ("yes/no", "request")
        if request:  # a verb (clause() has put it in the present)
            roll = 0.4 + 0.6 * rng.random()
        copular = self.goal != NEGATION and not question and rng.random() < NEGATED  # "was not steep"

        def subject_of(kinds: frozenset[str]) -> Phrase:
            if request:
                return phrases.pronoun("you")
            return constructions.who() if asking == "who" else self.subject(kinds, second)

        if self.goal in ("", PAIRING, OBJECT) and asking not in ("who", "request"):
            other = rng.random()
            if other < WEATHER_SHARE:  # "it is raining", "it did not snow"
                return self.weather(tense, question)
            if other < WEATHER_SHARE + THERE_SHARE:  # "there are three cats on the bed"
                return self.there(tense, question)

        def be(subject: Phrase, *rest: Phrase) -> Phrase:
            if question:  # "is the soup hot" -> "est-ce que la soupe est chaude"
                return constructions.ask(subject, phrases.copula(subject, tense), *rest)
            return phrases.concat(subject, phrases.copula(subject, tense, copular), *rest)

        if roll < 0.30:  # the river bank was steep; the soup is hot and salty
            subject = subject_of(frozenset({"person", "animal", "thing", "food", "place", "event"}))
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
        progressive = progressive and verb.english[2] not in STATIVE and not request
        if self.goal == PROGRESSIVE:  # a held-out verb-object pairing in the progressive
            frame, tense, progressive = "transitive", "present", True
            verb = VERB[rng.choice(sorted(p for p, _ in NOVEL_OBJECTS))]
        # a modal: MODAL_SHARE of the other clauses in the present, "can", "want to", "must" or "will" (the
        # near future: "aller" and the infinitive), never "want to" before a held-out verb, except in the
        # modal set, which has only those
        modal = None
        if tense == "present" and not progressive and rng.random() < MODAL_SHARE:
            modal = rng.choice(("can", "want", "will") if question else ("can", "want", "must", "will"))
            if modal == "want" and verb.english[2] in NOVEL_MODAL:
                modal = "can"
        if request:
            modal = rng.choice(("can", "will"))
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
        plain = self.goal in ("", PAIRING)  # the held-out sets keep their objects
        if frame == "intransitive":
            verb_phrase = phrases.verb_phrase(subject, past, tense, negated, progressive, modal, question)
            parts = [subject, verb_phrase]
            if past in PARTICLES and plain and rng.random() < PARTICLE_SHARE:  # "waited for the bus"
                parts = [
                    subject,
                    self.particle(verb_phrase, subject, past, tense, negated, modal is not None),
                ]
            elif past in GAMES_AFTER and rng.random() < 0.5:  # "they played football" -> "… au football"
                parts.append(constructions.fixed_phrase(rng.choice(GAMES)))
            elif past in MOVING and plain and rng.random() < PURPOSE_SHARE:  # "came to see us"
                parts.append(self.purpose(subject))
            elif past in MOVING and rng.random() < 0.5:  # "went to the market" -> "est allé au marché"
                if rng.random() < 2 * PLACE_WORD_SHARE:  # "went home" -> "est allé à la maison"
                    parts.append(constructions.fixed_phrase(rng.choice(DESTINATIONS)))
                else:
                    parts.append(phrases.to(self.np(frozenset({"place"}), adjectives=rng.random() < 0.3)))
            elif rng.random() < 0.6:  # "stayed at home" -> "est resté à la maison", or "slept near the door"
                at = rng.random() < PLACE_WORD_SHARE and past not in MOVING  # not "went at home"
                parts.append(constructions.fixed_phrase(rng.choice(LOCATIONS)) if at else self.pp())
            return (constructions.ask if question else phrases.concat)(*parts)
        pronoun, recipient = "", None
        obj: Phrase | None = self.objects(verb)
        for _ in range(4 if self.goal == NEGATION else 0):  # the negated set looks for a definite object
            if phrases.negatable(obj):
                break
            obj = self.objects(verb)
        negated = negated and phrases.negatable(obj)
        rest = [self.pp()] if frame == "transitive" and rng.random() < 0.3 else []
        compare = frame == "transitive" and verb.bare == "partitive" and plain and not (question or asking)
        if compare and rng.random() < MORE_THAN_SHARE:
            obj, rest, negated = self.more_than(verb.objects)  # "eats more bread than his sister"
        if frame == "transitive" and plain and verb.objects & LIVING and rng.random() < PRONOUN_OBJECT_SHARE:
            pronoun, obj = self.object_pronoun(subject), None  # "she saw me" -> "elle me a vu"
        if frame == "ditransitive":
            roll = rng.random() if plain else 1.0
            if roll < DOUBLE_OBJECT_SHARE / 2:  # "gave him a book" -> "lui a donné un livre"
                pronoun = self.object_pronoun(subject)
            elif roll < DOUBLE_OBJECT_SHARE:  # "gave the boy a book" -> "a donné un livre au garçon"
                recipient = self.np(LIVING, adjectives=rng.random() < 0.3)
            else:
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
            pronoun=pronoun,
            recipient=recipient,
        )

    def particle(
        self, verb: Phrase, subject: Phrase, past: str, tense: Tense, negated: bool, modal: bool
    ) -> Phrase:
        """ "waited for the bus" -> "a attendu le bus", "listens to them" -> "les écoute" (PARTICLES)."""
        word, kinds = PARTICLES[past]
        pronoun = kinds & LIVING and self.rng.random() < 0.3
        for _ in range(0 if pronoun else 6):
            obj = self.np(kinds, adjectives=self.rng.random() < 0.3)
            if not negated or phrases.negatable(obj):
                obj = phrases.negated_object(obj) if negated else obj
                return constructions.particle(verb, word, obj, past, tense)
        return constructions.particle(verb, word, None, past, tense, self.object_pronoun(subject), modal)

    def more_than(self, kinds: frozenset[str]) -> tuple[Phrase, list[Phrase], bool]:
        """ "more bread than his sister" -> "plus de pain que sa sœur": the object, what follows it, and
        False, as such a clause is never negated."""
        noun = self.rng.choice(self.bare_nouns(kinds))
        number: Number = "sg" if noun.use == "mass" else "pl"
        obj = constructions.quantity(("more",), phrases.bare_noun_phrase(noun.english[0], number))
        than = phrases.concat(Phrase.word([THAN[0]], [THAN[1]]), self.np(LIVING, adjectives=False))
        return obj, [than], False

    def said(self, tense: Tense) -> Phrase:
        """ "she said that the soup was hot" -> "elle a dit que la soupe était chaude", "i think it is
        raining" -> "je pense que il pleut" (spelled "qu' il"): "que" renders "that", or the verb when English
        leaves "that" out."""
        rng = self.rng
        subject = self.subject(LIVING, second=True)
        verb = rng.choice(self.verbs["clause"])
        told = phrases.verb_phrase(subject, verb.english[2], tense)
        clause = self.clause(tense if rng.random() < 0.8 else "present", second=True)
        if rng.random() < 0.3:  # "i think it is raining"
            que = Phrase([], [(SUBORDINATORS["that"][0], (-1,))])  # concat shifts -1 to the verb's last word
            return phrases.concat(subject, phrases.concat(told, que), clause)
        return phrases.concat(subject, constructions.subordinate(told, clause, "that"))

    def purpose(self, subject: Phrase) -> Phrase:
        """ "to" and a verb with its object after a verb of motion: "came to see us" -> "sont venus nous
        voir", "went to buy bread" -> "sont allés acheter du pain"; the infinitive renders "to" and the
        verb."""
        verb = self.rng.choice([v for v in self.verbs["transitive"] if not v.past_is_plain])
        infinitive = Phrase([TO[0], verb.english[1]], [(verb.infinitive, (0, 1))])
        if verb.objects & LIVING and self.rng.random() < 0.4:
            word = self.object_pronoun(subject)
            return constructions.clitic(infinitive, verb.english[2], "present", word, False, modal=True)
        for _ in range(8):  # never a held-out verb-object pairing ("to drink milk")
            obj = self.objects(verb)
            if not phrases.verb_object_novelty(verb.english[2], obj):
                return phrases.concat(infinitive, obj)
        return infinitive

    def object_pronoun(self, subject: Phrase) -> str:
        """An object pronoun other than the subject's own person ("i saw me" would want "myself")."""
        own = {("i",): "me", ("we",): "us", ("you",): "you"}.get(tuple(subject.en), "")
        return self.rng.choice([p.english for p in OBJECT_PRONOUNS if p.english != own])

    def there(self, tense: Tense, question: bool) -> Phrase:
        """ "there is a cat in the garden", "there was bread on the table", "are there two dogs"."""
        rng = self.rng
        kinds = frozenset({"person", "animal", "thing", "food"})
        thing = self.bare(kinds, "partitive") if rng.random() < 0.3 else None
        if thing is None:
            noun = rng.choice([n for k in sorted(kinds) for n in self.nouns_of[k] if n.use == "count"])
            number: Number = "pl" if noun.english[1] is not None and rng.random() < 0.4 else "sg"
            dets = [d for d in self.dets[(number, noun.use)] if d in THERE_DETERMINERS]
            chosen = self.adjectives(noun, self._adjective_count())
            thing = phrases.noun_phrase(rng.choice(dets), noun.english[0], number, chosen)
        rest = [self.pp(frozenset({"thing", "place"}))] if rng.random() < 0.8 else []
        return constructions.there(thing, tense, *rest, question=question)

    def weather(self, tense: Tense, question: bool) -> Phrase:
        """ "it rains", "it is snowing", "it did not rain", "it can rain", "does it rain"."""
        rng = self.rng
        verb = rng.choice(self.verbs["weather"]).english[2]
        progressive = tense == "present" and rng.random() < 0.4
        modal = "can" if tense == "present" and not progressive and rng.random() < 0.15 else None
        negated = not question and rng.random() < NEGATED
        return constructions.weather(verb, tense, negated, progressive, modal, question)

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

    def what(self, tense: Tense) -> Phrase:
        """ "what does the man eat" -> "que est-ce que l' homme mange" (spelled "qu' est-ce que"), "what are
        the children eating" -> "… les enfants mangent", "what will you read": a verb of things or food."""
        rng = self.rng
        subject = self.subject(LIVING, second=True)
        # never "what did you read": a verb whose past is its present ("read", "cut") stays in the present
        fits = [v for v in self.verbs["transitive"] if tense == "present" or not v.past_is_plain]
        verb = rng.choice([v for v in fits if v.objects & {"thing", "food"}])
        progressive = (
            tense == "present" and verb.english[2] not in STATIVE and rng.random() < PROGRESSIVE_SHARE
        )
        modal = rng.choice(("can", "will")) if tense == "present" and not progressive else None
        modal = modal if rng.random() < MODAL_SHARE else None  # never "want to": it holds verbs out
        asked = phrases.verb_phrase(
            subject, verb.english[2], tense, progressive=progressive, modal=modal, question=True
        )
        return constructions.what(subject, asked)

    def sentence(self) -> Phrase:
        rng = self.rng
        tense: Tense = "past" if rng.random() < 0.55 else "present"
        if self.novel:
            self.goal = rng.choice(self.goals)
        if self.goal == QUESTION or (self.goal in ("", PAIRING, OBJECT) and rng.random() < QUESTION_SHARE):
            kinds = ("yes/no", "yes/no", "who", "where", "what")
            kind = "yes/no" if self.goal == QUESTION else rng.choice(kinds)
            kind = (
                "request"
                if kind == "yes/no" and self.goal != QUESTION and rng.random() < REQUEST_SHARE
                else kind
            )
            if kind in ("where", "what"):
                return self.where(tense) if kind == "where" else self.what(tense)
            return self.clause(tense, asking=kind)
        if self.goal in ("", PAIRING) and rng.random() < SAID_SHARE:
            return self.said(tense)
        if rng.random() < 0.3:
            join = rng.choices(list(JOINS), weights=list(JOINS.values()))[0]
            if join == "if":
                tense = "present"  # "if it rains we stay" -> "s' il pleut nous restons"
            left = self.clause(tense)
            second_tense: Tense = tense if rng.random() < 0.8 else ("present" if tense == "past" else "past")
            right = self.clause("present" if join == "if" else second_tense, second=True)
            if join in ("and", "but"):
                return phrases.clauses(left, right, join)  # type: ignore[arg-type]
            first = join != "because" and rng.random() < 0.3  # "when she came we were happy"
            return constructions.subordinate(left, right, join, first)
        return self.clause(tense)
