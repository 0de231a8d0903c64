"""The mask bug zoo's maths: each per-row mode built as the buggy code would build it, the padded batch's NaN
rows and their fix, and finite sentinels in float32, float16 and bfloat16."""

from __future__ import annotations

import math

import numpy as np
import pytest

from app.core.attention import multi_head_attention
from app.core.mask_zoo import (
    padded_attention,
    precision_row,
    precision_table,
    safe_softmax,
    to_bfloat16,
)
from app.core.masks import MASK_MODES, ZOO_MODES, apply_mask, masked_weights, softmax

RNG = np.random.default_rng(19)
N = 6
SCORES = RNG.normal(size=(2, N, N))  # two heads of scaled scores
FUTURE = np.triu(np.ones((N, N), dtype=bool), k=1)


def zoo(mode: str) -> tuple[np.ndarray, np.ndarray]:
    return masked_weights(SCORES, mode)  # type: ignore[arg-type]


def test_the_public_mask_modes_are_unchanged_and_apply_mask_refuses_the_zoos() -> None:
    assert MASK_MODES == ("none", "neg_inf", "zero")
    assert ZOO_MODES == ("hides_self", "next_word", "transposed", "after_softmax", "additive")
    with pytest.raises(ValueError, match="expected one of none, neg_inf, zero$"):
        apply_mask(SCORES, "next_word")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="unknown mask mode 'diagonal'"):
        masked_weights(SCORES, "diagonal")  # type: ignore[arg-type]


def test_hides_self_hides_the_diagonal_and_leaves_row_0_nan() -> None:
    masked, weights = zoo("hides_self")
    assert np.isneginf(masked[..., np.triu(np.ones((N, N), dtype=bool))]).all()
    assert np.isnan(weights[:, 0]).all()  # nothing to see: 0 / 0
    rest = weights[:, 1:]
    assert not np.isnan(rest).any()
    assert (np.diagonal(weights, axis1=-2, axis2=-1)[:, 1:] == 0).all()  # each word loses itself
    np.testing.assert_allclose(rest.sum(-1), 1.0)


def test_next_word_leaks_exactly_the_next_word() -> None:
    _, weights = zoo("next_word")
    for i in range(N - 1):
        assert (weights[:, i, i + 1] > 0).all()  # the word it is meant to predict
        assert (weights[:, i, i + 2 :] == 0).all()  # and exactly nothing beyond it
    np.testing.assert_allclose(weights.sum(-1), 1.0)


def test_transposed_sees_itself_and_the_future_only() -> None:
    _, weights = zoo("transposed")
    assert (weights[..., np.tril(np.ones((N, N), dtype=bool), k=-1)] == 0).all()
    assert (weights[..., ~np.tril(np.ones((N, N), dtype=bool), k=-1)] > 0).all()
    assert (weights[:, -1, -1] == 1.0).all()  # the last word sees only itself


def test_after_softmax_zeroes_the_future_without_renormalising() -> None:
    masked, weights = zoo("after_softmax")
    np.testing.assert_array_equal(masked, SCORES)  # nothing is hidden before the softmax
    assert (weights[..., FUTURE] == 0).all()
    sums = weights.sum(-1)
    np.testing.assert_allclose(sums, np.where(FUTURE, 0.0, softmax(SCORES)).sum(-1))
    assert (sums[:, :-1] < 1).all() and np.allclose(sums[:, -1], 1.0)


def test_additive_gives_the_future_e_times_the_weight_next_to_the_past() -> None:
    masked, weights = zoo("additive")
    np.testing.assert_allclose(masked - SCORES, np.broadcast_to(FUTURE, SCORES.shape), atol=1e-12)
    unmasked = softmax(SCORES)
    i, j = 1, 4  # a word and one of its later words, against the word itself
    ratio = (weights[:, i, j] / weights[:, i, i]) / (unmasked[:, i, j] / unmasked[:, i, i])
    np.testing.assert_allclose(ratio, math.e)


def test_the_attention_functions_run_every_zoo_mode() -> None:
    x = RNG.normal(size=(N, 4))
    w = [RNG.normal(size=(4, 4)) for _ in range(4)]
    for mode in ZOO_MODES:
        result = multi_head_attention(x, *w[:3], heads=2, w_o=w[3], mask=mode)
        _, expected = masked_weights(result.stages.scaled, mode)
        np.testing.assert_array_equal(result.stages.weights, expected)


def test_a_padded_row_is_nan_with_a_nan_gradient_and_the_safe_softmax_gives_zeros() -> None:
    panel = padded_attention(SCORES[0], pads=2)
    assert panel["naive_nan_rows"] == panel["naive_gradient_nan_rows"] == [0, 1]
    assert panel["safe_nan_rows"] == panel["safe_gradient_nan_rows"] == []
    assert (panel["safe"][:2] == 0).all()
    np.testing.assert_array_equal(panel["safe"][2:], panel["naive"][2:])
    assert (panel["safe"][2:, :2] == 0).all()  # the real words never look at the padding
    np.testing.assert_allclose(panel["safe"][2:].sum(-1), 1.0)
    assert padded_attention(SCORES[0], pads=0)["naive_nan_rows"] == []  # a batch done right
    assert (safe_softmax(np.array([0.0, -np.inf])) == [1.0, 0.0]).all()


def test_bfloat16_rounds_to_nearest_even_on_the_top_16_bits() -> None:
    # Known values (as torch.tensor(x).bfloat16() and ml_dtypes give them).
    given = np.array([1e9, 1e4, -1e4, 0.1, 1 + 2**-8, 1 + 3 * 2**-8, -3.4028235e38, np.inf], np.float32)
    expected = [998244352.0, 9984.0, -9984.0, 0.10009765625, 1.0, 1.015625, -np.inf, np.inf]
    assert to_bfloat16(given).astype(np.float64).tolist() == expected
    assert np.isnan(to_bfloat16(np.float32(np.nan)))


def test_sentinels_in_low_precision() -> None:
    assert precision_row("−1e9", "float16")["stored"] == -np.inf  # overflows when stored
    assert precision_row("−1e9", "bfloat16")["stored"] == -998244352.0
    for dtype in ("float32", "float16", "bfloat16"):
        row = precision_row("finfo.min", dtype)
        assert row["twice"] == -np.inf and np.isnan(row["fully_masked"])  # min + min = −∞ -> NaN
        assert precision_row("−1e4", dtype)["leak"] == 0.5  # 1e4 − 1e4 = 0, beside a visible 0
        assert precision_row("−1e9", dtype)["leak"] == 0.0
    assert precision_row("−1e9", "float32")["fully_masked"] == 0.25  # finite and equal: uniform
    table = precision_table()
    assert len(table) == 9
    assert next(r for r in table if (r["dtype"], r["sentinel"]) == ("float16", "−1e9"))["stored"] == "-inf"
