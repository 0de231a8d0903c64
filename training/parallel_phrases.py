"""The phrases of the generator's parallel corpus: each builder writes English words and their French
side by side.

A small grammar writes an English sentence and its French translation side by side, so every French token
knows which English words it came from. The grammar covers what makes French differ from English word for
word:

* **gender and number**: determiners, adjectives and past participles agree with their noun
  ("the old crane" -> "la vieille grue", "the old cranes" -> "les vieilles grues");
* **adjective order**: up to three adjectives on a noun. Most follow the noun in French ("the red door" ->
  "la porte rouge"), a few precede it (petit, grand, vieux, jeune, beau, bon, nouveau, joli, mauvais,
  long); up to two of each, so "the small old red car" -> "la petite vieille voiture rouge". Two that follow
  are joined by an inserted "et" that no English word produced ("the cold dark river" -> "la rivière froide
  et sombre"). English order is opinion, size, age, then the others, colour last;
* **verbs**: the present agrees with the subject's number and person ("the dog sleeps" -> "le chien dort",
  "we sleep" -> "nous dormons", "i sleep" -> "je dors", "you sleep" -> "vous dormez"); the past is the
  imparfait for "to be" ("was" -> "était") and the passé composé elsewhere, with avoir ("slept" -> "a
  dormi") or with être, whose participle agrees ("she fell" -> "elle est tombée"). "you" is always "vous",
  read as masculine plural ("you were tired" -> "vous étiez fatigués"), "i" as masculine;
* **negation**: "not" becomes "ne … pas" around the conjugated verb ("she did not fall" -> "elle ne est
  pas tombée", spelled "elle n' est pas tombée"); "does", "do" and "did" carry the tense and the person, so
  the French verb is aligned to them and to the English verb; an indefinite or partitive article after it
  becomes "de" ("pas de pain");
* **the progressive** in the present: "is sleeping" -> "dort", aligned to both words; never STATIVE verbs;
* **modals**: "can", "must" and "want to" with the infinitive ("she wants to swim" -> "elle veut nager");
* "very" before a predicate adjective; compounds ("river bank" -> "rive"); questions, relative clauses,
  comparisons and time words are training/parallel_constructions.py's;
* **coordination**: of subjects (the verb goes plural, the adjective masculine unless both are feminine),
  of objects, of two predicate adjectives ("hot and salty" -> "chaude et salée"), and of two whole clauses
  with "and"/"but";
* **bare objects**: a mass noun or a plural with no determiner takes the partitive after eat, sell, buy
  ("bread and cheese" -> "du pain et du fromage", "apples" -> "des pommes") and the definite article after
  like, love, hate ("she likes bread" -> "elle aime le pain"), the article aligned to the noun (or to
  "some": "some bread" -> "du pain"); a plural subject with no determiner takes the definite article;
* **prepositional phrases and "of"** after any noun phrase, subjects included, nested up to two deep
  ("the cat near the door of the house"), with every contraction where de or à meets le or les (de + le ->
  du, de + les -> des, à + le -> au, à + les -> aux), the contracted word aligned to both English words
  ("of the" -> "du");
* **elision** is spelling, not translation (app.models.translator.spelling): a pair's French tokens keep
  le/la, de, je, ne, que, ce and ma/ta/sa in full ("i ate" -> "je ai mangé"), and ``Pair.target``, the French
  a reader reads, is them spelled ("j' ai mangé"): the network never has to guess the first letter of a word
  it has not written yet. An article that spelling will elide does not contract ("near the tree" -> "près
  de le arbre", spelled "près de l' arbre"). vieux/beau/nouveau -> vieil/bel/nouvel before a vowel stays the
  network's to write ("the old tree" -> "le vieil arbre"): "vieux" is plural too. No word of the lexicon
  begins with an aspirated h.

The words and their French forms are training/french_lexicon.py's. The alignment of a pair gives, for each
French token, the indices of the English tokens it translates; an inserted word ("et" between two adjectives
after a noun) has none. A phrase also records the held-out properties it has (training/parallel_heldout.py).
The random grammar (training/parallel_grammar.py) draws sentences from these builders; the same builders
write the three examples of figure 1 (training/parallel_constructions.py's ``example_pairs``), which always
belong to the training set.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Literal

from app.models.translator.spelling import ELISION, begins_with_vowel, spell
from training import parallel_heldout as heldout
from training.french_lexicon import (
    ADJECTIVE,
    AND,
    AVOIR,
    BEFORE_VOWEL,
    BUT,
    CONTRACTIONS,
    COPULA_ENGLISH,
    DETERMINER,
    DO_ENGLISH,
    ETRE_PAST,
    ETRE_PRESENT,
    MODAL_ENGLISH,
    MODAL_FRENCH,
    NOT,
    NOUN,
    OF,
    PREPOSITION,
    PRONOUN,
    SOME,
    TO,
    VERB,
    VERY,
    Gender,
    Noun,
    Number,
    participle,
)

Tense = Literal["present", "past"]
Article = Literal["partitive", "generic"]

# ---------------------------------------------------------------------------------------------------------
# Pairs and the phrases they are built from.
# ---------------------------------------------------------------------------------------------------------


# The articles French negation turns into "de" at the head of an object, and the partitive's two words
INDEFINITE = frozenset({"un", "une", "du", "des"})
PARTITIVE = (["de", "la"], ["de", "le"])


@dataclass(frozen=True)
class Pair:
    """An English sentence, its French translation, and for each French token the English words it renders."""

    english: tuple[str, ...]
    french: tuple[str, ...]  # the tokens the network writes: short words in full ("ne attrape")
    alignment: tuple[tuple[int, ...], ...]  # alignment[j]: indices into english; () for an inserted word
    novel: frozenset[str] = field(default=frozenset(), compare=False, repr=False)  # held-out properties

    @property
    def source(self) -> str:
        return " ".join(self.english)

    @property
    def target(self) -> str:
        """The French as a reader reads it: ``french`` spelled (app.models.translator.spelling)."""
        return " ".join(spell(self.french))


@dataclass
class Phrase:
    """A stretch of both sentences: English words, and French tokens aligned to indices into those words.

    ``heads`` are the nouns the phrase is about (two for "the cat and the cow"), ``novel`` the held-out
    properties it has, ``pronoun_subject`` whether it begins with a subject pronoun."""

    en: list[str]
    fr: list[tuple[str, tuple[int, ...]]]
    gender: Gender = "m"
    number: Number = "sg"
    person: int = 3
    heads: tuple[str, ...] = ()
    novel: frozenset[str] = frozenset()
    pronoun_subject: bool = False

    @staticmethod
    def word(en: Sequence[str], fr: Sequence[str]) -> Phrase:
        """English words translated as a whole: every French token aligned to every English word."""
        every = tuple(range(len(en)))
        return Phrase(list(en), [(token, every) for token in fr])

    @property
    def text(self) -> str:
        return " ".join(token for token, _ in self.fr)


def concat(*phrases: Phrase) -> Phrase:
    """English words in order, French tokens in order, alignment indices shifted to the joined English."""
    en: list[str] = []
    fr: list[tuple[str, tuple[int, ...]]] = []
    for phrase in phrases:
        offset = len(en)
        en.extend(phrase.en)
        fr.extend((token, tuple(i + offset for i in source)) for token, source in phrase.fr)
    first = phrases[0]
    novel = frozenset().union(*(p.novel for p in phrases))
    return Phrase(en, fr, first.gender, first.number, first.person, first.heads, novel, first.pronoun_subject)


def novel_pairing(adjective: str, noun: str) -> frozenset[str]:
    return frozenset({heldout.PAIRING}) if (adjective, noun) in heldout.NOVEL_PAIRINGS else frozenset()


def _nominal(
    en_before: list[str],
    article: list[tuple[str, tuple[int, ...]]],
    noun: Noun,
    number: Number,
    adjectives: Sequence[str],
) -> Phrase:
    """[det] adjectives noun, French: article, preposed adjectives, noun, postposed (joined by "et").

    ``en_before`` is the English determiner (or nothing); an article token aligned to None is aligned to
    the noun."""
    adjs = [ADJECTIVE[a] for a in adjectives]
    g = noun.gender
    start = len(en_before)
    en = [*en_before, *(a.english for a in adjs), *noun.en(number)]
    noun_at = tuple(range(start + len(adjs), len(en)))  # one or two English words ("river bank")
    noun_fr = noun.fr(number)
    fr = [(token, noun_at if source is None else source) for token, source in article]
    pre = [(a.fr(g, number), (start + k,)) for k, a in enumerate(adjs) if a.before_noun]
    post = [(a.fr(g, number), (start + k,)) for k, a in enumerate(adjs) if not a.before_noun]
    if pre and g == "m" and number == "sg" and begins_with_vowel(noun_fr) and pre[-1][0] in BEFORE_VOWEL:
        pre[-1] = (BEFORE_VOWEL[pre[-1][0]], pre[-1][1])  # "le vieil arbre", "un bel oiseau"
    fr.extend(pre)
    fr.append((noun_fr, noun_at))
    for k, token in enumerate(post):
        if k > 0:
            fr.append((AND[1], ()))  # "froide et sombre": the "et" translates no English word
        fr.append(token)
    novel = frozenset().union(*(novel_pairing(a.english, noun.english[0]) for a in adjs))
    return Phrase(en, fr, g, number, 3, (noun.english[0],), novel)


def noun_phrase(
    determiner: str,
    noun: str,
    number: Number = "sg",
    adjectives: Sequence[str] = (),
) -> Phrase:
    """det [adjectives] noun, with French agreement, French adjective order and elision.

    English:  det  pre…  post…  noun          ("the small old red car")
    French:   det  pre…  noun   post (et post) ("la petite vieille voiture rouge")
    """
    n = NOUN[noun]
    det = DETERMINER[determiner]
    assert number in det.numbers, f"{determiner!r} does not go with a {number} noun"
    english = determiner
    if determiner in ("a", "an"):
        following = adjectives[0] if adjectives else n.en(number)[0]
        english = "an" if following[0] in "aeiou" else "a"
    return _nominal([english], [(det.fr(n.gender, number), (0,))], n, number, adjectives)


def bare_noun_phrase(
    noun: str,
    number: Number = "sg",
    adjectives: Sequence[str] = (),
    article: Article = "partitive",
    some: bool = False,
) -> Phrase:
    """A noun with no English determiner: a mass noun ("bread") or a plural ("apples"), as an object, or a
    plural as a subject ("apples are red").

    French gives it an article, aligned to the noun: the partitive ("du pain", "de la soupe", "de l' eau",
    "des pommes") or, after verbs of liking and as a subject, the definite ("le pain", "les pommes").
    ``some``: English says the partitive with "some", to which the article is aligned ("some bread" -> "du
    pain")."""
    n = NOUN[noun]
    assert (n.use == "mass" and number == "sg") or (number == "pl" and n.english[1] is not None), noun
    if article == "partitive":
        assert not any(ADJECTIVE[a].before_noun for a in adjectives), "des + preposed adjective is de"
        if number == "pl":
            tokens = ["des"]
        else:
            tokens = ["de", "le" if n.gender == "m" else "la"]
            if tokens[1] == "le" and not begins_with_vowel(n.fr("sg")):
                tokens = ["du"]  # "de le eau" stays for spelling to write "de l' eau"
    else:
        tokens = ["les" if number == "pl" else ("le" if n.gender == "m" else "la")]
    if some:
        assert article == "partitive", "some bread is du pain"
        return _nominal([SOME], [(t, (0,)) for t in tokens], n, number, adjectives)
    return _nominal([], [(t, None) for t in tokens], n, number, adjectives)  # type: ignore[misc]


def pronoun(word: str) -> Phrase:
    p = PRONOUN[word]
    return Phrase([p.english], [(p.french, (0,))], p.gender, p.number, p.person, pronoun_subject=True)


def coordinated(left: Phrase, right: Phrase) -> Phrase:
    """NP and NP: plural, masculine unless both are feminine."""
    joined = concat(left, Phrase.word([AND[0]], [AND[1]]), right)
    joined.number = "pl"
    joined.gender = "f" if left.gender == right.gender == "f" else "m"
    joined.heads = left.heads + right.heads
    return joined


def _attach(preposition: Phrase, np_: Phrase) -> Phrase:
    """preposition + noun phrase, contracting a final de/à with le/les ("près de" + "le" -> "près du"), but
    not an article that spelling will elide ("près de le arbre", written "près de l' arbre")."""
    joined = concat(preposition, np_)
    k = len(preposition.fr)
    (last, last_src), (first, first_src) = joined.fr[k - 1], joined.fr[k]
    contracted = CONTRACTIONS.get((last, first))
    elided = first in ELISION and k + 1 < len(joined.fr) and begins_with_vowel(joined.fr[k + 1][0])
    if contracted is not None and not elided:
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


def to(np_: Phrase) -> Phrase:
    """to NP, as the third argument of give: "to the dog" -> "au chien", "to the man" -> "à l' homme"."""
    return _attach(Phrase.word([TO[0]], [TO[1]]), np_)


def _row(number: Number, person: int) -> int:
    """The column of a verb's French forms (and of AVOIR, ETRE_*, COPULA_ENGLISH) for this subject."""
    if person == 1:
        return 3 if number == "sg" else 2
    if person == 2:
        return 4
    return 0 if number == "sg" else 1


def verb_phrase(
    subject: Phrase,
    past: str,
    tense: Tense,
    negated: bool = False,
    progressive: bool = False,
    modal: str | None = None,
    question: bool = False,
) -> Phrase:
    """The verb, agreeing with the subject: "slept" -> "a dormi"/"ont dormi", "fell" -> "est tombée";
    ``negated``: "does not sleep" -> "ne dort pas", "did not sleep" -> "ne a pas dormi" (spelled "n' a pas
    dormi");
    ``progressive`` (in the present): "is sleeping" -> "dort", the French verb aligned to "to be" and the
    -ing form, "is not sleeping" -> "ne dort pas"; ``modal`` (in the present, never negated): "can sleep" ->
    "peut dormir", "wants to sleep" -> "veut dormir"; ``question``: the form whose first English word a
    question puts before the subject ("does … sleep", "did … sleep", "is … sleeping", "can … sleep", "does …
    want to sleep")."""
    v = VERB[past]
    row = _row(subject.number, subject.person)
    held_out = frozenset()
    if negated and past in heldout.NOVEL_NEGATED and tense == "present":
        held_out = frozenset({heldout.NEGATION})
    if progressive:
        assert tense == "present" and modal is None, "the grammar writes the progressive in the present"
        if negated:  # is (0) not (1) sleeping (2): "ne dort pas", the verb aligned to is and sleeping
            return Phrase(
                [COPULA_ENGLISH[tense][row], NOT[0], v.ing],
                [(NOT[1], (1,)), (v.french[row], (0, 2)), (NOT[2], (1,))],
            )
        return Phrase.word([COPULA_ENGLISH[tense][row], v.ing], [v.french[row]])
    if modal is not None:
        # can/must (0) [not (1)] sleep; [does (0)] [not (1)] want to sleep: "peut dormir", "ne peut pas
        # dormir", "ne veut pas dormir"; the French modal renders every English word but the verb and "not"
        assert tense == "present", "a modal stands in the present"
        does = modal == "want" and (question or negated)
        english = [DO_ENGLISH[tense][row]] if does else []
        english += [NOT[0]] if negated and does else []
        english += [MODAL_ENGLISH[modal][1 if does else row]]
        english += [NOT[0]] if negated and not does else []
        english += [TO[0]] if modal == "want" else []
        english.append(v.english[1])
        modal_words = tuple(k for k, w in enumerate(english[:-1]) if w != NOT[0])
        verb_french: list[tuple[str, tuple[int, ...]]] = [(MODAL_FRENCH[modal][row], modal_words)]
        if negated:
            negation = (english.index(NOT[0]),)
            verb_french = [(NOT[1], negation), *verb_french, (NOT[2], negation)]
        french = [*verb_french, (v.infinitive, (len(english) - 1,))]
        novel = modal == "want" and past in heldout.NOVEL_MODAL
        return Phrase(english, french, novel=frozenset({heldout.MODAL}) if novel else frozenset())
    if negated or question:
        # does/did (0) [not (1)] sleep (2): ne and pas render not; the verb (or auxiliary) renders does/did
        english = [DO_ENGLISH[tense][row], *([NOT[0]] if negated else []), v.english[1]]
        last = len(english) - 1
        if tense == "present":
            verb: list[tuple[str, tuple[int, ...]]] = [(v.french[row], (0, last))]
        elif v.auxiliary == "avoir":
            verb = [(AVOIR[row], (0,)), (v.participle, (last,))]
        else:
            agreeing = participle(v.participle, subject.gender, subject.number)
            verb = [(ETRE_PRESENT[row], (0,)), (agreeing, (last,))]
        if not negated:
            return Phrase(english, verb)
        french = [(NOT[1], (1,)), verb[0], (NOT[2], (1,)), *verb[1:]]
        return Phrase(english, french, novel=held_out)
    if tense == "present":
        return Phrase.word([v.english[0 if row == 0 else 1]], [v.french[row]])
    if v.auxiliary == "avoir":
        return Phrase.word([v.english[2]], [AVOIR[row], v.participle])
    return Phrase.word(
        [v.english[2]], [ETRE_PRESENT[row], participle(v.participle, subject.gender, subject.number)]
    )


def copula(subject: Phrase, tense: Tense, negated: bool = False) -> Phrase:
    """is/are/am/was/were -> est/sont/sommes/suis/êtes, était/étaient/étions/étais/étiez; ``negated``: "is
    not" -> "ne est pas" (spelled "n' est pas")."""
    row = _row(subject.number, subject.person)
    french = ETRE_PRESENT if tense == "present" else ETRE_PAST
    if negated:
        return Phrase(
            [COPULA_ENGLISH[tense][row], NOT[0]], [(NOT[1], (1,)), (french[row], (0,)), (NOT[2], (1,))]
        )
    return Phrase.word([COPULA_ENGLISH[tense][row]], [french[row]])


def negated_object(obj: Phrase) -> Phrase:
    """The object of a negated verb: French negation turns its indefinite or partitive article into "de"
    ("pas de pain", "pas de eau" spelled "pas d' eau", "pas de pommes", "pas de chat"), aligned to what the
    article rendered. Any other object is returned as it is."""
    tokens = [token for token, _ in obj.fr]
    drop = 2 if tokens[:2] in PARTITIVE else 1 if tokens[0] in INDEFINITE else 0
    if not drop or (tokens[0] in ("un", "une") and obj.en[0] not in ("a", "an")):
        return obj  # "one" is a number, not an article: "not one cat" -> "pas un chat"
    source = tuple(sorted({i for _, sources in obj.fr[:drop] for i in sources}))
    return replace(obj, fr=[("de", source), *obj.fr[drop:]])


def negatable(obj: Phrase) -> bool:
    """Whether a clause with this object may be negated: not when an indefinite or partitive article is left
    after the negation's "de" (``negated_object``), as in "the door of a house", nor when the object is two
    nouns with such an article ("bread and milk"): the grammar leaves their negated forms out."""
    if obj.en[0] == SOME:
        return False  # "does not eat some bread" is "any bread", which the grammar leaves out
    negated = negated_object(obj)
    if negated is not obj and len(obj.heads) > 1:
        return False  # "bread and milk": "ni … ni …", left out
    return not INDEFINITE & {token for token, _ in negated.fr}


def predicate(subject: Phrase, adjective: str, *more: str, very: bool = False) -> Phrase:
    """One adjective, or two joined by "and" ("hot and salty" -> "chaude et salée"), agreeing with the
    subject; ``very`` before the first: "very happy" -> "très heureux"."""
    parts: list[Phrase] = [Phrase.word([VERY[0]], [VERY[1]])] if very else []
    for k, word in enumerate((adjective, *more)):
        if k > 0:
            parts.append(Phrase.word([AND[0]], [AND[1]]))
        a = ADJECTIVE[word]
        parts.append(Phrase.word([a.english], [a.fr(subject.gender, subject.number)]))
    joined = concat(*parts)
    joined.novel = frozenset().union(
        *(novel_pairing(a, h) for a in (adjective, *more) for h in subject.heads)
    )
    return joined


def verb_object_novelty(past: str, obj: Phrase) -> frozenset[str]:
    """The held-out property of a verb with this object, if any ("ate" + "the cake")."""
    novel = any((past, head) in heldout.NOVEL_OBJECTS for head in obj.heads)
    return frozenset({heldout.OBJECT}) if novel else frozenset()


def clauses(left: Phrase, right: Phrase, conjunction: Literal["and", "but"] = "and") -> Phrase:
    """Two whole clauses: "this glass is empty and that cup is full", "… but she laughed"."""
    word = AND if conjunction == "and" else BUT
    joined = concat(left, Phrase.word([word[0]], [word[1]]), right)
    return joined


def to_pair(sentence: Phrase) -> Pair:
    return Pair(
        english=tuple(sentence.en),
        french=tuple(token for token, _ in sentence.fr),
        alignment=tuple(source for _, source in sentence.fr),
        novel=sentence.novel,
    )
