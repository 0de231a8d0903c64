"""Close known words for an unknown one (app/models/close_words.py): the suggestions a refusal offers."""

import pytest

from app.models.close_words import close_words, edit_distance
from app.models.translator import get_translator


@pytest.mark.parametrize(
    ("a", "b", "distance"),
    [("", "", 0), ("", "abc", 3), ("apel", "apple", 2), ("teh", "the", 1), ("kitten", "sitting", 3)],
)
def test_edit_distance_counts_a_swap_of_neighbours_as_one_edit(a: str, b: str, distance: int) -> None:
    assert edit_distance(a, b) == distance == edit_distance(b, a)


def test_the_closest_words_come_first_and_weak_ones_are_dropped() -> None:
    vocabulary = ["apple", "apples", "are", "ate", "the", "dog", "bank", "banks", "black"]
    assert close_words("apel", vocabulary) == ["apple"]  # "are" and "ate" share too little
    assert close_words("teh", vocabulary) == ["the"]
    assert close_words("bnak", vocabulary) == ["bank", "banks", "black"]
    assert close_words("zorblax", vocabulary) == []
    assert close_words("bank", vocabulary, n=1) == ["bank"]


@pytest.mark.parametrize(
    ("typed", "first"), [("apel", "apple"), ("rivr", "river"), ("stepe", "steep"), ("dgo", "dog")]
)
def test_typos_of_the_translators_words_are_caught(typed: str, first: str) -> None:
    assert close_words(typed, get_translator().translator.words)[0] == first
