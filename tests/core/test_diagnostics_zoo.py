"""The mask bug zoo: each bug's weights built the way the buggy code builds them (seeded scores, the wrong
mask, a softmax written here), and the diagnosis naming it; a correct mask, padded or not, names nothing."""

from __future__ import annotations

import numpy as np
import pytest

from app.core.diagnostics import diagnose
from app.core.head_signatures import FAINT

N = 8
SCORES = np.random.default_rng(19).normal(size=(2, N, N))  # two heads of one layer
ONES = np.ones((N, N), dtype=bool)
FUTURE = np.triu(ONES, k=1)


def softmax(x: np.ndarray) -> np.ndarray:
    """Row softmax in x's own dtype; a row of -inf only gives NaN, as it does in PyTorch."""
    with np.errstate(invalid="ignore", over="ignore"):
        e = np.exp(x - x.max(axis=-1, keepdims=True))
        return e / e.sum(axis=-1, keepdims=True)


def named(weights: np.ndarray) -> tuple[str, set[str]]:
    """The verdict and the signatures of every head."""
    result = diagnose(weights)
    return result.verdict, {head.signature for head in result.each_head()}


def test_a_correct_causal_mask_names_nothing() -> None:
    result = diagnose(softmax(np.where(FUTURE, -np.inf, SCORES)))
    assert (result.verdict, result.signature_counts()) == ("causal", {"causal": 2})
    assert result.summary == "causal: all 2 heads put exactly zero weight on future positions (j > i)."


def test_times_zero_is_zero_fill() -> None:
    assert named(softmax(np.where(FUTURE, 0.0, SCORES))) == ("leaks", {"zero_fill"})


def test_triu_diagonal_2_leaks_the_next_word() -> None:
    result = diagnose(softmax(np.where(np.triu(ONES, k=2), -np.inf, SCORES)))
    assert (result.verdict, result.signature_counts()) == ("leaks", {"next_word": 2})
    assert "next_word" in result.summary and "j = i + 1" in result.summary


def test_triu_diagonal_0_under_minus_inf_hides_self_and_leaves_row_0_nan() -> None:
    result = diagnose(softmax(np.where(np.triu(ONES, k=0), -np.inf, SCORES)))
    assert (result.verdict, result.signature_counts()) == ("broken", {"hides_self": 2})
    assert result.nan_rows.tolist() == [[1, 1]]
    assert result.summary.startswith(
        "broken: no head puts weight on future positions (j > i), but 2 of 2 heads"
    )


def test_triu_diagonal_0_under_a_finite_mask_hides_self_and_leaks_only_row_0() -> None:
    weights = softmax(np.where(np.triu(ONES, k=0), -1e9, SCORES))
    np.testing.assert_allclose(weights[:, 0], 1 / N)  # row 0: every key masked alike, so uniform
    result = diagnose(weights)
    assert (result.verdict, result.signature_counts()) == ("leaks", {"hides_self": 2})
    assert result.nan_rows.sum() == 0


def test_tril_for_triu_is_transposed() -> None:
    assert named(softmax(np.where(np.tril(ONES, k=-1), -np.inf, SCORES))) == ("leaks", {"transposed"})


def test_a_mask_after_the_softmax_leaves_rows_short_of_1() -> None:
    weights = softmax(SCORES) * ~FUTURE  # the future zeroed, the rows not renormalised
    result = diagnose(weights)
    assert (result.verdict, result.signature_counts()) == ("broken", {"after_softmax": 2})
    head = next(result.each_head())
    assert head.row_sum_max == pytest.approx(1.0)  # the last row has no future to lose
    assert head.row_sum_min == pytest.approx(weights[0].sum(axis=-1).min())
    lowest = weights.sum(axis=-1).min()  # over both heads
    assert f"rows sum to as little as {lowest:.3g}" in result.summary


@pytest.mark.parametrize("mask", [FUTURE, ~FUTURE], ids=["the boolean mask added as +1", "1-for-keep raw"])
def test_an_additive_0_1_mask_is_unmasked_and_the_summary_says_it_may_be_additive(mask: np.ndarray) -> None:
    result = diagnose(softmax(SCORES + mask))
    assert (result.verdict, result.signature_counts()) == ("leaks", {"unmasked": 2})
    assert "additive 0/1 mask" in result.summary


