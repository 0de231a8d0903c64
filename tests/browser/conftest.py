"""Browser-test fixtures: the real server in a subprocess, one headless Chromium, a fresh page per test.

Every page is watched: uncaught errors, console errors, Content-Security-Policy violations and any request
that leaves 127.0.0.1 fail the test that caused them (the page's policy already refuses to send those; the
XSS harness, which turns the policy off, blocks them as well).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from playwright.sync_api import BrowserContext, Locator, Page

from tests.optional import missing
from tools.chromium import CHROMIUM, CHROMIUM_ARGS
from tools.serving import app_server

REPO = Path(__file__).resolve().parents[2]
ARTIFACTS = Path(__file__).resolve().parent / "artifacts"
DESKTOP = {"width": 1280, "height": 900}
FOREIGN = re.compile(r"^(?!https?://127\.0\.0\.1[:/])")  # any address but the loopback server's
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


@dataclass(frozen=True)
class Shots:
    """What a test marked `screenshots` draws on: a phone-sized and a desktop-sized page, each watched like
    `phone_page` and `watched_page`, and `take`, which writes a picture to tests/browser/artifacts."""

    phone: Page
    desktop: Page

    def take(self, target: Page | Locator, name: str, full_page: bool = False) -> None:
        """Write a picture of `target` (a page, or a part of one) to tests/browser/artifacts/`name`.png;
        `full_page` takes the whole of a page rather than its viewport."""
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        options = {"full_page": True} if full_page else {}
        target.screenshot(path=str(ARTIFACTS / f"{name}.png"), **options)


@dataclass
class Watch:
    """What a page did that a test may want to assert on."""

    console_errors: list[str] = field(default_factory=list)
    page_errors: list[str] = field(default_factory=list)
    foreign_requests: list[str] = field(default_factory=list)
    api_requests: list[str] = field(default_factory=list)
    # Console errors a test provokes on purpose (the browser logs every 4xx response it receives).
    expected_console: list[str] = field(default_factory=list)

    def request(self, url: str) -> None:
        """Note a request the page made: an answer of the API, or one that left 127.0.0.1."""
        if FOREIGN.match(url) and not url.startswith(("about:", "data:", "blob:")):
            self.foreign_requests.append(url)
        elif "/api/" in url:
            self.api_requests.append(url)

    def unexpected_console_errors(self) -> list[str]:
        return [m for m in self.console_errors if not any(e in m for e in self.expected_console)]


def keep_on_loopback(context, foreign: list[str]) -> None:
    """Let the context's requests to 127.0.0.1 through; block any other, and note its URL in `foreign`."""

    def route(route) -> None:
        foreign.append(route.request.url)
        route.abort()

    # A pattern, not a function, so the browser's driver matches it: only foreign requests reach Python, and
    # the page's own requests (every module, stylesheet and answer) are not held up by a round trip each.
    context.route(FOREIGN, route)


# The test module's one context for watched pages, by browser: made on first use, with a blank page kept open
# in it, and closed when the module ends. A fresh context for every test costs its Chromium a new renderer
# process and a cold cache, about half a second a page here (twice the cost of the page's own drawing); a
# fresh page in a kept context reuses both. What one test could leave behind for the next is cleared when its
# page closes (`watched`).
SHARED: dict[int, BrowserContext] = {}


@pytest.fixture(scope="module", autouse=True)
def one_context_a_module() -> Iterator[None]:
    """Close the context the module's watched pages opened in, if they opened one."""
    yield
    for context in SHARED.values():
        context.close()
    SHARED.clear()


def shared_context(browser, server: str) -> BrowserContext:
    """The context `watched` opens its pages in: light colours, reduced motion, `server` as the base URL."""
    if id(browser) not in SHARED:
        context = browser.new_context(
            viewport=DESKTOP, base_url=server, color_scheme="light", reduced_motion="reduce"
        )
        context.add_init_script(WATCH_SCRIPT)
        context.new_page()  # the page that keeps the renderer process alive between tests
        SHARED[id(browser)] = context
    return SHARED[id(browser)]


@contextmanager
def watched(browser, server: str, viewport: dict[str, int]) -> Iterator[tuple[Page, Watch]]:
    """A fresh page of `viewport`'s size and its Watch, checked when the block ends for uncaught errors,
    console errors, CSP violations and requests that left 127.0.0.1.

    The page opens in the module's shared context (`shared_context`); when the block ends it closes, and
    what the test may have left in the context goes with it: cookies, permissions and the origin's storage."""
    context = shared_context(browser, server)
    watch = Watch()
    page = context.new_page()
    if viewport != DESKTOP:
        page.set_viewport_size(viewport)
    page.set_default_timeout(10_000)
    page.on("console", lambda m: watch.console_errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: watch.page_errors.append(str(e)))
    page.on("request", lambda r: watch.request(r.url))
    try:
        yield page, watch
        csp = page.evaluate("window.__csp") if not page.is_closed() else []
        assert watch.page_errors == [], f"uncaught errors: {watch.page_errors}"
        assert watch.unexpected_console_errors() == [], f"console errors: {watch.unexpected_console_errors()}"
        assert csp == [], f"CSP violations: {csp}"
        assert watch.foreign_requests == [], f"requests left 127.0.0.1: {watch.foreign_requests}"
    finally:
        if not page.is_closed() and page.url.startswith(server):
            page.evaluate("() => { localStorage.clear(); sessionStorage.clear(); }")
        page.close()
        context.clear_cookies()
        context.clear_permissions()


@pytest.fixture
def watched_page(browser, server) -> Iterator[tuple[Page, Watch]]:
    """A desktop-sized page and its Watch; afterwards checked for errors, CSP violations, foreign requests."""
    with watched(browser, server, DESKTOP) as opened:
        yield opened


@pytest.fixture
def phone_page(browser, server) -> Iterator[tuple[Page, Watch]]:
    """A 375 px wide page, checked like `watched_page`."""
    with watched(browser, server, PHONE) as opened:
        yield opened


@pytest.fixture
def shots(phone_page, watched_page) -> Shots:
    """The pages of a screenshot test, and where their pictures go (tests/conftest.py says when they run)."""
    return Shots(phone_page[0], watched_page[0])


# axe-core, for test_accessibility.py and the scans of a figure drawn in a given state, is not kept in the
# repository: CI installs it (.ci/run: npm install into /tmp/axe).
AXE_PATHS = [
    Path(os.environ.get("AXE_CORE_JS", "/tmp/axe/node_modules/axe-core/axe.min.js")),
    REPO / "node_modules/axe-core/axe.min.js",
]


@pytest.fixture(scope="module")
def axe_source() -> str:
    for path in AXE_PATHS:
        if path.is_file():
            return path.read_text(encoding="utf-8")
    missing("axe-core is missing: npm install --no-save --prefix /tmp/axe axe-core@4.14.1 (as .ci/run does)")
