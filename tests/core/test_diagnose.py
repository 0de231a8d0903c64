"""The structural diagnosis in app.core.diagnostics: verdicts by invariant, signatures, every MatrixError,
the limits on the work and the heads an answer lists."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from app.core.diagnosis_limits import MAX_HEADS, MatrixError
from app.core.diagnostics import LISTED_HEADS, Diagnosis, diagnose, future_leak
from app.core.head_signatures import FAINT, zero_fill_signature
from app.core.masks import apply_mask, causal_mask, softmax
from tests.strategies import finite

FAST = settings(max_examples=60, deadline=None)
UNMASKED = (
    "unmasked (free weight on the future: no mask at all, or an additive 0/1 mask, the boolean mask added as "
    "+1 or a 1-for-keep mask added raw, which the weights alone cannot tell apart)"
)
SCORES = finite(6.0)
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
    assert all(h.verdict == h.signature == "causal" for h in result.each_head())
    assert all(h.max_future == 0.0 and h.future_mass == 0.0 for h in result.each_head())
    assert len(list(result.each_head())) == int(np.prod(weights.shape[:-2]))


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
    bad = list(result.each_head())[flat]
    assert (bad.verdict, bad.max_future) == ("leaks", row[j])
    assert bad.signature != "causal"
    assert sum(h.verdict == "leaks" for h in result.each_head()) == 1


@FAST
@given(LEADING, st.integers(3, 10), st.data())
def test_the_times_zero_mask_is_recognised_as_zero_fill(lead: tuple, n: int, data: st.DataObject) -> None:
    scores = data.draw(arrays(np.float64, (*lead, n, n), elements=SCORES))
    weights = softmax(apply_mask(scores, "zero"))  # the masked_fill(mask, 0) bug
    result = diagnose(weights)
    assert result.verdict == "leaks"
    assert {h.signature for h in result.each_head()} == {"zero_fill"}
    assert "×0 signature" in result.summary


@FAST
@given(LEADING, st.integers(3, 10), st.data())
def test_random_unmasked_softmax_is_unmasked(lead: tuple, n: int, data: st.DataObject) -> None:
    # Distinct scores at least 0.01 apart, so no two future weights of a row are equal. Scores 12 apart can
    # leave every future weight of a small head below FAINT (CI once drew [[6, -0.91, -0.92], [0.02, 0.38,
    # -6], ...]): such a head leaks too little to see, and "faint" is its right name.
    cents = data.draw(arrays(np.int64, (*lead, n, n), elements=st.integers(-600, 600), unique=True))
    weights = softmax(apply_mask(cents / 100.0, "none"))
    result = diagnose(weights)
    assert result.verdict == "leaks"
    heads = weights.reshape(-1, n, n)
    largest_future = np.where(np.triu(np.ones((n, n), bool), 1), heads, 0).max(axis=(1, 2))
    expected = np.where(largest_future < FAINT, "faint", "unmasked")
    assert result.signatures.reshape(-1).tolist() == expected.tolist()


def test_an_unmasked_head_whose_future_weights_are_all_tiny_is_faint() -> None:
    cents = np.array([[600, -91, -92], [2, 38, -600], [0, 1, -1]])  # the draw that CI found
    weights = softmax(apply_mask(cents / 100.0, "none"))
    assert np.triu(weights, 1).max() < FAINT
    assert [h.signature for h in diagnose(weights).each_head()] == ["faint"]


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
    for head, (max_future, mass) in zip(result.each_head(), reference(weights), strict=True):
        assert head.max_future == max_future
        assert head.future_mass == pytest.approx(mass, rel=1e-12)


def test_heads_are_numbered_layer_then_head() -> None:
    weights = softmax(apply_mask(np.zeros((2, 3, 4, 4)), "neg_inf"))
    weights[1, 2] = softmax(np.zeros((4, 4)))  # one uniform, unmasked head: layer 1, head 2
    result = diagnose(weights)
    assert [(h.layer, h.head) for h in result.each_head()] == [
        (layer, head) for layer in (0, 1) for head in (0, 1, 2)
    ]
    assert [h.verdict for h in result.each_head()] == ["causal"] * 5 + ["leaks"]
    assert result.shape == (2, 3, 4, 4)
    assert result.max_future.shape == (2, 3)
    assert [(h.layer, h.head) for h in diagnose(weights[1]).each_head()] == [(0, 0), (0, 1), (0, 2)]
    assert [(h.layer, h.head) for h in diagnose(weights[1, 2]).each_head()] == [(0, 0)]
    assert diagnose(weights[1, 2]).max_future.shape == (1, 1)


def test_future_mass_matches_the_leak_meter() -> None:
    uniform = np.full((5, 5), 0.2)
    (head,) = diagnose(uniform).each_head()
    assert head.future_mass == pytest.approx(0.4) == pytest.approx(future_leak(uniform))
    assert head.max_future == pytest.approx(0.2)


def test_zero_fill_needs_a_row_with_two_future_keys() -> None:
    # With n = 2 the only leaky row has one future key: nothing to compare, so the bug cannot be told apart.
    (head,) = diagnose(softmax(apply_mask(np.array([[1.0, 2.0], [3.0, 4.0]]), "zero"))).each_head()
    assert (head.verdict, head.signature) == ("leaks", "unmasked")


def test_rows_whose_future_underflowed_prove_nothing() -> None:
    # Row 0's future is equal, but only because it is all zero; row 2's single future key leaks: the next
    # word, and nothing else.
    w = np.array(
        [
            [1.0, 0.0, 0.0, 0.0],
            [0.5, 0.5, 0.0, 0.0],
            [0.25, 0.25, 0.25, 0.25],
            [0.25, 0.25, 0.25, 0.25],
        ]
    )
    (head,) = diagnose(w).each_head()
    assert (head.verdict, head.signature) == ("leaks", "next_word")
    assert not zero_fill_signature(w)


def test_exactly_uniform_rows_match_the_zero_fill_signature() -> None:
    """Documented: uniform attention cannot be told apart from the ×0 bug by its weights alone."""
    (head,) = diagnose(np.full((4, 4), 0.25)).each_head()
    assert head.signature == "zero_fill"


def test_equal_means_equal_to_a_relative_tolerance_of_one_in_a_million() -> None:
    w = np.full((3, 3), 1 / 3)
    w[0, 1:] = [1 / 3 * (1 + 5e-7), 1 / 3 * (1 - 5e-7)]
    assert next(diagnose(w).each_head()).signature == "zero_fill"
    w[0, 1:] = [1 / 3 * (1 + 5e-6), 1 / 3 * (1 - 5e-6)]
    assert next(diagnose(w).each_head()).signature == "unmasked"


def test_float32_and_float16_weights_are_read_at_their_precision() -> None:
    scores = np.random.default_rng(0).normal(size=(4, 6, 6))
    for dtype in (np.float32, np.float16):
        zero = diagnose(softmax(apply_mask(scores, "zero")).astype(dtype))
        assert {h.signature for h in zero.each_head()} == {"zero_fill"}
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
    assert diagnose(mixed[[0, 0, 2]]).summary == (
        f"leaks: 1 of 3 heads puts weight on future positions (j > i): 1 {UNMASKED}. Worst: layer 1, head 3, "
        "with 0.665 on a single future key."
    )
    assert diagnose(mixed).summary == (
        "leaks: 2 of 3 heads put weight on future positions (j > i): 1 with the ×0 signature (equal future "
        "weights along each row: masked_fill(mask, 0) instead of -inf, or another finite fill the scores "
        f"outweigh) and 1 {UNMASKED}. Worst: layer 1, head 3, with 0.665 on a single future key."
    )
    assert diagnose(unmasked).summary == (
        f"leaks: the head puts weight on future positions (j > i): 1 {UNMASKED}. Worst: layer 1, head 1, "
        "with 0.665 on a single future key."
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
            "row 1, column 2 of layer 1, head 1 is NaN: attention weights must be finite numbers (a row may "
            "be NaN only throughout: a fully masked row)",
        ),
        (
            np.array([[np.inf, 0.0], [1.0, 0.0]]),
            "row 1, column 1 of layer 1, head 1 is Infinity: attention weights must be finite numbers",
        ),
        (
            np.array([[1.0, 0.0], [-np.inf, 1.0]]),
            "row 2, column 1 of layer 1, head 1 is -Infinity: attention weights must be finite numbers",
        ),
        (
            np.array([[1.5, -0.5], [1.0, 0.0]]),
            "row 1, column 2 of layer 1, head 1 is -0.5: attention weights cannot be negative",
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
    w[0, 1, 3, 0] = 0.2  # row 4 of layer 1, head 2 (counted from 1) now sums to 1.2
    w[0, 1, 4, 0] = 0.5  # a later bad row is not the one reported
    with pytest.raises(MatrixError) as caught:
        diagnose(w)
    assert str(caught.value) == (
        "row 4 of layer 1, head 2 sums to 1.2, not 1: attention rows are distributions"
    )


def test_rows_may_sum_to_one_within_a_thousandth() -> None:
    w = np.eye(3)
    w[1, 1] = 1.0009
    assert diagnose(w).verdict == "causal"
    w[1, 1] = 1.0011
    with pytest.raises(MatrixError, match="row 2 of layer 1, head 1"):
        diagnose(w)


def test_a_matrix_error_is_a_value_error() -> None:
    assert issubclass(MatrixError, ValueError)


# ---- the limits on the work, and the heads an answer lists ------------------------------------------------


def model(layers: int, h: int, zero_fill: np.ndarray, unmasked: np.ndarray, n: int = 4) -> np.ndarray:
    """(layers, h, n, n) weights: each head looks at its own position (causal), except the heads where
    ``zero_fill`` (layers, h) is True, uniform (the ×0 signature), and where ``unmasked`` is True, each row
    on the key two after it (a leak with a single future key per row, so no ×0 signature, and not the next
    word's)."""
    w = np.broadcast_to(np.eye(n), (layers, h, n, n)).copy()
    w[zero_fill] = 1 / n
    w[unmasked] = np.roll(np.eye(n), 2, axis=1)  # row i on key i + 2; the last rows wrap round to the past
    return w


def every_third(layers: int, h: int) -> tuple[np.ndarray, np.ndarray]:
    """Masks (layers, h): heads 0, 3, 6, ... in (layer, head) order leak, alternately ×0 and unmasked."""
    k = np.arange(layers * h).reshape(layers, h)
    return k % 6 == 0, k % 6 == 3


@pytest.mark.parametrize(
    ("shape", "message"),
    [
        ((500_000, 2, 2), "the array holds 500,000 heads (shape [500000, 2, 2]): at most 8,192 heads are "
         "diagnosed (layers × heads)"),
        ((33, 256, 2, 2), "the array holds 8,448 heads (shape [33, 256, 2, 2]): at most 8,192 heads are "
         "diagnosed (layers × heads)"),
        ((257, 1, 2, 2), "the array holds 257 layers (shape [257, 1, 2, 2]): at most 256 layers are "
         "diagnosed"),
        ((1, 257, 2, 2), "the array holds 257 heads per layer (shape [1, 257, 2, 2]): at most 256 heads per "
         "layer are diagnosed"),
        ((257, 2, 2), "the array holds 257 heads per layer (shape [257, 2, 2]): at most 256 heads per layer "
         "are diagnosed"),
    ],
)  # fmt: skip
def test_a_shape_past_a_limit_on_the_work_is_named(shape: tuple[int, ...], message: str) -> None:
    with pytest.raises(MatrixError) as caught:
        diagnose(np.broadcast_to(np.eye(2), shape))
    assert str(caught.value) == message


@pytest.mark.parametrize("shape", [(256, 32, 2, 2), (32, 256, 2, 2), (256, 2, 2), (512, 512)])
def test_shapes_at_the_limits_are_diagnosed(shape: tuple[int, ...]) -> None:
    result = diagnose(np.broadcast_to(np.eye(shape[-1]), shape))
    assert result.verdict == "causal"
    assert result.head_count == int(np.prod(shape[:-2])) <= MAX_HEADS


def test_the_shape_is_judged_before_any_work_on_the_weights() -> None:
    """Half a million uint8 heads would cost 16 MB as float64 before any check: the shape refuses them."""
    weights = np.ascontiguousarray(np.broadcast_to(np.eye(2, dtype=np.uint8), (500_000, 2, 2)))
    tracemalloc.start()
    try:
        with pytest.raises(MatrixError, match="500,000 heads"):
            diagnose(weights)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 64 * 1024


def test_each_head_builds_the_heads_asked_for_in_layer_then_head_order() -> None:
    zero_fill, unmasked = every_third(3, 5)
    result = diagnose(model(3, 5, zero_fill, unmasked))
    every = list(result.each_head())
    assert [(h.layer, h.head) for h in every] == [(layer, head) for layer in range(3) for head in range(5)]
    leaking = list(result.each_head(result.leaks))
    assert leaking == [h for h in every if h.verdict == "leaks"]
    assert [(h.layer, h.head, h.signature) for h in leaking] == [
        (0, 0, "zero_fill"), (0, 3, "unmasked"), (1, 1, "zero_fill"), (1, 4, "unmasked"), (2, 2, "zero_fill"),
    ]  # fmt: skip


def test_every_head_is_listed_up_to_the_threshold() -> None:
    layers = LISTED_HEADS // 256
    zero_fill, unmasked = every_third(layers, 256)
    result = diagnose(model(layers, 256, zero_fill, unmasked))
    assert result.head_count == LISTED_HEADS
    assert result.listed_heads() == list(result.each_head())


def test_past_the_threshold_only_the_first_leaking_heads_are_listed() -> None:
    zero_fill, unmasked = every_third(32, 256)  # 8,192 heads, 2,731 of them leaking
    result = diagnose(model(32, 256, zero_fill, unmasked))
    listed = result.listed_heads()
    assert len(listed) == LISTED_HEADS
    assert listed == list(result.each_head(result.leaks))[:LISTED_HEADS]
    assert {h.verdict for h in listed} == {"leaks"}
    assert (listed[-1].layer, listed[-1].head) == divmod(3 * (LISTED_HEADS - 1), 256)
    assert result.summary == (
        "leaks: 2,731 of 8,192 heads put weight on future positions (j > i): 1,366 with the ×0 signature "
        "(equal future weights along each row: masked_fill(mask, 0) instead of -inf, or another finite fill "
        f"the scores outweigh) and 1,365 {UNMASKED}. Worst: layer 1, head 4, with 1 on a single future key."
    )


def test_past_the_threshold_a_few_leaks_are_all_listed_and_a_causal_model_lists_none() -> None:
    zero_fill = np.zeros((8, 256), dtype=bool)
    unmasked = zero_fill.copy()
    unmasked[2, 7] = unmasked[5, 0] = zero_fill[7, 255] = True
    result = diagnose(model(8, 256, zero_fill, unmasked))
    assert [(h.layer, h.head, h.signature) for h in result.listed_heads()] == [
        (2, 7, "unmasked"), (5, 0, "unmasked"), (7, 255, "zero_fill"),
    ]  # fmt: skip
    assert diagnose(model(8, 256, zero_fill & False, unmasked & False)).listed_heads() == []


def by_layer_reference(result: Diagnosis) -> list[tuple[int, int, int, int, int, float]]:
    """The per-layer counts, as a plain loop over every head's record."""
    rows: dict[int, list] = {}
    for h in result.each_head():
        row = rows.setdefault(h.layer, [h.layer, 0, 0, 0, 0, 0.0])
        row[1] += 1
        row[2] += h.verdict == "leaks"
        row[3] += h.signature == "zero_fill"
        row[4] += h.signature == "unmasked"
        row[5] = max(row[5], h.max_future)
    return [tuple(row) for row in rows.values()]  # type: ignore[misc]


@pytest.mark.parametrize("lead", [(), (5,), (4, 3), (32, 256)])
def test_the_layer_counts_equal_a_plain_loop_over_the_heads(lead: tuple[int, ...]) -> None:
    layers, h = (1, 1, *lead)[-2:]
    zero_fill, unmasked = every_third(layers, h)
    result = diagnose(model(layers, h, zero_fill, unmasked).reshape(*lead, 4, 4))
    counts = [(r.layer, r.heads, r.leaking, r.zero_fill, r.unmasked, r.max_future) for r in result.by_layer()]
    assert counts == by_layer_reference(result)
    assert sum(r.heads for r in result.by_layer()) == result.head_count
    assert all(r.leaking == r.zero_fill + r.unmasked and r.broken == 0 for r in result.by_layer())


def _bfloat16(weights: np.ndarray) -> np.ndarray:
    """float32 weights rounded to the nearest bfloat16 (ties to even), as a bfloat16 model returns them and
    an export widens them: the low 16 bits of every float32 are 0."""
    bits = weights.astype(np.float32).view(np.uint32)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    return rounded.astype(np.uint32).view(np.float32)


def _sink(n: int) -> np.ndarray:
    """A correct causal head with an attention sink: every row on token 0 but for a sliver on itself."""
    scores = np.where(causal_mask(n), -np.inf, np.eye(n) * -20.0)
    scores[:, 0] = 0.0
    scores[0, 0] = 0.0
    return softmax(scores)


def _previous_token(n: int) -> np.ndarray:
    """A correct, sharp previous-token head: row i ≥ 1 on i - 1; row 0 on itself."""
    scores = np.where(causal_mask(n), -np.inf, -30.0)
    scores[np.arange(1, n), np.arange(n - 1)] = 0.0
    scores[0, 0] = 0.0
    return softmax(scores)


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.float16, "bfloat16"])
@pytest.mark.parametrize("make", [_sink, _previous_token])
def test_correct_causal_heads_pass_in_every_dtype(make, dtype) -> None:  # noqa: ANN001
    """Once false alarms: an attention sink and a sharp previous-token head in float16 (self-weights near
    2e-9 round to 0) were called hides_self, "broken", and bfloat16 exports were refused (a row summing to
    1.00105) or called after_softmax (rows of 0.99854). Row 0 on itself shows no word was hidden from
    itself, and a row may miss 1 by twice what the weights' precision rounds."""
    weights = np.stack([make(24), _sink(24), _previous_token(24)])
    widened = _bfloat16(weights) if dtype == "bfloat16" else weights.astype(dtype)
    found = diagnose(widened)
    assert found.verdict == "causal", found.signature_counts()


def test_hiding_each_word_from_itself_is_still_found_in_every_dtype() -> None:
    n = 8
    hidden = softmax(np.where(np.triu(np.ones((n, n), dtype=bool)), -np.inf, 0.0))  # row 0 NaN
    leaky = softmax(np.where(np.triu(np.ones((n, n), dtype=bool)), -1e9, 0.0))  # row 0 uniform
    for weights in (hidden, leaky):
        for widened in (weights, weights.astype(np.float16), _bfloat16(weights)):
            assert diagnose(widened).signatures[0, 0] == "hides_self"


def test_a_row_short_of_1_by_more_than_rounding_is_still_after_softmax() -> None:
    n = 8
    cut = np.tril(np.ones((n, n))) / n  # the future zeroed after a uniform softmax: row i sums to (i+1)/n
    assert diagnose(cut).signatures[0, 0] == "after_softmax"
    assert diagnose(_bfloat16(cut)).signatures[0, 0] == "after_softmax"
    near = _sink(8)
    near[1:] *= 0.997  # 0.3% short: past float32's tolerance, within bfloat16's rounding only
    assert diagnose(near.astype(np.float32)).signatures[0, 0] == "after_softmax"
