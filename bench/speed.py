"""The explorable's speed in one run, every figure a ratio against a baseline measured in the same run.

    python bench/speed.py [--seconds 5] [--clients 16] [--requests 40] [--rounds 3]

1. Requests per second relative to /healthz under wrk's load (bench/distinct.py): /api/attention at 5 words
   × 3 heads and 64 × 12 (JSON and packed), /api/translate and /api/real-attention, each as cache misses (a
   distinct sentence every request) and as cache hits (one request repeated), with the server's CPU
   milliseconds per request, the app's /healthz against a bare FastAPI app's, and the 64 × 12 answer's bytes.
2. /api/translate: the median time of one whole-sentence request from one client, relative to /healthz
   (bench/translate.py), misses and a repeated sentence.
3. The first page load of / in Chromium (Playwright, /usr/bin/chromium): bytes received for every
   response, counted as Chromium's encoded (on-the-wire) body size plus the response headers, and any
   request to another origin (there must be none). Then the same after scrolling the whole article (the
   lower figures start lazily), and a reload, where the browser revalidates with If-None-Match. Goal for the
   first load: at most 250 KB and zero third-party requests.
4. The heads dial's redraw time per dial step at 16 tokens and 12 heads (bench/redraw.py), against one frame.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from playwright.sync_api import Page, Request, sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench import distinct, redraw, translate  # noqa: E402
from tools.chromium import CHROMIUM, CHROMIUM_ARGS  # noqa: E402
from tools.serving import served  # noqa: E402

PAGE_BUDGET = 250 * 1000  # bytes
FRAME_MS = 16.0
REDRAW_HEADS = 12


@dataclass
class Transfer:
    responses: int = 0
    bytes: int = 0
    bodyless: int = 0  # 304s, and answers the browser revalidated and then took from its cache
    third_party: list[str] = field(default_factory=list)
    by_url: dict[str, int] = field(default_factory=dict)

    def copy(self) -> Transfer:
        return Transfer(self.responses, self.bytes, self.bodyless, list(self.third_party), dict(self.by_url))


def record(page: Page, base: str) -> Transfer:
    """Count every finished request of ``page`` from now on."""
    transfer = Transfer()
    origin = urlsplit(base).netloc

    def finished(request: Request) -> None:
        if request.url.startswith("data:"):
            return
        if urlsplit(request.url).netloc != origin:
            transfer.third_party.append(request.url)
        sizes = request.sizes()
        size = sizes["responseBodySize"] + sizes["responseHeadersSize"]
        transfer.responses += 1
        transfer.bytes += size
        transfer.bodyless += sizes["responseBodySize"] == 0
        url = urlsplit(request.url)
        path = f"{url.path}?{url.query}" if url.query else url.path
        transfer.by_url[path] = transfer.by_url.get(path, 0) + size

    page.on("requestfinished", finished)
    page.on("requestfailed", lambda request: transfer.third_party.append(f"FAILED {request.url}"))
    return transfer


def scroll_through(page: Page) -> None:
    """Scroll to the bottom a screen at a time, so every lazily started figure starts."""
    height = page.evaluate("() => document.documentElement.scrollHeight")
    for y in range(0, height + 900, 600):
        page.evaluate(f"() => window.scrollTo(0, {y})")
        page.wait_for_timeout(150)
    page.wait_for_load_state("networkidle")


def page_weight(base: str) -> tuple[Transfer, Transfer, Transfer]:
    """Bytes of the first load of /, after scrolling through it, and of a reload (revalidation)."""
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        page = context.new_page()
        counted = record(page, base)
        page.goto(f"{base}/", wait_until="networkidle")
        page.wait_for_timeout(500)
        first_load = counted.copy()
        scroll_through(page)  # counted goes on
        reload_page = context.new_page()
        again = record(reload_page, base)
        reload_page.goto(f"{base}/", wait_until="networkidle")
        reload_page.wait_for_timeout(500)
        browser.close()
    return first_load, counted, again


def print_transfer(name: str, t: Transfer) -> None:
    print(
        f"{name:44s} {t.responses:5d} responses {t.bytes / 1000:8.1f} KB "
        f"({t.bodyless} without a body)  third-party: {len(t.third_party)}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--seconds", type=int, default=5, help="per throughput case")
    parser.add_argument("--connections", type=int, default=32, help="wrk's connections per throughput case")
    parser.add_argument("--requests", type=int, default=40, help="sequential translate requests per case")
    parser.add_argument("--rounds", type=int, default=3, help="redraw walks of the heads dial")
    args = parser.parse_args()

    distinct.require_wrk()
    translate_cases = translate.cases_of(args.requests)
    rates = list(distinct.cases(1, distinct.real_model_installed()))
    with served() as started, distinct.bare_server() as bare_url:
        attention = distinct.measure(started, bare_url, rates, args.seconds, args.connections, 1, 1)
        health_ms, translated = translate.measure(started.url, translate_cases, args.requests)
        first, scrolled, reloaded = page_weight(started.url)
        baseline, long = redraw.measure(started.url, args.rounds)

    print(f"1. requests per second, wrk -c{args.connections} -d{args.seconds}s on loopback, one worker")
    distinct.print_table(attention)
    print()
    print("2. /api/translate, one client, whole sentence per request")
    translate.print_served(health_ms, translated)
    print()
    print("3. bytes received by Chromium (encoded body + response headers, every response)")
    print_transfer("first load of / (until network idle)", first)
    print_transfer("the same page after scrolling to the end", scrolled)
    print_transfer("a second load of / (revalidated)", reloaded)
    print(f"   first load / budget of {PAGE_BUDGET // 1000} KB: {first.bytes / PAGE_BUDGET:.2f}")
    for url, size in sorted(first.by_url.items(), key=lambda item: -item[1])[:8]:
        print(f"   {size / 1000:8.1f} KB  {url}")
    for url in first.third_party + scrolled.third_party:
        print(f"   third party: {url}")
    print()
    print(
        f"4. heads dial redraw per step, 16 tokens at {REDRAW_HEADS} heads (5 tokens at 1 head as baseline)"
    )
    m, b = long[REDRAW_HEADS], baseline[1]
    print(
        f"   median {statistics.median(m):.2f} ms, max {max(m):.2f} ms; "
        f"median / one frame ({FRAME_MS:g} ms): {statistics.median(m) / FRAME_MS:.2f}; "
        f"/ 5 tokens at 1 head: {statistics.median(m) / statistics.median(b):.2f}"
    )


if __name__ == "__main__":
    main()
