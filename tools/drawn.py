"""Waiting, in a Playwright page, until the article's figures have drawn what they show: shared by the browser
tests, the gallery (tools/gallery.py) and the reservations (tools/reserve.py).

A figure is drawn when its widget has started (``data-ready``), a lazy one has come near enough to send its
requests (``data-near``), no answer is awaited (no ``aria-busy``) and the frames after its last answer have
run: drawings that follow their box's width redraw on the next two frames (ResizeObserver).
"""

from __future__ import annotations

from playwright.sync_api import Page, expect

NEXT_FRAMES = "() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))"


def next_frames(page: Page) -> None:
    """Wait until the page has drawn two more frames: what an answer changed is then on screen."""
    page.evaluate(NEXT_FRAMES)


def draw_figure(page: Page, name: str, timeout: float = 20_000) -> None:
    """Bring figure `name` into view and wait until it has drawn (as the module docstring says)."""
    figure = page.locator(f"figure#{name}")
    figure.scroll_into_view_if_needed()
    if figure.get_attribute("data-widget") is not None:
        expect(figure).to_have_attribute("data-ready", "true", timeout=timeout)
    if figure.get_attribute("data-lazy") is not None:
        expect(figure).to_have_attribute("data-near", "true", timeout=timeout)
    expect(figure).not_to_have_attribute("aria-busy", "true", timeout=timeout)


def draw_every_figure(page: Page, timeout: float = 20_000) -> None:
    """Bring each figure of the page into view in turn, which sends its requests, and wait until every one
    has drawn: one wait for a quiet network at the end, not one per figure."""
    for name in page.locator("figure[id]").evaluate_all("(figures) => figures.map((f) => f.id)"):
        draw_figure(page, name, timeout)
    page.wait_for_load_state("networkidle")
    next_frames(page)
