"""Redraw time of the heads dial per dial step, in headless Chromium, against a small baseline view.

    python bench/redraw.py [--steps 40]

Opens the page on a 16-token sentence, waits until every head count is fetched, then steps the Heads dial
back and forth with the keyboard and reads the ``heads-dial:redraw`` performance measures the figure
records around each full redraw. The baseline is the same walk on the 5-token default sentence.
The goal is one frame (16 ms) at 16 tokens and 24 heads.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path
from urllib.parse import quote

from playwright.sync_api import Page, sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench.common import running_server  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
LONG = "the old river bank by the mill was steep and the bat flew over the quiet water at dusk"


def walk(page: Page, base: str, sentence: str, steps: int) -> list[float]:
    """Milliseconds of each full redraw while the dial walks from 1 to 24 heads and back."""
    page.goto(f"{base}/?sentence={quote(sentence)}&heads=24")
    figure = page.locator("figure#heads-dial")
    figure.locator("svg").first.wait_for()
    page.wait_for_function("() => !document.querySelector('figure#heads-dial').getAttribute('aria-busy')")
    page.wait_for_timeout(1500)  # let the prefetch of every head count land
    dial = figure.get_by_role("slider", name="Heads")
    dial.focus()
    page.evaluate("() => performance.clearMeasures('heads-dial:redraw')")
    for k in range(steps):
        page.keyboard.press("ArrowLeft" if (k // 7) % 2 == 0 else "ArrowRight")
        page.wait_for_timeout(30)
    durations: list[float] = page.evaluate(
        "() => performance.getEntriesByName('heads-dial:redraw').map(e => e.duration)"
    )
    return durations


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--steps", type=int, default=42)
    args = parser.parse_args()
    with running_server() as base, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        baseline = walk(page, base, "the river bank was steep", args.steps)
        long = walk(page, base, LONG, args.steps)
        browser.close()
    if not baseline or not long:
        raise SystemExit("no heads-dial:redraw measures were recorded")
    b, m = statistics.median(baseline), statistics.median(long)
    print(f"{'view':34s} {'redraws':>7s} {'median ms':>10s} {'p95 ms':>8s} {'max ms':>8s}")
    for name, d in (("5 tokens (baseline)", baseline), ("16 tokens, 1..24 heads", long)):
        p95 = sorted(d)[int(0.95 * (len(d) - 1))]
        print(f"{name:34s} {len(d):7d} {statistics.median(d):10.2f} {p95:8.2f} {max(d):8.2f}")
    print(f"ratio 16 tokens / baseline (median): {m / b:.2f}")
    print(f"ratio 16 tokens / one frame (16 ms), median: {m / 16:.2f}, max: {max(long) / 16:.2f}")


if __name__ == "__main__":
    main()
