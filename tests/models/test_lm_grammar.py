"""The little grammar of figure 6: what it writes, it accepts; what breaks its pattern, it refuses."""

import random

import pytest

from app.models.lexicon import lookup
from app.models.lm_grammar import CLASSES, WORD_CLASS, grammatical
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
