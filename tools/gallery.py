"""Picture every figure of the article as a reader first sees it, at a desktop and a phone width, into
docs/screenshots/: figure 1 at 1, 3 and 24 heads on its default sentence, every other figure in its default
view, and the generator four words into its translation. Run from the repository root after changing what a
figure shows:

    python -m tools.gallery

The pictures are JPEGs at one CSS pixel per pixel, for a person to look at; no test reads them.
"""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Page, sync_playwright

from app.config import get_settings
from app.figures import present
from tools.chromium import CHROMIUM, CHROMIUM_ARGS
from tools.drawn import draw_figure, next_frames

REPO = Path(__file__).resolve().parents[1]
OUT = REPO / "docs" / "screenshots"
WIDTHS = {"1280": {"width": 1280, "height": 900}, "390": {"width": 390, "height": 844}}
QUALITY = 45  # JPEG quality: text stays readable, and the pictures weigh about 3 MB together


def take(page: Page, name: str, file: str) -> None:
    """Figure `name`, drawn (tools/drawn.py) and its answer's frames run, as docs/screenshots/<file>.jpg."""
    draw_figure(page, name)
    page.wait_for_load_state("networkidle")
    next_frames(page)
    page.locator(f"figure#{name}").screenshot(path=OUT / f"{file}.jpg", type="jpeg", quality=QUALITY)
    print(f"wrote {(OUT / f'{file}.jpg').relative_to(REPO)}", flush=True)


def main() -> None:
    from tools.serving import app_server

    OUT.mkdir(parents=True, exist_ok=True)
    with app_server() as url, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        for width, viewport in WIDTHS.items():
            context = browser.new_context(
                viewport=viewport, base_url=url, color_scheme="light", reduced_motion="reduce"
            )
            page = context.new_page()
            page.set_default_timeout(30_000)
            for heads in (1, 3, 24):
                page.goto(f"/figure/heads-dial?heads={heads}")
                take(page, "heads-dial", f"heads-dial-h{heads}-{width}")
            page.goto("/")
            for name in [figure.slug for figure in present(get_settings().templates_dir)][1:]:
                take(page, name, f"{name}-{width}")
            page.goto("/figure/generator?gen_step=4")
            take(page, "generator", f"generator-step-4-{width}")
            context.close()
        browser.close()


if __name__ == "__main__":
    main()
