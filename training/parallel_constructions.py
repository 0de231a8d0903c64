"""The phrase builders of the constructions readers ask for beyond a plain clause, on top of
training/parallel_phrases.py's, and figure 1's example pairs:

* **questions**: yes/no with "est-ce que" before the statement's order, aligned to the English word that
  opens the question ("does the dog sleep" -> "est-ce que le chien dort", "is the soup hot" -> "est-ce que
  la soupe est chaude"), with "where" ("where is the cat" -> "où est le chat", "where does she sing" -> "où
  est-ce qu' elle chante") and "who" as a subject ("who ate the bread" -> "qui a mangé le pain");
* **relative clauses** on a noun: of the subject ("the man who lives near the river" -> "l' homme qui vit
  près de la rivière") or of the object, where a participle after avoir agrees with the noun before it ("the
  pie that she made" -> "la tarte qu' elle a faite");
* **comparisons** of "to be" and an adjective ("taller than" -> "plus grand que", "more famous" -> "plus
  célèbre"), and **time words** at the end of a clause, in a
  tense they fit ("yesterday" -> "hier", "every morning" -> "chaque matin");
"""

from __future__ import annotations

from training import parallel_heldout as heldout
from training.french_lexicon import (
    ADJECTIVE,
    MORE,
    QUESTION,
    RELATIVE,
    THAN,
    VERB,
    WHERE,
    WHO,
    PlaceWord,
    TimeWord,
    participle,
)
from training.parallel_phrases import (
    Pair,
    Phrase,
    Tense,
    concat,
    copula,
    negated_object,
    noun_phrase,
    novel_pairing,
    predicate,
    prepositional,
    pronoun,
    to_pair,
    verb_object_novelty,
    verb_phrase,
)


def transitive(
    subject: Phrase,
    past: str,
    tense: Tense,
    obj: Phrase,
    *rest: Phrase,
    negated: bool = False,
    progressive: bool = False,
    modal: str | None = None,
    question: bool = False,
) -> Phrase:
    """subject verb object [more]: "we paint the old door and the new window"; ``negated`` (the object must
    be ``negatable``): "we do not paint the old door", "we do not eat bread" -> "… pas de pain";
    ``progressive``: "we are painting the old door"; ``modal``: "we can paint the old door"; ``question``: "do
    we paint the old door"."""
    verb = verb_phrase(subject, past, tense, negated, progressive, modal, question)
    if negated:  # "we do not eat bread" -> "nous ne mangeons pas de pain"
        obj = negated_object(obj)
    clause = (ask if question else concat)(subject, verb, obj, *rest)
    clause.novel |= verb_object_novelty(past, obj)
    if progressive and heldout.OBJECT in clause.novel:
        clause.novel |= {heldout.PROGRESSIVE}
    if question and heldout.OBJECT in clause.novel:
        clause.novel |= {heldout.QUESTION}
    return clause


def ask(subject: Phrase, verb: Phrase, *rest: Phrase) -> Phrase:
    """A yes/no question: the verb phrase's first English word goes before the subject ("does the dog sleep",
    "is the soup hot", "can you swim"), and French puts "est-ce que" before the sentence's own order, both
    words aligned to that English word: "est-ce que le chien dort", "est-ce qu' elle est tombée"."""
    statement = concat(subject, verb, *rest)
    n, opener = len(subject.en), len(subject.en)  # the verb phrase's first word, in the statement

    def moved(i: int) -> int:
        return 0 if i == opener else i + 1 if i < n else i

    en = [statement.en[opener], *statement.en[:opener], *statement.en[opener + 1 :]]
    fr = [(QUESTION[0], (0,)), (QUESTION[1], (0,))]
    fr += [(token, tuple(sorted(moved(i) for i in source))) for token, source in statement.fr]
    return Phrase(en, fr, novel=statement.novel)


def comparison(subject: Phrase, tense: Tense, adjective: str, other: Phrase) -> Phrase:
    """subject is/was ADJ-er than NP: "my brother is taller than my father" -> "mon frère est plus grand que
    mon père", "more famous" -> "plus célèbre"; "plus" is aligned to the comparative (or to "more")."""
    a = ADJECTIVE[adjective]
    english = list(a.comparative)
    french = a.fr(subject.gender, subject.number)
    compared = Phrase(english, [(MORE[1], (0,)), (french, (len(english) - 1,))])
    than = Phrase.word([THAN[0]], [THAN[1]])
    joined = concat(subject, copula(subject, tense), compared, than, other)
    joined.novel |= frozenset().union(*(novel_pairing(adjective, h) for h in subject.heads))
    return joined


def relative_subject(
    head: Phrase, word: str, past: str, tense: Tense, *rest: Phrase, progressive: bool = False
) -> Phrase:
    """NP who/that VERB [object or more], the verb agreeing with the noun: "the man who lives near the
    river" -> "l' homme qui vit près de la rivière", "the girl that is eating bread" -> "la fille qui mange du
    pain"."""
    verb = verb_phrase(head, past, tense, progressive=progressive)
    joined = concat(head, Phrase.word([word], [RELATIVE[2]]), verb, *rest)
    if rest:
        joined.novel |= verb_object_novelty(past, rest[0])
    if progressive and heldout.OBJECT in joined.novel:
        joined.novel |= {heldout.PROGRESSIVE}
    return joined


def relative_object(head: Phrase, subject: Phrase, past: str, tense: Tense) -> Phrase:
    """NP that SUBJECT VERB: "the cake that she made" -> "le gâteau qu' elle a fait"; after avoir the
    participle agrees with the noun before it ("la tarte qu' elle a faite", "les pommes qu' il a prises")."""
    verb = verb_phrase(subject, past, tense)
    v = VERB[past]
    if tense == "past" and v.auxiliary == "avoir":
        (aux, source), _ = verb.fr
        verb.fr = [(aux, source), (participle(v.participle, head.gender, head.number), source)]
    joined = concat(head, Phrase.word([RELATIVE[1]], [RELATIVE[3]]), subject, verb)
    joined.novel |= verb_object_novelty(past, head)
    return joined


def where(subject: Phrase, verb: Phrase | None, tense: Tense) -> Phrase:
    """ "where is the cat" -> "où est le chat" (``verb`` None: the subject a noun phrase), or "where" before a
    yes/no question: "where does the man work" -> "où est-ce que l' homme travaille"."""
    if verb is None:
        return concat(Phrase.word([WHERE[0]], [WHERE[1]]), copula(subject, tense), subject)
    return concat(Phrase.word([WHERE[0]], [WHERE[1]]), ask(subject, verb))


def who() -> Phrase:
    """ "who" as a subject: "who ate the bread" -> "qui a mangé le pain" (the verb in the third singular)."""
    return Phrase([WHO[0]], [(WHO[1], (0,))])


def fixed_phrase(word: TimeWord | PlaceWord) -> Phrase:
    """A time word or a place word as its table writes it: "yesterday" -> "hier", "every morning" -> "chaque
    matin", "home" -> "à la maison", "at work" -> "au travail"."""
    return Phrase(list(word.english), list(zip(word.french, word.alignment, strict=True)))


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
