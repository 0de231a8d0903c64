"""The numpy language models equal their PyTorch originals (where PyTorch is installed)."""

import numpy as np
import pytest

from app.models.tiny_lm import MODEL_ORDER, get_tiny_lms

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("mask", MODEL_ORDER)
def test_numpy_logits_and_attention_equal_pytorch(mask: str) -> None:
    from training.train_lm import MASKS, TorchLM

    assert mask in MASKS, f"training/train_lm.py trains no {mask!r} model"
    model = get_tiny_lms().models[mask]
    reference = TorchLM.of(model)
    ids = model.encode("the old farmer sold the horse near a zorbly barn".split())  # a word in pieces too
    ours = model.forward(ids)
    with torch.no_grad():
        logits, maps = reference(torch.tensor([ids]), torch.zeros(1, len(ids), dtype=torch.bool))
    np.testing.assert_allclose(ours.logits, logits[0].numpy(), atol=1e-9)
    np.testing.assert_allclose(ours.attention, torch.stack([m[0] for m in maps]).numpy(), atol=1e-12)
