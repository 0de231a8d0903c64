"""The parallel corpus: enough distinct pairs, every alignment consistent, French agreement done right."""

from collections import defaultdict

import pytest

from app.models.translator import SPECIALS
from training.french_lexicon import ALLOWED_LINKS, ENGLISH_WORDS, FRENCH_WORDS, NOUNS, lexicon_entries
from training.parallel_corpus import (
    MAX_WORDS,
    MIN_WORDS,
    Pair,
    coordinated,
    copula,
    example_pairs,
    heldout_pairs,
    noun_phrase,
    of,
    predicate,
    prepositional,
    pronoun,
    to_pair,
    training_pairs,
    verb_phrase,
)

TRAIN, HELDOUT = 30000, 2000


@pytest.fixture(scope="module")
def train() -> tuple[Pair, ...]:
    return training_pairs(TRAIN)


@pytest.fixture(scope="module")
def heldout() -> tuple[Pair, ...]:
    return heldout_pairs(HELDOUT, TRAIN)


def test_the_lexicon_is_large_and_varied() -> None:
    assert len(lexicon_entries()) >= 150
    assert len(set(lexicon_entries())) == len(lexicon_entries())
    assert {n.gender for n in NOUNS} == {"m", "f"}
    assert not set(SPECIALS) & (set(ENGLISH_WORDS) | set(FRENCH_WORDS))


def test_at_least_20000_distinct_pairs_of_3_to_14_words(
    train: tuple[Pair, ...], heldout: tuple[Pair, ...]
) -> None:
    everything = train + heldout
    assert len({p.source for p in everything}) == len(everything) >= 20000
    assert all(MIN_WORDS <= len(p.english) <= MAX_WORDS for p in everything)
    assert not {p.source for p in train} & {p.source for p in heldout}


def test_figure_1s_examples_are_in_training(train: tuple[Pair, ...]) -> None:
    bank, farmer, crane = example_pairs()
    assert train[:3] == (bank, farmer, crane)
    assert bank.source == "the river bank was steep" and bank.target == "la rive était escarpée"
    assert bank.alignment == ((0,), (1, 2), (3,), (4,))
    assert farmer.target == "un fermier a vendu la chauve-souris près de la grotte"
    assert crane.target == "elle a vu la vieille grue sur le quai"


def test_every_alignment_is_consistent(train: tuple[Pair, ...], heldout: tuple[Pair, ...]) -> None:
    for pair in train + heldout:
        assert len(pair.alignment) == len(pair.french)
        covered: set[int] = set()
        for french, sources in zip(pair.french, pair.alignment, strict=True):
            assert sources == tuple(sorted(set(sources)))
            for i in sources:
                assert 0 <= i < len(pair.english)
                assert (pair.english[i], french) in ALLOWED_LINKS, (pair.source, french, pair.english[i])
            covered.update(sources)
            if not sources:
                assert french == "et"  # the only inserted word: between two adjectives after the noun
        assert covered == set(range(len(pair.english))), pair.source  # every English word is translated


def test_translation_is_a_function_of_the_english(train: tuple[Pair, ...], heldout: tuple[Pair, ...]) -> None:
    seen: dict[str, set[str]] = defaultdict(set)
    for pair in train + heldout:
        seen[pair.source].add(pair.target)
    assert all(len(targets) == 1 for targets in seen.values())


def test_every_word_form_occurs_in_training(train: tuple[Pair, ...]) -> None:
    english = {w for p in train for w in p.english}
    french = {w for p in train for w in p.french}
    assert english == set(ENGLISH_WORDS)
    assert french == set(FRENCH_WORDS)


def test_no_elision_is_ever_needed(train: tuple[Pair, ...]) -> None:
    vowel = tuple("aeiouéèêâîôh")
    assert not [
        n.french[0] for n in NOUNS if n.french[0].startswith(vowel)
    ]  # no l', cet, bel, vieil, mon (f)
    elide = {"le", "la", "de", "ce", "ne", "que", "je", "ma", "sa", "ta"}
    for pair in train:
        for word, following in zip(pair.french, pair.french[1:], strict=False):
            assert not (word in elide and following.startswith(vowel)), pair.target
        assert "'" not in pair.target


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
