"""Figure 10's maths: without positions self-attention is permutation-equivariant; with them it is not."""

from __future__ import annotations

import itertools
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.models.order import EXACT, HEADS, attention_of, order_check, reversed_order, unpermute
from app.models.relations import analyse
from app.web.refusal import Refusal

WORDS = ["dog", "bites", "man", "the", "river", "bank", "was", "steep", "cat", "sat", "on", "mat"]


MODEL = "relation heads"  # what the `model` fixture (tests/models/conftest.py) hands these tests


def test_reversing_dog_bites_man_without_positions_changes_nothing_but_the_order(model) -> None:
    check = order_check(model, ["dog", "bites", "man"], positional=False)
    assert check.permutation == [2, 1, 0]
    assert check.permuted_tokens == ["man", "bites", "dog"]
    assert check.weights.shape == (HEADS, 3, 3)
    assert check.max_difference <= EXACT
    assert check.equivariant
    # The reference, written as a loop: permuted[k, m] is the weight between words perm[k] and perm[m].
    for h, k, m in itertools.product(range(HEADS), range(3), range(3)):
        p = check.permutation
        assert abs(check.permuted_weights[h, k, m] - check.weights[h, p[k], p[m]]) <= 1e-12


def test_with_positions_dog_attends_differently_in_man_bites_dog(model) -> None:
    check = order_check(model, ["dog", "bites", "man"], positional=True)
    assert not check.equivariant
    dog = 0
    assert check.row_differences[dog] > 0.1
    assert check.max_difference == pytest.approx(float(check.row_differences.max()))


def test_the_cue_mark_is_left_out_where_the_order_picks_the_cue(model) -> None:
    """Of two equally strong cues the nearer settles "bank": the order picks the cue, so figure 10 clears the
    cue mark with the other order-dependent inputs, and the two orders still attend alike."""
    words = "the bank by the river near the lake".split()
    perm = [0, 1, 7, 2, 3, 4, 5, 6]  # "the bank lake by the river near the": the lake is now the nearer
    cue = {tuple(analyse(w).targets["meaning"]) for w in (words, [words[p] for p in perm])}
    assert len(cue) == 2  # the rules' cue differs between the two orders
    assert order_check(model, words, positional=False, permutation=perm).max_difference <= EXACT


@settings(max_examples=40, deadline=None)
@given(
    words=st.lists(st.sampled_from(WORDS), min_size=2, max_size=9),
    data=st.data(),
)
def test_every_permutation_of_every_sentence_is_equivariant_without_positions(model, words, data) -> None:
    perm = data.draw(st.permutations(list(range(len(words)))))
    check = order_check(model, words, positional=False, permutation=list(perm))
    assert check.max_difference <= EXACT
    assert np.allclose(check.weights.sum(-1), 1.0)


@settings(max_examples=30, deadline=None)
@given(words=st.lists(st.sampled_from(WORDS), min_size=2, max_size=9, unique=True))
def test_positions_break_equivariance_for_any_reordering(model, words) -> None:
    n = len(words)
    perm = reversed_order(n)
    check = order_check(model, words, positional=True, permutation=perm)
    assert check.max_difference > 1e-3


def test_unpermute_undoes_the_permutation() -> None:
    rng = np.random.default_rng(0)
    w = rng.random((2, 4, 4))
    perm = [2, 0, 3, 1]
    permuted = w[:, perm][:, :, perm]
    assert np.array_equal(unpermute(permuted, perm), w)


def test_the_position_code_changes_the_weights(model) -> None:
    words = "dog bites man".split()
    with_pe = attention_of(model, words, positional=True)
    without = attention_of(model, words, positional=False)
    assert with_pe.shape == without.shape == (HEADS, 3, 3)
    assert not np.allclose(with_pe, without)


@pytest.mark.parametrize(
    "permutation", [[0, 0, 1], [0, 1], [1, 2, 3]], ids=["a position twice", "too few", "past the end"]
)
def test_a_list_that_is_not_a_permutation_is_refused(model, permutation) -> None:
    message = "permutation must list each position 0 to 2 exactly once (the sentence has 3 words; got "
    with pytest.raises(Refusal, match=f"^{re.escape(message)}"):
        order_check(model, ["dog", "bites", "man"], positional=False, permutation=permutation)
