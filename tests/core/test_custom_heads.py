"""The head lab's core: reader matrices checked with messages that name the field, the parameter count."""

from __future__ import annotations

import numpy as np
import pytest

from app.core.attention import attention_per_head
from app.core.custom_heads import HeadMatrices, as_matrix, check_tokens, custom_attention


def test_as_matrix_refuses_ragged_empty_and_non_finite_rows() -> None:
    np.testing.assert_array_equal(as_matrix([[1, 2], [3, 4]], "m"), [[1.0, 2.0], [3.0, 4.0]])
    with pytest.raises(ValueError, match=r"^m\[1\] has 1 number but m\[0\] has 2 numbers"):
        as_matrix([[1, 2], [3]], "m")
    with pytest.raises(ValueError, match=r"^m has no rows$"):
        as_matrix([], "m")
    with pytest.raises(ValueError, match=r"^m has rows of no numbers$"):
        as_matrix([[], []], "m")
    with pytest.raises(ValueError, match=r"^m\[0\]\[1\] is inf: every number must be finite$"):
        as_matrix([[1, float("inf")]], "m")


def test_tokens_must_label_every_row() -> None:
    check_tokens(None, 3)
    check_tokens(["a", "b", "c"], 3)
    with pytest.raises(ValueError, match=r"^tokens has 2 entries but embeddings have 3 rows$"):
        check_tokens(["a", "b"], 3)


def test_custom_attention_is_attention_per_head_plus_the_count() -> None:
    rng = np.random.default_rng(0)
    x = rng.normal(size=(5, 4))
    shapes = [(2, 3), (1, 2)]  # (d_k, d_v) of each head: heads may differ in width
    mats = [
        (rng.normal(size=(4, dk)), rng.normal(size=(4, dk)), rng.normal(size=(4, dv))) for dk, dv in shapes
    ]
    w_o = rng.normal(size=(5, 4))
    heads = [HeadMatrices(w_q=q.tolist(), w_k=k.tolist(), w_v=v.tolist()) for q, k, v in mats]
    lab = custom_attention(x.tolist(), heads, w_o.tolist())
    expected = attention_per_head(x, mats, w_o=w_o)
    np.testing.assert_allclose(lab.result.output, expected.output)
    assert lab.parameters.per_head == [4 * 2 + 4 * 2 + 4 * 3, 4 + 4 + 4 * 2]
    assert lab.parameters.w_o == 20
    assert lab.parameters.total == 28 + 16 + 20


def test_shape_clashes_name_the_field_and_both_sizes() -> None:
    head = HeadMatrices(w_q=[[1], [0]], w_k=[[1], [0], [2]], w_v=[[1], [1]])
    with pytest.raises(ValueError, match=r"^heads\[0\]\.w_k has 3 rows but embeddings have 2 columns$"):
        custom_attention([[1, 2]], [head])
