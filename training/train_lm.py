"""Train figure 7's tiny language model four times, once per mask, and write weights and curves.

    pip install -e '.[train]'      # PyTorch, CPU build
    python -m training.train_lm

writes ``app/weights/tiny_lm.npz`` (the four models' parameters and the vocabulary) and
``app/weights/tiny_lm_curves.json`` (train and validation loss every 100 steps, and the share of generated
sentences the grammar accepts, measured with the numpy models the server runs).

The masks: ``neg_inf`` (the causal mask), ``zero`` (``masked_fill(mask, 0)``), ``none``, and ``next_word``
(the off-by-one ``triu(ones, diagonal=2)``, which hides the future except the very next word). All four runs
see the same sentences in the same order from the same initial weights; only the mask differs. Validation
loss is computed the way training computes it, with the model's own mask: that is what makes the leaky
models look healthy.
"""

from __future__ import annotations

import argparse
import random
import time

import numpy as np
import torch

from app.models.lm_grammar import grammatical
from app.models.tiny_lm import (
    BOS,
    CURVES_FILE,
    EOS,
    LAYER_PARAMETERS,
    MAX_POSITIONS,
    PAD,
    WEIGHTS_FILE,
    TinyLM,
)
from app.models.word_pieces import split_words
from training.command import command_line
from training.lm_corpus import learn_vocabulary, split_corpus
from training.steps import reproducible, save
from training.steps import train as train_steps
from training.train_relations import WEIGHTS

# The masks trained, in the order the record lists them (the first three are the original models; each run
# reseeds, so adding one changes none of the others).
MASKS = ("none", "neg_inf", "zero", "next_word")
LABELS = {
    "neg_inf": "−∞ (the causal mask)",
    "zero": "×0 (masked_fill(mask, 0))",
    "none": "no mask",
    "next_word": "off by one (triu diagonal=2: sees the next word)",
}
# Where each mask's hidden future starts: j ≥ i + 1 for the causal mask and ×0; the off-by-one bug
# (diagonal=2) hides only j ≥ i + 2, so every word also reads the word after it.
FUTURE_DIAGONAL = {"neg_inf": 1, "zero": 1, "next_word": 2}
PROMPT = ["the"]