def test_a_sentinel_too_small_for_float16_scores_leaks_faintly() -> None:
    """Scores of magnitude 1e4 in float16 with the classic additive mask (1 - mask) * -10000.0 added: the
    masked keys end up only about fifteen below the row's largest score, so about e^-15 of each survives,
    computed in float16, and unequally (each keeps its own score)."""
    # Scores near 1e4 on the future keys (float16 holds them to the nearest 8), near 0 on the past ones.
    scores = np.where(FUTURE, 9_988 + SCORES * 2, SCORES + 4).astype(np.float16)
    weights = softmax(scores + FUTURE * np.float16(-1e4))
    assert weights.dtype == np.float16
    future = weights[:, FUTURE]
    assert 0 < future.max() < FAINT
    result = diagnose(weights)
    assert (result.verdict, result.signature_counts()) == ("leaks", {"faint": 2})
    assert result.max_future.max() == future.max()


def left_padded(pad: int, fill: float) -> np.ndarray:
    """Scores of a left-padded sequence (its first ``pad`` positions padding) under a correct causal mask
    and a key padding mask, both by ``fill``: the padding queries have no key left to see."""
    keys = np.arange(N) < pad  # (N,): the padding keys
    return np.where(FUTURE | keys, fill, SCORES)


def test_a_left_padded_batch_under_minus_inf_has_nan_rows() -> None:
    result = diagnose(softmax(left_padded(3, -np.inf)))
    assert (result.verdict, result.signature_counts()) == ("broken", {"nan_rows": 2})
    assert result.nan_rows.tolist() == [[3, 3]]
    head = next(result.each_head())
    assert (head.max_future, head.row_sum_min, head.row_sum_max) == (
        0.0,
        pytest.approx(1.0),
        pytest.approx(1),
    )


def test_a_left_padded_batch_under_a_safe_softmax_is_causal() -> None:
    weights = np.nan_to_num(softmax(left_padded(3, -np.inf)), nan=0.0)  # PyTorch's safe softmax: zero rows
    result = diagnose(weights)
    assert (result.verdict, result.signature_counts()) == ("causal", {"causal": 2})
    assert result.empty_rows.tolist() == [[3, 3]]
    assert result.summary == (
        "causal: all 2 heads put exactly zero weight on future positions (j > i). 6 all-zero rows (padding, "
        "under a safe softmax) were set aside."
    )


def test_float16_finfo_min_added_twice_overflows_to_minus_inf_and_gives_nan_rows() -> None:
    """The causal mask by -inf, the padding mask added as finfo(float16).min: once, the padding queries'
    rows stay finite (and causal); added twice, -65504 - 65504 is -inf in float16 and those rows are NaN."""
    low = np.finfo(np.float16).min
    scores = np.where(FUTURE, -np.inf, SCORES).astype(np.float16)
    padding = np.where(np.arange(N) < 3, low, np.float16(0))  # (N,): on the keys
    once = softmax(scores + padding)
    assert named(once) == ("causal", {"causal"})
    with np.errstate(over="ignore"):  # the overflow to -inf is the point
        doubled = padding + padding
    twice = softmax(scores + doubled)
    assert np.isneginf(doubled).sum() == 3
    result = diagnose(twice)
    assert (result.verdict, result.signature_counts(), result.nan_rows.tolist()) == (
        "broken",
        {"nan_rows": 2},
        [[3, 3]],
    )


def test_the_summary_counts_every_kind_present_and_leaks_come_first() -> None:
    zoo = np.stack(
        [
            softmax(np.where(FUTURE, 0.0, SCORES[0])),
            softmax(np.where(np.triu(ONES, k=2), -np.inf, SCORES[0])),
            softmax(SCORES[0]) * ~FUTURE,
            softmax(np.where(FUTURE, -np.inf, SCORES[0])),
        ]
    )
    result = diagnose(zoo)
    assert result.verdict == "leaks"
    assert [h.verdict for h in result.each_head()] == ["leaks", "leaks", "broken", "causal"]
    assert result.summary.startswith(
        "leaks: 2 of 4 heads put weight on future positions (j > i): 1 leaking only the next word"
    )
    assert "Also broken without leaking: 1 of 4 heads is broken: 1 masked after the softmax" in result.summary


def test_a_nan_inside_a_row_of_numbers_is_refused_naming_the_cell() -> None:
    weights = softmax(np.where(FUTURE, -np.inf, SCORES))
    weights[1, 4, 2] = np.nan
    with pytest.raises(ValueError, match=r"^row 5, column 3 of layer 1, head 2 is NaN"):
        diagnose(weights)


def test_rows_summing_to_more_than_1_are_still_refused() -> None:
    weights = np.eye(N) * 1.01
    with pytest.raises(ValueError, match=r"^row 1 of layer 1, head 1 sums to 1.01, not 1"):
        diagnose(weights)
