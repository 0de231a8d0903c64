"""Browser-test fixtures: the real server in a subprocess, one headless Chromium, a fresh page per test.

Every page is watched: uncaught errors, console errors, Content-Security-Policy violations and any request
that leaves 127.0.0.1 fail the test that caused them (foreign requests are also blocked, so a test never
touches the network).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from tests.browser.chromium import CHROMIUM, CHROMIUM_ARGS
from tests.optional import missing
from tests.serving import app_server

REPO = Path(__file__).resolve().parents[2]
ARTIFACTS = Path(__file__).resolve().parent / "artifacts"
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 375, "height": 812}

# Records, from inside the page, CSP violations and whether a figure ever showed its busy state.
WATCH_SCRIPT = """
window.__csp = [];
document.addEventListener("securitypolicyviolation", (e) => {
  window.__csp.push(`${e.violatedDirective} ${e.blockedURI}`);
});
window.__busySeen = false;
new MutationObserver((records) => {
  for (const r of records) {
    if (r.target.getAttribute("aria-busy") === "true") window.__busySeen = true;
  }
}).observe(document, { attributes: true, subtree: true, attributeFilter: ["aria-busy"] });
"""


@pytest.fixture(scope="session")
def server() -> Iterator[str]:
    """`python -m app` on a free port, from the repository root; its base URL."""
    with app_server() as url:
        yield url


@pytest.fixture(scope="session")
def browser():
    """One headless Chromium for the session (the system's; Playwright's own download is never used)."""
    if not CHROMIUM.exists():
        missing(f"{CHROMIUM} is missing: browser tests need a system Chromium")
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture(scope="session")
def artifacts() -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS


@dataclass
class Watch:
    """What a page did that a test may want to assert on."""

    console_errors: list[str] = field(default_factory=list)
    page_errors: list[str] = field(default_factory=list)
    foreign_requests: list[str] = field(default_factory=list)
    api_requests: list[str] = field(default_factory=list)
    # Console errors a test provokes on purpose (the browser logs every 4xx response it receives).
    expected_console: list[str] = field(default_factory=list)

    def unexpected_console_errors(self) -> list[str]:
        return [m for m in self.console_errors if not any(e in m for e in self.expected_console)]


def _open_page(browser, server: str, viewport: dict[str, int]):
    context = browser.new_context(
        viewport=viewport, base_url=server, color_scheme="light", reduced_motion="reduce"
    )
    context.add_init_script(WATCH_SCRIPT)
    watch = Watch()

    def route(route) -> None:
        if urlsplit(route.request.url).hostname == "127.0.0.1":
            route.continue_()
        else:
            watch.foreign_requests.append(route.request.url)
            route.abort()

    context.route("**/*", route)
    page = context.new_page()
    page.set_default_timeout(10_000)
    page.on("console", lambda m: watch.console_errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: watch.page_errors.append(str(e)))
    page.on("request", lambda r: watch.api_requests.append(r.url) if "/api/" in r.url else None)
    return context, page, watch


def _check(page, watch: Watch) -> None:
    csp = page.evaluate("window.__csp") if not page.is_closed() else []
    assert watch.page_errors == [], f"uncaught errors: {watch.page_errors}"
    assert watch.unexpected_console_errors() == [], f"console errors: {watch.unexpected_console_errors()}"
    assert csp == [], f"CSP violations: {csp}"
    assert watch.foreign_requests == [], f"requests left 127.0.0.1: {watch.foreign_requests}"


@pytest.fixture
def watched_page(browser, server):
    """A desktop-sized page and its Watch; afterwards checked for errors, CSP violations, foreign requests."""
    context, page, watch = _open_page(browser, server, DESKTOP)
    yield page, watch
    try:
        _check(page, watch)
    finally:
        context.close()


@pytest.fixture
def phone_page(browser, server):
    """A 375 px wide page, checked like `watched_page`."""
    context, page, watch = _open_page(browser, server, PHONE)
    yield page, watch
    try:
        _check(page, watch)
    finally:
        context.close()
