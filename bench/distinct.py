"""Throughput when the response cache cannot help, as ratios of /healthz on the same server in one run.

    python bench/distinct.py [--seconds 8] [--connections 32] [--threads 1] [--rounds 1]

Every figure is wrk's requests per second (Debian's ``wrk``) from loopback connections against one
``python -m app`` worker, with a Lua script that sends a different sentence on every request, so that every
answer is computed (a cache miss), beside the same request repeated (a cache hit after the first):

- ``/api/attention`` at 5 words × 3 heads and at 64 words × 12 heads, words from figure 1's vocabulary in an
  order that changes with each request;
- ``POST /api/translate`` of 6-word sentences drawn from the translator's grammar (12,000 distinct ones,
  cycled; the response cache holds 512, so a sentence seen again has long been evicted);
- ``/api/real-attention`` of 5 words (skipped when the optional model is not installed).

The baselines: the app's own ``/healthz`` (every figure above is a ratio of it), and ``/healthz`` of a bare
FastAPI app with that one route (bench/bare_app.py, plain uvicorn), to which the app's ``/healthz`` is a
ratio: what the app's layers cost a request before any maths. Last, the size on the wire of the 64 × 12
answer to a client that offers gzip, as a browser does. The goals (issue 17) are printed beside each ratio.
With ``--rounds N`` every case runs N times, interleaved, and the median counts: of the rates, and of each
round's ratio to that round's /healthz.
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote, urlsplit

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench.common import cpu_seconds  # noqa: E402
from tools.serving import REPO, Served, free_port, healthy, served  # noqa: E402

WORDS = "the river bank was steep and a bat flew near the old mill by the lake at dusk".split()
REAL_WORDS = "the quick brown fox jumps over a lazy dog near river bank where bats fly at dusk".split()
TRANSLATE_SENTENCES = 12_000


@dataclass(frozen=True)
class Case:
    name: str
    script: str  # a wrk Lua script
    goal: float | None = None  # the least ratio to /healthz the issue asks for


def lua_table(items: list[str]) -> str:
    return "{" + ",".join('"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"' for s in items) + "}"


# Each wrk thread numbers its requests k = offset, offset + threads, ... (next_k), so that no two requests
# of a run, whichever thread sends them, share a number.
NUMBERED = """
local threads = {threads}
local tid = 0
function setup(thread) thread:set("offset", tid); tid = tid + 1 end
local counter = 0
local function next_k()
  local k = counter * threads + (offset or 0)
  counter = counter + 1
  return k
end
"""

# The words of request k spell k in base len(words) (digit i % 5 at word i): a new sentence every request.
DISTINCT_GET = (
    NUMBERED
    + """
