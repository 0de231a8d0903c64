"""Figure 1's layer with h query heads sharing g key/value heads: the committed layers, how the server runs
them, what it refuses, and the training record against the weights."""

import json
from dataclasses import replace

import numpy as np
import pytest

from app.config import get_settings
from app.core.attention import multi_head_attention, valid_head_counts
from app.core.masks import MASK_MODES
from app.models.heads import (
    SHARED_FILE,
    VALID_HEADS,
    WEIGHTS_FILE,
    RelationHeads,
    as_multi_head,
    kv_head_of,
)
from app.models.relations import D_MODEL
from app.web.refusal import Refusal
from training.evaluation import evaluate
from training.relation_corpus import heldout_sentences, training_sentences

WEIGHTS = get_settings().weights_dir
RECORD = json.loads((WEIGHTS / "relations_shared_curve.json").read_text())
CURVE = json.loads((WEIGHTS / "relations_curve.json").read_text())
SHARED = [(e["heads"], e["kv_heads"]) for e in RECORD["layers"] if e["kv_heads"] < e["heads"]]
SENTENCE = "the bat flew out of the cave and the dog barked".split()


MODEL = "relation heads"  # what the `model` fixture (tests/models/conftest.py) hands these tests


def test_query_heads_read_their_groups_key_value_head() -> None:
    assert kv_head_of(12, 4) == [0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3]
    assert kv_head_of(6, 1) == [0] * 6
    assert kv_head_of(3, 3) == [0, 1, 2]


