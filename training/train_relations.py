"""Train figure 1's relation heads, one layer for every head count, and write the weights and curve.

    pip install -e '.[train]'      # PyTorch, CPU build
    python -m training.train_relations

writes ``app/weights/relations.npz`` (trained and initial projections for every h that divides d_model = 48,
and the field codes) and ``app/weights/relations_curve.json`` (per h the final training loss and the scores on
two test sets; and figure 1's story measured on three).

The layer reads each token's 48 input numbers (app.models.relations.FEATURE_NAMES) and must output, for each
of the three relations, the 4-number signature of the token that relation points at (the mean of them when a
word has several partners). The loss is the squared error of that output, averaged over each relation's own
targets and then summed with equal weight, so the rare meaning relation counts as much as position, which
every word has. The loss never looks at the attention weights: which head ends up serving which relation is
up to the optimiser. For each h ``RUN["seeds"]`` seeds can be trained and the one with the lowest training
loss kept; the committed run trains one seed for 6,000 steps, which reached a lower loss at three heads than
two seeds of 2,500 steps.

It trains on everyday sentences from training.relation_corpus, made of the words it does not hold out, and is
measured on a held-out sample of the same kind, on sentences held out by construction (made of words
training never saw) and on everyday sentences written by hand with their pairs (training.written).
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch

from app.core.attention import valid_head_counts
from app.models.heads import PROJECTIONS, Layer, RelationHeads
from app.models.lexicon_entries import FIELDS
from app.models.relations import D_MODEL, RELATIONS, SIGNATURE_DIM, SIGNATURE_SLICE, analyse, features
from app.models.verdicts import THRESHOLDS
from training.command import command_line
from training.evaluation import evaluate, meaning_overlap, story
from training.field_codes import spread_field_codes
from training.relation_corpus import heldout_sentences, novel_sentences, training_sentences
from training.relation_words import DEFAULT_SENTENCE, HELD_OUT_PERCENT
from training.written import DEVELOPMENT, WRITTEN
from training.written import load as load_written

WEIGHTS = Path(__file__).resolve().parent.parent / "app" / "weights"
D_OUT = SIGNATURE_DIM * len(RELATIONS)
# How every layer is trained and measured, here and in training.train_sharing (its g = h rows are these runs)
RUN = {
    "steps": 6000,
    "seeds": 1,
    "train_size": 12000,
    "heldout_size": 500,
    "novel_size": 600,
    "batch_size": 128,
}


def encode(batch: list[list[str]], field_codes: dict[str, np.ndarray]) -> dict[str, torch.Tensor]:
    """Pad a batch: inputs (B, T, d_model), key padding (B, T), targets (B, T, 12), their loss mask (B, T, 3).

    A word's target for a relation is its partner's signature, or the mean of its partners' signatures when
    it has several (attention split evenly between them delivers exactly that)."""
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
            for i, j in analysis.targets[name]:  # a word with several partners: the mean of their signatures
                y[b, i, r] += x[b, j, SIGNATURE_SLICE]
                m[b, i, r] += 1.0
    y /= np.maximum(m, 1.0)[..., None]
    m = np.minimum(m, 1.0)
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


@dataclass(frozen=True)
class Prepared:
    """What every run trains and is measured on: the field codes, the training sentences, two test sets (a
    held-out sample of the training distribution, none of it a training sentence or the default sentence; and
    the sentences held out by construction, made of words training never saw), the encoded training set and
    the relations' weights in the loss."""

    field_codes: dict[str, np.ndarray]
    train: list[list[str]]
    held_out: list[list[str]]
    novel: list[list[str]]
    data: dict[str, torch.Tensor]
    relation_weight: torch.Tensor


def prepare(train_size: int, heldout_size: int, novel_size: int, weighting: str = "per-relation") -> Prepared:
    """The sentences, field codes, encoded data and loss weights every run shares (``Prepared``)."""
    field_codes = spread_field_codes(FIELDS)
    train = training_sentences(train_size)
    seen = {" ".join(s) for s in train} | {" ".join(DEFAULT_SENTENCE)}
    held_out = heldout_sentences(heldout_size, exclude=frozenset(seen))
    novel = novel_sentences(novel_size)

    data = encode(train, field_codes)
    if weighting == "per-relation":
        relation_weight = torch.full((len(RELATIONS),), 1.0 / len(RELATIONS), dtype=torch.float64)
    else:  # every target counts once: relations weigh as much as they have targets
        frequency = data["m"].sum((0, 1))
        relation_weight = frequency / frequency.sum()
    return Prepared(field_codes, train, held_out, novel, data, relation_weight)


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
    prepared: Prepared,
    losses: list[float],
    best_seed: int,
    started: float,
) -> dict[str, Any]:
    """What the record keeps of a kept layer (``train_kept``), in the record's order: its final loss, every
    seed's, the seed kept, its scores on the held-out sample and on the set held out by construction, the
    untrained layer's head spread, its best scores on the default sentence, and the seconds since
    ``started``."""
    codes = prepared.field_codes
    return {
        "final_loss": losses[best_seed],
        "seed_losses": losses,
        "seed": best_seed,
        "heldout": evaluate(trained, heads, prepared.held_out, codes),
        "novel": evaluate(trained, heads, prepared.novel, codes),
        "untrained_head_spread": evaluate(init, heads, prepared.held_out, codes)["head_spread"],
        "default_sentence": evaluate(trained, heads, [list(DEFAULT_SENTENCE)], codes)["best_score"],
        "seconds": round(time.time() - started, 1),
    }


