"""The parallel corpus: enough distinct pairs, every alignment consistent, French agreement done right."""

import random
import re
from collections import Counter, defaultdict

import pytest

from app.models.translator.spelling import ELISION, begins_with_vowel, spell
from app.models.translator.words import SPECIALS
from training import parallel_heldout
from training.french_lexicon import (
    ADJECTIVE,
    ADJECTIVES,
    BEFORE_VOWEL,
    CONTRACTIONS,
    COPULA_ENGLISH,
    DETERMINER,
    MODAL_ENGLISH,
    NOUN,
    NOUNS,
    PLACE_WORDS,
    QUANTITIES,
    SOME,
    TIME_WORDS,
    TO,
    VERB,
    VERBS,
)
from training.french_vocabulary import (
    ALLOWED_LINKS,
    ENGLISH_WORDS,
    FRENCH_WORDS,
    english_kinds,
    lexicon_entries,
)
from training.parallel_constructions import (
    ask,
    comparison,
    example_pairs,
    fixed_phrase,
    relative_object,
    relative_subject,
    transitive,
    where,
    who,
)
from training.parallel_corpus import (
    MAX_WORDS,
    MIN_WORDS,
    TRAINING_PAIRS,
    heldout_pairs,
    modal_pairs,
    negated_pairs,
    novel_pairs,
    progressive_pairs,
    question_pairs,
    training_pairs,
)
from training.parallel_grammar import Grammar
from training.parallel_heldout import NEGATION, NOVEL_NEGATED, NOVEL_OBJECTS, NOVEL_PAIRINGS, OBJECT, PAIRING
from training.parallel_phrases import (
    Pair,
    Phrase,
    bare_noun_phrase,
    clauses,
    concat,
    coordinated,
    copula,
    negatable,
    noun_phrase,
    of,
    predicate,
    prepositional,
    pronoun,
    to,
    to_pair,
    verb_phrase,
)

TRAIN, HELDOUT, NOVEL, NEGATED_SET = 30000, 2000, 1000, 300
ALLOWED_LINKS_OF: dict[str, set[str]] = defaultdict(set)  # English word -> the French tokens it may become
for _english, _french in ALLOWED_LINKS:
    ALLOWED_LINKS_OF[_english].add(_french)


@pytest.fixture(scope="module")
def train() -> tuple[Pair, ...]:
    return training_pairs(TRAIN)


@pytest.fixture(scope="module")
def heldout() -> tuple[Pair, ...]:
    return heldout_pairs(HELDOUT, TRAIN)


@pytest.fixture(scope="module")
def novel() -> tuple[Pair, ...]:
    return novel_pairs(NOVEL, TRAIN)


def test_the_lexicon_is_large_and_varied() -> None:
    assert len(lexicon_entries()) >= 150
    assert len(set(lexicon_entries())) == len(lexicon_entries())
    assert {n.gender for n in NOUNS} == {"m", "f"}
    assert not set(SPECIALS) & (set(ENGLISH_WORDS) | set(FRENCH_WORDS))


def test_at_least_20000_distinct_pairs_of_3_to_30_words(
    train: tuple[Pair, ...], heldout: tuple[Pair, ...], novel: tuple[Pair, ...]
) -> None:
    everything = train + heldout + novel
    assert (MIN_WORDS, MAX_WORDS) == (3, 30)
    assert len({p.source for p in everything}) == len(everything) >= 20000
    assert all(MIN_WORDS <= len(p.english) <= MAX_WORDS for p in everything)
    assert not {p.source for p in train} & {p.source for p in heldout}
    assert not {p.source for p in train} & {p.source for p in novel}


def test_long_sentences_are_a_fair_share(train: tuple[Pair, ...]) -> None:
    lengths = [len(p.english) for p in train]
    assert sum(n > 14 for n in lengths) >= 0.15 * len(lengths)
    assert sum(n >= 25 for n in lengths) >= 0.01 * len(lengths)
    assert max(lengths) == MAX_WORDS


def test_figure_1s_examples_are_in_training(train: tuple[Pair, ...]) -> None:
    bank, farmer, crane = example_pairs()
    assert train[:3] == (bank, farmer, crane)
    assert bank.source == "the river bank was steep" and bank.target == "la rive était escarpée"
    assert bank.alignment == ((0,), (1, 2), (3,), (4,))
    assert farmer.target == "un fermier a vendu la chauve-souris près de la grotte"
    assert crane.target == "elle a vu la vieille grue sur le quai"


def test_every_alignment_is_consistent(
    train: tuple[Pair, ...], heldout: tuple[Pair, ...], novel: tuple[Pair, ...]
) -> None:
    for pair in train + heldout + novel:
        assert len(pair.alignment) == len(pair.french)
        covered: set[int] = set()
        for french, sources in zip(pair.french, pair.alignment, strict=True):
            assert sources == tuple(sorted(set(sources)))
            for i in sources:
                assert 0 <= i < len(pair.english)
                assert (pair.english[i], french) in ALLOWED_LINKS, (pair.source, french, pair.english[i])
            covered.update(sources)
            if not sources:
                # the inserted words: "et" between two adjectives after the noun, "à" before the recipient
                # of a double object ("gave his sister a flower" -> "a donné une fleur à sa sœur")
                assert french in ("et", "à"), pair.source
        assert covered == set(range(len(pair.english))), pair.source  # every English word is translated


