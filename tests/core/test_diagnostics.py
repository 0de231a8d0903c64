"""Tests for the attention diagnostics in app.core.diagnostics."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from app.core.attention import scaled_dot_product_attention
from app.core.diagnostics import future_leak, future_share
from app.core.masks import MASK_MODES, causal_mask, softmax
from tests.strategies import FAST, FLOATS


@FAST
@given(st.integers(1, 3), st.integers(1, 6), st.data())
def test_lower_triangular_weights_have_no_leak(h: int, T: int, data: st.DataObject) -> None:
    logits = data.draw(arrays(np.float64, (h, T, T), elements=FLOATS))
    weights = softmax(np.where(causal_mask(T), -np.inf, logits))
    np.testing.assert_array_equal(future_share(weights), np.zeros((h, T)))
    assert future_leak(weights) == 0.0
    assert future_leak(weights[0]) == 0.0


@pytest.mark.parametrize("n", [1, 2, 3, 5, 8])
def test_uniform_attention_leaks_n_minus_one_over_two_n(n: int) -> None:
    uniform = np.full((n, n), 1.0 / n)
    np.testing.assert_allclose(future_share(uniform), [(n - 1 - i) / n for i in range(n)])
    assert future_leak(uniform) == pytest.approx((n - 1) / (2 * n))


def test_uniform_attention_over_five_tokens_leaks_forty_percent() -> None:
    assert future_leak(np.full((5, 5), 0.2)) == pytest.approx(0.4)
    assert future_leak(np.full((3, 5, 5), 0.2)) == pytest.approx(0.4)


def test_future_leak_averages_over_heads() -> None:
    uniform = np.full((4, 4), 0.25)
    causal = np.tril(np.ones((4, 4))) / np.arange(1, 5)[:, None]
    assert future_leak(np.stack([uniform, causal])) == pytest.approx(future_leak(uniform) / 2)


def test_zero_mask_leaks_but_neg_inf_does_not() -> None:
    x = np.zeros((5, 3))
    leaks = {
        mode: future_leak(scaled_dot_product_attention(x, x, x, mask=mode).weights) for mode in MASK_MODES
    }
    assert leaks["neg_inf"] == 0.0
    assert leaks["zero"] == pytest.approx(0.4)
    assert leaks["none"] == pytest.approx(0.4)


@FAST
@given(st.integers(1, 3), st.integers(1, 6), st.data())
def test_future_share_is_a_fraction(h: int, T: int, data: st.DataObject) -> None:
    logits = data.draw(arrays(np.float64, (h, T, T), elements=FLOATS))
    share = future_share(softmax(logits))
    assert share.shape == (h, T)
    assert np.all(share >= 0.0) and np.all(share <= 1.0 + 1e-12)
    assert share[:, -1].tolist() == [0.0] * h


def test_future_share_rejects_non_square() -> None:
    with pytest.raises(ValueError, match=r"\(\.\.\., T, T\)"):
        future_share(np.ones((2, 3)))
    with pytest.raises(ValueError):
        future_leak(np.ones(4))