class TorchLM(torch.nn.Module):
    """The network of app.models.tiny_lm, in PyTorch, with a padding mask for batches."""

    def __init__(self, vocab: int, d_model: int, heads: int, layers: int, d_ff: int, mask: str) -> None:
        super().__init__()
        self.heads, self.mask = heads, mask
        self.tok_emb = torch.nn.Parameter(torch.randn(vocab, d_model) * 0.1)
        self.pos_emb = torch.nn.Parameter(torch.randn(MAX_POSITIONS, d_model) * 0.1)
        self.blocks = torch.nn.ModuleList()
        for _ in range(layers):
            block = torch.nn.ParameterDict(
                {
                    "ln1_g": torch.nn.Parameter(torch.ones(d_model)),
                    "ln1_b": torch.nn.Parameter(torch.zeros(d_model)),
                    "w_q": torch.nn.Parameter(torch.randn(d_model, d_model) / d_model**0.5),
                    "w_k": torch.nn.Parameter(torch.randn(d_model, d_model) / d_model**0.5),
                    "w_v": torch.nn.Parameter(torch.randn(d_model, d_model) / d_model**0.5),
                    "w_o": torch.nn.Parameter(torch.randn(d_model, d_model) / d_model**0.5 / layers),
                    "ln2_g": torch.nn.Parameter(torch.ones(d_model)),
                    "ln2_b": torch.nn.Parameter(torch.zeros(d_model)),
                    "ff_w1": torch.nn.Parameter(torch.randn(d_model, d_ff) / d_model**0.5),
                    "ff_b1": torch.nn.Parameter(torch.zeros(d_ff)),
                    "ff_w2": torch.nn.Parameter(torch.randn(d_ff, d_model) / d_ff**0.5 / layers),
                    "ff_b2": torch.nn.Parameter(torch.zeros(d_model)),
                }
            )
            self.blocks.append(block)
        self.ln_f_g = torch.nn.Parameter(torch.ones(d_model))
        self.ln_f_b = torch.nn.Parameter(torch.zeros(d_model))

    def attend(
        self, x: torch.Tensor, p: torch.nn.ParameterDict, pad: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:
        B, T, d = x.shape
        h, d_k = self.heads, d // self.heads

        def split(t: torch.Tensor) -> torch.Tensor:
            return t.view(B, T, h, d_k).transpose(1, 2)  # (B, T, d) -> (B, h, T, d_k)

        q, k, v = split(x @ p["w_q"]), split(x @ p["w_k"]), split(x @ p["w_v"])
        scores = q @ k.transpose(-1, -2) / d_k**0.5  # (B, h, T, T)
        future = torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=FUTURE_DIAGONAL.get(self.mask, 1))
        if self.mask in ("neg_inf", "next_word"):
            scores = scores.masked_fill(future, float("-inf"))
        elif self.mask == "zero":
            scores = scores.masked_fill(future, 0.0)
        scores = scores.masked_fill(pad[:, None, None, :], float("-inf"))  # padding is never a word
        weights = torch.softmax(scores, dim=-1)
        context = (weights @ v).transpose(1, 2).reshape(B, T, d)  # (B, h, T, d_k) -> (B, T, d)
        return context @ p["w_o"], weights

    def forward(self, ids: torch.Tensor, pad: torch.Tensor) -> tuple[torch.Tensor, list[torch.Tensor]]:
        T = ids.shape[1]
        x = self.tok_emb[ids] + self.pos_emb[:T]
        maps = []
        for p in self.blocks:
            a, w = self.attend(
                torch.nn.functional.layer_norm(x, (x.shape[-1],), p["ln1_g"], p["ln1_b"]), p, pad
            )
            x = x + a
            hidden = torch.nn.functional.layer_norm(x, (x.shape[-1],), p["ln2_g"], p["ln2_b"])
            x = x + torch.relu(hidden @ p["ff_w1"] + p["ff_b1"]) @ p["ff_w2"] + p["ff_b2"]
            maps.append(w)
        x = torch.nn.functional.layer_norm(x, (x.shape[-1],), self.ln_f_g, self.ln_f_b)
        return x @ self.tok_emb.T, maps

    @classmethod
    def of(cls, model: TinyLM) -> TorchLM:
        """The PyTorch network holding a numpy model's weights (in float64; ``.to(dtype)`` for another)."""
        d_model = model.params["tok_emb"].shape[1]
        d_ff = model.params["layer0.ff_b1"].shape[0]
        network = cls(len(model.vocabulary), d_model, model.heads, model.layers, d_ff, model.mask).double()
        with torch.no_grad():
            for name, value in model.params.items():
                if name.startswith("layer"):
                    layer, key = name.removeprefix("layer").split(".")
                    network.blocks[int(layer)][key].copy_(torch.from_numpy(value))
                else:
                    getattr(network, name).copy_(torch.from_numpy(value))
        return network

    def numpy_params(self) -> dict[str, np.ndarray]:
        out = {
            "tok_emb": self.tok_emb,
            "pos_emb": self.pos_emb,
            "ln_f_g": self.ln_f_g,
            "ln_f_b": self.ln_f_b,
        }
        for layer, p in enumerate(self.blocks):
            out.update({f"layer{layer}.{name}": p[name] for name in LAYER_PARAMETERS})
        return {k: v.detach().numpy().astype(np.float64) for k, v in out.items()}


