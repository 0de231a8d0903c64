"""One word splitter and one count of words, for every endpoint that reads a sentence."""

import pytest

from app.web.refusal import Refusal
from app.words import sentence_words, tokenize


def test_tokenize_keeps_words_and_drops_punctuation() -> None:
    assert tokenize("The river-bank, was steep!") == ["The", "river", "bank", "was", "steep"]
    assert tokenize("Bank's edge") == ["Bank's", "edge"]
    assert tokenize("l\u2019eau snake_case 3.5") == ["l\u2019eau", "snake", "case", "3", "5"]
    assert tokenize("  ... !!") == []


def test_a_sentence_has_one_to_max_words() -> None:
    assert sentence_words("dog bites man.", 3) == ["dog", "bites", "man"]
    with pytest.raises(Refusal, match="^sentence has no words: type at least one word$") as none:
        sentence_words(" ?! \t", 3)
    with pytest.raises(Refusal, match="^sentence has 4 words; at most 3 are allowed$") as many:
        sentence_words("a b c d", 3)
    assert none.value.status == many.value.status == 422
