"""The numpy layers whose query heads share key/value heads equal the PyTorch layers they were trained as, and
the committed initial projections are what each kept seed draws (where PyTorch is installed)."""

import json

import numpy as np
import pytest

from app.config import get_settings
from app.models.heads import PROJECTIONS, get_relation_heads
from tests.training.test_torch_equivalence import assert_equals_pytorch

torch = pytest.importorskip("torch")

RECORD = json.loads((get_settings().weights_dir / "relations_shared_curve.json").read_text())
SHARED = [(e["heads"], e["kv_heads"], e["seed"]) for e in RECORD["layers"] if e["kv_heads"] < e["heads"]]


@pytest.mark.parametrize(("heads", "kv_heads", "seed"), SHARED)
def test_numpy_inference_equals_pytorch(heads: int, kv_heads: int, seed: int) -> None:
    """The server's weights (keys repeated per group) and app.core.attention on the widened layer (weights
    and output) against RelationLayer with kv_heads, on the committed trained projections."""
    model = get_relation_heads()
    layer = model.shared_layers[(heads, kv_heads, "trained")]
    for x, weights in assert_equals_pytorch(model, layer, heads, kv_heads):
        served = model.weights(x, heads, "none", True, kv_heads)
        np.testing.assert_allclose(served, weights, rtol=0, atol=1e-10)


@pytest.mark.parametrize(("heads", "kv_heads", "seed"), SHARED)
def test_the_initial_projections_are_the_kept_seeds_draw(heads: int, kv_heads: int, seed: int) -> None:
    from training.train_relations import RelationLayer

    drawn = RelationLayer(heads, torch.Generator().manual_seed(seed), kv_heads)
    init = get_relation_heads().shared_layers[(heads, kv_heads, "init")]
    for name in PROJECTIONS:
        expected = getattr(drawn, name).detach().numpy().astype(np.float32)
        np.testing.assert_array_equal(getattr(init, name), expected, err_msg=name)


def test_sharing_with_g_equal_to_h_draws_the_ordinary_layer() -> None:
    """RelationLayer with kv_heads = h starts from the very numbers the ordinary layer started from: the
    committed relations.npz initial projections of each kept seed."""
    from training.train_relations import RelationLayer

    model = get_relation_heads()
    curve = json.loads((get_settings().weights_dir / "relations_curve.json").read_text())
    for entry in curve["heads"]:
        h = entry["heads"]
        drawn = RelationLayer(h, torch.Generator().manual_seed(entry["seed"]), kv_heads=h)
        for name in PROJECTIONS:
            expected = getattr(drawn, name).detach().numpy().astype(np.float32)
            np.testing.assert_array_equal(
                getattr(model.layers[(h, "init")], name), expected, err_msg=(h, name)
            )
