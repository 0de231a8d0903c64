"""The numpy layer the server runs equals the PyTorch layer it was trained as (where PyTorch is installed).
assert_equals_pytorch serves test_torch_sharing_equivalence.py too."""

import numpy as np
import pytest

from app.core.attention import multi_head_attention
from app.models.heads import PROJECTIONS, VALID_HEADS, Layer, RelationHeads, as_multi_head, get_relation_heads

torch = pytest.importorskip("torch")

SENTENCES = [
    "the river bank was steep",
    "she sold the old bat near the cave",
    "the zorblax by the lake was wet and the spring was cold",
]


def assert_equals_pytorch(
    model: RelationHeads, layer: Layer, heads: int, kv_heads: int | None = None
) -> list[tuple[np.ndarray, np.ndarray]]:
    """app.core.attention on ``layer`` (its key and value heads repeated, one per query head) gives the
    weights and output of training.train_relations.RelationLayer holding ``layer``'s projections, on each of
    SENTENCES; each sentence's input and the weights PyTorch gave it."""
    from training.train_relations import RelationLayer

    reference = RelationLayer(heads, torch.Generator().manual_seed(0), kv_heads)
    with torch.no_grad():
        for name in PROJECTIONS:
            getattr(reference, name).copy_(torch.from_numpy(getattr(layer, name)))
    wide = layer if kv_heads is None else as_multi_head(layer, heads, kv_heads)
    compared = []
    for sentence in SENTENCES:
        _, x = model.inputs(sentence.split())
        ours = multi_head_attention(x, wide.w_q, wide.w_k, wide.w_v, heads, w_o=wide.w_o)
        with torch.no_grad():
            out, weights = reference(torch.from_numpy(x)[None])
        np.testing.assert_allclose(ours.stages.weights, weights[0].numpy(), rtol=0, atol=1e-10)
        np.testing.assert_allclose(ours.output, out[0].numpy(), rtol=0, atol=1e-10)
        compared.append((x, weights[0].numpy()))
    return compared


@pytest.mark.parametrize("heads", VALID_HEADS)
def test_numpy_inference_equals_pytorch(heads: int) -> None:
    model = get_relation_heads()
    assert_equals_pytorch(model, model.layers[(heads, "trained")], heads)