def test_translation_is_a_function_of_the_english(
    train: tuple[Pair, ...], heldout: tuple[Pair, ...], novel: tuple[Pair, ...]
) -> None:
    seen: dict[str, set[str]] = defaultdict(set)
    for pair in train + heldout + novel:
        seen[pair.source].add(pair.target)
    assert all(len(targets) == 1 for targets in seen.values())


def test_every_word_form_occurs_in_training() -> None:
    """In the pairs the translator trains on: rare forms ("chantons" after "nous") need them all."""
    train = training_pairs(TRAINING_PAIRS)
    english = {w for p in train for w in p.english}
    french = {w for p in train for w in p.french}
    assert english == set(ENGLISH_WORDS)
    assert french == set(FRENCH_WORDS)


def test_elision_and_contraction_wherever_they_arise(
    train: tuple[Pair, ...], heldout: tuple[Pair, ...], novel: tuple[Pair, ...]
) -> None:
    """The network's tokens hold the short words in full ("ne attrape", "de le arbre"); spelled, they are
    elided before every vowel and nowhere else, de/à + le/les contract wherever no elision follows, and
    vieux/beau/nouveau take their form before a vowel."""
    assert any(begins_with_vowel(n.french[0]) for n in NOUNS)  # l'arbre, l'homme, l'eau
    elided = Counter()
    for pair in train + heldout + novel:
        assert not any(word.endswith("'") or word == "cet" for word in pair.french), pair.french
        spelled = spell(pair.french)
        assert pair.target == " ".join(spelled)
        for j, (word, following) in enumerate(zip(spelled, spelled[1:], strict=False)):
            assert not (word in ELISION and begins_with_vowel(following)), pair.target
            assert (word, following) not in CONTRACTIONS, pair.target  # "de le" is "du" or "de l'"
            source = pair.alignment[j + 1]
            singular = bool(source) and pair.english[source[-1]] in _SINGULAR_EN
            assert not (word in BEFORE_VOWEL and begins_with_vowel(following) and singular), pair.target
            if word.endswith("'") or word in ("cet", "vieil", "bel", "nouvel"):
                assert begins_with_vowel(following), pair.target
                elided[word] += 1
        assert spelled[-1][-1] != "'"
    assert {"l'", "d'", "j'", "n'", "qu'", "cet"} <= set(elided)


def test_spelling_elides_before_a_vowel_only() -> None:
    assert spell(["ne", "attrape", "pas", "le", "arbre", "ni", "le", "chat"]) == [
        "n'", "attrape", "pas", "l'", "arbre", "ni", "le", "chat",
    ]  # fmt: skip
    assert spell(["est-ce", "que", "elle", "aime", "ce", "hôtel", "que"]) == [
        "est-ce", "qu'", "elle", "aime", "cet", "hôtel", "que",
    ]  # fmt: skip
    assert spell([]) == []


_SINGULAR_EN = {n.en("sg")[-1] for n in NOUNS} - {n.en("pl")[-1] for n in NOUNS if n.english[1]}


@pytest.mark.parametrize(
    ("phrase", "french"),
    [
        (noun_phrase("the", "crane", "sg", ["old"]), "la vieille grue"),
        (noun_phrase("the", "crane", "pl", ["old"]), "les vieilles grues"),
        (noun_phrase("a", "dog", "sg", ["big", "black"]), "un grand chien noir"),
        (noun_phrase("the", "river", "sg", ["cold", "dark"]), "la rivière froide et sombre"),
        (noun_phrase("a", "apple tree"), "un pommier"),
        (prepositional("near", noun_phrase("the", "lake")), "près du lac"),
        (prepositional("near", noun_phrase("the", "lake", "pl")), "près des lacs"),
        (of(noun_phrase("the", "door"), noun_phrase("the", "castle")), "la porte du château"),
    ],
)
def test_noun_phrases_agree_and_contract(phrase, french: str) -> None:
    assert " ".join(token for token, _ in phrase.fr) == french


def test_a_becomes_an_and_compounds_align_to_both_words() -> None:
    pair = to_pair(noun_phrase("a", "apple tree"))
    assert pair.english == ("an", "apple", "tree") and pair.alignment == ((0,), (1, 2))
    near = to_pair(prepositional("near", noun_phrase("the", "lake")))
    assert near.french == ("près", "du", "lac") and near.alignment == ((0,), (0, 1), (2,))


