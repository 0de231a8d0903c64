"""A load test: many concurrent clients against one real server on loopback, for a bounded time.

    python bench/load.py [--clients 64] [--seconds 30] [--warmup 20] [--max-requests 200000] [--workers 1]
                         [--warmup-max 120] [--pool 200] [--endpoint both] [--host 127.0.0.1]
                         [--malloc-arena-max N]

Two phases, one per endpoint, on one ``python -m app`` subprocess on 127.0.0.1 (``--host`` takes another
loopback address and nothing else: a load test is not something to point at someone else's host):

- ``GET /api/attention``: a pool of sentences of 3 to 24 words from figure 1's vocabulary, with any head
  count, mask and trained switch, so the server computes some answers and repeats others from its cache;
- ``POST /api/translate``: the translator's held-out English sentences (every word in its vocabulary).

Each phase warms up first with the same mix, in 5-second rounds, until two rounds in a row grow the
server's RSS by less than 0.5% each (at least ``--warmup`` seconds, at most ``--warmup-max``): what is
allocated once (imports, the models' first load, the allocator's arenas for the thread pool, the response
cache filling up to its bound) does not count as growth. Then it reads the server's RSS (VmRSS, summed over
its processes), runs ``--clients`` clients for ``--seconds`` (or until ``--max-requests``), and reads the
RSS again. It counts every answer that is not a 200 and every transport error, and reports p50 and p99
latency and requests per second. Exit status 1 when there was an error or the RSS grew by 10% or more over
a phase.
"""

from __future__ import annotations

import argparse
import asyncio
import ipaddress
import random
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench.common import rss_kib  # noqa: E402
from tools.serving import served  # noqa: E402

WORDS = (
    "the river bank was steep and a bat flew near the old mill by the lake at dusk while my sister "
    "saw two cranes lift heavy stone from the dock"
).split()
HEADS = [1, 2, 3, 4, 6, 8, 12, 24]
MASKS = ["none", "neg_inf", "zero"]
RSS_GROWTH_GOAL = 0.10
WARMUP_ROUND = 5.0  # seconds
SETTLED = 0.005  # RSS has settled after two rounds in a row that grew it by less than this


@dataclass
class Phase:
    name: str
    latencies: list[float] = field(default_factory=list)  # seconds, answered with a 200
    errors: dict[str, int] = field(default_factory=dict)  # "status 500", "ReadTimeout", ...
    seconds: float = 0.0
    warmup_seconds: float = 0.0
    rss_before_kib: int = 0
    rss_after_kib: int = 0

    @property
    def requests(self) -> int:
        return len(self.latencies) + sum(self.errors.values())

    @property
    def error_count(self) -> int:
        return sum(self.errors.values())


Request = Callable[[httpx.AsyncClient, random.Random], "asyncio.Future[httpx.Response]"]


def attention_requests(pool: int, seed: int = 0) -> Request:
    """GET /api/attention over ``pool`` sentences × head counts × masks × trained."""
    chooser = random.Random(seed)
    sentences = [" ".join(chooser.choice(WORDS) for _ in range(chooser.randint(3, 24))) for _ in range(pool)]

    def send(client: httpx.AsyncClient, rng: random.Random):  # type: ignore[no-untyped-def]
        params = {
            "sentence": rng.choice(sentences),
            "heads": rng.choice(HEADS),
            "mask": rng.choice(MASKS),
            "trained": rng.choice(["true", "true", "true", "false"]),
        }
        return client.get("/api/attention", params=params)

    return send


def translate_requests(pool: int) -> Request:
    """POST /api/translate over ``pool`` held-out sentences of the translator."""
    from app.models.translator.committed import get_translator
    from training.parallel_corpus import heldout_pairs

    record = get_translator().record
    sentences = [p.source for p in heldout_pairs(record["heldout_pairs"], record["training_pairs"])][:pool]

    def send(client: httpx.AsyncClient, rng: random.Random):  # type: ignore[no-untyped-def]
        return client.post("/api/translate", json={"sentence": rng.choice(sentences)})

    return send


async def drive(
    base: str, request: Request, clients: int, seconds: float, max_requests: int, phase: Phase | None
) -> None:
    """``clients`` concurrent loops sending ``request`` until ``seconds`` pass or ``max_requests`` are sent;
    latencies and errors go to ``phase`` (None: a warm-up, nothing recorded)."""
    sent = 0
    deadline = time.monotonic() + seconds
    limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)

    async def loop(client: httpx.AsyncClient, rng: random.Random) -> None:
        nonlocal sent
        while time.monotonic() < deadline and sent < max_requests:
            sent += 1
            started = time.perf_counter()
            try:
                response = await request(client, rng)
            except httpx.HTTPError as error:
                if phase is not None:
                    name = type(error).__name__
                    phase.errors[name] = phase.errors.get(name, 0) + 1
                continue
            if phase is None:
                continue
            if response.status_code == 200:
                phase.latencies.append(time.perf_counter() - started)
            else:
                name = f"status {response.status_code}"
                phase.errors[name] = phase.errors.get(name, 0) + 1

    async with httpx.AsyncClient(base_url=base, limits=limits, timeout=60) as client:
        started = time.monotonic()
        await asyncio.gather(*(loop(client, random.Random(k)) for k in range(clients)))
        if phase is not None:
            phase.seconds = time.monotonic() - started


