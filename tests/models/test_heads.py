"""The committed relation heads: what figure 1 claims about them, measured on held-out sentences.

The story on each test set, and the forty written sentences, are tests/models/test_story.py's."""

import json

import numpy as np
import pytest

from app.config import get_settings
from app.models.heads import VALID_HEADS, RelationHeads
from app.models.relations import D_MODEL, RELATIONS, SIGNATURE_DIM
from training.evaluation import evaluate, head_spread
from training.relation_corpus import heldout_sentences, novel_sentences, training_sentences

CURVE = json.loads((get_settings().weights_dir / "relations_curve.json").read_text())


MODEL = "relation heads"  # what the `model` fixture (tests/models/conftest.py) hands these tests


@pytest.fixture(scope="module")
def fresh_heldout() -> list[list[str]]:
    """Sentences made of words the training never saw, from a seed the training script does not use."""
    return novel_sentences(300, seed=7)


def scores(model: RelationHeads, heads: int, sentences: list[list[str]], trained: bool = True) -> dict:
    layer = model.layers[(heads, "trained" if trained else "init")]
    return evaluate(layer, heads, sentences, model.field_codes)


def test_every_head_count_has_trained_and_initial_weights(model: RelationHeads) -> None:
    for h in VALID_HEADS:
        trained, init = model.layers[(h, "trained")], model.layers[(h, "init")]
        assert trained.w_q.shape == (D_MODEL, D_MODEL)
        assert trained.w_o.shape == (D_MODEL, SIGNATURE_DIM * len(RELATIONS))
        assert not np.allclose(trained.w_q, init.w_q)


def test_one_head_cannot_serve_all_three_relations(model: RelationHeads, fresh_heldout: list) -> None:
    """One row of weight per word cannot go to three different partners: on new sentences the lone head
    leaves at least one relation below half of its words' weight."""
    best = sorted(scores(model, 1, fresh_heldout)["best_score"].values())
    assert sum(s >= 0.8 for s in best) <= 2, best
    assert best[0] <= 0.5, best


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
    novel = novel_sentences(CURVE["novel_sentences"])
    assert [entry["heads"] for entry in CURVE["heads"]] == VALID_HEADS
    for entry in CURVE["heads"][:3]:
        for name, sentences in (("heldout", held_out), ("novel", novel)):
            recomputed = scores(model, entry["heads"], sentences)
            for relation, value in entry[name]["best_score"].items():
                assert recomputed["best_score"][relation] == pytest.approx(value, abs=1e-3)
            for relation, value in entry[name]["own"]["best_score"].items():
                assert recomputed["own"]["best_score"][relation] == pytest.approx(value, abs=1e-3)
            assert recomputed["own"]["words"] == entry[name]["own"]["words"]


def test_head_spread_measures_disagreement() -> None:
    same = np.full((3, 4, 4), 0.25)
    assert head_spread(same) == 0.0
    apart = np.stack([np.eye(4), np.roll(np.eye(4), 1, axis=1)])
    assert head_spread(apart) == 1.0


def test_the_capacity_curve_keeps_its_shape() -> None:
    """One head is the worst of h <= 3, the loss bottoms out at a few wide heads (3 to 8, three within 1e-4 of
    the lowest: three heads already carry every relation), and it climbs again as the heads get too narrow to
    carry a question each (24 heads of width 2 are worse than 12 of width 4, and the narrowest of all the
    worst after one head)."""
    loss = {entry["heads"]: entry["final_loss"] for entry in CURVE["heads"]}
    assert loss[1] > loss[2] > loss[3]
    best = min(loss, key=loss.get)
    assert best in (3, 4, 6, 8) and loss[3] <= loss[best] + 1e-4
    assert loss[24] > loss[12] > loss[best]
    assert loss[max(loss)] > loss[24]
