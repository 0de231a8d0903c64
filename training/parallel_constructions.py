"""The phrase builders of the constructions readers ask for beyond a plain clause, on top of
training/parallel_phrases.py's, and figure 1's example pairs:

* **questions**: yes/no with "est-ce que" before the statement's order, aligned to the English word that
  opens the question ("does the dog sleep" -> "est-ce que le chien dort", "is the soup hot" -> "est-ce que
  la soupe est chaude"), with "where" ("where is the cat" -> "où est le chat", "where does she sing" -> "où
  est-ce qu' elle chante"), "who" as a subject ("who ate the bread" -> "qui a mangé le pain") and "what" as
  the object ("what did you read" -> "qu' est-ce que vous avez lu");
* **relative clauses** on a noun: of the subject ("the man who lives near the river" -> "l' homme qui vit
  près de la rivière") or of the object, where a participle after avoir agrees with the noun before it ("the
  pie that she made" -> "la tarte qu' elle a faite");
* **comparisons** of "to be" and an adjective ("taller than" -> "plus grand que", "more famous" -> "plus
  célèbre"), and **time words** at the end or the start of a clause, in a tense they fit ("yesterday" ->
  "hier", "every morning" -> "chaque matin", "last summer" -> "l' été dernier");
* **object pronouns**, which French puts before the conjugated verb, or before the infinitive after a modal
  ("she saw me" -> "elle m' a vu", "can you help me" -> "est-ce que vous pouvez m' aider", "he gave her a
  flower" -> "il lui a donné une fleur"), and after a preposition ("with them" -> "avec eux");
* **the double object** of give, show, send: "he gave his sister a flower" -> "il a donné une fleur à sa
  sœur", the "à" aligned to no English word;
* **"there is"** ("there are three cats on the bed" -> "il y a trois chats sur le lit") and **the weather**
  ("it is raining" -> "il pleut", "it did not snow" -> "il n' a pas neigé");
* **a clause joined by "because", "if", "when"**, or after "said that" ("… parce qu' il pleuvait", "s' il
  pleut …"), **a preposition French leaves out** ("waited for us" -> "nous a attendus"), and **quantities**
  ("many birds" -> "beaucoup d' oiseaux", "a cup of tea" -> "une tasse de thé", "eats more bread than" ->
  "mange plus de pain que").
"""

from __future__ import annotations

from dataclasses import replace

from training import parallel_heldout as heldout
from training.french_lexicon import (
    ADJECTIVE,
    COPULA_ENGLISH,
    IT,
    MORE,
    NOT,
    OBJECT_PRONOUN,
    OF,
    QUANTITIES,
    QUESTION,
    RELATIVE,
    SUBORDINATORS,
    THAN,
    THERE,
    THERE_BE,
    VERB,
    WHAT,
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
    to,
    to_pair,
    verb_object_novelty,
    verb_phrase,
)


def transitive(
    subject: Phrase,
    past: str,
    tense: Tense,
    obj: Phrase | None,
    *rest: Phrase,
    negated: bool = False,
    progressive: bool = False,
    modal: str | None = None,
    question: bool = False,
    pronoun: str = "",
    recipient: Phrase | None = None,
) -> Phrase:
    """subject verb object [more]: "we paint the old door and the new window"; ``negated`` (the object must
    be ``negatable``): "we do not paint the old door", "we do not eat bread" -> "… pas de pain";
    ``progressive``: "we are painting the old door"; ``modal``: "we can paint the old door"; ``question``: "do
    we paint the old door". ``pronoun``: an object pronoun, the direct object when ``obj`` is None ("we saw
    her" -> "nous la avons vue"), else the indirect one ("we gave her a cake" -> "nous lui avons donné un
    gâteau"); ``recipient``: the first of a double object ("we gave the boy a cake")."""
    verb = verb_phrase(subject, past, tense, negated, progressive, modal, question)
    if pronoun:
        verb = clitic(verb, past, tense, pronoun, indirect=obj is not None, modal=modal is not None)
    if negated and obj is not None:  # "we do not eat bread" -> "nous ne mangeons pas de pain"
        obj = negated_object(obj)
    objects = [] if obj is None else [obj if recipient is None else double_object(recipient, obj)]
    clause = (ask if question else concat)(subject, verb, *objects, *rest)
    if obj is not None:
        clause.novel |= verb_object_novelty(past, obj)
    if progressive and heldout.OBJECT in clause.novel:
        clause.novel |= {heldout.PROGRESSIVE}
    if question and heldout.OBJECT in clause.novel:
        clause.novel |= {heldout.QUESTION}
    return clause


