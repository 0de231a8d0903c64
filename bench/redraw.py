"""Redraw time of the heads dial per dial step, in headless Chromium, against a small baseline view.

    python bench/redraw.py [--rounds 5] [--heads 24]

Opens the page on a 16-token sentence, waits until every head count is fetched, then steps the Heads dial
back and forth with the keyboard and reads the ``heads-dial:redraw`` performance measures the figure
records around each full redraw. The baseline is the same walk on the 5-token default sentence.
The goal is one frame (16 ms) at 16 tokens and ``--heads`` heads (24 by default; bench/speed.py asks for 12).
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path
from urllib.parse import quote

from playwright.sync_api import Page, sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from tools.chromium import CHROMIUM, CHROMIUM_ARGS  # noqa: E402
from tools.serving import app_server  # noqa: E402

VALID_HEADS = [1, 2, 3, 4, 6, 8, 12, 24]

LONG = "the old river bank by the mill was steep and the bat flew over the water"  # 16 words


def walk(page: Page, base: str, sentence: str, rounds: int) -> dict[int, list[float]]:
    """Milliseconds of each full redraw, by head count, walking the dial 24 -> 1 -> 24 ``rounds`` times."""
    page.goto(f"{base}/?sentence={quote(sentence)}&heads=24")
    figure = page.locator("figure#heads-dial")
    figure.locator("svg").first.wait_for()
    page.wait_for_function("() => !document.querySelector('figure#heads-dial').getAttribute('aria-busy')")
    page.wait_for_timeout(1500)  # let the prefetch of every head count land
    dial = figure.get_by_role("slider", name="Heads")
    dial.focus()
    by_heads: dict[int, list[float]] = {}
    steps = len(VALID_HEADS) - 1
    for _ in range(rounds):
        for key in ["ArrowLeft"] * steps + ["ArrowRight"] * steps:
            page.evaluate("() => performance.clearMeasures('heads-dial:redraw')")
            page.keyboard.press(key)
            page.wait_for_timeout(20)
            durations = page.evaluate(
                "() => performance.getEntriesByName('heads-dial:redraw').map(e => e.duration)"
            )
            heads = VALID_HEADS[int(dial.input_value())]
            by_heads.setdefault(heads, []).extend(durations)
    return by_heads


def measure(base: str, rounds: int) -> tuple[dict[int, list[float]], dict[int, list[float]]]:
    """Redraw milliseconds by head count on the 5-token default sentence and on the 16-token one."""
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        baseline = walk(page, base, "the river bank was steep", rounds)
        long = walk(page, base, LONG, rounds)
        browser.close()
    return baseline, long


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--heads", type=int, choices=VALID_HEADS, default=24, help="the head count judged")
    args = parser.parse_args()
    with app_server() as base:
        baseline, long = measure(base, args.rounds)
    print(f"{'heads':>5s} {'5 tokens median ms':>19s} {'16 tokens median ms':>20s} {'16 tokens max ms':>17s}")
    for h in VALID_HEADS:
        b, m = baseline.get(h, []), long.get(h, [])
        if not b or not m:
            raise SystemExit(f"no heads-dial:redraw measures were recorded at {h} heads")
        print(f"{h:5d} {statistics.median(b):19.2f} {statistics.median(m):20.2f} {max(m):17.2f}")
    top = args.heads
    ratio_base = statistics.median(long[top]) / statistics.median(baseline[1])
    print(f"16 tokens at {top} heads / 5 tokens at 1 head (medians): {ratio_base:.2f}")
    print(
        f"16 tokens at {top} heads / one frame (16 ms): median {statistics.median(long[top]) / 16:.2f}, "
        f"max {max(long[top]) / 16:.2f}"
    )


if __name__ == "__main__":
    main()
