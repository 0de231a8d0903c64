"""What heads cost (figure 2): weights and multiply-adds of h heads of width d_model / h, and of one head of
width d_model, matrix by matrix. The page shows the two side by side; they are equal, which is the point.
"""

from __future__ import annotations

from typing import TypedDict

from app.core.attention import parameter_count, valid_head_counts


class Weights(TypedDict):
    w_q: int
    w_k: int
    w_v: int
    w_o: int
    total: int


class MultiplyAdds(TypedDict):
    q: int
    k: int
    v: int
    scores: int
    mix: int
    out: int
    total: int


class Costs(TypedDict):
    heads: int
    d_k: int
    weights: Weights
    multiply_adds: MultiplyAdds
    exps: int


class Accounting(TypedDict):
    d_model: int
    n: int
    valid_heads: list[int]
    split: Costs
    single: Costs


def head_costs(d_model: int, heads: int, n: int) -> Costs:
    """Weights and multiply-adds of one multi-head attention layer over n tokens (biases not counted).

        weights:       W_Q, W_K, W_V   h · d_model · d_k  each        (d_k = d_model / h)
                       W_O             (h · d_k) · d_model
        multiply-adds: X W_Q, X W_K, X W_V   h · n · d_model · d_k  each
                       Q Kᵀ                  h · n · n · d_k
                       weights · V           h · n · n · d_k
                       concat · W_O          n · (h · d_k) · d_model
        exponentials:  softmax               h · n · n

    Since h · d_k = d_model, every line but the last is independent of h.
    """
    if n < 1:
        raise ValueError(f"n must be at least 1, got {n}")
    p = parameter_count(d_model, heads)
    d_k = p["d_k"]
    weights = Weights(
        w_q=heads * p["w_q_per_head"],
        w_k=heads * p["w_k_per_head"],
        w_v=heads * p["w_v_per_head"],
        w_o=p["w_o"],
        total=p["total"],
    )
    projection = heads * n * d_model * d_k
    mixing = heads * n * n * d_k
    out = n * heads * d_k * d_model
    total = 3 * projection + 2 * mixing + out
    multiply_adds = MultiplyAdds(
        q=projection, k=projection, v=projection, scores=mixing, mix=mixing, out=out, total=total
    )
    return Costs(heads=heads, d_k=d_k, weights=weights, multiply_adds=multiply_adds, exps=heads * n * n)


def head_accounting(d_model: int, heads: int, n: int) -> Accounting:
    """h heads of width d_model / h (`split`) against one head of width d_model (`single`)."""
    return Accounting(
        d_model=d_model,
        n=n,
        valid_heads=valid_head_counts(d_model),
        split=head_costs(d_model, heads, n),
        single=head_costs(d_model, 1, n),
    )