def test_every_divisor_of_every_trained_head_count_is_there(model: RelationHeads) -> None:
    """What the route's description promises: every g dividing h for h = 2 … 12, only g = h at 1 and above."""
    for h in VALID_HEADS:
        assert model.kv_heads[h] == (valid_head_counts(h) if 1 < h <= 12 else [h]), h
    assert sorted(SHARED) == sorted(
        (h, g) for h in model.kv_heads for g in model.kv_heads[h] if g < h
    )  # the record and the weights hold the same layers
    for h, g in SHARED:
        trained, init = model.shared_layers[(h, g, "trained")], model.shared_layers[(h, g, "init")]
        assert trained.w_q.shape == (D_MODEL, D_MODEL) and trained.w_o.shape == (D_MODEL, 12)
        assert trained.w_k.shape == trained.w_v.shape == init.w_k.shape == (D_MODEL, g * D_MODEL // h)
        assert not np.allclose(trained.w_k, init.w_k)


@pytest.mark.parametrize(("heads", "kv_heads"), [(2, 1), (6, 2), (12, 1), (12, 4), (8, 4)])
@pytest.mark.parametrize("mask", MASK_MODES)
def test_served_weights_are_the_widened_layers(
    model: RelationHeads, heads: int, kv_heads: int, mask: str
) -> None:
    """The server repeats each key head for its query heads; app.core.attention, given W_K and W_V widened
    by repeating their column blocks, computes the same weights. Every row sums to 1."""
    _, x = model.inputs(SENTENCE)
    for trained in (True, False):
        layer = model.shared_layers[(heads, kv_heads, "trained" if trained else "init")]
        served = model.weights(x, heads, mask, trained, kv_heads)
        reference = multi_head_attention(
            x, **vars(as_multi_head(layer, heads, kv_heads)), heads=heads, mask=mask
        )
        # the two add in other orders: float64 rounding, a few units of 1e-14 on weights near 0.1
        np.testing.assert_allclose(served, reference.stages.weights, rtol=0, atol=1e-13)
        np.testing.assert_allclose(served.sum(-1), 1.0, rtol=0, atol=1e-12)


def test_kv_heads_none_or_h_is_the_ordinary_layer_bit_for_bit(model: RelationHeads) -> None:
    _, x = model.inputs(SENTENCE)
    for h in (3, 12):
        ordinary = model.weights(x, h, "none", True)
        assert np.array_equal(model.weights(x, h, "none", True, kv_heads=h), ordinary)
        assert np.array_equal(model.weights(x, h, "none", True, kv_heads=None), ordinary)
        assert not np.allclose(model.weights(x, h, "none", True, kv_heads=1), ordinary)


def test_query_heads_of_one_group_differ_only_through_w_q() -> None:
    """Give query heads 0 and 1 of h = 12, g = 4 the same columns of W_Q: they read the same key head, so
    their weights become identical. Heads 0 and 3 read different key heads and stay apart."""
    fresh = RelationHeads(WEIGHTS / WEIGHTS_FILE, WEIGHTS / SHARED_FILE)
    layer = fresh.shared_layers[(12, 4, "trained")]
    w_q = layer.w_q.copy()
    d_k = D_MODEL // 12
    w_q[:, d_k : 2 * d_k] = w_q[:, :d_k]  # query head 1 asks what query head 0 asks
    w_q[:, 3 * d_k : 4 * d_k] = w_q[:, :d_k]  # and so does query head 3, of the next group
    fresh.shared_layers[(12, 4, "trained")] = replace(layer, w_q=w_q)
    _, x = fresh.inputs(SENTENCE)
    weights = fresh.weights(x, 12, "none", True, kv_heads=4)
    assert np.array_equal(weights[0], weights[1])
    assert np.abs(weights[0] - weights[3]).max() > 0.1


@pytest.mark.parametrize(
    ("heads", "kv_heads", "detail"),
    [
        (12, 5, "kv_heads must divide heads = 12: one of 1, 2, 3, 4, 6, 12 (got 5)"),
        (3, 0, "kv_heads must divide heads = 3: one of 1, 3 (got 0)"),
        (6, -2, "kv_heads must divide heads = 6: one of 1, 2, 3, 6 (got -2)"),
        (6, 12, "kv_heads must divide heads = 6: one of 1, 2, 3, 6 (got 12)"),
        (24, 2, "kv_heads = 2 was not trained for heads = 24: one of 24"),
    ],
)
def test_a_kv_heads_that_does_not_divide_or_was_not_trained_is_refused(
    model: RelationHeads, heads: int, kv_heads: int, detail: str
) -> None:
    with pytest.raises(Refusal) as refused:
        model.attend(SENTENCE, heads, kv_heads=kv_heads)
    assert str(refused.value) == detail


def test_the_record_says_how_the_seed_was_chosen_and_what_the_layers_hold(model: RelationHeads) -> None:
    ordinary = {e["heads"]: e for e in CURVE["heads"]}
    for entry in RECORD["layers"]:
        h, g = entry["heads"], entry["kv_heads"]
        assert entry["kv_head_of"] == kv_head_of(h, g)
        assert entry["seed"] == int(np.argmin(entry["seed_losses"]))
        assert len(entry["seed_losses"]) == RECORD["seeds"] == CURVE["seeds"]
        assert entry["final_loss"] == entry["seed_losses"][entry["seed"]]
        layer = model.layers[(h, "trained")] if g == h else model.shared_layers[(h, g, "trained")]
        assert entry["parameters"] == {
            name: getattr(layer, name).size for name in ("w_q", "w_k", "w_v", "w_o")
        }
        if g == h:  # relations.npz's layer: its figures are relations_curve.json's
            assert entry["weights"] == WEIGHTS_FILE
            assert all(entry[k] == ordinary[h][k] for k in ("seed_losses", "seed", "heldout"))
    assert {e["heads"] for e in RECORD["layers"]} == {2, 3, 4, 6, 8, 12}
    assert (RECORD["steps"], RECORD["seeds"], RECORD["train_sentences"]) == (
        CURVE["steps"],
        CURVE["seeds"],
        CURVE["train_sentences"],
    )


def test_the_committed_record_matches_the_committed_weights(model: RelationHeads) -> None:
    """A few layers' held-out scores, measured again on the numpy layers the server runs."""
    seen = frozenset(" ".join(s) for s in training_sentences(RECORD["train_sentences"]))
    held_out = heldout_sentences(RECORD["heldout_sentences"], exclude=seen | {"the river bank was steep"})
    entries = {(e["heads"], e["kv_heads"]): e for e in RECORD["layers"]}
    for h, g in [(3, 1), (6, 2), (12, 1)]:
        layer = as_multi_head(model.shared_layers[(h, g, "trained")], h, g)
        recomputed = evaluate(layer, h, held_out, model.field_codes)
        recorded = entries[(h, g)]["heldout"]
        for name, value in recorded["best_score"].items():
            assert recomputed["best_score"][name] == pytest.approx(value, abs=1e-3), (h, g, name)
        for name, value in recorded["own"]["best_score"].items():
            assert recomputed["own"]["best_score"][name] == pytest.approx(value, abs=1e-3), (h, g, name)
        assert recomputed["best_head"] == recorded["best_head"]