def batches(
    sentences: list[list[str]], index: dict[str, int]
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Inputs (BOS + words), targets (words + EOS) and the padding mask, padded to the longest sentence."""
    T = max(len(s) for s in sentences) + 1
    inputs = torch.full((len(sentences), T), index[PAD])
    targets = torch.full((len(sentences), T), -100)  # -100: ignored by cross_entropy
    for b, words in enumerate(sentences):
        ids = [index[BOS]] + [index[w] for w in words] + [index[EOS]]  # words: a sentence's pieces
        inputs[b, : len(ids) - 1] = torch.tensor(ids[:-1])
        targets[b, : len(ids) - 1] = torch.tensor(ids[1:])
    return inputs, targets, inputs == index[PAD]


def loss_on(model: TorchLM, data: tuple[torch.Tensor, torch.Tensor, torch.Tensor]) -> torch.Tensor:
    inputs, targets, pad = data
    logits, _ = model(inputs, pad)
    return torch.nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1))


def grammatical_share(model: TinyLM, samples: int, seed: int) -> float:
    rng = np.random.default_rng(seed)
    made = [model.generate(PROMPT, "sample", rng) for _ in range(samples)]
    return sum(grammatical(words) for words in made) / samples


def shuffled_share(sentences: list[list[str]]) -> float:
    rng = random.Random(0)
    return round(sum(grammatical(rng.sample(words, len(words))) for words in sentences) / len(sentences), 4)


def fit(
    mask: str,
    args: argparse.Namespace,
    vocab_size: int,
    train: list[list[str]],
    index: dict[str, int],
    validation_data: tuple[torch.Tensor, torch.Tensor, torch.Tensor],
) -> tuple[TorchLM, dict[str, list[float]]]:
    """One model trained with ``mask``, from the same initial weights and on the same batches as every other
    mask's, and its curves: the training and the validation loss every 100 steps."""
    torch.manual_seed(0)
    model = TorchLM(vocab_size, args.d_model, args.heads, args.layers, args.d_ff, mask)
    optimiser = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.01)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimiser, max_lr=3e-3, total_steps=args.steps)
    curves: dict[str, list[float]] = {"step": [], "train": [], "validation": []}

    def report(step: int, mean: float) -> None:
        with torch.no_grad():
            val = float(loss_on(model, validation_data))
        curves["step"].append(step)
        curves["train"].append(round(mean, 5))
        curves["validation"].append(round(val, 5))

    train_steps(
        optimiser,
        schedule,
        lambda picks: loss_on(model, batches([train[k] for k in picks], index)),
        examples=len(train),
        steps=args.steps,
        batch_size=args.batch_size,
        seed=1,
        every=100,
        report=report,
    )
    return model, curves


def main() -> None:
    parser = command_line(
        __doc__,
        steps=8000,
        batch_size=64,
        train=150000,
        validation=1000,
        pieces=200,
        samples=300,
        d_model=96,
        heads=2,
        layers=2,
        d_ff=192,
    )
    args = parser.parse_args()
    reproducible()

    train_words, validation_words = split_corpus(args.train, args.validation)
    vocabulary = learn_vocabulary(train_words, args.pieces)
    index = {w: k for k, w in enumerate(vocabulary)}

    def cut(corpus: list[list[str]]) -> list[tuple[list[str], list[str]]]:  # (words, pieces) that fit
        split = ((words, split_words(words, index)[0]) for words in corpus)
        return [(words, pieces) for words, pieces in split if len(pieces) < MAX_POSITIONS - 1]

    kept = cut(train_words)
    train, validation = [p for _, p in kept], [p for _, p in cut(validation_words)]
    kept_words = sum(len(words) for words, _ in kept)
    validation_data = batches(validation, index)
    arrays: dict[str, np.ndarray] = {"vocabulary": np.array(vocabulary), "heads": np.array(args.heads)}
    record: dict[str, object] = {
        "prompt": " ".join(PROMPT),
        "d_model": args.d_model,
        "layers": args.layers,
        "heads": args.heads,
        "vocab_size": len(vocabulary),
        "pieces_per_word": round(sum(map(len, train)) / kept_words, 3),
        "train_sentences": len(train),
        "validation_sentences": len(validation),
        "steps": args.steps,
        # How much the grammar's check says: the share of the validation sentences, each with its words
        # shuffled, that it still accepts (it accepts every unshuffled one by construction).
        "shuffled_accepted": shuffled_share(validation_words),
        "models": [],
    }
    for mask in MASKS:
        started = time.time()
        model, curves = fit(mask, args, len(vocabulary), train, index, validation_data)
        params = model.numpy_params()
        for name, value in params.items():
            arrays[f"{mask}/{name}"] = value.astype(np.float32)
        served = TinyLM(
            mask,
            {k: v.astype(np.float32).astype(np.float64) for k, v in params.items()},
            args.heads,
            vocabulary,
        )
        share = grammatical_share(served, args.samples, seed=0)
        greedy = " ".join(served.generate(PROMPT, "greedy"))
        record["models"].append(  # type: ignore[attr-defined]
            {
                "mask": mask,
                "label": LABELS[mask],
                "curves": curves,
                "final_train": curves["train"][-1],
                "final_validation": curves["validation"][-1],
                "grammatical_share": share,
                "samples_measured": args.samples,
                "greedy": greedy,
                "seconds": round(time.time() - started, 1),
            }
        )
        print(
            f"{mask:9s} train={curves['train'][-1]:.3f} validation={curves['validation'][-1]:.3f} "
            f"grammatical={share:.0%} greedy={greedy!r} {time.time() - started:.0f}s",
            flush=True,
        )

    save(WEIGHTS / WEIGHTS_FILE, arrays, WEIGHTS / CURVES_FILE, record)


if __name__ == "__main__":
    main()