def test_verbs_and_predicates_agree_with_their_subject() -> None:
    def sentence(subject, past: str, tense: str) -> str:
        return " ".join(t for t, _ in [*subject.fr, *verb_phrase(subject, past, tense).fr])

    girls = noun_phrase("the", "girl", "pl")
    assert sentence(girls, "fell", "past") == "les filles sont tombées"
    assert sentence(pronoun("we"), "slept", "present") == "nous dormons"
    assert sentence(pronoun("she"), "saw", "past") == "elle a vu"
    assert sentence(noun_phrase("the", "dog"), "slept", "present") == "le chien dort"
    pair = coordinated(noun_phrase("the", "cat"), noun_phrase("the", "cow"))
    assert [t for t, _ in copula(pair, "past").fr + predicate(pair, "tired").fr] == ["étaient", "fatigués"]
    cows = coordinated(noun_phrase("the", "cow"), noun_phrase("the", "goat"))
    assert predicate(cows, "tired").fr[0][0] == "fatiguées"


def _sentence(*parts) -> str:
    return to_pair(concat(*parts)).target


def test_the_reviewers_sentences_come_out_right() -> None:
    car = noun_phrase("the", "car", "sg", ["small", "old", "red"])
    assert " ".join(car.en) == "the small old red car"
    assert _sentence(car, copula(car, "past"), predicate(car, "broken")) == (
        "la petite vieille voiture rouge était cassée"
    )

    baker = noun_phrase("the", "baker")
    food = coordinated(bare_noun_phrase("bread"), bare_noun_phrase("cheese"))
    sells = to_pair(transitive(baker, "sold", "present", food))
    assert sells.source == "the baker sells bread and cheese"
    assert sells.target == "le boulanger vend du pain et du fromage"
    assert sells.alignment == ((0,), (1,), (2,), (3,), (3,), (4,), (5,), (5,))  # "du" aligned to its noun

    glass, cup = noun_phrase("this", "glass"), noun_phrase("that", "cup")
    left = concat(glass, copula(glass, "present"), predicate(glass, "empty"))
    right = concat(cup, copula(cup, "present"), predicate(cup, "full"))
    both = to_pair(clauses(left, right))
    assert both.source == "this glass is empty and that cup is full"
    assert both.target == "ce verre est vide et cette tasse est pleine"

    tower = of(noun_phrase("the", "tower"), noun_phrase("the", "castle"))
    pair = to_pair(concat(tower, copula(tower, "present"), predicate(tower, "old")))
    assert pair.source == "the tower of the castle is old"
    assert pair.target == "la tour du château est vieille"

    we = pronoun("we")
    doors = coordinated(
        noun_phrase("the", "door", "sg", ["old"]), noun_phrase("the", "window", "sg", ["new"])
    )
    pair = to_pair(transitive(we, "painted", "present", doors))
    assert pair.source == "we paint the old door and the new window"
    assert pair.target == "nous peignons la vieille porte et la nouvelle fenêtre"


def test_readers_first_sentences() -> None:
    dog = noun_phrase("my", "dog")
    pair = to_pair(transitive(dog, "loved", "present", noun_phrase("the", "rainbow")))
    assert pair.source == "my dog loves the rainbow"
    assert pair.french == ("mon", "chien", "aime", "le", "arc-en-ciel")  # spelled "l' arc-en-ciel"
    assert pair.target == "mon chien aime l' arc-en-ciel"
    assert pair.alignment == ((0,), (1,), (2,), (3,), (4,))
    soup = noun_phrase("the", "soup")
    assert _sentence(soup, copula(soup, "present"), predicate(soup, "hot", "salty")) == (
        "la soupe est chaude et salée"
    )
    i = pronoun("i")
    assert to_pair(transitive(i, "ate", "past", bare_noun_phrase("soup"))).target == "j' ai mangé de la soupe"
    assert to_pair(concat(i, verb_phrase(i, "slept", "present"))).target == "je dors"
    assert to_pair(concat(i, copula(i, "past"), predicate(i, "tired"))).target == "j' étais fatigué"
    you = pronoun("you")
    assert to_pair(concat(you, verb_phrase(you, "fell", "past"))).target == "vous êtes tombés"
    assert (
        to_pair(concat(you, copula(you, "present"), predicate(you, "tired"))).target == "vous êtes fatigués"
    )
    she = pronoun("she")
    assert to_pair(
        transitive(she, "liked", "present", bare_noun_phrase("cat", "pl", article="generic"))
    ).target == ("elle aime les chats")
    cat = concat(
        noun_phrase("the", "cat"),
        prepositional("near", of(noun_phrase("the", "door"), noun_phrase("the", "house"))),
    )
    assert to_pair(concat(cat, verb_phrase(cat, "slept", "past"))).target == (
        "le chat près de la porte de la maison a dormi"
    )


