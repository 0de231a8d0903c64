"""The errors of app.core.attention and app.core.masks: each says which argument is wrong and what shape it
has."""

from __future__ import annotations

import numpy as np
import pytest

from app.core.attention import (
    attention_per_head,
    multi_head_attention,
    parameter_count,
    scaled_dot_product_attention,
    split_heads,
    valid_head_counts,
)
from app.core.masks import apply_mask


def test_split_heads_rejects_non_divisors() -> None:
    with pytest.raises(ValueError, match=r"d_model=6.*h=4"):
        split_heads(np.zeros((2, 6)), 4)
    with pytest.raises(ValueError, match="h=0"):
        split_heads(np.zeros((2, 6)), 0)


def test_unknown_mask_mode() -> None:
    with pytest.raises(ValueError, match="unknown mask mode 'future'"):
        apply_mask(np.zeros((2, 2)), "future")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="unknown mask mode"):
        scaled_dot_product_attention(np.ones((2, 2)), np.ones((2, 2)), np.ones((2, 2)), mask="bogus")  # type: ignore[arg-type]


def test_mask_needs_square_scores() -> None:
    q, k, v = np.ones((2, 3)), np.ones((4, 3)), np.ones((4, 3))
    scaled_dot_product_attention(q, k, v, mask="none")
    for mode in ("neg_inf", "zero"):
        with pytest.raises(ValueError, match="T_q=2 and T_k=4"):
            scaled_dot_product_attention(q, k, v, mask=mode)
        with pytest.raises(ValueError, match=r"\(\.\.\., n, n\)"):
            apply_mask(np.zeros((2, 4)), mode)


def test_attention_shape_errors() -> None:
    with pytest.raises(ValueError, match="q has width d_k=3 but k has width 2"):
        scaled_dot_product_attention(np.ones((2, 3)), np.ones((2, 2)), np.ones((2, 2)))
    with pytest.raises(ValueError, match="k has 2 rows but v has 3"):
        scaled_dot_product_attention(np.ones((2, 3)), np.ones((2, 3)), np.ones((3, 2)))


def test_multi_head_errors() -> None:
    x = np.ones((3, 4))
    w = np.ones((4, 4))
    with pytest.raises(ValueError, match=r"d_model=4.*h=3"):
        multi_head_attention(x, w, w, w, heads=3)
    with pytest.raises(ValueError, match="w_k has 5 rows but x has 4 columns"):
        multi_head_attention(x, w, np.ones((5, 4)), w, heads=2)
    with pytest.raises(ValueError, match="w_o has 3 rows but the concatenated heads have 4 columns"):
        multi_head_attention(x, w, w, w, heads=2, w_o=np.ones((3, 4)))


def test_per_head_errors_name_the_argument_and_shapes() -> None:
    x = np.ones((2, 4))
    good = (np.ones((4, 2)), np.ones((4, 2)), np.ones((4, 2)))
    bad_k = (np.ones((4, 2)), np.ones((3, 2)), np.ones((4, 2)))
    with pytest.raises(ValueError, match=r"^heads\[1\]\.w_k has 3 rows but embeddings have 4 columns$"):
        attention_per_head(x, [good, bad_k])
    with pytest.raises(ValueError, match=r"heads\[0\]\.w_q has 2 columns but heads\[0\]\.w_k has 3"):
        attention_per_head(x, [(np.ones((4, 2)), np.ones((4, 3)), np.ones((4, 2)))])
    with pytest.raises(ValueError, match=r"heads\[0\]\.w_v must be a 2-D matrix"):
        attention_per_head(x, [(np.ones((4, 2)), np.ones((4, 2)), np.ones(4))])
    with pytest.raises(ValueError, match="w_o has 3 rows but the concatenated heads have 4 columns"):
        attention_per_head(x, [good, good], w_o=np.ones((3, 2)))
    with pytest.raises(ValueError, match="at least one"):
        attention_per_head(x, [])
    with pytest.raises(ValueError, match="embeddings must be a 2-D"):
        attention_per_head(np.ones(4), [good])


def test_parameter_count_and_head_count_errors() -> None:
    with pytest.raises(ValueError, match="d_model=6 and heads=4"):
        parameter_count(6, 4)
    with pytest.raises(ValueError, match="d_model must be at least 1"):
        valid_head_counts(0)
