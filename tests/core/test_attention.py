"""Property tests for the attention maths in app.core.attention and app.core.masks."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from app.core.attention import (
    attention_per_head,
    merge_heads,
    multi_head_attention,
    parameter_count,
    scaled_dot_product_attention,
    sinusoidal_positions,
    split_heads,
    valid_head_counts,
)
from app.core.masks import MASK_MODES, MaskMode, apply_mask, causal_mask, softmax
from tests.reference import softmax_row
from tests.strategies import FAST, FLOATS, finite


def matrices(rows: int, cols: int) -> st.SearchStrategy[np.ndarray]:
    return arrays(np.float64, (rows, cols), elements=FLOATS)


@dataclass
class MhaCase:
    x: np.ndarray
    w_q: np.ndarray
    w_k: np.ndarray
    w_v: np.ndarray
    w_o: np.ndarray
    heads: int


@st.composite
def mha_cases(draw: st.DrawFn) -> MhaCase:
    T = draw(st.integers(1, 5))
    d_model = draw(st.integers(1, 6))
    heads = draw(st.sampled_from(valid_head_counts(d_model)))
    d_out = draw(st.integers(1, 4))
    return MhaCase(
        x=draw(matrices(T, d_model)),
        w_q=draw(matrices(d_model, d_model)),
        w_k=draw(matrices(d_model, d_model)),
        w_v=draw(matrices(d_model, d_model)),
        w_o=draw(matrices(d_model, d_out)),
        heads=heads,
    )


QKV = tuple[np.ndarray, np.ndarray, np.ndarray]  # queries, keys and values, each [h, T, d]


@st.composite
def qkv(draw: st.DrawFn) -> QKV:
    """Self-attention sized q, k, v with a leading head axis: (h, T, d_k), (h, T, d_k), (h, T, d_v)."""
    h = draw(st.integers(1, 3))
    T = draw(st.integers(1, 5))
    d_k = draw(st.integers(1, 4))
    d_v = draw(st.integers(1, 4))
    q = draw(arrays(np.float64, (h, T, d_k), elements=FLOATS))
    k = draw(arrays(np.float64, (h, T, d_k), elements=FLOATS))
    v = draw(arrays(np.float64, (h, T, d_v), elements=FLOATS))
    return q, k, v


# softmax


@FAST
@given(arrays(np.float64, st.tuples(st.integers(1, 4), st.integers(1, 6)), elements=FLOATS))
def test_softmax_rows_are_distributions(x: np.ndarray) -> None:
    p = softmax(x)
    assert np.all(p >= 0.0)
    np.testing.assert_allclose(p.sum(axis=-1), 1.0, rtol=0, atol=1e-12)


@FAST
@given(
    arrays(np.float64, st.integers(1, 6), elements=FLOATS),
    finite(1e4),
)
def test_softmax_is_shift_invariant_even_for_huge_shifts(x: np.ndarray, c: float) -> None:
    np.testing.assert_allclose(softmax(x + c), softmax(x), rtol=1e-9, atol=1e-12)


def test_softmax_huge_inputs_do_not_overflow() -> None:
    for x in ([1e4, 1e4 - 1.0, 0.0], [-1e4, -1e4, -1e4], [1e4, 1e4, 1e4]):
        p = softmax(np.array(x))
        assert np.all(np.isfinite(p))
        assert p.sum() == pytest.approx(1.0)
    np.testing.assert_allclose(softmax(np.array([1e4, 1e4])), [0.5, 0.5])


def test_softmax_gives_exact_zero_for_minus_infinity() -> None:
    p = softmax(np.array([[1.0, -np.inf, 2.0], [-np.inf, -np.inf, 0.0]]))
    assert p[0, 1] == 0.0
    assert p[1, 0] == 0.0 and p[1, 1] == 0.0
    assert p[1, 2] == 1.0
    np.testing.assert_allclose(p.sum(axis=-1), 1.0)


def test_softmax_respects_axis() -> None:
    x = np.array([[0.0, 1.0], [2.0, 5.0]])
    np.testing.assert_allclose(softmax(x, axis=0), softmax(x.T, axis=-1).T)


# masks


def test_causal_mask_marks_the_future() -> None:
    expected = np.array([[False, True, True], [False, False, True], [False, False, False]])
    np.testing.assert_array_equal(causal_mask(3), expected)
    assert causal_mask(3).dtype == np.bool_


def test_apply_mask_modes_on_a_known_block() -> None:
    s = np.arange(1.0, 10.0).reshape(3, 3)
    none = apply_mask(s, "none")
    np.testing.assert_array_equal(none, s)
    none[0, 0] = 99.0
    assert s[0, 0] == 1.0, "'none' must return a copy"
    np.testing.assert_array_equal(
        apply_mask(s, "neg_inf"), [[1, -np.inf, -np.inf], [4, 5, -np.inf], [7, 8, 9]]
    )
    np.testing.assert_array_equal(apply_mask(s, "zero"), [[1, 0, 0], [4, 5, 0], [7, 8, 9]])


def test_apply_mask_broadcasts_over_heads() -> None:
    s = np.ones((2, 3, 3))
    masked = apply_mask(s, "neg_inf")
    for head in masked:
        np.testing.assert_array_equal(np.isneginf(head), causal_mask(3))


# scaled dot-product attention


@FAST
@pytest.mark.parametrize("mode", MASK_MODES)
@given(qkv())
def test_weights_rows_sum_to_one_in_every_mode(mode: MaskMode, case: QKV) -> None:
    q, k, v = case
    w = scaled_dot_product_attention(q, k, v, mask=mode).weights
    assert np.all(w >= 0.0)
    np.testing.assert_allclose(w.sum(axis=-1), 1.0, rtol=0, atol=1e-12)


@FAST
@given(qkv())
def test_neg_inf_mask_gives_exactly_zero_future_weight(case: QKV) -> None:
    q, k, v = case
    w = scaled_dot_product_attention(q, k, v, mask="neg_inf").weights
    T = w.shape[-1]
    future = causal_mask(T)
    assert np.all(w[..., future] == 0.0)


@FAST
@given(qkv())
def test_zero_mask_spreads_equal_weight_over_the_future(case: QKV) -> None:
    q, k, v = case
    stages = scaled_dot_product_attention(q, k, v, mask="zero")
    h, T, _ = stages.weights.shape
    for head in range(h):
        for i in range(T - 1):
            row = stages.masked[head, i]
            future = stages.weights[head, i, i + 1 :]
            assert np.all(future == future[0]), "every future weight in a row is identical"
            row_max = max(row)
            z = sum(math.exp(s - row_max) for s in row)
            assert future[0] == pytest.approx(math.exp(0.0 - row_max) / z, rel=1e-12)
            assert future[0] > 0.0


@FAST
@given(qkv(), st.booleans())
def test_scaled_divides_by_sqrt_d_k(case: QKV, scale: bool) -> None:
    q, k, v = case
    d_k = q.shape[-1]
    stages = scaled_dot_product_attention(q, k, v, scale=scale)
    np.testing.assert_allclose(stages.scores, q @ np.swapaxes(k, -1, -2), rtol=1e-12, atol=1e-12)
    expected = stages.scores / math.sqrt(d_k) if scale else stages.scores
    np.testing.assert_allclose(stages.scaled, expected, rtol=1e-12, atol=0)


def test_cross_attention_shapes() -> None:
    q, k, v = np.ones((2, 3)), np.ones((5, 3)), np.ones((5, 4))
    stages = scaled_dot_product_attention(q, k, v)
    assert stages.weights.shape == (2, 5)
    assert stages.context.shape == (2, 4)
    np.testing.assert_allclose(stages.weights, 0.2)


# heads


@FAST
@given(st.data())
def test_split_then_merge_is_identity(data: st.DataObject) -> None:
    T = data.draw(st.integers(1, 5))
    d_model = data.draw(st.integers(1, 8))
    h = data.draw(st.sampled_from(valid_head_counts(d_model)))
    x = data.draw(matrices(T, d_model))
    parts = split_heads(x, h)
    assert parts.shape == (h, T, d_model // h)
    np.testing.assert_array_equal(merge_heads(parts), x)
    d_k = d_model // h
    for i in range(h):
        np.testing.assert_array_equal(parts[i], x[:, i * d_k : (i + 1) * d_k])


@FAST
@given(st.integers(1, 3), st.integers(1, 4), st.integers(1, 3), st.data())
def test_merge_then_split_is_identity(h: int, T: int, d_k: int, data: st.DataObject) -> None:
    parts = data.draw(arrays(np.float64, (h, T, d_k), elements=FLOATS))
    np.testing.assert_array_equal(split_heads(merge_heads(parts), h), parts)


def test_valid_head_counts() -> None:
    assert valid_head_counts(12) == [1, 2, 3, 4, 6, 12]
    assert valid_head_counts(7) == [1, 7]
    assert valid_head_counts(1) == [1]


@FAST
@given(st.integers(1, 6), st.integers(1, 4), st.data())
def test_identical_heads_give_identical_contexts(T: int, d_model: int, data: st.DataObject) -> None:
    x = data.draw(matrices(T, d_model))
    d_k = data.draw(st.integers(1, 3))
    d_v = data.draw(st.integers(1, 3))
    head = (
        data.draw(matrices(d_model, d_k)),
        data.draw(matrices(d_model, d_k)),
        data.draw(matrices(d_model, d_v)),
    )
    mode = data.draw(st.sampled_from(MASK_MODES))
    result = attention_per_head(x, [head, head], mask=mode)
    a, b = result.stages
    np.testing.assert_array_equal(a.weights, b.weights)
    np.testing.assert_array_equal(a.context, b.context)
    np.testing.assert_array_equal(result.concat[:, :d_v], result.concat[:, d_v:])


@FAST
@given(st.integers(1, 5), st.integers(1, 3), st.sampled_from([2, 3]), st.data())
def test_tiled_projections_give_identical_heads(T: int, d_k: int, h: int, data: st.DataObject) -> None:
    d_model = d_k * h
    x = data.draw(matrices(T, d_model))
    block_q, block_k, block_v = (data.draw(matrices(d_model, d_k)) for _ in range(3))
    result = multi_head_attention(
        x, np.tile(block_q, (1, h)), np.tile(block_k, (1, h)), np.tile(block_v, (1, h)), heads=h
    )
    # One wide matmul may round different output columns differently by an ulp, hence allclose.
    for i in range(1, h):
        np.testing.assert_allclose(result.stages.weights[i], result.stages.weights[0], rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(result.stages.context[i], result.stages.context[0], rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("d_model", [1, 4, 6, 12, 64, 512])
def test_more_narrower_heads_cost_the_same_parameters(d_model: int) -> None:
    one_wide = parameter_count(d_model, 1)
    assert one_wide["qkv_total"] == 3 * d_model * d_model
    for h in valid_head_counts(d_model):
        counts = parameter_count(d_model, h)
        assert counts["d_k"] * h == d_model
        assert counts["per_head"] == 3 * d_model * (d_model // h)
        assert h * counts["per_head"] == counts["qkv_total"]
        assert counts["qkv_total"] == one_wide["qkv_total"]
        assert counts["w_o"] == one_wide["w_o"] == d_model * d_model
        assert counts["total"] == one_wide["total"] == 4 * d_model * d_model


def test_parameter_count_with_custom_output_width() -> None:
    counts = parameter_count(8, 2, d_out=3)
    assert counts["w_q_per_head"] == counts["w_k_per_head"] == counts["w_v_per_head"] == 8 * 4
    assert counts["w_o"] == 8 * 3
    assert counts["total"] == 3 * 8 * 8 + 8 * 3


# multi-head attention


@FAST
@given(mha_cases(), st.data())
def test_without_positions_permuting_tokens_permutes_output(case: MhaCase, data: st.DataObject) -> None:
    T = case.x.shape[0]
    perm = np.array(data.draw(st.permutations(range(T))), dtype=np.intp)
    base = multi_head_attention(case.x, case.w_q, case.w_k, case.w_v, case.heads, w_o=case.w_o)
    shuffled = multi_head_attention(case.x[perm], case.w_q, case.w_k, case.w_v, case.heads, w_o=case.w_o)
    assert base.output is not None and shuffled.output is not None
    np.testing.assert_allclose(shuffled.output, base.output[perm], rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(
        shuffled.stages.weights, base.stages.weights[:, perm][:, :, perm], rtol=1e-9, atol=1e-12
    )


def test_positions_break_permutation_symmetry() -> None:
    T, d = 4, 4
    x = np.ones((T, d))
    eye = np.eye(d)
    plain = multi_head_attention(x, eye, eye, eye, heads=1)
    np.testing.assert_allclose(plain.stages.weights[0], 0.25)
    with_pos = multi_head_attention(x + sinusoidal_positions(T, d), eye, eye, eye, heads=1)
    assert not np.allclose(with_pos.stages.weights[0], 0.25)


def loop_reference(case: MhaCase, mode: MaskMode) -> tuple[list[list[list[float]]], list[list[float]]]:
    """Multi-head attention with plain Python loops and math.exp: (weights[h][i][j], output[i][o])."""
    T, d_model = case.x.shape
    d_k = d_model // case.heads

    def project(w: np.ndarray, i: int, c: int) -> float:
        return sum(float(case.x[i, r]) * float(w[r, c]) for r in range(d_model))

    weights: list[list[list[float]]] = []
    concat = [[0.0] * d_model for _ in range(T)]
    for head in range(case.heads):
        cols = range(head * d_k, (head + 1) * d_k)
        q = [[project(case.w_q, i, c) for c in cols] for i in range(T)]
        k = [[project(case.w_k, j, c) for c in cols] for j in range(T)]
        v = [[project(case.w_v, j, c) for c in cols] for j in range(T)]
        head_weights = []
        for i in range(T):
            scores = [sum(q[i][c] * k[j][c] for c in range(d_k)) / math.sqrt(d_k) for j in range(T)]
            row = softmax_row(scores, i, mode)
            head_weights.append(row)
            for c in range(d_k):
                concat[i][head * d_k + c] = sum(row[j] * v[j][c] for j in range(T))
        weights.append(head_weights)
    d_out = case.w_o.shape[1]
    output = [
        [sum(concat[i][c] * float(case.w_o[c, o]) for c in range(d_model)) for o in range(d_out)]
        for i in range(T)
    ]
    return weights, output


@FAST
@pytest.mark.parametrize("mode", MASK_MODES)
@given(mha_cases())
def test_vectorised_heads_match_a_plain_loop(mode: MaskMode, case: MhaCase) -> None:
    result = multi_head_attention(case.x, case.w_q, case.w_k, case.w_v, case.heads, w_o=case.w_o, mask=mode)
    weights, output = loop_reference(case, mode)
    np.testing.assert_allclose(result.stages.weights, np.array(weights), rtol=1e-9, atol=1e-12)
    assert result.output is not None
    np.testing.assert_allclose(result.output, np.array(output), rtol=1e-9, atol=1e-9)


@FAST
@given(mha_cases())
def test_multi_head_matches_per_head_calculator(case: MhaCase) -> None:
    d_model = case.x.shape[1]
    d_k = d_model // case.heads
    heads = [
        (
            case.w_q[:, i * d_k : (i + 1) * d_k],
            case.w_k[:, i * d_k : (i + 1) * d_k],
            case.w_v[:, i * d_k : (i + 1) * d_k],
        )
        for i in range(case.heads)
    ]
    batched = multi_head_attention(case.x, case.w_q, case.w_k, case.w_v, case.heads, w_o=case.w_o)
    looped = attention_per_head(case.x, heads, w_o=case.w_o)
    assert batched.output is not None and looped.output is not None
    np.testing.assert_allclose(looped.concat, batched.concat, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(looped.output, batched.output, rtol=1e-12, atol=1e-12)
    for i, stages in enumerate(looped.stages):
        np.testing.assert_allclose(stages.weights, batched.stages.weights[i], rtol=1e-12, atol=1e-12)


def test_multi_head_result_shapes() -> None:
    T, d_model, h, d_out = 5, 6, 3, 2
    rng = np.random.default_rng(0)
    x = rng.normal(size=(T, d_model))
    w_q, w_k, w_v = (rng.normal(size=(d_model, d_model)) for _ in range(3))
    result = multi_head_attention(x, w_q, w_k, w_v, heads=h, w_o=rng.normal(size=(d_model, d_out)))
    assert result.q.shape == result.k.shape == result.v.shape == (h, T, d_model // h)
    assert result.stages.weights.shape == (h, T, T)
    assert result.concat.shape == (T, d_model)
    assert result.output is not None and result.output.shape == (T, d_out)
    assert multi_head_attention(x, w_q, w_k, w_v, heads=h).output is None


def test_per_head_allows_different_widths() -> None:
    rng = np.random.default_rng(1)
    x = rng.normal(size=(3, 4))
    heads = [
        (rng.normal(size=(4, 2)), rng.normal(size=(4, 2)), rng.normal(size=(4, 1))),
        (rng.normal(size=(4, 5)), rng.normal(size=(4, 5)), rng.normal(size=(4, 3))),
    ]
    result = attention_per_head(x, heads, w_o=rng.normal(size=(4, 2)), mask="neg_inf")
    assert [s.context.shape for s in result.stages] == [(3, 1), (3, 3)]
    assert result.concat.shape == (3, 4)
    assert result.output is not None and result.output.shape == (3, 2)


# positional encodings


def test_sinusoidal_positions_known_values() -> None:
    pe = sinusoidal_positions(6, 5)
    assert pe.shape == (6, 5)
    np.testing.assert_array_equal(pe[0], [0.0, 1.0, 0.0, 1.0, 0.0])
    for pos in range(6):
        for col in range(5):
            two_i = col - col % 2
            angle = pos / 10000 ** (two_i / 5)
            expected = math.sin(angle) if col % 2 == 0 else math.cos(angle)
            assert pe[pos, col] == pytest.approx(expected, abs=1e-12)
    assert np.all(np.abs(pe) <= 1.0)
