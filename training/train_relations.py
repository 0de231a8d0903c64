"""Train figure 1's relation heads, one layer for every head count, and write the weights and curve.

    pip install -e '.[train]'      # PyTorch, CPU build
    python -m training.train_relations

writes ``app/weights/relations.npz`` (trained and initial projections for h = 1, 2, 3, 4, 6, 8, 12, 24, and
the field codes) and ``app/weights/relations_curve.json`` (final training loss and held-out scores per h).

The layer reads each token's 24 input numbers and must output, for each of the three relations, the
4-number signature of the token that relation points at. The loss is the squared error of that output,
averaged over each relation's own targets and then summed with equal weight, so the rare meaning relation
counts as much as position, which every word has. The loss never looks at the attention weights: which
head ends up serving which relation is up to the optimiser. For each h several seeds are trained and the
one with the lowest training loss is kept.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch

from app.core.attention import valid_head_counts
from app.models.heads import PROJECTIONS, Layer
from app.models.lexicon import FIELDS
from app.models.relations import D_MODEL, RELATIONS, SIGNATURE_DIM, SIGNATURE_SLICE, analyse, features
from training.command import command_line
from training.evaluation import evaluate
from training.relation_corpus import heldout_sentences, spread_field_codes, training_sentences

WEIGHTS = Path(__file__).resolve().parent.parent / "app" / "weights"
DEFAULT_SENTENCE = ["the", "river", "bank", "was", "steep"]
D_OUT = SIGNATURE_DIM * len(RELATIONS)


def encode(batch: list[list[str]], field_codes: dict[str, np.ndarray]) -> dict[str, torch.Tensor]:
    """Pad a batch: inputs (B, T, 24), key padding (B, T), targets (B, T, 12), their loss mask (B, T, 3)."""
    B, T = len(batch), max(len(s) for s in batch)
    x = np.zeros((B, T, D_MODEL))
    pad = np.ones((B, T), dtype=bool)
    y = np.zeros((B, T, len(RELATIONS), SIGNATURE_DIM))
    m = np.zeros((B, T, len(RELATIONS)))
    for b, words in enumerate(batch):
        analysis = analyse(words)
        n = len(words)
        x[b, :n] = features(analysis, field_codes)
        pad[b, :n] = False
        for r, name in enumerate(RELATIONS):
            for i, j in analysis.targets[name]:
                y[b, i, r] = x[b, j, SIGNATURE_SLICE]
                m[b, i, r] = 1.0
    return {
        "x": torch.tensor(x, dtype=torch.float64),
        "pad": torch.tensor(pad),
        "y": torch.tensor(y.reshape(B, T, D_OUT), dtype=torch.float64),
        "m": torch.tensor(m, dtype=torch.float64),
    }


class RelationLayer(torch.nn.Module):
    """One multi-head attention layer without biases: the same maths as app.core.attention, in PyTorch.

    With ``kv_heads`` = g below ``heads`` = h, the h query heads share g key/value heads (grouped-query
    attention; g = 1 is multi-query): W_K and W_V are d_model × g·d_k instead of d_model × d_model, and query
    head i reads key/value head i // (h/g). g = h (the default) is the ordinary layer, computed as before.
    """

    def __init__(self, heads: int, generator: torch.Generator, kv_heads: int | None = None) -> None:
        super().__init__()
        self.heads = heads
        self.kv_heads = heads if kv_heads is None else kv_heads
        if self.kv_heads < 1 or heads % self.kv_heads:
            raise ValueError(f"kv_heads must divide heads = {heads} (got {self.kv_heads})")
        bound = 1.0 / np.sqrt(D_MODEL)  # the uniform range torch.nn.Linear starts from
        kv_width = self.kv_heads * (D_MODEL // heads)

        def init(rows: int, cols: int) -> torch.nn.Parameter:
            w = (torch.rand(rows, cols, generator=generator, dtype=torch.float64) * 2 - 1) * bound
            return torch.nn.Parameter(w)

        # drawn in this order whatever g is, so that g = h draws exactly the ordinary layer's numbers
        self.w_q = init(D_MODEL, D_MODEL)
        self.w_k, self.w_v = init(D_MODEL, kv_width), init(D_MODEL, kv_width)
        self.w_o = init(D_MODEL, D_OUT)

    def forward(self, x: torch.Tensor, pad: torch.Tensor | None = None) -> tuple[torch.Tensor, torch.Tensor]:
        B, T, d_model = x.shape
        h, g, d_k = self.heads, self.kv_heads, d_model // self.heads

        def split(t: torch.Tensor, n: int) -> torch.Tensor:
            return t.view(B, T, n, d_k).transpose(1, 2)  # (B, T, n·d_k) -> (B, n, T, d_k)

        q, k, v = split(x @ self.w_q, h), split(x @ self.w_k, g), split(x @ self.w_v, g)
        if g < h:  # key/value head j serves the h/g query heads j·h/g … (j+1)·h/g - 1
            k, v = k.repeat_interleave(h // g, dim=1), v.repeat_interleave(h // g, dim=1)  # -> (B, h, T, d_k)
        scores = q @ k.transpose(-1, -2) / np.sqrt(d_k)  # (B, h, T, T)
        if pad is not None:
            scores = scores.masked_fill(pad[:, None, None, :], float("-inf"))
        weights = torch.softmax(scores, dim=-1)
        context = (weights @ v).transpose(1, 2).reshape(B, T, d_model)  # (B, h, T, d_k) -> (B, T, d_model)
        return context @ self.w_o, weights


def loss_fn(out: torch.Tensor, batch: dict[str, torch.Tensor], relation_weight: torch.Tensor) -> torch.Tensor:
    B, T, _ = out.shape
    err = ((out - batch["y"]) ** 2).view(B, T, len(RELATIONS), SIGNATURE_DIM).sum(-1)  # (B, T, 3)
    per_relation = (err * batch["m"]).sum((0, 1)) / batch["m"].sum((0, 1)).clamp(min=1)
    return (per_relation * relation_weight).sum()


def train_one(
    heads: int,
    seed: int,
    data: dict[str, torch.Tensor],
    steps: int,
    batch_size: int,
    relation_weight: torch.Tensor,
    kv_heads: int | None = None,
) -> tuple[RelationLayer, dict[str, torch.Tensor], float]:
    """One seed's run: the layer after ``steps`` Adam steps, its initial projections, its final loss over
    the whole training set. ``kv_heads`` below ``heads`` shares keys and values (RelationLayer)."""
    generator = torch.Generator().manual_seed(seed)
    layer = RelationLayer(heads, generator, kv_heads)
    initial = {p: getattr(layer, p).detach().clone() for p in PROJECTIONS}
    optimiser = torch.optim.Adam(layer.parameters(), lr=0.03)
    schedule = torch.optim.lr_scheduler.CosineAnnealingLR(optimiser, T_max=steps, eta_min=1e-3)
    n = data["x"].shape[0]
    for _ in range(steps):
        idx = torch.randint(0, n, (batch_size,), generator=generator)
        batch = {key: value[idx] for key, value in data.items()}
        out, _ = layer(batch["x"], batch["pad"])
        loss = loss_fn(out, batch, relation_weight)
        optimiser.zero_grad()
        loss.backward()
        optimiser.step()
        schedule.step()
    with torch.no_grad():
        out, _ = layer(data["x"], data["pad"])
        final = float(loss_fn(out, data, relation_weight))
    return layer, initial, final


def prepare(
    train_size: int, heldout_size: int, weighting: str = "per-relation"
) -> tuple[dict[str, np.ndarray], list[list[str]], list[list[str]], dict[str, torch.Tensor], torch.Tensor]:
    """What every run trains and is measured on: the field codes, the training sentences, the held-out ones
    (none of them a training sentence or the default sentence), the encoded training set and the relations'
    weights in the loss."""
    field_codes = spread_field_codes(FIELDS)
    train = training_sentences(train_size)
    seen = {" ".join(s) for s in train} | {" ".join(DEFAULT_SENTENCE)}
    held_out = heldout_sentences(heldout_size, exclude=frozenset(seen))

    data = encode(train, field_codes)
    if weighting == "per-relation":
        relation_weight = torch.full((len(RELATIONS),), 1.0 / len(RELATIONS), dtype=torch.float64)
    else:  # every target counts once: relations weigh as much as they have targets
        frequency = data["m"].sum((0, 1))
        relation_weight = frequency / frequency.sum()
    return field_codes, train, held_out, data, relation_weight


def train_kept(
    heads: int,
    data: dict[str, torch.Tensor],
    steps: int,
    batch_size: int,
    relation_weight: torch.Tensor,
    seeds: int,
    kv_heads: int | None = None,
) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray], list[float], int]:
    """Seeds 0 .. seeds-1 trained (``train_one``), and the one with the lowest final training loss kept: its
    trained and initial projections as numpy arrays, every seed's final loss, and the seed kept."""
    runs = [
        train_one(heads, seed, data, steps, batch_size, relation_weight, kv_heads) for seed in range(seeds)
    ]
    losses = [final for _, _, final in runs]
    best_seed = int(np.argmin(losses))
    layer, initial, _ = runs[best_seed]
    trained = {p: getattr(layer, p).detach().numpy().copy() for p in PROJECTIONS}
    init = {p: initial[p].numpy().copy() for p in PROJECTIONS}
    return trained, init, losses, best_seed


