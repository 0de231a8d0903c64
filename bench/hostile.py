"""What one request can cost: the worst requests found within the documented limits, and the hostile ones a
security review sent, each timed against /healthz on a fresh server, with its peak memory and how long the
server took to answer /healthz while it ran.

    python bench/hostile.py [--repeat 3]

Figures, per request (median of --repeat runs, each on a different input so no answer comes from the cache):
- status and the answer's size;
- wall time in ms, and as a ratio of one /healthz round trip measured in the same run;
- the slowest /healthz answered meanwhile by a second client polling every 20 ms: near the baseline means the
  request's work stayed off the event loop;
- extra RSS: the server's peak resident memory during the request (VmHWM, reset before each run through
  /proc/PID/clear_refs) minus its resident memory just before. Linux, run as the server's user.

The goal (issue 12): nothing within the limits takes more than 1 s or 100 MiB of extra RSS on this machine.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import httpx
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from app.core.masks import apply_mask, softmax  # noqa: E402
from bench.common import rss_kib  # noqa: E402
from tools.inprocess import npy  # noqa: E402
from tools.serving import served  # noqa: E402

JSON = {"content-type": "application/json"}
WORDS = "the river bank was steep and the old dog saw a small red car near the house".split()
# A case: its request for a run number, built before the clock starts (a made-up sentence or a .npy file takes
# the benchmark milliseconds of its own), as a call that sends it.
Send = Callable[[int], Callable[[httpx.Client], httpx.Response]]


def sentence(words: int, run: int) -> str:
    """A sentence of ``words`` known words, different for every run (so never a cached answer)."""
    rng = np.random.default_rng(run)
    return " ".join(rng.choice(WORDS, size=words))


def made_up(words: int, run: int) -> str:
    """A sentence of ``words`` words no model knows, near many of the translator's (each one a letter off
    an English word, so that looking for close words finds some), different for every run."""
    rng = np.random.default_rng(run)
    letters = list("abcdefghijklmnopqrstuvwxyz")
    return " ".join(f"{w}{rng.choice(letters)}{rng.choice(letters)}" for w in rng.choice(WORDS, size=words))


def compact(value: object) -> bytes:
    return json.dumps(value, separators=(",", ":")).encode()


def causal(shape: tuple[int, ...], run: int, dtype: type = np.float32, mask: str = "neg_inf") -> np.ndarray:
    scores = np.random.default_rng(run).normal(size=shape)
    return softmax(apply_mask(scores, mask)).astype(dtype)


def upload(name: str, make: Callable[[int], bytes]) -> Send:
    def request(run: int) -> Callable[[httpx.Client], httpx.Response]:
        data = make(run)
        return lambda client: client.post("/api/diagnose", files={"file": (name, data)})

    return request


def post(path: str, make: Callable[[int], bytes]) -> Send:
    def request(run: int) -> Callable[[httpx.Client], httpx.Response]:
        body = make(run)
        return lambda client: client.post(path, content=body, headers=JSON)

    return request


def get(path: str, params: Callable[[int], dict[str, str]]) -> Send:
    def request(run: int) -> Callable[[httpx.Client], httpx.Response]:
        query = params(run)
        return lambda client: client.get(path, params=query)

    return request


def lab(run: int, with_w_o: bool) -> bytes:
    """The head lab's largest answer: 64 tokens, 16 heads, 64-wide values (and W_O), every stage shown."""
    body: dict[str, object] = {
        "embeddings": [[1.0 + run]] * 64,
        "heads": [{"w_q": [[1.5]], "w_k": [[0.5]], "w_v": [[1] * 64]}] * 16,
        "mask": "neg_inf",
        "tokens": ["x" * 40] * 64,
    }
    if with_w_o:
        body["w_o"] = [[1] * 64] * (64 * 16)
    return compact(body)