local words = {words}
local n = #words
function request()
  local k = next_k() + {start}
  local parts = {{}}
  for i = 0, {length} - 1 do
    local digit = math.floor(k / n ^ (i % 5)) % n
    parts[#parts + 1] = words[(digit + i) % n + 1]
  end
  return wrk.format("GET", "{path}" .. table.concat(parts, "%20"))
end
"""
)

REPEATED_GET = 'wrk.path = "{path}"\n'

# Request k sends sentence k of the list, cycling through it.
DISTINCT_POST = (
    NUMBERED
    + """
local sentences = {sentences}
function request()
  local body = '{{"sentence": "' .. sentences[next_k() % #sentences + 1] .. '"}}'
  return wrk.format("POST", "{path}", {{["Content-Type"] = "application/json"}}, body)
end
"""
)

REPEATED_POST = """
wrk.method = "POST"
wrk.path = "{path}"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{{"sentence": "{sentence}"}}'
"""


def translate_sentences(count: int) -> list[str]:
    """``count`` distinct 6-word English sentences of the translator's grammar (a seed of their own)."""
    from training.parallel_corpus import pairs

    seen: dict[str, None] = {}
    for pair in pairs(seed=7):
        if len(pair.english) == 6:
            seen[pair.source] = None
            if len(seen) == count:
                return list(seen)
    raise AssertionError("unreachable: the stream is endless")


def cases(threads: int, real: bool) -> Iterator[Case]:
    words, real_words = lua_table(WORDS), lua_table(REAL_WORDS)
    yield Case("/healthz", REPEATED_GET.format(path="/healthz"))
    for length, heads, form, goal in ((5, 3, "json", 0.8), (64, 12, "json", None), (64, 12, "packed", 0.5)):
        path = f"/api/attention?heads={heads}&format={form}&sentence="
        name = f"/api/attention {length} words × {heads} heads, {form}"
        repeated = path + quote(" ".join(WORDS[i % len(WORDS)] for i in range(length)))
        yield Case(f"{name}, repeated", REPEATED_GET.format(path=repeated))
        script = DISTINCT_GET.format(words=words, threads=threads, start=1, length=length, path=path)
        yield Case(f"{name}, distinct", script, goal)
    sentences = translate_sentences(TRANSLATE_SENTENCES)
    yield Case(
        "/api/translate 6 words, repeated", REPEATED_POST.format(path="/api/translate", sentence=sentences[0])
    )
    script = DISTINCT_POST.format(sentences=lua_table(sentences), threads=threads, path="/api/translate")
    yield Case("/api/translate 6 words, distinct", script, 0.5)
    if real:
        path = "/api/real-attention?sentence="
        repeated = path + quote(" ".join(REAL_WORDS[:5]))
        yield Case("/api/real-attention 5 words, repeated", REPEATED_GET.format(path=repeated))
        script = DISTINCT_GET.format(words=real_words, threads=threads, start=1, length=5, path=path)
        yield Case("/api/real-attention 5 words, distinct", script, 0.1)


def wrk(url: str, script: str, seconds: float, connections: int, threads: int, strict: bool = True) -> float:
    """Requests per second that wrk saw answered with a 2xx; any other answer or socket error is fatal
    unless not ``strict`` (a warm-up, whose first requests may wait for a model to load)."""
    with tempfile.NamedTemporaryFile("w", suffix=".lua") as file:
        file.write(script)
        file.flush()
        command = ["wrk", f"-t{threads}", f"-c{connections}", f"-d{round(seconds)}s", "-s", file.name, url]
        output = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    bad = re.search(r"Non-2xx or 3xx responses: (\d+)", output)
    errors = re.search(r"Socket errors: (.*)", output)
    failed = bad or (errors and any(int(n) for n in re.findall(r"\d+", errors.group(1))))
    if strict and failed:
        raise RuntimeError(f"wrk saw failures on {url}:\n{script[:300]}\n{output}")
    return float(re.search(r"Requests/sec:\s+([\d.]+)", output).group(1))  # type: ignore[union-attr]


@contextlib.contextmanager
def bare_server() -> Iterator[str]:
    """bench/bare_app.py under plain uvicorn (its defaults), on a free loopback port."""
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    command = [sys.executable, "-m", "uvicorn", "bench.bare_app:app", "--port", str(port)]
    process = subprocess.Popen(command, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 30
        while not healthy(url):
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("the bare app did not start")
            time.sleep(0.1)
        yield url
    finally:
        process.terminate()
        process.wait(10)


def wire_bytes(url: str, path: str) -> tuple[int, str]:
    """The body's size as sent to a client offering gzip (as every browser does), and its Content-Encoding."""
    parts = urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
    connection.request("GET", path, headers={"Accept-Encoding": "gzip, deflate, br"})
    response = connection.getresponse()
    body = response.read()
    connection.close()
    if response.status != 200:
        raise RuntimeError(f"{path}: {response.status}")
    return len(body), response.getheader("content-encoding") or "identity"


def real_model_installed() -> bool:
    from app.config import get_settings
    from app.models.real_bert.installed import missing_reason, packaged_model_dir

    return missing_reason(get_settings().real_model_dir or packaged_model_dir()) is None


@dataclass
class Results:
    """Per case the requests per second and server CPU ms per request of every round, the bare app's rates,
    and the 64 × 12 answer's size on the wire in each form."""

    cases: list[Case]
    rates: dict[str, list[float]]
    cpu: dict[str, list[float]]
    bare: list[float]
    sizes: dict[str, tuple[int, str]]


def measure(
    app: Served, bare_url: str, chosen: list[Case], seconds: int, connections: int, threads: int, rounds: int
) -> Results:
    """Every case against ``app``, ``rounds`` times interleaved with the bare app's /healthz."""
    results = Results(chosen, {c.name: [] for c in chosen}, {c.name: [] for c in chosen}, [], {})
    healthz = REPEATED_GET.format(path="/healthz")
    for case in chosen:  # warm-up: models loaded, caches and threads started
        wrk(app.url, case.script, 2, connections, threads, strict=False)
    wrk(bare_url, healthz, 1, connections, threads)
    for _ in range(rounds):
        results.bare.append(wrk(bare_url, healthz, seconds, connections, threads))
        for case in chosen:
            before, started = cpu_seconds(app.pid), time.monotonic()
            per_second = wrk(app.url, case.script, seconds, connections, threads)
            requests = per_second * (time.monotonic() - started)
            results.rates[case.name].append(per_second)
            results.cpu[case.name].append(1000 * (cpu_seconds(app.pid) - before) / max(requests, 1))
    sentence = quote(" ".join(WORDS[i % len(WORDS)] for i in range(64)))
    for form in ("json", "packed"):
        results.sizes[form] = wire_bytes(
            app.url, f"/api/attention?heads=12&format={form}&sentence={sentence}"
        )
    return results


def ratio(rates: list[float], baselines: list[float]) -> float:
    """The median over the rounds of each round's rate ÷ the same round's baseline: the machine's drift
    between rounds (a slower minute) cancels out."""
    return statistics.median(r / b for r, b in zip(rates, baselines, strict=True))


def print_table(results: Results) -> None:
    healthz = results.rates["/healthz"]
    print(f"{'request':56s} {'req/s':>7s} {'× /healthz':>10s} {'goal':>6s} {'CPU ms/req':>10s}")
    print(f"{'bare FastAPI /healthz (bench/bare_app.py)':56s} {statistics.median(results.bare):7.0f}")
    for case in results.cases:
        value = statistics.median(results.rates[case.name])
        goal = f"≥{case.goal:g}" if case.goal else ""
        cost = statistics.median(results.cpu[case.name])
        times = ratio(results.rates[case.name], healthz)
        print(f"{case.name:56s} {value:7.0f} {times:10.2f} {goal:>6s} {cost:10.2f}")
    print(f"\nthe app's /healthz ÷ bare FastAPI's /healthz: {ratio(healthz, results.bare):.2f} (goal ≥0.9)")
    for form, (size, encoding) in results.sizes.items():
        print(f"64 words × 12 heads, {form}, to a client offering gzip: {size / 1000:.0f} KB ({encoding})")
    print("(goal: ≤200 KB for the answer the page asks for, packed)")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--seconds", type=int, default=8)
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--only", default="", metavar="TEXT", help="only the cases whose name has TEXT")
    args = parser.parse_args()
    require_wrk()
    chosen = [
        c for c in cases(args.threads, real_model_installed()) if c.name == "/healthz" or args.only in c.name
    ]
    # wrk's connections all come from one address: lift the app's cap per address (32 by default) above them,
    # as compose.yaml does behind its proxy. At the cap, wrk's first extra connection is refused with a 503
    # and wrk reconnects at once, again and again: the bench measured those refusals, not a request's cost.
    per_address = str(2 * args.connections + 8)
    with served("--limit-per-address", per_address) as app, bare_server() as bare_url:
        results = measure(app, bare_url, chosen, args.seconds, args.connections, args.threads, args.rounds)
    print(f"wrk -t{args.threads} -c{args.connections} -d{args.seconds}s, {args.rounds} round(s), one worker")
    print_table(results)


def require_wrk() -> None:
    if shutil.which("wrk") is None:
        sys.exit("bench/distinct.py needs wrk (Debian: apt-get install -y wrk)")


if __name__ == "__main__":
    main()
