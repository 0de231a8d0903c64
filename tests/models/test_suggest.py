"""What a refusal offers for an unknown word (app/models/suggest.py): words that fit where it stands."""

import pytest

from app.models.lexicon import lookup
from app.models.suggest import Suggestions
from app.models.translator.committed import get_translator


@pytest.fixture(scope="module")
def offer() -> Suggestions:
    return get_translator().translator.suggestions


def test_a_real_word_is_never_offered_a_word_that_only_looks_like_it(offer: Suggestions) -> None:
    """Before: not -> hot, went -> wet, by spelling. A word of the English lexicon is no typo."""
    assert "hot" not in offer.find("not", "is") and "wet" not in offer.find("went", "she")
    for word in ("not", "went", "some", "who", "because"):
        found = offer.find(word, "the")
        assert all(lookup(w) is not None for w in found), (word, found)


def test_a_typo_still_gets_the_words_it_looks_like(offer: Suggestions) -> None:
    assert offer.find("apel", "the") == ("apple", "april", "paper")


def test_a_verb_is_offered_in_the_form_its_place_takes(offer: Suggestions) -> None:
    """ "cooked" is unknown and "cook", "cooks" are known: after "she", "cooks"; after "they", "cook"; after a
    form of "be" only an -ing form would fit, and "cook" has none the model knows, so nothing ("is cooks"
    would be ungrammatical, as the suggestion "sleeps" once made "the cat is sleeps on the bed")."""
    assert offer.find("cooked", "she")[0] == "cooks"
    assert offer.find("cooked", "they")[0] == "cook"
    assert offer.find("cooking", "is") == ()
    for before, form in (("she", "sg"), ("they", "pl")):
        for word in offer.find("cooked", before):
            entry = lookup(word)
            assert entry is not None and entry.pos == "verb"
            assert entry.tense == "past" or entry.number == form, (before, word)


def test_a_noun_is_offered_in_its_own_number_and_field(offer: Suggestions) -> None:
    """ "violin" is unknown: the nouns of its field (music) the model knows, in the number its place takes."""
    assert "violin" not in offer.words and "piano" in offer.words  # the model learned "piano" since
    for word, before, number in (("violin", "the", "sg"), ("violins", "three", "pl")):
        found = offer.find(word, before)
        assert found, word
        for known in found:
            entry = lookup(known)
            assert entry is not None and entry.pos == "noun" and entry.fields == ("music",), known
            assert entry.number == number, (word, known)  # never "three song"


def test_of_a_fields_nouns_those_sharing_its_side_topics_come_first(offer: Suggestions) -> None:
    """ "salmon" (an animal, with water and food on the side) is unknown: the animals that call both to mind
    come before those that call one ("fish" before "duck")."""
    entry = lookup("salmon")
    assert "salmon" not in offer.words and entry is not None and {"water", "food"} <= set(entry.topics)
    found = offer.find("salmon", "the")
    known = [lookup(w) for w in found]
    assert found and all(k is not None and k.fields == entry.fields for k in known)
    shared = [len(set(k.topics) & set(entry.topics)) for k in known if k is not None]
    assert shared[0] >= 1 and shared == sorted(shared, reverse=True), (found, shared)
