"""The structural diagnosis in app.core.diagnostics: verdicts by invariant, signatures, every MatrixError."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from app.core.attention import apply_mask, causal_mask, softmax
from app.core.diagnostics import MatrixError, diagnose, future_leak, zero_fill_signature

FAST = settings(max_examples=60, deadline=None)
SCORES = st.floats(-6.0, 6.0, allow_nan=False, allow_infinity=False, width=64)
LEADING = st.sampled_from([(), (2,), (3,), (2, 2), (1, 3)])  # [n, n], [h, n, n], [layers, h, n, n]


@st.composite
def causal_weights(draw: st.DrawFn, min_n: int = 2) -> np.ndarray:
    """A random row-stochastic array with nothing above the diagonal; some past weights are exactly 0."""
    lead = draw(LEADING)
    n = draw(st.integers(min_n, 10))
    raw = draw(arrays(np.float64, (*lead, n, n), elements=st.floats(0.0, 1.0, width=64)))
    raw = raw + np.eye(n) * 1e-3  # the diagonal keeps every row's total positive
    raw[..., causal_mask(n)] = 0.0
    return raw / raw.sum(axis=-1, keepdims=True)


def reference(weights: np.ndarray) -> list[tuple[float, float]]:
    """(max_future, future_mass) per head, as a plain loop over the formula."""
    w = weights.reshape(-1, *weights.shape[-2:])
    n = w.shape[-1]
    out = []
    for head in w:
        future = [head[i, j] for i in range(n) for j in range(i + 1, n)]
        mass = sum(sum(head[i, j] for j in range(i + 1, n)) for i in range(n)) / n
        out.append((max(future), mass))
    return out


@FAST
@given(causal_weights())
def test_a_causal_row_stochastic_array_always_passes(weights: np.ndarray) -> None:
    result = diagnose(weights)
    assert result.verdict == "causal"
    assert all(h.verdict == h.signature == "causal" for h in result.heads)
    assert all(h.max_future == 0.0 and h.future_mass == 0.0 for h in result.heads)
    assert len(result.heads) == int(np.prod(weights.shape[:-2]))


@FAST
@given(causal_weights(), st.data())
def test_any_positive_weight_above_the_diagonal_fails(weights: np.ndarray, data: st.DataObject) -> None:
    n = weights.shape[-1]
    head = tuple(data.draw(st.integers(0, size - 1)) for size in weights.shape[:-2])
    i = data.draw(st.integers(0, n - 2))
    j = data.draw(st.integers(i + 1, n - 1))
    extra = data.draw(st.floats(1e-300, 10.0))
    leaky = weights.copy()
    row = leaky[(*head, i)]
    row[j] += extra
    row /= row.sum()  # renormalised: still a distribution, now with weight on key j > i

    result = diagnose(leaky)
    assert result.verdict == "leaks"
    flat = int(np.ravel_multi_index(head, weights.shape[:-2])) if head else 0
    bad = result.heads[flat]
    assert (bad.verdict, bad.max_future) == ("leaks", row[j])
    assert bad.signature != "causal"
    assert sum(h.verdict == "leaks" for h in result.heads) == 1


@FAST
@given(LEADING, st.integers(3, 10), st.data())
def test_the_times_zero_mask_is_recognised_as_zero_fill(lead: tuple, n: int, data: st.DataObject) -> None:
    scores = data.draw(arrays(np.float64, (*lead, n, n), elements=SCORES))
    weights = softmax(apply_mask(scores, "zero"))  # the masked_fill(mask, 0) bug
    result = diagnose(weights)
    assert result.verdict == "leaks"
    assert {h.signature for h in result.heads} == {"zero_fill"}
    assert "×0 signature" in result.summary


@FAST
@given(LEADING, st.integers(3, 10), st.data())
def test_random_unmasked_softmax_is_unmasked(lead: tuple, n: int, data: st.DataObject) -> None:
    # Distinct scores at least 0.01 apart, so no two future weights of a row are equal.
    cents = data.draw(arrays(np.int64, (*lead, n, n), elements=st.integers(-600, 600), unique=True))
    weights = softmax(apply_mask(cents / 100.0, "none"))
    result = diagnose(weights)
    assert result.verdict == "leaks"
    assert {h.signature for h in result.heads} == {"unmasked"}


@FAST
@given(LEADING, st.integers(2, 9), st.data())
def test_the_neg_inf_mask_is_causal(lead: tuple, n: int, data: st.DataObject) -> None:
    scores = data.draw(arrays(np.float64, (*lead, n, n), elements=SCORES))
    assert diagnose(softmax(apply_mask(scores, "neg_inf"))).verdict == "causal"


@FAST
@given(LEADING, st.integers(2, 8), st.sampled_from(["none", "zero"]), st.data())
def test_figures_equal_a_plain_loop(lead: tuple, n: int, mode: str, data: st.DataObject) -> None:
    scores = data.draw(arrays(np.float64, (*lead, n, n), elements=SCORES))
    weights = softmax(apply_mask(scores, mode))  # type: ignore[arg-type]
    result = diagnose(weights)
    for head, (max_future, mass) in zip(result.heads, reference(weights), strict=True):
        assert head.max_future == max_future
        assert head.future_mass == pytest.approx(mass, rel=1e-12)


def test_heads_are_numbered_layer_then_head() -> None:
    weights = softmax(apply_mask(np.zeros((2, 3, 4, 4)), "neg_inf"))
    weights[1, 2] = softmax(np.zeros((4, 4)))  # one uniform, unmasked head: layer 1, head 2
    result = diagnose(weights)
    assert [(h.layer, h.head) for h in result.heads] == [
        (layer, head) for layer in (0, 1) for head in (0, 1, 2)
    ]
    assert [h.verdict for h in result.heads] == ["causal"] * 5 + ["leaks"]
    assert result.shape == (2, 3, 4, 4)
    assert result.weights.shape == (2, 3, 4, 4)
    assert [(h.layer, h.head) for h in diagnose(weights[1]).heads] == [(0, 0), (0, 1), (0, 2)]
    assert [(h.layer, h.head) for h in diagnose(weights[1, 2]).heads] == [(0, 0)]
    assert diagnose(weights[1, 2]).weights.shape == (1, 1, 4, 4)


def test_future_mass_matches_the_leak_meter() -> None:
    uniform = np.full((5, 5), 0.2)
    (head,) = diagnose(uniform).heads
    assert head.future_mass == pytest.approx(0.4) == pytest.approx(future_leak(uniform))
    assert head.max_future == pytest.approx(0.2)


def test_zero_fill_needs_a_row_with_two_future_keys() -> None:
    # With n = 2 the only leaky row has one future key: nothing to compare, so the bug cannot be told apart.
    (head,) = diagnose(softmax(apply_mask(np.array([[1.0, 2.0], [3.0, 4.0]]), "zero"))).heads
    assert (head.verdict, head.signature) == ("leaks", "unmasked")


def test_rows_whose_future_underflowed_prove_nothing() -> None:
    # Row 0's future is equal, but only because it is all zero; row 2's single future key leaks.
    w = np.array(
        [
            [1.0, 0.0, 0.0, 0.0],
            [0.5, 0.5, 0.0, 0.0],
            [0.25, 0.25, 0.25, 0.25],
            [0.25, 0.25, 0.25, 0.25],
        ]
    )
    (head,) = diagnose(w).heads
    assert (head.verdict, head.signature) == ("leaks", "unmasked")
    assert not zero_fill_signature(w)


def test_exactly_uniform_rows_match_the_zero_fill_signature() -> None:
    """Documented: uniform attention cannot be told apart from the ×0 bug by its weights alone."""
    (head,) = diagnose(np.full((4, 4), 0.25)).heads
    assert head.signature == "zero_fill"


def test_equal_means_equal_to_a_relative_tolerance_of_one_in_a_million() -> None:
    w = np.full((3, 3), 1 / 3)
    w[0, 1:] = [1 / 3 * (1 + 5e-7), 1 / 3 * (1 - 5e-7)]
    assert diagnose(w).heads[0].signature == "zero_fill"
    w[0, 1:] = [1 / 3 * (1 + 5e-6), 1 / 3 * (1 - 5e-6)]
    assert diagnose(w).heads[0].signature == "unmasked"


def test_float32_and_float16_weights_are_read_at_their_precision() -> None:
    scores = np.random.default_rng(0).normal(size=(4, 6, 6))
    for dtype in (np.float32, np.float16):
        zero = diagnose(softmax(apply_mask(scores, "zero")).astype(dtype))
        assert {h.signature for h in zero.heads} == {"zero_fill"}
        assert diagnose(softmax(apply_mask(scores, "neg_inf")).astype(dtype)).verdict == "causal"


def test_a_tiny_future_weight_is_still_a_leak() -> None:
    w = np.eye(3)
    w[0, 2] = 5e-324  # the smallest positive double: masked means exactly 0.0
    assert diagnose(w).verdict == "leaks"


def test_integer_one_hot_attention_is_accepted() -> None:
    assert diagnose(np.eye(4, dtype=np.int64)).verdict == "causal"


def test_the_summaries() -> None:
    causal = softmax(apply_mask(np.zeros((2, 3, 3)), "neg_inf"))
    assert (
        diagnose(causal).summary == "causal: all 2 heads put exactly zero weight on future positions (j > i)."
    )
    assert (
        diagnose(causal[0]).summary
        == "causal: the head puts exactly zero weight on future positions (j > i)."
    )
    unmasked = softmax(np.array([[0.0, 1.0, 2.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]))
    mixed = np.stack([causal[0], softmax(apply_mask(np.eye(3), "zero")), unmasked])
    assert diagnose(mixed).summary == (
        "leaks: 2 of 3 heads put weight on future positions (j > i): 1 with the ×0 signature (equal future "
        "weights along each row: masked_fill(mask, 0) instead of -inf) and 1 unmasked (free weight on the "
        "future). Worst: head (0, 2), 0.665 on a single future key."
    )
    assert diagnose(unmasked).summary == (
        "leaks: the head puts weight on future positions (j > i): 1 unmasked (free weight on the future). "
        "Worst: head (0, 0), 0.665 on a single future key."
    )


@pytest.mark.parametrize(
    ("weights", "message"),
    [
        (
            np.full(3, 1 / 3),
            "expected shape [n, n], [h, n, n] or [layers, h, n, n], got shape [3] (1 dimension)",
        ),
        (
            np.full((1, 1, 1, 2, 2), 0.5),
            "expected shape [n, n], [h, n, n] or [layers, h, n, n], got shape [1, 1, 1, 2, 2] (5 dimensions)",
        ),
        (
            np.full((2, 3), 1 / 3),
            "the last two dimensions must be equal (queries × keys over the same positions), got 2 × 3",
        ),
        (np.ones((1, 1)), "n = 1 is too small: a causal check needs at least 2 positions"),
        (np.eye(513), "n = 513 is too large: at most 512 positions"),
        (np.zeros((0, 3, 3)), "the array holds no heads: shape [0, 3, 3]"),
        (
            np.array([[0.5, np.nan], [1.0, 0.0]]),
            "weight (0, 1) of head (0, 0) is NaN: attention weights must be finite numbers",
        ),
        (
            np.array([[np.inf, 0.0], [1.0, 0.0]]),
            "weight (0, 0) of head (0, 0) is Infinity: attention weights must be finite numbers",
        ),
        (
            np.array([[1.0, 0.0], [-np.inf, 1.0]]),
            "weight (1, 0) of head (0, 0) is -Infinity: attention weights must be finite numbers",
        ),
        (
            np.array([[1.5, -0.5], [1.0, 0.0]]),
            "weight (0, 1) of head (0, 0) is -0.5: attention weights cannot be negative",
        ),
        (np.array(["a", "b"]), "the weights must be real numbers, got values of type <U1"),
        (np.eye(2, dtype=bool), "the weights must be real numbers, got values of type bool"),
        (np.eye(2, dtype=complex), "the weights must be real numbers, got values of type complex128"),
    ],
)
def test_invalid_weights_get_a_reader_facing_message(weights: np.ndarray, message: str) -> None:
    with pytest.raises(MatrixError) as caught:
        diagnose(weights)
    assert str(caught.value) == message


def test_the_first_row_that_is_not_a_distribution_is_named() -> None:
    w = np.tile(np.eye(5), (1, 2, 1, 1))  # (1, 2, 5, 5)
    w[0, 1, 3, 0] = 0.2  # row 3 of head (0, 1) now sums to 1.2
    w[0, 1, 4, 0] = 0.5  # a later bad row is not the one reported
    with pytest.raises(MatrixError) as caught:
        diagnose(w)
    assert str(caught.value) == "row 3 of head (0, 1) sums to 1.2, not 1: attention rows are distributions"


def test_rows_may_sum_to_one_within_a_thousandth() -> None:
    w = np.eye(3)
    w[1, 1] = 1.0009
    assert diagnose(w).verdict == "causal"
    w[1, 1] = 1.0011
    with pytest.raises(MatrixError, match="row 1 of head"):
        diagnose(w)


def test_a_matrix_error_is_a_value_error() -> None:
    assert issubclass(MatrixError, ValueError)
