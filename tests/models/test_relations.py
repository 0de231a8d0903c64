"""The rules that find the three relations, and the 24 input numbers built from them."""

import numpy as np
import pytest

from app.models.lexicon import FIELDS
from app.models.relations import (
    AMBIGUOUS,
    BIAS,
    D_MODEL,
    FEATURE_NAMES,
    KNOWN,
    POSITION_FREQUENCIES,
    SIGNATURE_SLICE,
    SUBJECT,
    VERB,
    analyse,
    features,
    position_code,
    signature,
)
from training.relation_corpus import spread_field_codes


def pairs(sentence: str, relation: str) -> list[tuple[str, str]]:
    words = sentence.split()
    return [(words[i], words[j]) for i, j in analyse(words).targets[relation]]


def test_the_default_sentence() -> None:
    s = "the river bank was steep"
    assert pairs(s, "meaning") == [("river", "bank"), ("bank", "river")]
    assert set(pairs(s, "grammar")) == {
        ("the", "bank"),
        ("river", "bank"),
        ("bank", "was"),
        ("was", "bank"),
        ("steep", "bank"),
    }
    assert pairs(s, "position") == [("river", "the"), ("bank", "river"), ("was", "bank"), ("steep", "was")]


@pytest.mark.parametrize(
    ("sentence", "cue"),
    [
        ("the bank by the river was steep", "river"),
        ("she paid the loan at the bank", "loan"),
        ("the bat flew out of the cave", "flew"),
        ("a bat and a ball", "ball"),
    ],
)
def test_an_ambiguous_word_reaches_for_the_word_that_fixes_its_sense(sentence: str, cue: str) -> None:
    ambiguous = next(w for w in sentence.split() if w in ("bank", "bat"))
    assert (ambiguous, cue) in pairs(sentence, "meaning")
    assert (cue, ambiguous) in pairs(sentence, "meaning")


def test_the_subject_is_the_first_noun_phrase_outside_a_prepositional_phrase() -> None:
    grammar = pairs("the bank by the lake was steep", "grammar")
    assert ("bank", "was") in grammar and ("was", "bank") in grammar
    assert ("lake", "was") not in grammar
    assert ("she", "swam") in pairs("she swam", "grammar")


def test_a_sentence_without_a_verb_or_ambiguity_has_no_such_targets() -> None:
    analysis = analyse(["the", "old", "river"])
    assert analysis.targets["meaning"] == [] and analysis.verb is None
    assert ("the", "river") in [
        (["the", "old", "river"][i], ["the", "old", "river"][j]) for i, j in analysis.targets["grammar"]
    ]


def test_unknown_words_are_guessed_not_refused() -> None:
    analysis = analyse(["the", "glorbs", "quickly", "zanned"])
    assert [t.known for t in analysis.tokens] == [True, False, True, False]
    assert analysis.tokens[1].pos == "noun" and analysis.tokens[3].pos == "verb"


def test_features_follow_the_documented_layout() -> None:
    codes = spread_field_codes(FIELDS)
    analysis = analyse(["the", "river", "bank", "was", "steep"])
    x = features(analysis, codes)
    assert x.shape == (5, D_MODEL) and len(FEATURE_NAMES) == D_MODEL
    assert x[2, SUBJECT] == 1.0 and x[3, VERB] == 1.0 and x[:, SUBJECT].sum() == 1.0
    assert x[2, AMBIGUOUS] == 1.0 and x[1, AMBIGUOUS] == 0.0
    assert (x[:, BIAS] == 1.0).all() and (x[:, KNOWN] == 1.0).all()
    np.testing.assert_allclose(x[0, SIGNATURE_SLICE], signature("THE"))


def test_signatures_are_fixed_unit_vectors() -> None:
    assert np.linalg.norm(signature("bank")) == pytest.approx(1.0)
    np.testing.assert_array_equal(signature("bank"), signature("Bank"))
    assert not np.allclose(signature("bank"), signature("river"))


def test_the_position_code_points_back_one_step() -> None:
    """Rotating each frequency pair back by one step lands closest to the previous position's code."""
    codes = position_code(21)
    rotate = np.zeros((4, 4))
    for k, w in enumerate(POSITION_FREQUENCIES):
        c, s = np.cos(w), np.sin(w)
        rotate[2 * k : 2 * k + 2, 2 * k : 2 * k + 2] = [[c, s], [-s, c]]  # (sin a, cos a) -> a - w
    back = codes @ rotate
    for p in range(1, 21):
        assert int(np.argmax(codes @ back[p])) == p - 1
