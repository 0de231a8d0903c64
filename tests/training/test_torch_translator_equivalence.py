"""The numpy translator the server runs equals its PyTorch original, where torch is installed."""

import numpy as np
import pytest

from app.models.translator.committed import get_translator
from app.models.translator.words import BOS

torch = pytest.importorskip("torch")

SENTENCES = [
    "the river bank was steep",
    "a farmer sold the bat near the cave",
    "the three young queens gave their new red hats to the old kings of the castle",
    "we slept",
]


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_numpy_decoder_logits_equal_pytorchs(dtype: "torch.dtype") -> None:
    from training.train_translator import TorchTranslator

    model = get_translator()
    t = model.translator
    reference = TorchTranslator(
        len(t.source_vocabulary),
        len(t.target_vocabulary),
        t.d_model,
        t.heads,
        t.encoder_layers,
        t.decoder_layers,
        int(t.params["dec0.ff_w1"].shape[1]),
    ).to(dtype)
    reference.load_numpy(t.params)
    for sentence in SENTENCES:
        words = sentence.split()
        source_ids = t.source_ids(words)
        result = t.translate(words)
        ids = [t.target_index[BOS]] + [t.target_index[w] for w in result.target]
        ours = t.forward(t.encode(source_ids), ids)
        source = torch.tensor([source_ids])
        with torch.no_grad():
            memory = reference.encode(source, torch.zeros_like(source, dtype=torch.bool))
            logits, selfs, crosses = reference.decode(
                memory, torch.zeros_like(source, dtype=torch.bool), torch.tensor([ids])
            )
        np.testing.assert_allclose(ours.logits, logits[0].double().numpy(), rtol=0, atol=1e-4)
        for layer in range(t.decoder_layers):
            np.testing.assert_allclose(ours.self_attention[layer], selfs[layer][0].numpy(), rtol=0, atol=1e-5)
            np.testing.assert_allclose(
                ours.cross_attention[layer], crosses[layer][0].numpy(), rtol=0, atol=1e-5
            )
