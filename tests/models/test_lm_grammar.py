"""The grammar of figure 7's decoders: what it writes, it accepts; what breaks its tree, it refuses."""

import random

import pytest

from app.models.lexicon import lookup
from app.models.lm_grammar import (
    CLASS_NAMES,
    CLASSES,
    END,
    MAX_LETTERS,
    WORD_CLASS,
    allowed_next,
    fits,
    grammatical,
)
from training.lm_corpus import split_corpus, write


def words_of(codes: str) -> list[str]:
    """A sentence with these classes: the first word of each (the first of its nouns, adjectives, ...)."""
    return [CLASSES[c][0] for c in codes]


def test_every_written_sentence_is_grammatical_and_uses_a_and_an_right() -> None:
    rng = random.Random(5)
    for _ in range(3000):
        words = write(rng)
        assert 1 <= len(words) <= 40
        assert grammatical(words), words
        for k, w in enumerate(words[:-1]):
            if w in ("a", "an"):
                assert (w == "an") == (words[k + 1][0] in "aeiou"), words


@pytest.mark.parametrize(
    "codes",
    [
        "dni",  # a determiner, a noun, a past verb: "the X slept"
        "dnkdn",  # present with an object: "the X eats the Y"
        "NI",  # "dogs swim"
        "Aea",  # "i am old"
        "Qya",  # "they are old"
        "SMxI",  # "he can not swim"
        "dnRiwa",  # "the man who slept was old"
        "dnipdn",  # a prepositional phrase
        "DQI",  # "did they swim"
        "hDQI",  # "where did they swim"
        "GxTdn",  # "do not touch the stove"
        "bAiSi",  # "because i slept he slept"
        "dnicAi",  # two clauses
    ],
)
def test_sentences_of_the_tree_are_accepted(codes: str) -> None:
    assert grammatical(words_of(codes)), (codes, words_of(codes))


@pytest.mark.parametrize(
    "codes",
    [
        "",
        "d",
        "dd",
        "dn",  # no verb
        "ndi",  # the determiner after its noun
        "dnt",  # a verb that needs an object, without one
        "dnw",  # "was" with nothing after it
        "Nza",  # agreement: plural noun with "is"
        "Aza",  # "i is"
        "SI",  # "he swim"
        "Qj",  # "they swims"
        "dnii",  # two verbs in a row
        "dnip",  # a preposition with no noun
    ],
)
def test_sentences_that_break_the_tree_are_refused(codes: str) -> None:
    assert not grammatical(words_of(codes))


def test_a_word_outside_the_grammar_is_refused() -> None:
    assert not grammatical(["the", "zorbled", *words_of("i")])


def test_every_word_has_one_class_and_agrees_with_the_lexicon() -> None:
    assert len(WORD_CLASS) == sum(len(ws) for ws in CLASSES.values())
    assert set(CLASSES) == set(CLASS_NAMES)
    part_of_speech = {"n": "noun", "N": "noun", "a": "adj", **{c: "verb" for c in "itITjk"}}
    for word, code in WORD_CLASS.items():
        if code in part_of_speech:
            entry = lookup(word)
            assert entry is not None and entry.pos == part_of_speech[code], word
    assert len(CLASSES["n"]) > 1000 and len(CLASSES["a"]) > 300
    assert len(CLASSES["i"]) + len(CLASSES["t"]) > 400
    assert all(len(w) <= MAX_LETTERS for w in CLASSES["n"] + CLASSES["a"] + CLASSES["I"] + CLASSES["T"])


def test_validation_sentences_never_appear_in_training() -> None:
    train, validation = split_corpus(3000, 500)
    assert len(train) == 3000 and len(validation) == 500
    assert not {" ".join(s) for s in train} & {" ".join(s) for s in validation}


@pytest.mark.parametrize(
    ("codes", "following", "expected"),
    [
        ("", "d", True),
        ("", "n", False),
        ("d", "a", True),
        ("d", "n", True),
        ("d", None, False),
        ("dn", "w", True),
        ("dn", "W", False),  # "the dog were"
        ("dni", None, True),
        ("dni", "p", True),
        ("dni", "d", False),
        ("dnwa", None, True),
        ("nd", "i", None),  # no sentence starts like this: nothing can be judged
    ],
)
def test_fits_says_what_the_grammar_allows_next(
    codes: str, following: str | None, expected: bool | None
) -> None:
    word = None if following is None else CLASSES[following][0]
    assert fits(words_of(codes), word) is expected


def test_allowed_next_ends_a_whole_sentence_and_nothing_else() -> None:
    assert END in (allowed_next(words_of("dni")) or set())
    assert END not in (allowed_next(words_of("dn")) or set())
    assert allowed_next(["zorbled"]) is None
