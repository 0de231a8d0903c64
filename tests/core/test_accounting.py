"""Figure 2's accounting: h heads of width d/h cost what one head of width d costs, except the softmax."""

from __future__ import annotations

import pytest

from app.core.accounting import head_accounting, head_costs
from app.core.attention import valid_head_counts


@pytest.mark.parametrize(("d_model", "n"), [(24, 5), (512, 10), (768, 1)])
def test_every_line_but_the_softmax_is_independent_of_h(d_model: int, n: int) -> None:
    single = head_costs(d_model, 1, n)
    for h in valid_head_counts(d_model):
        split = head_costs(d_model, h, n)
        assert split["weights"] == single["weights"]
        assert split["multiply_adds"] == single["multiply_adds"]
        assert split["exps"] == h * single["exps"] == h * n * n


def test_the_paper_s_layer() -> None:
    acct = head_accounting(512, 8, 10)
    split = acct["split"]
    assert (split["heads"], split["d_k"]) == (8, 64)
    assert split["weights"] == {
        "w_q": 262_144,
        "w_k": 262_144,
        "w_v": 262_144,
        "w_o": 262_144,
        "total": 4 * 512 * 512,
    }
    madds = split["multiply_adds"]
    assert madds["q"] == 10 * 512 * 512
    assert madds["scores"] == madds["mix"] == 10 * 10 * 512
    assert madds["total"] == 4 * 10 * 512 * 512 + 2 * 10 * 10 * 512
    assert acct["valid_heads"] == [1, 2, 4, 8, 16, 32, 64, 128, 256, 512]


def test_bad_settings_are_refused() -> None:
    with pytest.raises(ValueError):
        head_costs(24, 5, 3)
    with pytest.raises(ValueError, match="n must be at least 1"):
        head_costs(24, 3, 0)
