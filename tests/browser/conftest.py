"""Browser-test fixtures: the real server in a subprocess, one headless Chromium, and a page per test: each
test loads its own address in its module's kept page, left clean by the test before it.

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
from playwright.sync_api import BrowserContext, ConsoleMessage, Locator, Page
from playwright.sync_api import Error as PlaywrightError

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


# The test module's one context for watched pages, by browser, and the page its next test opens in: made on
# first use, and closed when the module ends. A fresh context for every test costs its Chromium a new renderer
# process and a cold cache, and so does a fresh page: about 0.4 s a test here (more than a figure's own first
# drawing). So the tests of a module take turns on one page, each loading its own address in it; what one test
# could leave behind for the next is cleared when it ends (`watched`).
SHARED: dict[int, Kept] = {}


@dataclass
class Kept:
    """A module's context for watched pages, and the page its next test opens in (None: a new page)."""

    context: BrowserContext
    page: Page | None = None


# What a test can set on a page that outlives the page's document, and that `watched` does not undo: a page on
# which a test used any of these is closed when the test ends, and the next test opens a new one. Playwright's
# clock is not among them: `page.clock` is the context's, shared by all of the module's pages.
LASTING = frozenset(
    {
        *("add_init_script", "add_locator_handler", "emulate_media", "expose_binding", "expose_function"),
        *("on", "once", "route", "route_from_har", "route_web_socket", "set_default_navigation_timeout"),
        "set_extra_http_headers",
    }
)


class WatchedPage(Page):
    """A page `watched` hands out, which notes whether its test used a setting that outlives its document."""

    def __getattribute__(self, name: str):
        if name in LASTING:
            self.__dict__["lasting"] = True
        return super().__getattribute__(name)


@pytest.fixture(scope="module", autouse=True)
def one_context_a_module() -> Iterator[None]:
    """Close the context the module's watched pages opened in, if they opened one."""
    yield
    for kept in SHARED.values():
        kept.context.close()
    SHARED.clear()


def shared_context(browser, server: str) -> Kept:
    """The context `watched` opens its pages in (light colours, reduced motion, `server` as the base URL),
    and the page the next test may take."""
    if id(browser) not in SHARED:
        context = browser.new_context(
            viewport=DESKTOP, base_url=server, color_scheme="light", reduced_motion="reduce"
        )
        context.add_init_script(WATCH_SCRIPT)
        SHARED[id(browser)] = Kept(context)
    return SHARED[id(browser)]


def take_page(kept: Kept) -> Page:
    """The module's kept page if no test holds it, else a new page."""
    page, kept.page = kept.page, None
    if page is None or page.is_closed():
        page = kept.context.new_page()
        page.__class__ = WatchedPage
    return page


# Where a page waits between tests: an address of the server without a script, so the process that draws the
# server's pages stays. Chromium asks for /favicon.ico once after showing it, and reports the 404 late, as the
# next test's page starts to load: `watched` leaves out an error about the icon that arrives while the page is
# still here.
BETWEEN_TESTS = "/healthz"


def hand_back(kept: Kept, page: Page, server: str) -> None:
    """Leave `page` ready for the module's next test, or close it: the test's document is unloaded (nothing it
    started goes on), the origin's storage emptied, the mouse back where a new page has it. A page whose test
    made a lasting setting, or that the clean-up fails on, is closed."""
    try:
        if page.is_closed():
            return
        lasting = page.__dict__.get("lasting", False)
        if not lasting:
            page.mouse.move(0, 0)
            page.goto(f"{server}{BETWEEN_TESTS}")
        if page.url.startswith(server):
            page.evaluate("() => { localStorage.clear(); sessionStorage.clear(); }")
        if not lasting and kept.page is None:
            kept.page, page = page, None
    except PlaywrightError:
        pass  # a page that crashed, or would not leave: closed below, and the next test opens a new one
    finally:
        if page is not None and not page.is_closed():
            page.close()


@contextmanager
def watched(browser, server: str, viewport: dict[str, int]) -> Iterator[tuple[Page, Watch]]:
    """A page of `viewport`'s size and its Watch, checked when the block ends for uncaught errors, console
    errors, CSP violations and requests that left 127.0.0.1.

    The page is the module's kept page in its shared context (`shared_context`), or a new one; when the block
    ends, what the test may have left in the page and the context is cleared: its document, its listeners,
    cookies, permissions and the origin's storage (`hand_back`)."""
    kept = shared_context(browser, server)
    watch = Watch()
    page = take_page(kept)
    if page.viewport_size != viewport:
        page.set_viewport_size(viewport)
    page.set_default_timeout(10_000)
    between_tests = f"{server}{BETWEEN_TESTS}"

    def console(message: ConsoleMessage) -> None:
        icon = message.location["url"] == f"{server}/favicon.ico" and page.url == between_tests
        if message.type == "error" and not icon:
            watch.console_errors.append(message.text)

    listeners = {
        "console": console,
        "pageerror": lambda e: watch.page_errors.append(str(e)),
        "request": lambda r: watch.request(r.url),
    }
    for event, listener in listeners.items():
        Page.on(page, event, listener)
    try:
        yield page, watch
        csp = page.evaluate("window.__csp") if not page.is_closed() else []
        assert watch.page_errors == [], f"uncaught errors: {watch.page_errors}"
        assert watch.unexpected_console_errors() == [], f"console errors: {watch.unexpected_console_errors()}"
        assert csp == [], f"CSP violations: {csp}"
        assert watch.foreign_requests == [], f"requests left 127.0.0.1: {watch.foreign_requests}"
    finally:
        for event, listener in listeners.items():
            page.remove_listener(event, listener)
        try:
            hand_back(kept, page, server)
        finally:
            kept.context.clear_cookies()
            kept.context.clear_permissions()


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
