"""The committed relation heads: what figure 1 claims about them, measured on held-out sentences."""

import json

import numpy as np
import pytest

from app.config import get_settings
from app.models.heads import VALID_HEADS, RelationHeads, get_relation_heads
from training.evaluation import evaluate, head_spread
from training.relation_corpus import heldout_sentences, training_sentences

CURVE = json.loads((get_settings().weights_dir / "relations_curve.json").read_text())


@pytest.fixture(scope="module")
def model() -> RelationHeads:
    return get_relation_heads()


@pytest.fixture(scope="module")
def fresh_heldout() -> list[list[str]]:
    """Sentences the training never saw, from a seed the training script does not use."""
    seen = frozenset(" ".join(s) for s in training_sentences(CURVE["train_sentences"]))
    return heldout_sentences(300, exclude=seen, seed=7)


def scores(model: RelationHeads, heads: int, sentences: list[list[str]], trained: bool = True) -> dict:
    layer = model.layers[(heads, "trained" if trained else "init")]
    return evaluate(layer, heads, sentences, model.field_codes)


def test_every_head_count_has_trained_and_initial_weights(model: RelationHeads) -> None:
    for h in VALID_HEADS:
        trained, init = model.layers[(h, "trained")], model.layers[(h, "init")]
        assert trained.w_q.shape == (24, 24) and trained.w_o.shape == (24, 12)
        assert not np.allclose(trained.w_q, init.w_q)


def test_one_head_cannot_serve_all_three_relations(model: RelationHeads, fresh_heldout: list) -> None:
    best = sorted(scores(model, 1, fresh_heldout)["best_score"].values())
    assert sum(s >= 0.8 for s in best) <= 1, best
    assert best[0] <= 0.4, best


def test_one_heads_position_score_on_the_default_sentence_is_borrowed(model: RelationHeads) -> None:
    """On "the river bank was steep" the one head scores position near 0.49, above the 0.4 it reaches on
    held-out sentences. The score is borrowed: two of the four previous-word targets (bank -> river,
    was -> bank) are also meaning or grammar targets. On the previous-word targets that belong to position
    alone (river -> the, steep -> was) the head puts almost nothing."""
    words = "the river bank was steep".split()
    analysis, x = model.inputs(words)
    weights = model.weights(x, 1, "none", trained=True)[0]
    position = set(analysis.targets["position"])
    others = set(analysis.targets["meaning"]) | set(analysis.targets["grammar"])
    shared, own = sorted(position & others), sorted(position - others)
    assert shared == [(2, 1), (3, 2)] and own == [(1, 0), (4, 3)]
    assert np.mean([weights[i, j] for i, j in own]) <= 0.2
    assert np.mean([weights[i, j] for i, j in shared]) >= 0.75
    assert np.mean([weights[i, j] for i, j in position]) > 0.4  # why the default sentence misses 0.4


@pytest.mark.parametrize("heads", [3, 4, 6])
def test_several_heads_specialise(model: RelationHeads, fresh_heldout: list, heads: int) -> None:
    """With 3 heads, and with every head count whose heads are at least 4 wide, each relation has its own
    best head, and that head puts at least 0.8 of its weight on the relation's targets."""
    result = scores(model, heads, fresh_heldout)
    assert len(set(result["best_head"].values())) == 3, result["best_head"]
    assert min(result["best_score"].values()) >= 0.8, result["best_score"]


def test_untrained_heads_ask_nearly_the_same_question(model: RelationHeads, fresh_heldout: list) -> None:
    for heads in (3, 6, 12):
        untrained = scores(model, heads, fresh_heldout, trained=False)["head_spread"]
        trained = scores(model, heads, fresh_heldout)["head_spread"]
        assert untrained < 0.1 < 0.5 < trained, (heads, untrained, trained)


def test_the_committed_curve_matches_the_committed_weights(model: RelationHeads) -> None:
    seen = frozenset(" ".join(s) for s in training_sentences(CURVE["train_sentences"]))
    held_out = heldout_sentences(CURVE["heldout_sentences"], exclude=seen | {"the river bank was steep"})
    assert [entry["heads"] for entry in CURVE["heads"]] == VALID_HEADS
    for entry in CURVE["heads"][:3]:
        recomputed = scores(model, entry["heads"], held_out)
        for name, value in entry["heldout"]["best_score"].items():
            assert recomputed["best_score"][name] == pytest.approx(value, abs=1e-3)
        for name, value in entry["heldout"]["own"]["best_score"].items():
            assert recomputed["own"]["best_score"][name] == pytest.approx(value, abs=1e-3)
        assert recomputed["own"]["pairs"] == entry["heldout"]["own"]["pairs"]


def test_head_spread_measures_disagreement() -> None:
    same = np.full((3, 4, 4), 0.25)
    assert head_spread(same) == 0.0
    apart = np.stack([np.eye(4), np.roll(np.eye(4), 1, axis=1)])
    assert head_spread(apart) == 1.0
