"""Requests per second of /api/attention as a ratio of /healthz, measured on one server in one run.

    python bench/throughput.py [--seconds 5] [--clients 16]

Each figure is the number of answered requests in a fixed time window from concurrent loopback clients,
with the server's CPU time per request beside it (user + system, from /proc: the client's own work, which
shares the machine, is not in it). "Distinct sentences" sends a different sentence each time, so every answer
is computed (a response-cache miss); "cached" repeats one request, so every answer after the first comes
from the server's response cache.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench.common import cpu_seconds  # noqa: E402
from tests.serving import served  # noqa: E402

WORDS = "the river bank was steep and a bat flew near the old mill by the lake at dusk".split()


async def rate(base: str, paths: Iterator[str], seconds: float, clients: int) -> float:
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


def attention_cases() -> dict[str, Iterator[str]]:
    """The requests to compare, by name; the first is the baseline."""
    return {
        "/healthz": itertools.cycle(["/healthz"]),
        "/api/attention, default sentence (5 tokens, 3 heads), cached": itertools.cycle(["/api/attention"]),
        "/api/attention, distinct 5-token sentences, 3 heads": (
            f"/api/attention?heads=3&sentence={sentence(5, k)}" for k in itertools.count()
        ),
        "/api/attention, one 64-token sentence, 12 heads, cached": itertools.cycle(
            [f"/api/attention?heads=12&sentence={sentence(64, 0)}"]
        ),
        "/api/attention, distinct 64-token sentences, 12 heads": (
            f"/api/attention?heads=12&sentence={sentence(64, k)}" for k in itertools.count(1)
        ),
    }


def measure(
    base: str, pid: int, cases: dict[str, Iterator[str]], seconds: float, clients: int
) -> dict[str, tuple[float, float]]:
    """Per case: requests per second, and the server's CPU milliseconds per request."""
    asyncio.run(rate(base, itertools.cycle(["/healthz", "/api/attention"]), 1.0, clients))  # warm up
    results = {}
    for name, paths in cases.items():
        cpu, started = cpu_seconds(pid), time.monotonic()
        per_second = asyncio.run(rate(base, paths, seconds, clients))
        requests = per_second * (time.monotonic() - started)
        results[name] = (per_second, 1000 * (cpu_seconds(pid) - cpu) / max(requests, 1))
    return results


def print_table(results: dict[str, tuple[float, float]]) -> None:
    baseline, baseline_cpu = next(iter(results.values()))
    print(f"{'request':62s} {'req/s':>7s} {'× /healthz':>10s} {'server CPU ms/req':>17s} {'×':>6s}")
    for name, (value, cpu) in results.items():
        print(f"{name:62s} {value:7.0f} {value / baseline:10.2f} {cpu:17.2f} {cpu / baseline_cpu:6.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--clients", type=int, default=16)
    args = parser.parse_args()
    with served() as started:
        results = measure(started.url, started.pid, attention_cases(), args.seconds, args.clients)
    print_table(results)


if __name__ == "__main__":
    main()