def warm_up(base: str, pid: int, request: Request, args: argparse.Namespace) -> float:
    """Send the mix in rounds of a few seconds until RSS settles (see the module docstring); the seconds."""
    started = time.monotonic()
    rss, calm = rss_kib(pid), 0
    while True:
        asyncio.run(drive(base, request, args.clients, WARMUP_ROUND, args.max_requests, None))
        elapsed = time.monotonic() - started
        rss, before = rss_kib(pid), rss
        calm = calm + 1 if rss < before * (1 + SETTLED) else 0
        if elapsed >= args.warmup_max or (elapsed >= args.warmup and calm >= 2):
            return elapsed


def run_phase(name: str, base: str, pid: int, request: Request, args: argparse.Namespace) -> Phase:
    phase = Phase(name)
    phase.warmup_seconds = warm_up(base, pid, request, args)
    phase.rss_before_kib = rss_kib(pid)
    asyncio.run(drive(base, request, args.clients, args.seconds, args.max_requests, phase))
    phase.rss_after_kib = rss_kib(pid)
    return phase


def loopback(host: str) -> str:
    """``host`` if it is a loopback address (127.0.0.0/8 or ::1); anything else, names too, is refused."""
    try:
        if ipaddress.ip_address(host).is_loopback:
            return host
    except ValueError:
        pass
    raise argparse.ArgumentTypeError(f"{host!r} is not a loopback address: this load test runs on 127.0.0.1")


def report(phases: list[Phase], args: argparse.Namespace) -> bool:
    """Print one line per phase; True when every phase had no error and RSS grew by less than the goal."""
    print(
        f"{args.clients} clients, {args.seconds:g} s per phase (at most {args.max_requests} requests), "
        f"server with {args.workers} worker(s) on {args.host}"
        + (f", MALLOC_ARENA_MAX={args.malloc_arena_max}" if args.malloc_arena_max else "")
    )
    print(
        "RSS is read after the warm-up (imports, models, caches already filled; "
        + ", ".join(f"{p.name} {p.warmup_seconds:.0f} s" for p in phases)
        + ") and at the end of the phase"
    )
    print()
    print(
        f"{'phase':16s} {'requests':>8s} {'errors':>6s} {'req/s':>7s} {'p50 ms':>7s} {'p99 ms':>7s} "
        f"{'RSS before MiB':>14s} {'after MiB':>9s} {'growth':>7s}"
    )
    ok = True
    for p in phases:
        ms = sorted(1000 * x for x in p.latencies) or [float("nan")]
        p99 = ms[min(len(ms) - 1, int(0.99 * len(ms)))]
        growth = (p.rss_after_kib - p.rss_before_kib) / p.rss_before_kib
        print(
            f"{p.name:16s} {p.requests:8d} {p.error_count:6d} {p.requests / p.seconds:7.0f} "
            f"{statistics.median(ms):7.1f} {p99:7.1f} {p.rss_before_kib / 1024:14.1f} "
            f"{p.rss_after_kib / 1024:9.1f} {growth:+7.1%}"
        )
        if p.errors:
            print(f"{'':16s} errors: {p.errors}")
        ok = ok and not p.errors and growth < RSS_GROWTH_GOAL
    print()
    print(f"goal: zero errors and RSS growth under {RSS_GROWTH_GOAL:.0%}: {'met' if ok else 'NOT met'}")
    return ok


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--clients", type=int, default=64)
    parser.add_argument("--seconds", type=float, default=30.0, help="length of each measured phase")
    parser.add_argument("--warmup", type=float, default=20.0, help="least unmeasured seconds before a phase")
    parser.add_argument(
        "--warmup-max", type=float, default=120.0, help="most unmeasured seconds before a phase"
    )
    parser.add_argument("--max-requests", type=int, default=200_000, help="at most this many per phase")
    parser.add_argument("--pool", type=int, default=200, help="distinct sentences per endpoint")
    parser.add_argument("--workers", type=int, default=1, help="the server's worker processes")
    parser.add_argument("--endpoint", choices=["both", "attention", "translate"], default="both")
    parser.add_argument(
        "--malloc-arena-max", type=int, help="run the server with MALLOC_ARENA_MAX set (glibc's arenas)"
    )
    parser.add_argument("--host", type=loopback, default="127.0.0.1", help="a loopback address only")
    args = parser.parse_args()
    mixes = {"attention": attention_requests, "translate": translate_requests}
    chosen = list(mixes) if args.endpoint == "both" else [args.endpoint]
    env = {"MALLOC_ARENA_MAX": str(args.malloc_arena_max)} if args.malloc_arena_max else None
    with served("--workers", str(args.workers), env=env, host=args.host, timeout=60) as started:
        phases = [
            run_phase(f"/api/{name}", started.url, started.pid, mixes[name](args.pool), args)
            for name in chosen
        ]
    sys.exit(0 if report(phases, args) else 1)


if __name__ == "__main__":
    main()
