"""Figure 4's parallel corpus: English sentences, their French translations, and the word alignment of each.

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
* **negation**: "not" becomes "ne … pas" around the conjugated verb, "ne" elided before a vowel ("the dog
  does not sleep" -> "le chien ne dort pas", "she did not fall" -> "elle n' est pas tombée", "the soup was
  not hot" -> "la soupe n' était pas chaude"); "does", "do" and "did" carry the tense and the person, so
  the French verb is aligned to them and to the English verb. An object with an indefinite or partitive
  article is never negated (French would write "pas de pain");
* **coordination**: of subjects (the verb goes plural, the adjective masculine unless both are feminine),
  of objects ("the old door and the new window" -> "la vieille porte et la nouvelle fenêtre"), of two
  predicate adjectives ("hot and salty" -> "chaude et salée"), and of two whole clauses with "and"/"but"
  ("this glass is empty and that cup is full" -> "ce verre est vide et cette tasse est pleine");
* **bare objects**: a mass noun or a plural with no determiner takes the partitive after verbs like eat,
  sell, buy ("the baker sells bread and cheese" -> "le boulanger vend du pain et du fromage", "soup" ->
  "de la soupe", "apples" -> "des pommes") and the definite article after like, love, hate ("she likes
  bread" -> "elle aime le pain"). The article's tokens ("du", or "de" "la") translate no English word of
  their own: they are aligned to the noun, since English says "partitive" by leaving the article out;
* **compounds**: two English words, one French noun ("river bank" -> "rive", "apple tree" -> "pommier");
* **prepositional phrases and "of"** after any noun phrase, subjects included, nested up to two deep
  ("the cat near the door of the house"), with every contraction where de or à meets le or les (de + le ->
  du, de + les -> des, à + le -> au, à + les -> aux), the contracted word aligned to both English words
  ("of the" -> "du");
* **elision**: before a vowel or a mute h, le/la -> l', de -> d', je -> j', ce -> cet, ma/sa -> mon/son,
  and vieux/beau/nouveau -> vieil/bel/nouvel ("the old tree" -> "le vieil arbre", "the rainbow" -> "l'
  arc-en-ciel", "i ate" -> "j' ai mangé"). "l'", "d'", "j'" are tokens of their own,
  aligned as the word they replace; an elided article does not contract ("near the tree" -> "près de l'
  arbre"). No word of the lexicon begins with an aspirated h.

Sentences have 3 to 30 English words; coordination and nesting make the long ones.

Two held-out sets measure the translator. ``heldout_pairs`` draws from the training grammar with another
seed (sentences never in training, but of the kind training had). ``novel_pairs`` draws sentences the
training stream is built never to contain, held out by construction: the training stream rejects every
sentence that has one of these properties, and the novel set keeps only sentences that have one:

* **an adjective on a noun it never qualifies in training** (NOVEL_PAIRINGS: "green door", "old bridge",
  "white cat", ...), before or after the noun or as a predicate ("the bridge was old");
* **a verb with an object noun it never takes in training** (NOVEL_OBJECTS: "ate the cake", "painted the
  wall", "drank milk", ...);

A third set, ``negated_pairs``, holds out a property of the same kind: **a verb negated in the present**
that training negates only in the past (NOVEL_NEGATED, one verb in five: "does not swim" -> "ne nage pas",
where training has "swims" -> "nage", "did not swim" -> "n' a pas nagé" and other verbs negated in the
present). Holding out their negation altogether was tried first: "did not swim" asks for "nagé" from
"swim", a pairing no training sentence shows, and the model wrote 27.5% of those sentences right.

Every word and every construction of the novel set is in training; only these combinations are not. A
model that learned word-by-word rules (agreement, order, contraction) translates them; one that memorised
frequent word sequences does not. The pairings are chosen across both genders and both adjective
positions, and none is one of the sentences readers reported.

A whole construction was held out too, at first: a pronoun subject in the second of two clauses ("the dog
sleeps and she laughs"), with pronouns trained only at the start of a sentence. The translator trained
that way wrote those sentences right 23% of the time, against 98 to 99.5% for the new pairings: it
generalises to new combinations of what it has seen, not to a construction it has never seen. Readers write
such sentences, so training now has them, and the second held-out set keeps to combinations.

The words and their French forms are training/french_lexicon.py's. The alignment of a pair gives, for each
French token, the indices of the English tokens it translates; an inserted word ("et" between two adjectives
after a noun) has none. The same grammar builds the three examples of figure 1 (``example_pairs``), which
always belong to the training set.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Literal

from training.french_lexicon import (
    ADJECTIVE,
    ADJECTIVES,
    AND,
    AVOIR,
    BEFORE_VOWEL,
    BUT,
    CONTRACTIONS,
    COPULA_ENGLISH,
    DETERMINER,
    DETERMINERS,
    DO_ENGLISH,
    ELISION,
    ETRE_PAST,
    ETRE_PRESENT,
    LIVING,
    NOT,
    NOUN,
    NOUNS,
    OF,
    PREPOSITION,
    PREPOSITIONS,
    PRONOUN,
    PRONOUNS,
    TO,
    VERB,
    VERBS,
    Gender,
    Noun,
    Number,
    Verb,
    begins_with_vowel,
    participle,
)

Tense = Literal["present", "past"]
Article = Literal["partitive", "generic"]

# What the training stream never holds (see the module's docstring): (adjective, noun) and (verb's past,
# object noun) pairings, and a pronoun subject after "and"/"but".
NOVEL_PAIRINGS: frozenset[tuple[str, str]] = frozenset(
    {
        ("green", "door"),
        ("old", "bridge"),
        ("small", "horse"),
        ("white", "cat"),
        ("new", "bike"),
        ("beautiful", "city"),
        ("cold", "lake"),
        ("broken", "lamp"),
        ("hungry", "wolf"),
        ("happy", "teacher"),
        ("big", "tree"),
        ("sweet", "pie"),
    }
)
NOVEL_OBJECTS: frozenset[tuple[str, str]] = frozenset(
    {
        ("ate", "cake"),
        ("painted", "wall"),
        ("found", "key"),
        ("chased", "fox"),
        ("drank", "milk"),
        ("visited", "castle"),
        ("bought", "hat"),
    }
)
# Verbs training never negates in the present, one in five by past form: negated_pairs negates only these.
NOVEL_NEGATED: frozenset[str] = frozenset(sorted(v.english[2] for v in VERBS)[2::5])
PAIRING, OBJECT, NEGATION = "adjective-noun pairing", "verb-object pairing", "negated verb"
NEGATED = 0.15  # the share of clauses negated, where the verb and object allow it

# ---------------------------------------------------------------------------------------------------------
# Pairs and the phrases they are built from.
# ---------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Pair:
    """An English sentence, its French translation, and for each French token the English words it renders."""

    english: tuple[str, ...]
    french: tuple[str, ...]
    alignment: tuple[tuple[int, ...], ...]  # alignment[j]: indices into english; () for an inserted word
    novel: frozenset[str] = field(default=frozenset(), compare=False, repr=False)  # held-out properties

    @property
    def source(self) -> str:
        return " ".join(self.english)

    @property
    def target(self) -> str:
        return " ".join(self.french)


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


def elide(fr: list[tuple[str, tuple[int, ...]]]) -> list[tuple[str, tuple[int, ...]]]:
    """Elision before a vowel: "le arbre" -> "l' arbre", "je ai" -> "j' ai", "ce arbre" -> "cet arbre"."""
    out = list(fr)
    for j in range(len(out) - 1):
        token, source = out[j]
        if token in ELISION and begins_with_vowel(out[j + 1][0]):
            out[j] = (ELISION[token], source)
    return out


def _novel_pairing(adjective: str, noun: str) -> frozenset[str]:
    return frozenset({PAIRING}) if (adjective, noun) in NOVEL_PAIRINGS else frozenset()


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
    novel = frozenset().union(*(_novel_pairing(a.english, noun.english[0]) for a in adjs))
    return Phrase(en, elide(fr), g, number, 3, (noun.english[0],), novel)


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
    noun: str, number: Number = "sg", adjectives: Sequence[str] = (), article: Article = "partitive"
) -> Phrase:
    """A noun with no English determiner: a mass noun ("bread") or a plural ("apples"), as an object.

    French gives it an article, aligned to the noun: the partitive ("du pain", "de la soupe", "de l' eau",
    "des pommes") or, after verbs of liking, the definite ("le pain", "les pommes")."""
    n = NOUN[noun]
    assert (n.use == "mass" and number == "sg") or (number == "pl" and n.english[1] is not None), noun
    if article == "partitive":
        assert not any(ADJECTIVE[a].before_noun for a in adjectives), "des + preposed adjective is de"
        if number == "pl":
            tokens = ["des"]
        else:
            tokens = ["de", "le" if n.gender == "m" else "la"]
            if begins_with_vowel(n.fr("sg")):
                tokens[1] = "l'"
            elif tokens[1] == "le":
                tokens = ["du"]
    else:
        tokens = ["les" if number == "pl" else ("le" if n.gender == "m" else "la")]
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
    """preposition + noun phrase, contracting a final de/à with le/les ("près de" + "le" -> "près du")."""
    joined = concat(preposition, np_)
    (last, last_src), (first, first_src) = joined.fr[len(preposition.fr) - 1], joined.fr[len(preposition.fr)]
    contracted = CONTRACTIONS.get((last, first))
    if contracted is not None:
        k = len(preposition.fr) - 1
        joined.fr[k : k + 2] = [(contracted, tuple(sorted({*last_src, *first_src})))]
    joined.fr = elide(joined.fr)  # "près de un" -> "près d' un"
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


def verb_phrase(subject: Phrase, past: str, tense: Tense, negated: bool = False) -> Phrase:
    """The verb, agreeing with the subject: "slept" -> "a dormi"/"ont dormi", "fell" -> "est tombée";
    ``negated``: "does not sleep" -> "ne dort pas", "did not sleep" -> "ne a pas dormi" (elided later)."""
    v = VERB[past]
    row = _row(subject.number, subject.person)
    if negated:
        # does/did (0) not (1) sleep (2): ne and pas render not; the verb (or auxiliary) renders does/did
        english = [DO_ENGLISH[tense][row], NOT[0], v.english[1]]
        if tense == "present":
            verb: list[tuple[str, tuple[int, ...]]] = [(v.french[row], (0, 2))]
        elif v.auxiliary == "avoir":
            verb = [(AVOIR[row], (0,)), (v.participle, (2,))]
        else:
            agreeing = participle(v.participle, subject.gender, subject.number)
            verb = [(ETRE_PRESENT[row], (0,)), (agreeing, (2,))]
        french = [(NOT[1], (1,)), verb[0], (NOT[2], (1,)), *verb[1:]]
        held_out = frozenset({NEGATION}) if past in NOVEL_NEGATED and tense == "present" else frozenset()
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
    not" -> "ne est pas" (elided later to "n' est pas")."""
    row = _row(subject.number, subject.person)
    french = ETRE_PRESENT if tense == "present" else ETRE_PAST
    if negated:
        return Phrase(
            [COPULA_ENGLISH[tense][row], NOT[0]], [(NOT[1], (1,)), (french[row], (0,)), (NOT[2], (1,))]
        )
    return Phrase.word([COPULA_ENGLISH[tense][row]], [french[row]])