def clitic(verb: Phrase, past: str, tense: Tense, word: str, indirect: bool, modal: bool) -> Phrase:
    """A verb phrase and its object pronoun: English puts the pronoun after the verb, French before the
    conjugated verb ("ne me voit pas", "me a vu", spelled "m' a vu") or, after a modal, before the infinitive
    ("peut me voir"). After avoir the participle agrees with a direct object pronoun before it ("la a vue",
    spelled "l' a vue"; "les a vus"); never with an indirect one ("lui a donné")."""
    p = OBJECT_PRONOUN[word]
    tokens = list(verb.fr)
    at = len(tokens) - 1 if modal else next(k for k, (token, _) in enumerate(tokens) if token != NOT[1])
    tokens.insert(at, (p.indirect if indirect else p.direct, (len(verb.en),)))
    v = VERB[past]
    if tense == "past" and v.auxiliary == "avoir" and not modal and not indirect:
        token, source = tokens[-1]
        assert token == v.participle, (token, past)
        tokens[-1] = (participle(v.participle, p.gender, p.number), source)
    return Phrase([*verb.en, p.english], tokens, novel=verb.novel)


def double_object(recipient: Phrase, obj: Phrase) -> Phrase:
    """ "his sister a flower" -> "une fleur à sa sœur": French puts the object first and the recipient after
    "à", which renders no English word (a contraction renders the recipient's article: "au garçon")."""
    to_recipient = to(recipient)  # "to his sister": index 0 is "to"
    n = len(recipient.en)
    fr = [(token, tuple(i + n for i in source)) for token, source in obj.fr]
    fr += [(token, tuple(i - 1 for i in source if i != 0)) for token, source in to_recipient.fr]
    return Phrase([*recipient.en, *obj.en], fr, obj.gender, obj.number, 3, obj.heads, obj.novel)


def there(thing: Phrase, tense: Tense, *rest: Phrase, question: bool = False) -> Phrase:
    """ "there are three cats on the bed" -> "il y a trois chats sur le lit", "there was bread" -> "il y avait
    du pain", "is there a cat" -> "est-ce que il y a un chat" (spelled "est-ce qu' il y a")."""
    subject = Phrase([THERE[0]], [(THERE[1], (0,)), (THERE[2], (0,))])
    be = Phrase.word([COPULA_ENGLISH[tense][0 if thing.number == "sg" else 1]], [THERE_BE[tense]])
    return (ask if question else concat)(subject, be, thing, *rest)


def weather(
    past: str,
    tense: Tense,
    negated: bool = False,
    progressive: bool = False,
    modal: str | None = None,
    question: bool = False,
) -> Phrase:
    """ "it rains" -> "il pleut", "it is snowing" -> "il neige", "it did not rain" -> "il ne a pas plu"
    (spelled "il n' a pas plu"), "does it rain" -> "est-ce que il pleut"."""
    it = Phrase([IT[0]], [(IT[1], (0,))], pronoun_subject=True)
    verb = verb_phrase(it, past, tense, negated, progressive, modal, question)
    return (ask if question else concat)(it, verb)


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


