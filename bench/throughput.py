"""Requests per second of /api/attention as a ratio of /healthz, measured on one server in one run.

    python bench/throughput.py [--seconds 5] [--clients 16]

Each figure is the number of answered requests in a fixed time window from concurrent loopback clients.
"Distinct sentences" sends a different sentence each time, so the numbers are computed, not cached.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import sys
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench.common import running_server  # noqa: E402

WORDS = "the river bank was steep and a bat flew near the old mill by the lake at dusk".split()


async def rate(base: str, paths: itertools.cycle, seconds: float, clients: int) -> float:
    """Answered requests per second over ``seconds``; every answer must be a 200."""
    done = 0
    deadline = time.monotonic() + seconds

    async def worker(client: httpx.AsyncClient) -> None:
        nonlocal done
        while time.monotonic() < deadline:
            response = await client.get(next(paths))
            if response.status_code != 200:
                raise RuntimeError(f"{response.status_code}: {response.text[:200]}")
            done += 1

    limits = httpx.Limits(max_connections=clients)
    async with httpx.AsyncClient(base_url=base, limits=limits, timeout=30) as client:
        started = time.monotonic()
        await asyncio.gather(*(worker(client) for _ in range(clients)))
        return done / (time.monotonic() - started)


def sentence(n: int, k: int) -> str:
    """An n-word sentence, different for every k."""
    return " ".join(WORDS[(i + k) % len(WORDS)] for i in range(n - 1)) + f" w{k}"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--clients", type=int, default=16)
    args = parser.parse_args()
    cases = {
        "/healthz": itertools.cycle(["/healthz"]),
        "/api/attention, default sentence (5 tokens, 3 heads)": itertools.cycle(["/api/attention"]),
        "/api/attention, distinct 5-token sentences, 3 heads": (
            f"/api/attention?heads=3&sentence={sentence(5, k)}" for k in itertools.count()
        ),
        "/api/attention, distinct 64-token sentences, 12 heads": (
            f"/api/attention?heads=12&sentence={sentence(64, k)}" for k in itertools.count()
        ),
    }
    with running_server() as base:
        asyncio.run(rate(base, itertools.cycle(["/healthz"]), 1.0, args.clients))  # warm up
        results = {
            name: asyncio.run(rate(base, paths, args.seconds, args.clients)) for name, paths in cases.items()
        }
    baseline = results["/healthz"]
    print(f"{'endpoint':58s} {'req/s':>8s} {'ratio to /healthz':>18s}")
    for name, value in results.items():
        print(f"{name:58s} {value:8.0f} {value / baseline:18.2f}")


if __name__ == "__main__":
    main()