def measured(
    trained: Layer,
    init: Layer,
    heads: int,
    held_out: list[list[str]],
    field_codes: dict[str, np.ndarray],
    losses: list[float],
    best_seed: int,
    started: float,
) -> dict[str, Any]:
    """What the record keeps of a kept layer (``train_kept``), in the record's order: its final loss, every
    seed's, the seed kept, its held-out scores, the untrained layer's head spread, its best scores on the
    default sentence, and the seconds since ``started``."""
    return {
        "final_loss": losses[best_seed],
        "seed_losses": losses,
        "seed": best_seed,
        "heldout": evaluate(trained, heads, held_out, field_codes),
        "untrained_head_spread": evaluate(init, heads, held_out, field_codes)["head_spread"],
        "default_sentence": evaluate(trained, heads, [DEFAULT_SENTENCE], field_codes)["best_score"],
        "seconds": round(time.time() - started, 1),
    }


def main() -> None:
    parser = command_line(__doc__, steps=2500, seeds=3, train_size=6000, heldout_size=500, batch_size=128)
    parser.add_argument("--weighting", choices=("per-relation", "per-target"), default="per-relation")
    parser.add_argument(
        "--heads", type=int, nargs="*", default=None, help="try only these head counts; writes nothing"
    )
    args = parser.parse_args()
    torch.set_num_threads(2)

    field_codes, train, held_out, data, relation_weight = prepare(
        args.train_size, args.heldout_size, args.weighting
    )
    arrays: dict[str, np.ndarray] = {
        "field_names": np.array(FIELDS),
        "field_codes": np.stack([field_codes[f] for f in FIELDS]),
    }
    curve: dict[str, object] = {
        "d_model": D_MODEL,
        "relations": list(RELATIONS),
        "relation_weight": dict(zip(RELATIONS, relation_weight.tolist(), strict=True)),
        "train_sentences": len(train),
        "heldout_sentences": len(held_out),
        "steps": args.steps,
        "seeds": args.seeds,
        "selection": "lowest final training loss over the seeds",
        "weighting": "squared error averaged per relation over its own targets; relations weighted equally",
        "heads": [],
    }
    for heads in args.heads or valid_head_counts(D_MODEL):
        started = time.time()
        trained, init, losses, best_seed = train_kept(
            heads, data, args.steps, args.batch_size, relation_weight, args.seeds
        )
        final = losses[best_seed]
        for p in PROJECTIONS:
            arrays[f"trained/{heads}/{p}"] = trained[p]
            arrays[f"init/{heads}/{p}"] = init[p]
        entry = {
            "heads": heads,
            "head_width": D_MODEL // heads,
            **measured(
                Layer(**trained), Layer(**init), heads, held_out, field_codes, losses, best_seed, started
            ),
        }
        curve["heads"].append(entry)  # type: ignore[attr-defined]
        scores, default = entry["heldout"], entry["default_sentence"]
        print(
            f"h={heads:2d} loss={final:.4f} seeds={[round(loss, 4) for loss in losses]} "
            f"best={scores['best_head']} "
            f"scores={ {k: round(v, 3) for k, v in scores['best_score'].items()} } "
            f"spread={scores['head_spread']:.3f} (untrained {entry['untrained_head_spread']:.3f}) "
            f"default={ {k: round(v, 3) for k, v in default.items()} } "
            f"{entry['seconds']}s",
            flush=True,
        )

    if args.heads:
        print("a partial run (--heads) writes nothing")
        return
    WEIGHTS.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(
        WEIGHTS / "relations.npz",
        **{k: v.astype(np.float32) if v.dtype.kind == "f" else v for k, v in arrays.items()},
    )
    (WEIGHTS / "relations_curve.json").write_text(json.dumps(curve, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
