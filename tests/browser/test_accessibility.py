"""An accessibility scan: axe-core, run inside the page, finds no serious or critical violations.

axe-core is not kept in the repository: CI installs it (`.ci/run`: npm install into /tmp/axe); locally the
test reads it from there or from a node_modules folder, and skips when absent (under CI=true it fails).
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect


def serious_violations(page, axe_source: str) -> list[str]:
    # The page's CSP forbids inline scripts, so axe is evaluated as a function body rather than injected.
    page.evaluate(f"() => {{ {axe_source}\n; window.axe = axe; }}")
    result = page.evaluate(
        """async () => {
          const r = await window.axe.run(document, { resultTypes: ["violations"] });
          return r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help,
            nodes: v.nodes.slice(0, 4).map((n) => n.target.join(" ")) }));
        }"""
    )
    return [
        f"{v['id']} ({v['impact']}): {v['help']} at {v['nodes']}"
        for v in result
        if v["impact"] in {"serious", "critical"}
    ]


def settle_article(page) -> None:
    """Open every figure (they start lazily) and wait until none is busy."""
    page.goto("/")
    for figure in page.locator("figure[data-widget]").all():
        figure.scroll_into_view_if_needed()
    page.evaluate("window.scrollTo(0, 0)")
    expect(page.locator('#heads-dial [data-part="drawing"] svg').first).to_be_visible()
    expect(page.locator("figure[aria-busy=true]")).to_have_count(0, timeout=20_000)


@pytest.mark.parametrize("scheme", ["light", pytest.param("dark", marks=pytest.mark.sweep)])
def test_the_article_has_no_serious_accessibility_violations(watched_page, axe_source, scheme) -> None:
    page, watch = watched_page
    watch.expected_console.append("status of 503")  # figure 11 without its optional model says how to add it
    if scheme != "light":  # the watched pages' own
        page.emulate_media(color_scheme=scheme)
    settle_article(page)
    # Open the numbers' tables and reveal a prediction, so their markup is scanned too.
    page.locator("#heads-dial").get_by_text("Show the numbers as a table").click()
    expect(page.locator("#heads-dial table.figure-numbers__table").first).to_be_visible()
    assert serious_violations(page, axe_source) == []


@pytest.mark.parametrize(
    "path",
    [
        "/figure/mask-lab",
        "/figure/heads-dial?embed=1",
        "/figure/heads-dial?heads=6&head=2",  # one head isolated: the others' chips are faded
        "/figure/real-heads?real_layer=1&real_head=3",
        "/figure/real-heads?real_layer=1",  # a whole layer: a grid per head under a strip of tokens
        "/figure/order?order_perm=0,1,2",  # Restore order idle: the words are as written
    ],
)
def test_a_figure_page_has_no_serious_accessibility_violations(phone_page, axe_source, path) -> None:
    page, watch = phone_page
    watch.expected_console.append("status of 503")  # figure 11 without its optional model says how to add it
    page.goto(path)
    expect(page.locator("figure svg").first).to_be_visible()
    expect(page.locator("figure[aria-busy=true]")).to_have_count(0, timeout=20_000)
    assert serious_violations(page, axe_source) == []