def story_record(layers: dict[int, Layer], prepared: Prepared) -> dict[str, Any]:
    """Figure 1's story (training.evaluation.story) on every test set: the held-out sample, the set held out
    by construction, and the sentences written by hand (the eighty written after the rules and the training
    were last changed, and the eighty they were developed on), each on its hand-written pairs and on the
    rules' pairs; and how
    often meaning pairs are also grammar or position pairs."""
    codes = prepared.field_codes
    record: dict[str, Any] = {
        "thresholds": THRESHOLDS,
        "heldout": story(layers, prepared.held_out, codes),
        "novel": story(layers, prepared.novel, codes),
    }
    for name, path in (("written", WRITTEN), ("dev", DEVELOPMENT)):
        if path.is_file():
            written = load_written(path)
            words = [w.words for w in written]
            record[name] = story(layers, words, codes, [w.targets for w in written])
            record[f"{name}_by_the_rules"] = story(layers, words, codes)
    record["meaning_overlap"] = {
        "heldout": meaning_overlap(prepared.held_out),
        "novel": meaning_overlap(prepared.novel),
    }
    return record


def remeasure(prepared: Prepared) -> None:
    """Measure the committed layers' story again (``story_record``) and write it into the record, leaving
    the weights and the rest of the record as they are: for test sets added after training."""
    heads = RelationHeads(WEIGHTS / "relations.npz")
    layers = {h: heads.layers[(h, "trained")] for h in (1, 3)}
    path = WEIGHTS / "relations_curve.json"
    curve = json.loads(path.read_text(encoding="utf-8"))
    curve["story"] = story_record(layers, prepared)
    print("story", json.dumps(curve["story"]), flush=True)
    path.write_text(json.dumps(curve, indent=1) + "\n", encoding="utf-8")


def main() -> None:
    parser = command_line(__doc__, **RUN)
    parser.add_argument("--weighting", choices=("per-relation", "per-target"), default="per-relation")
    parser.add_argument(
        "--heads", type=int, nargs="*", default=None, help="try only these head counts; writes nothing"
    )
    parser.add_argument(
        "--measure", action="store_true", help="train nothing: measure the committed layers' story again"
    )
    args = parser.parse_args()
    torch.set_num_threads(2)

    prepared = prepare(args.train_size, args.heldout_size, args.novel_size, args.weighting)
    if args.measure:
        remeasure(prepared)
        return
    field_codes, relation_weight = prepared.field_codes, prepared.relation_weight
    arrays: dict[str, np.ndarray] = {
        "field_names": np.array(FIELDS),
        "field_codes": np.stack([field_codes[f] for f in FIELDS]),
    }
    curve: dict[str, object] = {
        "d_model": D_MODEL,
        "relations": list(RELATIONS),
        "relation_weight": dict(zip(RELATIONS, relation_weight.tolist(), strict=True)),
        "train_sentences": len(prepared.train),
        "heldout_sentences": len(prepared.held_out),
        "novel_sentences": len(prepared.novel),
        "held_out_words_percent": HELD_OUT_PERCENT,
        "steps": args.steps,
        "seeds": args.seeds,
        "selection": "lowest final training loss over the seeds",
        "weighting": "squared error averaged per relation over its own targets; relations weighted equally",
        "heads": [],
    }
    kept: dict[int, Layer] = {}
    for heads in args.heads or valid_head_counts(D_MODEL):
        started = time.time()
        trained, init, losses, best_seed = train_kept(
            heads, prepared.data, args.steps, args.batch_size, relation_weight, args.seeds
        )
        kept[heads] = Layer(**trained)
        final = losses[best_seed]
        for p in PROJECTIONS:
            arrays[f"trained/{heads}/{p}"] = trained[p]
            arrays[f"init/{heads}/{p}"] = init[p]
        entry = {
            "heads": heads,
            "head_width": D_MODEL // heads,
            **measured(Layer(**trained), Layer(**init), heads, prepared, losses, best_seed, started),
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

    if 1 in kept and 3 in kept:
        curve["story"] = story_record(kept, prepared)
        print("story", json.dumps(curve["story"]), flush=True)
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
