"""What the browser tests do to a page again and again: open a figure, read the state the URL holds,
measure how far the page scrolls sideways, and see a figure show a refusal and recover from it."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlsplit

from playwright.sync_api import Locator, Page, expect

from app.config import get_settings
from app.figures import present

# The article's figures, in reading order (each a <figure id=...>; the placements table has no widget): the
# registry's, so that a figure added to the article is opened by every test that walks them all.
ARTICLE_FIGURES = [figure.slug for figure in present(get_settings().templates_dir)]
# The smallest size, in CSS px, that any text a reader can see renders at (SVG scaling included).
MIN_PX = 11
# Every visible text of the page as {part, text, px}. Hidden means not rendered (display, visibility, opacity,
# a closed <details>) or clipped to a pixel for screen readers only (.visually-hidden); a text merely scrolled
# out of its box is visible, since the reader can scroll to it. Tooltips (<title>) are not drawn text, nor are
# MathML's invisible operators (function application, invisible times).
MEASURE = """
() => {
  const partOf = (el) => el.closest("figure[id]")?.id ?? "article";
  const clippedAway = (el) => {
    for (let a = el; a && a !== document.body; a = a.parentElement) {
      const style = getComputedStyle(a);
      if (style.overflow === "visible" && style.clip === "auto") continue;
      const r = a.getBoundingClientRect();
      if (r.width <= 1 || r.height <= 1) return true;
    }
    return false;
  };
  const visible = (el) =>
    el.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true }) && !clippedAway(el);
  const px = (el) => {
    const size = parseFloat(getComputedStyle(el).fontSize);
    if (!(el instanceof SVGElement)) return size;
    const m = (el.getScreenCTM ? el : el.closest("text"))?.getScreenCTM();
    return m ? size * Math.sqrt(Math.abs(m.a * m.d - m.b * m.c)) : size;
  };
  const found = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const text = node.textContent.replace(/[\\u2061-\\u2064]/g, "").trim();
    const el = node.parentElement;
    if (!text || !el || el.closest("script, style, template, noscript, select, title")) continue;
    if (!visible(el)) continue;
    found.push({ part: partOf(el), text: text.slice(0, 48), px: px(el) });
  }
  const boxes = "input:not([type=range], [type=checkbox], [type=radio], [type=hidden]), select, textarea";
  for (const el of document.querySelectorAll(boxes)) {
    if (!visible(el)) continue;
    const shown = el.tagName === "SELECT" ? el.selectedOptions[0]?.textContent ?? "" : el.value;
    found.push({ part: partOf(el), text: `<${el.tagName.toLowerCase()}> ${shown}`.slice(0, 48), px: px(el) });
  }
  return found;
}
"""


def texts_of(page: Page, part: str) -> list[dict]:
    """Every visible text of `part` (a figure's id, or "article" for all outside the figures), as MEASURE
    finds it: {part, text, px}."""
    return [t for t in page.evaluate(MEASURE) if t["part"] == part]


def too_small(texts: list[dict]) -> list[dict]:
    """The texts under MIN_PX (a hair under from rounding, 10.99…, is 11)."""
    return [t for t in texts if t["px"] < MIN_PX - 0.01]


STALE = re.compile(r"\bis-stale\b")  # the class a part wears while it shows an answer that is out of date


def open_figure(page: Page, name: str, query: str = "", path: str | None = None) -> Locator:
    """Open `path` with `query` and bring `figure#name` into view, which sends a lazy figure's requests; the
    figure's locator. The caller waits for whatever shows that figure is drawn.

    By default `path` is the figure's own page, /figure/<name>: the same figure, its controls, URL state and
    requests, without the other nine starting beside it, which would more than double the work of a test that
    only looks at this one. What the figures do together in the article (landing, layout, text size, the
    contents, the accessibility scan) is tested on the article itself."""
    page.goto(f"{path or f'/figure/{name}'}{query}")
    figure = page.locator(f"figure#{name}")
    figure.scroll_into_view_if_needed()
    return figure


def open_heads_dial(page: Page, path: str = "/") -> Locator:
    """Open `path` (the article, or figure 1's own page) and wait until figure 1 has drawn its answer."""
    page.goto(path)
    figure = page.locator("figure#heads-dial")
    expect(figure.locator('[data-part="drawing"] svg').first).to_be_visible()
    expect(figure).not_to_have_attribute("aria-busy", "true")
    return figure


def get_json(page: Page, path: str) -> dict:
    """The server's JSON answer to GET `path`, asked through the page's own request context."""
    response = page.request.get(path)
    assert response.ok, path
    return response.json()


def query_params(page: Page) -> dict[str, str]:
    """The page's query string, the last value of each key."""
    return {k: v[-1] for k, v in parse_qs(urlsplit(page.url).query).items()}


def sideways_scroll(page: Page) -> int:
    """How many pixels the page scrolls sideways: 0 when it fits its viewport's width."""
    return page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")


def refused_then_recovered(figure: Locator, stale: Locator, refused: str, detail: str, accepted: str) -> None:
    """Type `refused` in the figure's Sentence box: the server's `detail` shows as an alert inside the figure,
    `stale` is marked stale and the figure is no longer busy. Then type `accepted`: the alert goes and
    `stale` is fresh again."""
    sentence = figure.get_by_role("textbox", name="Sentence")
    sentence.fill(refused)
    error = figure.get_by_role("alert")
    expect(error).to_have_text(detail)
    expect(stale).to_have_class(STALE)
    expect(figure).not_to_have_attribute("aria-busy", "true")
    sentence.fill(accepted)
    expect(error).to_be_hidden()
    expect(stale).not_to_have_class(STALE)
