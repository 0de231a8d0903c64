"""The little grammar of figure 7: what it writes, it accepts; what breaks its pattern, it refuses."""

import random

import pytest

from app.models.lexicon import lookup
from app.models.lm_grammar import _CODES, CLASSES, SENTENCE_SHAPES, WORD_CLASS, fits, grammatical
from training.lm_corpus import sentence, split_corpus


def test_every_generated_sentence_is_grammatical() -> None:
    rng = random.Random(5)
    for _ in range(2000):
        words = sentence(rng)
        assert 3 <= len(words) <= 11
        assert grammatical(words), words


@pytest.mark.parametrize(
    "text",
    [
        "the",
        "the the",
        "the fox",
        "fox the slept",
        "the fox slept the",
        "the fox was",
        "the fox chased",
        "the fox slept near",
        "the old fox was goose",
        "the fox zorbled",
        "",
    ],
)
def test_broken_sentences_are_refused(text: str) -> None:
    assert not grammatical(text.split())


@pytest.mark.parametrize(
    "text", ["the fox slept", "her old dog was hungry", "this fox chased the goose near the old barn"]
)
def test_well_formed_sentences_are_accepted(text: str) -> None:
    assert grammatical(text.split())


def test_every_word_has_one_class_and_agrees_with_the_lexicon() -> None:
    assert len(WORD_CLASS) == sum(len(ws) for ws in CLASSES.values())
    expected = {
        "DET": "det",
        "ADJ": "adj",
        "NOUN": "noun",
        "COPULA": "verb",
        "INTRANSITIVE": "verb",
        "TRANSITIVE": "verb",
        "PREP": "prep",
    }
    for word, word_class in WORD_CLASS.items():
        entry = lookup(word)
        assert entry is not None and entry.pos == expected[word_class], word


def test_validation_sentences_never_appear_in_training() -> None:
    train, validation = split_corpus(3000, 500)
    assert len(train) == 3000 and len(validation) == 500
    assert not {" ".join(s) for s in train} & {" ".join(s) for s in validation}


def test_every_sentence_shape_is_one_the_parser_accepts() -> None:
    word_of = {code: CLASSES[name][0] for name, code in _CODES.items()}
    for shape in SENTENCE_SHAPES:
        assert grammatical([word_of[c] for c in shape]), shape
    rng = random.Random(9)
    for _ in range(500):  # and every sentence the corpus writes has one of these shapes
        words = sentence(rng)
        assert "".join(_CODES[WORD_CLASS[w]] for w in words) in SENTENCE_SHAPES


@pytest.mark.parametrize(
    ("words", "following", "expected"),
    [
        ("", "the", True),
        ("", "fox", False),
        ("the", "old", True),
        ("the", "fox", True),
        ("the", None, False),
        ("the old fox", "was", True),
        ("the old fox", "chased", True),
        ("the old fox slept", None, True),
        ("the old fox slept", "near", True),
        ("the old fox slept", "the", False),
        ("the fox was", "cold", True),
        ("the fox was cold", None, True),
        ("the fox was cold", "near", False),
        ("fox the", "slept", None),  # no sentence starts like this: nothing can be judged
        ("the zorb", "slept", None),
    ],
)
def test_fits_says_what_the_grammar_allows_next(
    words: str, following: str | None, expected: bool | None
) -> None:
    assert fits(words.split(), following) is expected
