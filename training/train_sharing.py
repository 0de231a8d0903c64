"""Train figure 1's relation layer with h query heads sharing g key/value heads, for every g below h.

    pip install -e '.[train]'      # PyTorch, CPU build
    python -m training.train_sharing

writes ``app/weights/relations_shared.npz`` (trained and initial projections for every h in --heads and
every g < h that divides it: W_Q 24×24, W_K and W_V 24×g·d_k, W_O 24×12) and
``app/weights/relations_shared_curve.json``
(per (h, g): each seed's final training loss, the seed kept, the held-out relation scores per head, and
the parameter counts of the four projections).

Everything but the sharing is train_relations': the same sentences, objective, optimiser, steps, seeds and
selection (the lowest final training loss over the seeds), through the same RelationLayer and train_one with
``kv_heads`` set. Query head i reads key/value head i // (h/g). g = h is the ordinary layer, which
train_relations has already trained into relations.npz: its rows in the record are relations_curve.json's,
not trained again. ``--only 3:3`` retrains one of them and reports how far it lands from relations.npz.
"""

from __future__ import annotations

import json
import time

import numpy as np
import torch

from app.core.attention import valid_head_counts
from app.models.heads import PROJECTIONS, SHARED_FILE, WEIGHTS_FILE, Layer, as_multi_head, kv_head_of
from app.models.relations import D_MODEL
from training.command import command_line
from training.train_relations import D_OUT, RUN, WEIGHTS, measured, prepare, train_kept

RECORD_FILE = "relations_shared_curve.json"
HEADS = (2, 3, 4, 6, 8, 12)  # h = 1 has nothing to share


# what a g = h row takes over from relations_curve.json's entry for h
ORDINARY_FIELDS = (
    "final_loss",
    "seed_losses",
    "seed",
    "heldout",
    "novel",
    "untrained_head_spread",
    "default_sentence",
    "seconds",
)


def parameter_counts(heads: int, kv_heads: int) -> dict[str, int]:
    """How many numbers each projection holds: W_K and W_V shrink with g, W_Q and W_O do not."""
    kv_width = kv_heads * (D_MODEL // heads)
    return {
        "w_q": D_MODEL * D_MODEL,
        "w_k": D_MODEL * kv_width,
        "w_v": D_MODEL * kv_width,
        "w_o": D_MODEL * D_OUT,
    }


def compare_with_committed(heads: int, trained: dict[str, np.ndarray], entry: dict) -> None:
    """Print how far a retrained g = h layer is from relations.npz's and its loss from relations_curve.json's:
    the check that sharing with g = h is the ordinary layer, trained the same way."""
    with np.load(WEIGHTS / WEIGHTS_FILE) as committed:
        gap = max(
            float(np.abs(trained[p].astype(np.float32) - committed[f"trained/{heads}/{p}"]).max())
            for p in PROJECTIONS
        )
    print(f"h={heads}: largest |difference| from relations.npz (float32) {gap:.3g}")
    print(f"h={heads}: relations_curve.json's seed losses {entry['seed_losses']}")


def pair(text: str) -> tuple[int, int]:
    """ "12:4" -> (12, 4)."""
    heads, kv_heads = (int(n) for n in text.split(":"))
    return heads, kv_heads


def main() -> None:
    parser = command_line(__doc__, **RUN)
    parser.add_argument("--heads", type=int, nargs="+", default=list(HEADS), help="the query head counts")
    parser.add_argument(
        "--only",
        type=pair,
        nargs="*",
        default=None,
        metavar="H:G",
        help="train only these (h, g); writes nothing. With g = h, compares the layer with relations.npz",
    )
    args = parser.parse_args()
    torch.set_num_threads(2)

    prepared = prepare(args.train_size, args.heldout_size, args.novel_size)
    curve = json.loads((WEIGHTS / "relations_curve.json").read_text(encoding="utf-8"))
    compared = ("steps", "seeds", "train_sentences", "heldout_sentences", "novel_sentences")
    settings = {k: curve[k] for k in compared}
    ours = {
        "steps": args.steps,
        "seeds": args.seeds,
        "train_sentences": len(prepared.train),
        "heldout_sentences": len(prepared.held_out),
        "novel_sentences": len(prepared.novel),
    }
    if settings != ours and not args.only:
        parser.error(
            f"the g = h rows come from relations_curve.json, trained with {settings}: train with those"
        )
    ordinary = {entry["heads"]: entry for entry in curve["heads"]}
    pairs = args.only or [(h, g) for h in args.heads for g in valid_head_counts(h)]

    arrays: dict[str, np.ndarray] = {}
    layers: list[dict[str, object]] = []
    record = {
        **{k: v for k, v in curve.items() if k not in ("heads", "story")},  # the same data, objective, steps
        "sharing": "query head i reads key/value head i // (h/g); W_K and W_V are d_model × g·d_k",
        "g_equals_h": "relations.npz's layer for h: its figures are relations_curve.json's entry for h",
        "layers": layers,
    }
    for heads, kv_heads in pairs:
        base = {
            "heads": heads,
            "kv_heads": kv_heads,
            "head_width": D_MODEL // heads,
            "kv_head_of": kv_head_of(heads, kv_heads),
        }
        if kv_heads == heads and not args.only:  # the ordinary layer, already trained and measured
            ordinary_entry = {k: ordinary[heads][k] for k in ORDINARY_FIELDS}
            layers.append(
                {
                    **base,
                    "parameters": parameter_counts(heads, heads),
                    "weights": WEIGHTS_FILE,
                    **ordinary_entry,
                }
            )
            continue
        started = time.time()
        trained, init, losses, best_seed = train_kept(
            heads, prepared.data, args.steps, args.batch_size, prepared.relation_weight, args.seeds, kv_heads
        )
        final = losses[best_seed]
        for p in PROJECTIONS:
            arrays[f"trained/{heads}/{kv_heads}/{p}"] = trained[p]
            arrays[f"init/{heads}/{kv_heads}/{p}"] = init[p]
        wide, wide_init = (
            as_multi_head(Layer(**trained), heads, kv_heads),
            as_multi_head(Layer(**init), heads, kv_heads),
        )
        entry = {
            **base,
            "parameters": parameter_counts(heads, kv_heads),
            "weights": SHARED_FILE,
            **measured(wide, wide_init, heads, prepared, losses, best_seed, started),
        }
        layers.append(entry)
        scores = entry["heldout"]
        print(
            f"h={heads:2d} g={kv_heads:2d} loss={final:.4f} seeds={[round(loss, 4) for loss in losses]} "
            f"best={scores['best_head']} "
            f"scores={ {k: round(v, 3) for k, v in scores['best_score'].items()} } "
            f"spread={scores['head_spread']:.3f} {entry['seconds']}s",
            flush=True,
        )
        if kv_heads == heads:
            compare_with_committed(heads, trained, ordinary[heads])

    if args.only:
        print("a partial run (--only) writes nothing")
        return
    np.savez_compressed(WEIGHTS / SHARED_FILE, **{k: v.astype(np.float32) for k, v in arrays.items()})
    (WEIGHTS / RECORD_FILE).write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