def negatable(obj: Phrase) -> bool:
    """Whether a clause with this object may be negated: not when the object has an indefinite or partitive
    article, which French negation turns into "de" ("pas de pain"), a rule the grammar leaves out."""
    tokens = [token for token, _ in obj.fr]
    return not ({"un", "une", "des", "du"} & set(tokens)) and tokens[:1] != ["de"]


def predicate(subject: Phrase, adjective: str, *more: str) -> Phrase:
    """One adjective, or two joined by "and" ("hot and salty" -> "chaude et salée"), agreeing with the
    subject."""
    parts: list[Phrase] = []
    for k, word in enumerate((adjective, *more)):
        if k > 0:
            parts.append(Phrase.word([AND[0]], [AND[1]]))
        a = ADJECTIVE[word]
        parts.append(Phrase.word([a.english], [a.fr(subject.gender, subject.number)]))
    joined = concat(*parts)
    joined.novel = frozenset().union(
        *(_novel_pairing(a, h) for a in (adjective, *more) for h in subject.heads)
    )
    return joined


def verb_object_novelty(past: str, obj: Phrase) -> frozenset[str]:
    """The held-out property of a verb with this object, if any ("ate" + "the cake")."""
    return frozenset({OBJECT}) if any((past, head) in NOVEL_OBJECTS for head in obj.heads) else frozenset()


