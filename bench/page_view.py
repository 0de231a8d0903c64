"""What a reader's visit costs the server: requests and CPU of a first and a repeat visit, beside /healthz.

    python bench/page_view.py [--visits 3] [--healthz 2000]

One ``python -m app`` worker serves; real Chromium (tools/chromium.py) opens the article in a fresh
browser, as a first-time reader does, and scrolls to the end so that every lazy figure asks for its answers
(a **first visit**), then opens it again in the same browser (a **repeat visit**: whatever the browser kept
from the first, it may use). For each, the bench counts the requests that reached the server (Chromium's own
record, through the DevTools protocol: a file served from the browser's memory or disk cache does not count;
a revalidation answered 304 does) and the server's CPU seconds (Linux /proc) from the page's first request
until the network is quiet again. Visits are repeated ``--visits`` times (each first visit in a new browser)
and the median counts. One more visit comes first, to a cold server: the server loads its models and fills
its caches then, once, as it does for its first reader; it is reported apart. Every visit keeps each
figure's default sentence, so later readers' answers come from those caches, as the default view's do.

A visit takes seconds of wall time (Chromium draws each figure as it scrolls by), and an idle uvicorn
worker spends a few milliseconds of CPU a second on its own clock; the bench measures that idle rate in the
same run and reports each visit's CPU above it (the page view's own cost) beside its CPU in all.

The baseline, in the same run on the same server: ``--healthz`` plain GET /healthz requests on one kept-alive
connection, whose CPU per request sets the scale. The bench prints, for each kind of visit, the requests,
how many were static files and API calls, the CPU milliseconds, page views per second per core (1 / CPU
seconds), and that CPU as a multiple of one /healthz request.
"""

from __future__ import annotations

import argparse
import http.client
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench.common import cpu_seconds  # noqa: E402
from tools.chromium import CHROMIUM, CHROMIUM_ARGS  # noqa: E402
from tools.serving import served  # noqa: E402

QUIET_MS = 1000  # the network counts as quiet after this long without a request
SCROLL_STEP = 900  # a screen (the viewport is 900 px tall): every lazy figure comes within a screen and asks


@dataclass
class Visit:
    requests: int
    static: int
    api: int
    cpu_ms: float
    seconds: float  # from the first request until the network was quiet again


def visit(context, url: str, pid: int) -> Visit:  # type: ignore[no-untyped-def]
    """Open the article in ``context``, scroll to its end, wait until the network is quiet: what reached the
    server and what it cost."""
    page = context.new_page()
    cdp = context.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.send("Network.setCacheDisabled", {"cacheDisabled": False})
    sent: dict[str, str] = {}  # request id -> url, for those answered by the server
    cached: set[str] = set()
    last = [time.monotonic()]

    def on_response(event: dict) -> None:  # type: ignore[type-arg]
        response = event["response"]
        last[0] = time.monotonic()
        kept = ("fromDiskCache", "fromServiceWorker", "fromPrefetchCache")
        if any(response.get(key) for key in kept):
            cached.add(event["requestId"])
        elif response["url"].startswith(url):
            sent[event["requestId"]] = response["url"]

    cdp.on("Network.responseReceived", on_response)
    cdp.on("Network.requestServedFromCache", lambda event: cached.add(event["requestId"]))
    cdp.on("Network.requestWillBeSent", lambda event: last.__setitem__(0, time.monotonic()))
    before = cpu_seconds(pid)
    started = time.monotonic()
    page.goto(f"{url}/", wait_until="load")
    height = page.evaluate("document.documentElement.scrollHeight")
    for y in range(0, height + SCROLL_STEP, SCROLL_STEP):
        page.evaluate(f"window.scrollTo(0, {y})")
        page.wait_for_timeout(60)
        height = page.evaluate("document.documentElement.scrollHeight")
    while time.monotonic() - last[0] < QUIET_MS / 1000:
        page.wait_for_timeout(200)
    cost = cpu_seconds(pid) - before
    seconds = time.monotonic() - started
    page.close()
    reached = [u for rid, u in sent.items() if rid not in cached]
    paths = [urlsplit(u).path for u in reached]
    return Visit(
        requests=len(reached),
        static=sum(p.startswith("/static/") for p in paths),
        api=sum(p.startswith("/api/") for p in paths),
        cpu_ms=1000 * cost,
        seconds=seconds,
    )


def healthz_cpu_ms(url: str, pid: int, count: int) -> float:
    """CPU milliseconds the server spends per plain GET /healthz, on one kept-alive connection."""
    parts = urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=10)
    for _ in range(50):  # warm up
        connection.request("GET", "/healthz")
        connection.getresponse().read()
    before = cpu_seconds(pid)
    for _ in range(count):
        connection.request("GET", "/healthz")
        connection.getresponse().read()
    cost = cpu_seconds(pid) - before
    connection.close()
    return 1000 * cost / count


def idle_ms_per_second(pid: int, seconds: float) -> float:
    """CPU milliseconds a second the server spends with no request at all (uvicorn's ten ticks a second)."""
    before = cpu_seconds(pid)
    time.sleep(seconds)
    return 1000 * (cpu_seconds(pid) - before) / seconds


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--visits", type=int, default=3)
    parser.add_argument("--healthz", type=int, default=2000)
    parser.add_argument("--idle", type=float, default=10.0, help="seconds of the idle server to measure")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    with served() as server, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        warm = browser.new_context(viewport={"width": 1280, "height": 900})
        cold = visit(warm, server.url, server.pid)  # the server loads its models and fills its caches
        warm.close()
        first: list[Visit] = []
        repeat: list[Visit] = []
        for _ in range(args.visits):
            context = browser.new_context(viewport={"width": 1280, "height": 900})
            first.append(visit(context, server.url, server.pid))
            repeat.append(visit(context, server.url, server.pid))
            context.close()
        browser.close()
        health = healthz_cpu_ms(server.url, server.pid, args.healthz)
        idle = idle_ms_per_second(server.pid, args.idle)

    print(f"/healthz: {health:.3f} ms of server CPU a request ({1000 / health:,.0f} a second per core)")
    print(f"idle: {idle:.1f} ms of server CPU a second with no request")
    kinds = (("first visit, cold server", [cold]), ("first visit", first), ("repeat visit", repeat))
    for name, visits in kinds:
        total = statistics.median(v.cpu_ms for v in visits)
        cpu = statistics.median(v.cpu_ms - idle * v.seconds for v in visits)
        requests = statistics.median(v.requests for v in visits)
        static = statistics.median(v.static for v in visits)
        api = statistics.median(v.api for v in visits)
        seconds = statistics.median(v.seconds for v in visits)
        print(
            f"{name}: {requests:.0f} requests to the app ({static:.0f} static files, {api:.0f} API calls), "
            f"{cpu:.0f} ms of server CPU above idle ({total:.0f} ms in all over {seconds:.1f} s), "
            f"{1000 / cpu:.1f} page views a second per core, {cpu / health:,.0f} × a /healthz request"
        )


if __name__ == "__main__":
    main()
