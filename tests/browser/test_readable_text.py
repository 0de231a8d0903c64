"""Every text a reader can see on the article renders at 11 CSS px or more, at 1280 and at 390 px wide, and
no drawn label is cut off by its drawing's edge or written over another.

The article is opened once per width; each figure is scrolled into view and waited for (started, no longer
busy, the network quiet), then every visible text is measured in the browser: an HTML text at its parent's
computed font size, an SVG text at its font size times the scale its drawing is shown at (from getScreenCTM,
so a viewBox shrunk to a phone's width counts), a text box or menu at its own font size. The result is
reported per part of the page (the prose around the figures, then each figure), so each passes or fails alone.
Then every SVG text is compared with the drawing that holds it (cut off when it runs past an edge the drawing
clips at) and with its neighbours (written over one when two level texts share more than a sliver).
"""

from __future__ import annotations

import pytest

from tests.browser.conftest import watched
from tests.browser.pages import ARTICLE_FIGURES, MEASURE, MIN_PX, sideways_scroll
from tools.drawn import draw_every_figure

WIDTHS = {"1280": {"width": 1280, "height": 900}, "390": {"width": 390, "height": 844}}
# The figures of the article, in its order; "article" is everything outside them (masthead, prose, contents).
FIGURES = ARTICLE_FIGURES
PARTS = ["article", *FIGURES]
# The article as it opens, and with a long sentence at many heads in every figure that takes one (where
# figure 1 and others switch from arcs to grids, and heatmaps get many small cells).
LONG = "the river bank was steep and the river bank was steep and the river bank was steep"
# Figure 6's decoder reads at most 24 words (app/models/tiny_lm.MAX_WORDS), some of these in pieces.
DECODER_LONG = (
    "the hungry brown wolf followed the young goose across the sandy meadow near the barn because "
    "it wanted a snack before the long winter"
)
SCENES = {
    "default": "/",
    "long": f"/?sentence={LONG}&heads=24&mask_sentence={DECODER_LONG}&order_sentence={LONG}"
    f"&real_sentence={LONG}".replace(" ", "+"),
}


# Each drawn text against its own <svg>: past an edge that clips (an <svg>'s overflow is hidden unless set
# otherwise), or over another level text of the same drawing by more than 2 px each way (slanted labels are
# left out of that: their boxes overlap where their letters do not).
DRAWN = """
() => {
  const shown = (el) => el.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true });
  const partOf = (el) => el.closest("figure[id]")?.id ?? "article";
  const found = [];
  for (const drawing of document.querySelectorAll("main svg")) {
    if (!shown(drawing)) continue;
    const edge = drawing.getBoundingClientRect();
    const clips = getComputedStyle(drawing).overflow !== "visible";
    const texts = [...drawing.querySelectorAll("text")].filter(
      (t) => t.closest("svg") === drawing && t.textContent.trim() && shown(t),
    );
    const level = [];
    for (const t of texts) {
      const r = t.getBoundingClientRect();
      const what = { part: partOf(drawing), text: t.textContent.trim().slice(0, 40) };
      const past = Math.max(
        edge.left - r.left, r.right - edge.right, edge.top - r.top,
        r.bottom - edge.bottom,
      );
      if (clips && past > 1) found.push({ ...what, problem: `cut off by ${past.toFixed(1)} px` });
      if (!t.closest("[transform*=rotate]")) level.push([what, r]);
    }
    for (let i = 0; i < level.length; i++) {
      for (let j = i + 1; j < level.length; j++) {
        const [a, ra] = level[i];
        const [b, rb] = level[j];
        const wide = Math.min(ra.right, rb.right) - Math.max(ra.left, rb.left);
        const high = Math.min(ra.bottom, rb.bottom) - Math.max(ra.top, rb.top);
        if (wide > 2 && high > 2) found.push({ ...a, problem: `written over ${JSON.stringify(b.text)}` });
      }
    }
  }
  return found;
}
"""


class Measured(dict):
    """Per (scene, width): every visible text of the fully drawn article ("texts"), its sideways scroll;
    each measured the first time a test asks for it, so a run that leaves out a scene (the `sweep` cases)
    does not draw it."""

    def __init__(self, browser, server: str) -> None:
        super().__init__()
        self.browser, self.server = browser, server

    def __missing__(self, key: tuple[str, str]) -> dict:
        scene, width = key
        with watched(self.browser, self.server, WIDTHS[width]) as (page, _):
            page.set_default_timeout(20_000)
            page.goto(SCENES[scene])
            draw_every_figure(page)
            self[key] = {
                "texts": page.evaluate(MEASURE),
                "sideways": sideways_scroll(page),
                "drawn": page.evaluate(DRAWN),
            }
        return self[key]


@pytest.fixture(scope="module")
def measured(browser, server) -> Measured:
    return Measured(browser, server)


def report(small: list[dict]) -> str:
    """The offending texts, smallest first, each once with how often it occurs."""
    counts: dict[tuple[str, float], int] = {}
    for t in small:
        key = (t["text"], round(t["px"], 1))
        counts[key] = counts.get(key, 0) + 1
    lines = [
        f"  {px:5.1f} px  {text!r}" + (f" ×{n}" if n > 1 else "")
        for (text, px), n in sorted(counts.items(), key=lambda kv: (kv[0][1], kv[0][0]))
    ]
    shown = "\n".join(lines[:40]) + (f"\n  … and {len(lines) - 40} more" if len(lines) > 40 else "")
    return f"{len(small)} texts below {MIN_PX} px:\n{shown}"


@pytest.mark.parametrize("scene", ["default", pytest.param("long", marks=pytest.mark.sweep)])
@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("part", PARTS)
def test_every_visible_text_renders_at_11_css_px_or_more(measured, part, width, scene):
    texts = [t for t in measured[scene, width]["texts"] if t["part"] == part]
    assert texts, f"no visible text measured in {part} at {width} px"
    # A hair under 11 from rounding (10.99…) is 11.
    small = [t for t in texts if t["px"] < MIN_PX - 0.01]
    assert not small, f"{part} at {width} px wide ({scene} view): " + report(small)


@pytest.mark.parametrize("scene", ["default", pytest.param("long", marks=pytest.mark.sweep)])
@pytest.mark.parametrize("width", WIDTHS)
def test_the_drawn_article_does_not_scroll_sideways(measured, width, scene):
    assert measured[scene, width]["sideways"] == 0


@pytest.mark.parametrize("scene", ["default", pytest.param("long", marks=pytest.mark.sweep)])
@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("part", PARTS)
def test_no_drawn_label_is_cut_off_or_written_over_another(measured, part, width, scene):
    wrong = [f"{t['text']!r}: {t['problem']}" for t in measured[scene, width]["drawn"] if t["part"] == part]
    assert not wrong, f"{part} at {width} px wide ({scene} view):\n  " + "\n  ".join(wrong[:30])