@pytest.mark.parametrize(
    ("phrase", "french"),
    [
        (noun_phrase("the", "tree", "sg", ["old"]), "le vieil arbre"),
        (noun_phrase("the", "tree", "pl", ["old"]), "les vieux arbres"),
        (noun_phrase("this", "tree"), "cet arbre"),
        (noun_phrase("this", "tree", "sg", ["big"]), "ce grand arbre"),
        (noun_phrase("my", "school"), "mon école"),
        (noun_phrase("my", "school", "sg", ["small"]), "ma petite école"),
        (noun_phrase("a", "bird", "sg", ["beautiful"]), "un bel oiseau"),
        (noun_phrase("a", "plane", "sg", ["new"]), "un nouvel avion"),
        (noun_phrase("the", "island", "sg", ["beautiful"]), "la belle île"),
        (noun_phrase("the", "man"), "l' homme"),
        (noun_phrase("the", "car", "sg", ["pretty", "small", "red"]), "la jolie petite voiture rouge"),
        (noun_phrase("the", "car", "pl", ["small", "dirty", "red"]), "les petites voitures sales et rouges"),
        (noun_phrase("a", "egg"), "un œuf"),
        (bare_noun_phrase("bread"), "du pain"),
        (bare_noun_phrase("soup"), "de la soupe"),
        (bare_noun_phrase("water"), "de l' eau"),
        (bare_noun_phrase("apple", "pl", ["red"]), "des pommes rouges"),
        (bare_noun_phrase("water", article="generic"), "l' eau"),
        (prepositional("near", noun_phrase("the", "tree")), "près de l' arbre"),
        (prepositional("near", noun_phrase("a", "tree")), "près d' un arbre"),
        (to(noun_phrase("the", "man")), "à l' homme"),
        (to(noun_phrase("the", "dog")), "au chien"),
        (to(noun_phrase("the", "dog", "pl")), "aux chiens"),
        (of(noun_phrase("the", "door"), noun_phrase("the", "castle", "pl")), "la porte des châteaux"),
    ],
)
def test_elision_stacking_and_partitives(phrase, french: str) -> None:
    assert to_pair(phrase).target == french


def test_a_and_an_follow_the_next_english_word() -> None:
    assert noun_phrase("a", "egg").en == ["an", "egg"]
    assert noun_phrase("a", "car", "sg", ["old"]).en == ["an", "old", "car"]
    assert noun_phrase("a", "apple", "sg", ["red"]).en == ["a", "red", "apple"]


def _has_novel_pairing(english: tuple[str, ...]) -> bool:
    """An adjective before a held-out noun (through other adjectives), read from the English alone."""
    for adjective, noun in NOVEL_PAIRINGS:
        forms = {tuple(NOUN[noun].en("sg"))} | (
            {tuple(NOUN[noun].en("pl"))} if NOUN[noun].english[1] else set()
        )
        for i in range(len(english)):
            for form in forms:
                if english[i : i + len(form)] == form:
                    j = i - 1
                    while j >= 0 and english[j] in ADJECTIVE:
                        if english[j] == adjective:
                            return True
                        j -= 1
    return False


NOUN_WORDS = {w for n in NOUNS for number in ("sg", "pl") if n.english[number == "pl"] for w in n.en(number)}
CLAUSE_VERBS = {w for v in VERBS for w in v.english} | {*COPULA_ENGLISH["past"], *COPULA_ENGLISH["present"]}
_OBJECT_VERBS = {p: {*VERB[p].english, VERB[p].ing} for p, _ in NOVEL_OBJECTS}  # "ate", "is eating"


QUANTITY_WORDS = {w for q in QUANTITIES for w in q} - {"of"}  # "many", "a lot of", "more"


# What may stand between "that" and the verb of its relative clause: its subject and the verb's auxiliaries.
_KINDS = english_kinds()
_BEFORE_A_VERB = {*DETERMINER, *ADJECTIVE, *NOUN_WORDS, *MODAL_ENGLISH["want"], TO[0]} | {
    w for kind in ("pronoun", "be", "auxiliary", "negation") for w in _KINDS[kind]
}


def _has_novel_object(english: tuple[str, ...]) -> bool:
    """A held-out verb, then its held-out object (a determiner, adjectives between), from the English; the
    object may be the second of two ("ate the little ice cream and their pretty old cakes")."""
    for past, noun in NOVEL_OBJECTS:
        forms = {NOUN[noun].en("sg")[0]} | ({NOUN[noun].en("pl")[0]} if NOUN[noun].english[1] else set())
        for i, word in enumerate(english):
            if word not in _OBJECT_VERBS[past]:
                continue
            j, conjunct = i + 1, 0
            while j < len(english) and english[j] not in forms:
                if english[j] == "that" and english[j - 1] in NOUN_WORDS:
                    break  # "chased the bat that the foxes watch": a relative clause begins
                if english[j] == "and" and conjunct == 0:
                    conjunct = 1
                elif not (
                    english[j] in ADJECTIVE
                    or english[j] in {*DETERMINER, SOME, *QUANTITY_WORDS}
                    or english[j] in NOUN_WORDS
                    or english[j - 1 : j + 1] == ("lot", "of")
                ):  # "drinks a lot of milk", "found many keys"
                    break
                j += 1
            ends_a_subject = conjunct and j + 1 < len(english) and english[j + 1] in CLAUSE_VERBS
            if j < len(english) and english[j] in forms and not ends_a_subject:  # "… and the cake was"
                return True
        for j, word in enumerate(english[:-2]):  # "the cake that she ate", "the cake that the girls ate"
            if word in forms and english[j + 1] == "that":
                k = j + 2  # past the relative clause's subject to its verb ("the fox that i helped chases"
                while k < len(english) and english[k] in _BEFORE_A_VERB:  # is not a chased fox)
                    k += 1
                if k < len(english) and english[k] in _OBJECT_VERBS[past]:
                    return True
    return False