def what(subject: Phrase, verb: Phrase) -> Phrase:
    """ "what" as the object, before a yes/no question: "what does the man eat" -> "que est-ce que l' homme
    mange" (spelled "qu' est-ce que"), "what did you read" -> "… vous avez lu": the participle stays
    masculine, as the object "que" stands for has no gender to agree with."""
    return concat(Phrase.word([WHAT[0]], [WHAT[1]]), ask(subject, verb))


def who() -> Phrase:
    """ "who" as a subject: "who ate the bread" -> "qui a mangé le pain" (the verb in the third singular)."""
    return Phrase([WHO[0]], [(WHO[1], (0,))])


def fixed_phrase(word: TimeWord | PlaceWord) -> Phrase:
    """A time word or a place word as its table writes it: "yesterday" -> "hier", "every morning" -> "chaque
    matin", "home" -> "à la maison", "at work" -> "au travail"."""
    return Phrase(list(word.english), list(zip(word.french, word.alignment, strict=True)))


def subordinate(main: Phrase, clause: Phrase, word: str, first: bool = False) -> Phrase:
    """A clause joined to another by ``word`` (SUBORDINATORS), after it or, with ``first``, before it: "we
    stayed at home because it rained" -> "… parce que il a plu" (spelled "parce qu' il"), "if it rains we
    stay at home" -> "si il pleut nous …" (spelled "s' il"), "she said that …" -> "elle a dit que …"."""
    joined = concat(Phrase.word([word], SUBORDINATORS[word]), clause)
    return concat(joined, main) if first else concat(main, joined)


def particle(
    verb: Phrase,
    word: str,
    obj: Phrase | None,
    past: str,
    tense: Tense,
    pronoun: str = "",
    modal: bool = False,
) -> Phrase:
    """A verb phrase, the preposition English puts before its object, which the French verb renders with
    it, and the object: "waited for the bus" -> "a attendu le bus", or with ``pronoun`` (``obj`` None)
    "waited for us" -> "nous a attendus", "can listen to her" -> "peut la écouter" (spelled "l' écouter")."""
    # the verb renders the preposition too ("attendre" is "wait for"): its last token but "pas"
    at = max(k for k, (token, _) in enumerate(verb.fr) if token != NOT[2])
    fr = [
        (token, (*source, len(verb.en)) if k == at else source) for k, (token, source) in enumerate(verb.fr)
    ]
    verb = Phrase([*verb.en, word], fr, novel=verb.novel)
    if obj is None:
        return clitic(verb, past, tense, pronoun, indirect=False, modal=modal)
    return concat(verb, obj)


def quantity(words: tuple[str, ...], bare: Phrase) -> Phrase:
    """A quantity (QUANTITIES) before a bare noun, whose article French turns into "de": "many birds" ->
    "beaucoup de oiseaux" (spelled "d' oiseaux"), "a lot of bread" -> "beaucoup de pain"; "de" is aligned to
    the quantity's last word."""
    n = len(words)
    head = Phrase(
        list(words), [(QUANTITIES[words], tuple(range(n - (words[-1] == OF[0])))), (OF[1], (n - 1,))]
    )
    noun = _without_article(bare)
    return replace(concat(head, noun), gender=bare.gender, number=bare.number, heads=bare.heads)


def container(np_: Phrase, bare: Phrase) -> Phrase:
    """ "a cup of tea" -> "une tasse de thé", "two glasses of milk" -> "deux verres de lait"."""
    return concat(np_, Phrase.word([OF[0]], [OF[1]]), _without_article(bare))


def _without_article(bare: Phrase) -> Phrase:
    """A bare noun phrase without the article French gave it ("du pain" -> "pain")."""
    negated = negated_object(bare)  # its article is now one "de"
    assert negated.fr[0][0] == OF[1], bare.fr
    return Phrase(bare.en, negated.fr[1:], bare.gender, bare.number, bare.person, bare.heads, bare.novel)


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