CASES: dict[str, Send] = {
    # ---- the worst answers within the documented limits ----
    "/api/attention, 64 words, 24 heads": get(
        "/api/attention", lambda run: {"sentence": sentence(64, run), "heads": "24"}
    ),
    "/api/real-attention, 128 pieces, layer=all": get(
        "/api/real-attention", lambda run: {"sentence": sentence(60, run) + " ," * 60, "layer": "all"}
    ),
    # past 30 words the translator refuses before decoding (app/models/translator/words.py TRAINED_MAX_WORDS)
    "/api/translate, 30 words": post("/api/translate", lambda run: compact({"sentence": sentence(30, run)})),
    "/api/translate, 64 words (refused)": post(
        "/api/translate", lambda run: compact({"sentence": sentence(64, run)})
    ),
    "/api/translate, 64 made-up words (refused)": post(
        "/api/translate", lambda run: compact({"sentence": made_up(64, run)})
    ),
    "/api/lm/generate, 20 samples": post(
        "/api/lm/generate",
        lambda run: compact(
            {"model": "zero", "prompt": "the", "strategy": "sample", "count": 20, "seed": run}
        ),
    ),
    "/api/order, 64 words": get(
        "/api/order", lambda run: {"sentence": sentence(64, run), "positional": "true"}
    ),
    "/api/attention/custom, 16 heads of 64 tokens": post(
        "/api/attention/custom", lambda run: lab(run, False)
    ),
    "/api/attention/custom, the same with W_O": post("/api/attention/custom", lambda run: lab(run, True)),
    "/api/diagnose, [511, 511] float64 (2 MB)": upload(
        "w.npy", lambda run: npy(causal((511, 511), run, np.float64))
    ),
    "/api/diagnose, 8,192 heads [32, 256, 7, 7]": upload(
        "w.npy", lambda run: npy(causal((32, 256, 7, 7), run))
    ),
    "/api/diagnose, 8,192 heads that all leak (1,024 listed)": upload(
        "w.npy", lambda run: npy(causal((32, 256, 7, 7), run, mask="zero"))
    ),
    "/api/diagnose, 512 x 512 .csv": upload(
        "w.csv",
        lambda run: "\n".join(",".join(f"{x:.6g}" for x in row) for row in causal((512, 512), run)).encode(),
    ),
    "/api/diagnose, 1.7 MB .json [64, 64, 8, 8]": upload(
        "w.json", lambda run: compact(np.round(causal((64, 64, 8, 8), run, np.float64), 5).tolist())
    ),
    "/ (the article)": get("/", lambda run: {"v": str(run)}),
    "/docs": get("/docs", lambda run: {"v": str(run)}),
    # ---- what the review sent ----
    "a lone surrogate to /api/translate": post(
        "/api/translate", lambda run: b'{"sentence": "the \\ud800 dog %d"}' % run
    ),
    "[500000, 2, 2] uint8 .npy (half a million heads)": upload(
        "w.npy", lambda run: npy(np.tile(np.array([[1, 0], [1, 0]], np.uint8), (500_000 + run, 1, 1)))
    ),
    ".json of 149,000 heads": upload("w.json", lambda run: compact([[[1, 0], [1, 0]]] * (149_000 + run))),
    ".csv of 10^6 rows": upload("w.csv", lambda run: b"1\n" * (1_000_000 - run)),
    "head lab: 64 x 64 empty strings in 6 heads": post(
        "/api/attention/custom",
        lambda run: compact(
            {"embeddings": [[""] * 64] * 64, "heads": [{"w_q": [[""] * 64] * 64}] * 6, "r": run}
        ),
    ),
    "/api/translate: 29,000 unknown keys": post(
        "/api/translate",
        lambda run: compact({"sentence": "the cat", **{f"{i:x}": run for i in range(29_000)}}),
    ),
    "a 255 KB invalid body": post(
        "/api/translate", lambda run: compact({"sentence": list(range(36_000 + run))})
    ),
}


@dataclass
class Figures:
    status: int
    kib: float
    ms: float
    worst_health_ms: float
    extra_mib: float


class HealthProbe:
    """A second client asking /healthz every 20 ms; the slowest answer since the last reset."""

    def __init__(self, base: str) -> None:
        self.client = httpx.Client(base_url=base, timeout=30)
        self.worst = 0.0
        self.running = True
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self) -> None:
        while self.running:
            start = time.perf_counter()
            self.client.get("/healthz")
            self.worst = max(self.worst, time.perf_counter() - start)
            time.sleep(0.02)

    def stop(self) -> None:
        self.running = False
        self.thread.join()


def reset_peak(pid: int) -> None:
    Path(f"/proc/{pid}/clear_refs").write_text("5")  # VmHWM := VmRSS


def measure(client: httpx.Client, pid: int, probe: HealthProbe, send: Send, repeat: int) -> Figures:
    send(99)(client)  # first use: loads a model, fills the thread pool; not the request's own cost
    runs = []
    for run in range(repeat):
        call = send(run)
        before = rss_kib(pid)
        reset_peak(pid)
        probe.worst = 0.0
        start = time.perf_counter()
        response = call(client)
        elapsed = time.perf_counter() - start
        runs.append((elapsed, probe.worst, (rss_kib(pid, "VmHWM") - before) / 1024, response))
    elapsed, worst, extra, response = sorted(runs, key=lambda r: r[0])[len(runs) // 2]
    return Figures(response.status_code, len(response.content) / 1024, elapsed * 1000, worst * 1000, extra)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--only", default="", help="run only the cases whose name holds this text")
    args = parser.parse_args()
    with served() as started, httpx.Client(base_url=started.url, timeout=120) as client:
        for _ in range(20):
            client.get("/healthz")
        health_ms = statistics.median(timed(lambda: client.get("/healthz")) for _ in range(100)) * 1000
        probe = HealthProbe(started.url)
        idle = rss_kib(started.pid) / 1024
        print(f"/healthz round trip: {health_ms:.2f} ms (the baseline); idle RSS {idle:.0f} MiB")
        print()
        print(
            "| request | status | answer KiB | ms | × /healthz | slowest /healthz meanwhile, ms | extra MiB |"
        )
        print("|---|---|---|---|---|---|---|")
        worst_ms = worst_mib = 0.0
        for name, send in CASES.items():
            if args.only not in name:
                continue
            f = measure(client, started.pid, probe, send, args.repeat)
            worst_ms, worst_mib = max(worst_ms, f.ms), max(worst_mib, f.extra_mib)
            print(
                f"| {name} | {f.status} | {f.kib:,.1f} | {f.ms:,.0f} | {f.ms / health_ms:,.0f} | "
                f"{f.worst_health_ms:,.0f} | {f.extra_mib:,.1f} |"
            )
        probe.stop()
        print()
        ratio = worst_ms / health_ms
        print(f"worst: {worst_ms:,.0f} ms ({ratio:,.0f}× /healthz), {worst_mib:,.1f} MiB of extra RSS")


def timed(call: Callable[[], object]) -> float:
    start = time.perf_counter()
    call()
    return time.perf_counter() - start


if __name__ == "__main__":
    main()