_PRONOUN_AFTER_AND = re.compile(r"\b(and|but) (he|she|they|we|i|you)\b")


def test_training_never_has_a_held_out_property(train: tuple[Pair, ...], heldout: tuple[Pair, ...]) -> None:
    for pair in train + heldout:
        assert not pair.novel, pair.source
        assert not _has_novel_pairing(pair.english), pair.source
        assert not _has_novel_object(pair.english), pair.source
    # and yet every word those properties combine is in training, and a pronoun may open a second clause
    assert sum(bool(_PRONOUN_AFTER_AND.search(p.source)) for p in train) >= 0.02 * len(train)
    words = {w for p in train for w in p.english}
    assert {a for a, _ in NOVEL_PAIRINGS} | {n for _, n in NOVEL_PAIRINGS} <= words
    assert {"and", "but", "he", "she", "they", "we", "i", "you"} <= words


def test_every_novel_pair_has_a_held_out_property(novel: tuple[Pair, ...]) -> None:
    assert len(novel) == NOVEL
    kinds = Counter(kind for pair in novel for kind in pair.novel)
    assert all(pair.novel for pair in novel)
    assert all(kinds[k] >= NOVEL // 3 for k in (PAIRING, OBJECT)), kinds
    assert sum(_has_novel_pairing(p.english) for p in novel if PAIRING in p.novel) >= 0.5 * kinds[PAIRING]
    assert all(_has_novel_object(p.english) for p in novel if OBJECT in p.novel)
    assert {p.source for p in novel} <= {p.source for p in novel}  # distinct
    assert len({p.source for p in novel}) == len(novel)


def test_the_grammar_covers_every_construction(train: tuple[Pair, ...]) -> None:
    def share(test) -> float:
        return sum(1 for p in train if test(p)) / len(train)

    three = {(a, b, c) for a in ADJECTIVE for b in ADJECTIVE for c in ADJECTIVE}
    assert share(lambda p: any(tuple(p.english[i : i + 3]) in three for i in range(len(p.english)))) > 0.02
    assert share(lambda p: "mais" in p.french) > 0.01
    assert share(lambda p: "du" in p.french or "de" in p.french and "la" in p.french) > 0.02
    assert share(lambda p: "j'" in spell(p.french)) > 0.005
    assert share(lambda p: "vous" in p.french) > 0.01
    assert share(lambda p: " of " in p.source) > 0.05


def test_negation_puts_ne_and_pas_around_the_conjugated_verb() -> None:
    dog, she, soup = noun_phrase("the", "dog"), pronoun("she"), noun_phrase("the", "soup")
    sleeps = to_pair(concat(dog, verb_phrase(dog, "slept", "present", negated=True)))
    assert (sleeps.source, sleeps.target) == ("the dog does not sleep", "le chien ne dort pas")
    assert sleeps.alignment == ((0,), (1,), (3,), (2, 4), (3,))  # ne, pas <- not; dort <- does, sleep
    fell = to_pair(concat(she, verb_phrase(she, "fell", "past", negated=True)))
    assert (fell.source, fell.target) == ("she did not fall", "elle n' est pas tombée")
    we = pronoun("we")
    saw = to_pair(transitive(we, "saw", "past", noun_phrase("the", "cat"), negated=True))
    assert (saw.source, saw.target) == ("we did not see the cat", "nous n' avons pas vu le chat")
    hot = to_pair(concat(soup, copula(soup, "past", negated=True), predicate(soup, "hot")))
    assert (hot.source, hot.target) == ("the soup was not hot", "la soupe n' était pas chaude")
    i = pronoun("i")
    assert _sentence(i, verb_phrase(i, "slept", "present", negated=True)) == "je ne dors pas"


def test_negation_turns_an_indefinite_or_partitive_article_into_de(train: tuple[Pair, ...]) -> None:
    """ "pas de pain", "pas d' eau", "pas de pommes", "pas de chat"; "one" is a number ("pas un chat"), and
    two nouns with such articles ("bread and milk", "ni … ni") are never negated."""
    we = pronoun("we")

    def negated(obj: Phrase) -> str:
        return to_pair(transitive(we, "ate", "present", obj, negated=True)).target

    assert negated(bare_noun_phrase("bread")) == "nous ne mangeons pas de pain"
    assert negated(bare_noun_phrase("water")) == "nous ne mangeons pas d' eau"
    assert negated(bare_noun_phrase("soup")) == "nous ne mangeons pas de soupe"
    assert negated(bare_noun_phrase("apple", "pl")) == "nous ne mangeons pas de pommes"
    assert negated(noun_phrase("an", "apple")) == "nous ne mangeons pas de pomme"
    assert negated(noun_phrase("the", "apple")) == "nous ne mangeons pas la pomme"
    assert to_pair(transitive(we, "ate", "present", noun_phrase("an", "apple"), negated=True)).alignment[
        4
    ] == (4,)  # "de" renders "an"
    assert not negatable(noun_phrase("one", "cat"))
    assert not negatable(coordinated(bare_noun_phrase("bread"), bare_noun_phrase("milk")))
    assert negatable(noun_phrase("the", "cat")) and negatable(noun_phrase("my", "cat", "pl"))
    assert sum("pas" in p.french for p in train) >= 0.1 * len(train)
    participles = {p for v in VERBS for p in ALLOWED_LINKS_OF.get(v.english[2], ())}
    articles = 0
    for pair in train:
        if "pas" not in pair.french or pair.french[0] in ("si", "quand"):
            continue  # "when they did not jump a lazy author fed …": "un" opens the next clause
        k = pair.french.index("pas") + 1
        k += k < len(pair.french) and pair.french[k] in participles  # "n' a pas vu": what follows it
        after = pair.french[k : k + 1]
        if after and {pair.english[i] for i in pair.alignment[k]} & {"from", "of"}:
            continue  # "ne tombe pas de son bateau": "from", not an article
        assert after not in (("un",), ("une",), ("des",), ("du",)), pair.target
        articles += after == ("de",)
    assert articles >= 100  # the negated partitive is in the corpus


def test_training_negates_a_held_out_verb_only_in_the_past_and_the_negated_set_in_the_present(
    train: tuple[Pair, ...],
) -> None:
    held_out = {w for v in VERBS if v.english[2] in NOVEL_NEGATED for w in v.english}
    past = 0
    for pair in train:
        for k, word in enumerate(pair.english[:-2]):  # "does not swim" ("does the dog swim" asks)
            negating = pair.english[k + 1] == "not" and pair.english[k + 2] in held_out
            assert not (word in ("do", "does") and negating), pair.source
            past += word == "did" and negating
    assert past >= 50  # their negation in the past is trained: "did not swim" -> "n' a pas nagé"
    negated = negated_pairs(NEGATED_SET, len(train))
    assert len(negated) == NEGATED_SET and all(NEGATION in p.novel for p in negated)
    assert not {p.source for p in negated} & {p.source for p in train}


def test_the_progressive_is_the_french_present_aligned_to_be_and_the_ing_form() -> None:
    cat, i, we = noun_phrase("the", "cat"), pronoun("i"), pronoun("we")
    sleeping = to_pair(concat(cat, verb_phrase(cat, "slept", "present", progressive=True)))
    assert (sleeping.source, sleeping.target) == ("the cat is sleeping", "le chat dort")
    assert sleeping.alignment == ((0,), (1,), (2, 3))  # dort <- is, sleeping
    eating = to_pair(transitive(we, "ate", "present", noun_phrase("the", "bread"), progressive=True))
    assert (eating.source, eating.target) == ("we are eating the bread", "nous mangeons le pain")
    assert _sentence(i, verb_phrase(i, "ran", "present", progressive=True)) == "je cours"
    with pytest.raises(AssertionError):  # no imparfait
        verb_phrase(cat, "slept", "past", progressive=True)
    not_sleeping = to_pair(concat(cat, verb_phrase(cat, "slept", "present", negated=True, progressive=True)))
    assert (not_sleeping.source, not_sleeping.target) == ("the cat is not sleeping", "le chat ne dort pas")
    assert not_sleeping.alignment[2:] == ((3,), (2, 4), (3,))  # ne, pas <- not; dort <- is, sleeping


def test_the_ing_forms_follow_the_spelling_rules() -> None:
    ing = {v.english[1]: v.ing for v in VERBS}
    expected = {"sleep": "sleeping", "run": "running", "swim": "swimming", "dance": "dancing"}
    expected |= {"see": "seeing", "open": "opening", "visit": "visiting", "cry": "crying", "draw": "drawing"}
    assert {verb: ing[verb] for verb in expected} == expected


def test_training_has_the_progressive_and_the_progressive_set_a_held_out_object(
    train: tuple[Pair, ...],
) -> None:
    progressive_share = sum(any(w.endswith("ing") for w in p.english) for p in train) / len(train)
    assert progressive_share >= 0.08  # "is sleeping" -> "dort", after every person
    for person in ("i am", "we are", "you are", "she is", "they are"):
        assert any(
            f"{person} " in p.source and p.english[p.english.index(person.split()[1]) + 1].endswith("ing")
            for p in train
        ), person
    progressive = progressive_pairs(NEGATED_SET, len(train))
    assert len(progressive) == NEGATED_SET and all(
        {parallel_heldout.PROGRESSIVE, OBJECT} <= p.novel for p in progressive
    )
    assert not {p.source for p in progressive} & {p.source for p in train}
    assert all(_has_novel_object(p.english) for p in progressive)


def test_modals_take_the_infinitive_and_want_to_is_held_out_for_some_verbs(train: tuple[Pair, ...]) -> None:
    she, we = pronoun("she"), pronoun("we")
    can = to_pair(concat(she, verb_phrase(she, "swam", "present", modal="can")))
    assert (can.source, can.target, can.alignment) == ("she can swim", "elle peut nager", ((0,), (1,), (2,)))
    wants = to_pair(transitive(we, "ate", "present", noun_phrase("the", "bread"), modal="want"))
    assert (wants.source, wants.target) == ("we want to eat the bread", "nous voulons manger le pain")
    assert wants.alignment[1:3] == ((1, 2), (3,))  # voulons <- want, to; manger <- eat
    with pytest.raises(AssertionError):  # a modal stands in the present, unnegated
        verb_phrase(she, "swam", "past", modal="can")
    held_out = {VERB[past].english[1] for past in parallel_heldout.NOVEL_MODAL}
    wanted = {p.english[k + 2] for p in train for k, w in enumerate(p.english[:-2]) if w in ("want", "wants")}
    assert wanted and not wanted & held_out  # never "wants to swim" in training
    canned = {p.english[k + 1] for p in train for k, w in enumerate(p.english[:-1]) if w == "can"}
    assert held_out <= canned  # but "can swim"
    modal = modal_pairs(NEGATED_SET, len(train))
    assert len(modal) == NEGATED_SET and all(parallel_heldout.MODAL in p.novel for p in modal)
    assert all(any(f"to {w}" in p.source for w in held_out) for p in modal)
    assert not {p.source for p in modal} & {p.source for p in train}


def test_questions_put_est_ce_que_before_the_statement() -> None:
    dog, she, soup = noun_phrase("the", "dog"), pronoun("she"), noun_phrase("the", "soup")
    cases = {
        ("does the dog sleep", "est-ce que le chien dort"): ask(
            dog, verb_phrase(dog, "slept", "present", question=True)
        ),
        ("did she fall", "est-ce qu' elle est tombée"): ask(
            she, verb_phrase(she, "fell", "past", question=True)
        ),
        ("is the soup hot", "est-ce que la soupe est chaude"): ask(
            soup, copula(soup, "present"), predicate(soup, "hot")
        ),
        ("can she swim", "est-ce qu' elle peut nager"): ask(
            she, verb_phrase(she, "swam", "present", modal="can", question=True)
        ),
        ("does she want to swim", "est-ce qu' elle veut nager"): ask(
            she, verb_phrase(she, "swam", "present", modal="want", question=True)
        ),
        ("is the dog sleeping", "est-ce que le chien dort"): ask(
            dog, verb_phrase(dog, "slept", "present", progressive=True, question=True)
        ),
        ("where is the dog", "où est le chien"): where(dog, None, "present"),
        ("where does she sing", "où est-ce qu' elle chante"): where(
            she, verb_phrase(she, "sang", "present", question=True), "present"
        ),
        ("who ate the bread", "qui a mangé le pain"): concat(
            who(), verb_phrase(who(), "ate", "past"), noun_phrase("the", "bread")
        ),
    }
    for (source, target), phrase in cases.items():
        pair = to_pair(phrase)
        assert (pair.source, pair.target) == (source, target)
    dort = to_pair(cases[("does the dog sleep", "est-ce que le chien dort")]).alignment
    assert dort == ((0,), (0,), (1,), (2,), (0, 3))  # est-ce, que <- does; dort <- does, sleep


def test_training_asks_questions_and_puts_time_words_at_either_end(train: tuple[Pair, ...]) -> None:
    starts = Counter(p.english[0] for p in train)
    assert all(starts[w] >= 100 for w in ("does", "did", "is", "who", "where")), starts
    assert starts["can"] >= 40, starts
    assert sum(p.french[0] == "est-ce" for p in train) >= 0.05 * len(train)
    times: dict[str, set[str]] = defaultdict(set)  # "on sunday" is a time word in both tenses, two ways
    for word in TIME_WORDS:
        times[" ".join(word.english)] |= set(word.tenses)
    ending = Counter(next((t for t in times if p.source.endswith(" " + t)), None) for p in train)
    opening = Counter(next((t for t in times if p.source.startswith(t + " ")), None) for p in train)
    assert all(ending[t] + opening[t] >= 50 for t in times), (ending, opening)
    assert sum(opening[t] for t in times) >= 0.2 * sum(ending[t] for t in times), opening
    grammar = Grammar(random.Random(0))  # "yesterday" ends a clause in the past, "now" one in the present
    for tense in ("present", "past"):
        clauses = [" ".join(grammar.clause(tense).en) for _ in range(3000)]
        ended = Counter(next((t for t in times if c.endswith(" " + t)), None) for c in clauses)
        assert {t for t in ended if t} == {t for t, tenses in times.items() if tense in tenses}, ended
    question = question_pairs(NEGATED_SET, len(train))
    assert len(question) == NEGATED_SET
    assert all(p.french[:2] in (("est-ce", "que"), ("est-ce", "qu'")) for p in question)
    assert all(_has_novel_object(p.english) for p in question)
    assert not {p.source for p in question} & {p.source for p in train}


def test_comparatives_follow_the_spelling_rules_and_compare_with_plus_que() -> None:
    spelt = {a.english: a.comparative for a in ADJECTIVES}
    expected = {"tall": ("taller",), "big": ("bigger",), "nice": ("nicer",), "happy": ("happier",)}
    expected |= {"dry": ("drier",), "famous": ("more", "famous"), "good": (), "red": ()}
    assert {word: spelt[word] for word in expected} == expected
    brother, father = noun_phrase("my", "brother"), noun_phrase("my", "father")
    taller = to_pair(comparison(brother, "present", "tall", father))
    assert (taller.source, taller.target) == (
        "my brother is taller than my father",
        "mon frère est plus grand que mon père",
    )
    assert taller.alignment[3:5] == ((3,), (3,))  # plus, grand <- taller
    girls = noun_phrase("the", "girl", "pl")
    famous = to_pair(comparison(girls, "past", "famous", noun_phrase("an", "actor")))
    assert famous.target == "les filles étaient plus célèbres qu' un acteur"


def test_relative_clauses_take_qui_and_que_and_the_participle_agrees_with_que() -> None:
    man = noun_phrase("the", "man")
    lives = relative_subject(
        man, "who", "lived", "present", prepositional("near", noun_phrase("the", "river"))
    )
    has = to_pair(concat(lives, verb_phrase(lives, "had", "present"), noun_phrase("a", "dog")))
    assert has.target == "l' homme qui vit près de la rivière a un chien"
    made = {
        ("the", "pie", "sg"): "la tarte qu' elle a faite",
        ("the", "cake", "sg"): "le gâteau qu' elle a fait",
        ("the", "apple", "pl"): "les pommes qu' elle a faites",
    }
    for (det, noun, number), french in made.items():
        assert (
            to_pair(relative_object(noun_phrase(det, noun, number), pronoun("she"), "made", "past")).target
            == french
        )
    took = relative_object(noun_phrase("the", "key", "pl"), pronoun("he"), "took", "past")
    assert to_pair(took).target == "les clés qu' il a prises"  # "pris" takes no second s
    assert OBJECT in relative_object(noun_phrase("the", "cake"), pronoun("she"), "ate", "past").novel


def test_training_has_relative_clauses_and_comparisons(train: tuple[Pair, ...]) -> None:
    nouns = {w for n in NOUNS for w in n.en("sg")}
    after_noun = Counter(p.english[k + 1] for p in train for k, w in enumerate(p.english[:-1]) if w in nouns)
    assert after_noun["who"] >= 300 and after_noun["that"] >= 300, after_noun
    assert sum("than" in p.english for p in train) >= 0.02 * len(train)


def test_places_named_without_an_article_get_one_in_french(train: tuple[Pair, ...]) -> None:
    """ "went home" -> "est allé à la maison", "go to school" -> "aller à l' école", "stayed at work" -> "est
    resté au travail": a destination after a verb of motion, a location after another intransitive verb."""
    she = pronoun("she")
    home = next(p for p in PLACE_WORDS if p.english == ("home",))
    went = to_pair(concat(she, verb_phrase(she, "went", "past"), fixed_phrase(home)))
    assert (went.source, went.target) == ("she went home", "elle est allée à la maison")
    assert went.alignment[-3:] == ((2,), (2,), (2,))
    school = next(p for p in PLACE_WORDS if p.english == ("to", "school"))
    must = to_pair(concat(she, verb_phrase(she, "went", "present", modal="must"), fixed_phrase(school)))
    assert must.target == "elle doit aller à l' école"
    texts = {p.source: p for p in train}
    for place in PLACE_WORDS:
        phrase = " ".join(place.english)
        found = [p for s, p in texts.items() if s.endswith(" " + phrase) or f" {phrase} " in s]
        assert len(found) >= 0.001 * len(train), phrase
    movers = ("go", "goes", "went", "come", "comes", "came")
    assert not any(f"{m} at {w}" in s for s in texts for m in movers for w in ("home", "school", "work"))
    assert not any(f"{w} to {m}" in s for s in texts for w in ("stayed", "slept") for m in ("school", "work"))