def transitive(
    subject: Phrase, past: str, tense: Tense, obj: Phrase, *rest: Phrase, negated: bool = False
) -> Phrase:
    """subject verb object [more]: "we paint the old door and the new window"; ``negated`` (the object must
    be ``negatable``): "we do not paint the old door"."""
    clause = concat(subject, verb_phrase(subject, past, tense, negated), obj, *rest)
    clause.novel |= verb_object_novelty(past, obj)
    return clause


def clauses(left: Phrase, right: Phrase, conjunction: Literal["and", "but"] = "and") -> Phrase:
    """Two whole clauses: "this glass is empty and that cup is full", "… but she laughed"."""
    word = AND if conjunction == "and" else BUT
    joined = concat(left, Phrase.word([word[0]], [word[1]]), right)
    return joined


def to_pair(sentence: Phrase) -> Pair:
    fr = elide(sentence.fr)  # "je ai" -> "j' ai"
    return Pair(
        english=tuple(sentence.en),
        french=tuple(token for token, _ in fr),
        alignment=tuple(source for _, source in fr),
        novel=sentence.novel,
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

MIN_WORDS, MAX_WORDS = 3, 30
_CLASS_ORDER = {"opinion": 0, "size": 1, "age": 2, "quality": 3, "colour": 4}
_SINGLE_ONLY = {"a", "an", "every"}  # determiners a mass noun or the sun never takes
_PRONOUNS = tuple(p.english for p in PRONOUNS)
_FOOD_AND_THINGS = frozenset({"thing", "food"})


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
        return noun_phrase(det, noun.english[0], number, chosen)

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
        return bare_noun_phrase(noun.english[0], number, chosen, article)

    def pp(self, kinds: frozenset[str] | None = None, depth: int = 0) -> Phrase:
        """A prepositional phrase; its noun phrase may carry "of …" or another one, up to two deep."""
        rng = self.rng
        prep = rng.choice([p for p in PREPOSITIONS if kinds is None or p.kinds & kinds])
        words = " ".join(prep.english)
        allowed = prep.kinds if kinds is None else prep.kinds & kinds
        obj = self.np(allowed, adjectives=rng.random() < 0.5)
        if depth < 1 and rng.random() < 0.25:
            obj = self.extend(obj, depth + 1)
        return prepositional(words, obj)

    def extend(self, np_: Phrase, depth: int) -> Phrase:
        """np + "of NP" or np + a prepositional phrase: "the door of the house", "the cat near the door"."""
        if self.rng.random() < 0.55:
            head = NOUN[np_.heads[0]]
            kinds = {"person", "place"} | ({"thing"} if head.kind == "thing" else set())
            complement = self.np(frozenset(kinds), adjectives=self.rng.random() < 0.3)
            if depth < 1 and self.rng.random() < 0.2:
                complement = self.extend(complement, depth + 1)
            return of(np_, complement)
        return concat(np_, self.pp(depth=depth))

    # -- clauses --------------------------------------------------------------------------------------------

    def subject(self, kinds: frozenset[str], second: bool = False) -> Phrase:
        """A subject: a pronoun, one noun phrase, perhaps extended, or two (not after "and": see below)."""
        rng = self.rng
        roll = rng.random()
        if kinds & LIVING and roll < 0.2:
            word = rng.choice(("we", "i", "you", "he", "she", "they", "we", "i", "you"))
            return pronoun(word)
        kind = rng.choice(sorted(kinds))
        one = frozenset({kind})
        if roll < 0.3 and not second:  # (after "and", "the boy and the cows were" could split two ways)
            return coordinated(
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
        if self.goal == OBJECT:
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
            return coordinated(first, one())
        return first

    def clause(self, tense: Tense, second: bool = False) -> Phrase:
        rng = self.rng
        roll = rng.random()
        if self.goal == OBJECT and (second or rng.random() < 0.5):
            roll = 0.8  # a transitive verb whose held-out object is drawn below
        if self.goal == NEGATION and (second or rng.random() < 0.5):
            roll = 0.4 + 0.6 * rng.random()  # a verb, negated below
        copular = self.goal != NEGATION and rng.random() < NEGATED  # "was not steep", "is not under"
        if roll < 0.30:  # the river bank was steep; the soup is hot and salty
            subject = self.subject(frozenset({"person", "animal", "thing", "food", "place"}), second)
            kind = NOUN[subject.heads[0]].kind if subject.heads else "person"
            fitting = [a.english for a in self.fitting[kind]]
            chosen = rng.sample(fitting, 2 if rng.random() < 0.25 else 1)
            if len(chosen) == 2 and ADJECTIVE[chosen[0]].french == ADJECTIVE[chosen[1]].french:
                chosen = chosen[:1]  # "small and little" would be "petit et petit"
            if self.goal == PAIRING and subject.heads and rng.random() < 0.4:
                fits = [a for a, n in NOVEL_PAIRINGS if n in subject.heads]
                if fits:
                    chosen = [fits[0]]
            return concat(subject, copula(subject, tense, copular), predicate(subject, *chosen))
        if roll < 0.40:  # the cat was under the table
            subject = self.subject(frozenset({"person", "animal", "thing", "food"}), second)
            return concat(subject, copula(subject, tense, copular), self.pp(frozenset({"thing", "place"})))
        subject = self.subject(LIVING, second)
        frame = "intransitive" if roll < 0.62 else ("transitive" if roll < 0.92 else "ditransitive")
        verb = rng.choice(self.verbs[frame])
        if self.goal == OBJECT and frame == "transitive":
            verb = VERB[rng.choice(sorted(p for p, _ in NOVEL_OBJECTS))]
        # negated: NEGATED of the clauses, never a verb held out of negation in the present, except in the
        # negated set, which negates only those, in the present
        negated = rng.random() < NEGATED and not (verb.english[2] in NOVEL_NEGATED and tense == "present")
        if self.goal == NEGATION:
            verb = rng.choice([v for v in self.verbs[frame] if v.english[2] in NOVEL_NEGATED])
            negated, tense = True, "present"
        past = verb.english[2]
        if frame == "intransitive":
            parts = [subject, verb_phrase(subject, past, tense, negated)]
            if rng.random() < 0.6:
                parts.append(self.pp())
            return concat(*parts)
        obj = self.objects(verb)
        for _ in range(4 if self.goal == NEGATION else 0):  # the negated set looks for a definite object
            if negatable(obj):
                break
            obj = self.objects(verb)
        negated = negated and negatable(obj)
        if frame == "transitive":
            rest = [self.pp()] if rng.random() < 0.3 else []
            return transitive(subject, past, tense, obj, *rest, negated=negated)
        to_whom = to(self.np(LIVING, adjectives=rng.random() < 0.3))
        return transitive(subject, past, tense, obj, to_whom, negated=negated)

    def sentence(self) -> Phrase:
        rng = self.rng
        tense: Tense = "past" if rng.random() < 0.55 else "present"
        if self.novel:
            self.goal = rng.choice(self.goals)
        if rng.random() < 0.3:
            left = self.clause(tense)
            second_tense: Tense = tense if rng.random() < 0.8 else ("present" if tense == "past" else "past")
            right = self.clause(second_tense, second=True)
            return clauses(left, right, "and" if rng.random() < 0.75 else "but")
        return self.clause(tense)


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


TRAINING_SEED, HELDOUT_SEED, NOVEL_SEED, NEGATED_SEED = 1, 2, 3, 4


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
    """figure 1's examples, then distinct pairs of the training seed: ``count`` in all."""
    examples = example_pairs()
    drawn = distinct_pairs(count - len(examples), TRAINING_SEED, frozenset(p.source for p in examples))
    return (*examples, *drawn)


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


def novel_description() -> str:
    """What the second held-out set holds, in a phrase the page can show (figure 4's About this model)."""
    return (
        f"{len(NOVEL_PAIRINGS)} adjective–noun pairings such as “green door” and {len(NOVEL_OBJECTS)} "
        "verb–object pairings such as “drank milk”, which the training pairs never contain"
    )


def negated_description() -> str:
    """What the negated held-out set holds, in a phrase the page can show."""
    return (
        f"a verb negated in the present that training negates only in the past ({len(NOVEL_NEGATED)} of the "
        f"{len(VERBS)} verbs, such as “does not swim”)"
    )
