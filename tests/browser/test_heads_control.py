"""One kind of Heads control across the article (templates/macros.html heads_slider): figures 1 and 2 each
have a slider named Heads over their valid head counts, with a tick label per count and a readout that
follows it; no figure picks a head count from a drop-down. (Figure 6's decoder has its own two trained
heads: no slider.)"""

from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import expect

from tests.browser.pages import open_figure

# figure, its counts, the readout it starts on, and after one step right; None: figure 1's layer, whose head
# counts (the divisors of its width) the page data states, never a copy
CASES = [
    ("heads-dial", None, None, None),
    (
        "accounting",
        ["1", "2", "4", "8", "16", "32", "64", "128", "256", "512"],
        "8 heads × 64 wide",
        "16 heads × 32 wide",
    ),
]

# What shows that each figure has started and drawn its first answer.
READY = {
    "heads-dial": "[data-part=drawing] svg",
    "accounting": ".acct-how:not(:empty)",
}


@pytest.mark.parametrize(("name", "counts", "start", "after"), CASES, ids=[c[0] for c in CASES])
def test_each_figure_has_the_same_heads_slider(watched_page, name, counts, start, after):
    page, _ = watched_page
    figure = open_figure(page, name)
    expect(figure.locator(READY[name]).first).to_be_visible()  # started: its slider is wired
    if counts is None:
        valid = json.loads(page.locator("#page-data").text_content())["validHeads"]
        d_model = max(valid)  # the largest count is heads of width 1
        counts = [str(h) for h in valid]
        start, after = f"3 heads × {d_model // 3} wide", f"4 heads × {d_model // 4} wide"
    slider = figure.get_by_role("slider", name="Heads", exact=True)
    expect(slider).to_be_visible()
    expect(slider).to_have_attribute("aria-valuetext", start.split(" ×")[0])
    expect(figure.locator(".control--heads .dial-ticks span")).to_have_text(counts)
    readout = figure.locator("output[data-part=readout]")
    expect(readout).to_have_text(start)
    slider.focus()
    page.keyboard.press("ArrowRight")
    expect(slider).to_have_attribute("aria-valuetext", after.split(" ×")[0])
    expect(readout).to_have_text(after)
    # The tick labels are readable text, spread across the slider's width.
    sizes = figure.locator(".dial-ticks span").evaluate_all(
        "els => els.map(e => parseFloat(getComputedStyle(e).fontSize))"
    )
    assert min(sizes) >= 11
    assert figure.get_by_role("combobox", name=re.compile("^Heads")).count() == 0
