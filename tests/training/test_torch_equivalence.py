"""The numpy layer the server runs equals the PyTorch layer it was trained as (where PyTorch is installed)."""

import numpy as np
import pytest

from app.models.heads import PROJECTIONS, VALID_HEADS, get_relation_heads

torch = pytest.importorskip("torch")

SENTENCES = [
    "the river bank was steep",
    "she sold the old bat near the cave",
    "the zorblax by the lake was wet and the spring was cold",
]


@pytest.mark.parametrize("heads", VALID_HEADS)
def test_numpy_inference_equals_pytorch(heads: int) -> None:
    from app.core.attention import multi_head_attention
    from training.train_relations import RelationLayer

    model = get_relation_heads()
    layer = model.layers[(heads, "trained")]
    reference = RelationLayer(heads, torch.Generator().manual_seed(0))
    with torch.no_grad():
        for name in PROJECTIONS:
            getattr(reference, name).copy_(torch.from_numpy(getattr(layer, name)))
    for sentence in SENTENCES:
        _, x = model.inputs(sentence.split())
        ours = multi_head_attention(x, layer.w_q, layer.w_k, layer.w_v, heads, w_o=layer.w_o)
        with torch.no_grad():
            out, weights = reference(torch.from_numpy(x)[None])
        np.testing.assert_allclose(ours.stages.weights, weights[0].numpy(), rtol=0, atol=1e-10)
        np.testing.assert_allclose(ours.output, out[0].numpy(), rtol=0, atol=1e-10)
