"""/docs in Chromium: the HTTP API reference loads under the page's own Content-Security-Policy, makes no
request beyond 127.0.0.1 and lists every operation of /openapi.json (the fixture fails on any CSP violation,
console error or foreign request)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect


def test_the_api_reference_works_offline_under_the_policy(watched_page) -> None:
    page, watch = watched_page
    # Shown raw, /openapi.json has no page to name an icon, so Chromium asks for /favicon.ico: a 404 it logs.
    watch.expected_console.append("status of 404")
    response = page.goto("/docs")
    assert response is not None and response.ok
    expect(page.get_by_role("heading", level=1)).to_have_text("The HTTP API")
    document = page.request.get("/openapi.json").json()
    operations = [(method.upper(), path) for path, item in document["paths"].items() for method in item]
    nav = page.get_by_role("navigation", name="Endpoints")
    expect(nav.get_by_role("link")).to_have_count(len(operations))
    expect(page.locator("section h2 > code")).to_have_text(
        [f"{method} {path}" for method, path in operations]
    )
    page.get_by_role("link", name="/openapi.json").click()
    page.wait_for_url("**/openapi.json")


def test_the_api_reference_fits_a_phone(phone_page) -> None:
    """Wide schemas scroll inside their table or block; the page itself never scrolls sideways."""
    page, _ = phone_page
    page.goto("/docs")
    expect(page.get_by_role("heading", level=1)).to_have_text("The HTTP API")
    assert page.evaluate("document.documentElement.scrollWidth") <= 375


@pytest.mark.screenshots
def test_phone_screenshot(shots) -> None:
    page = shots.phone
    page.goto("/docs")
    expect(page.get_by_role("heading", level=1)).to_have_text("The HTTP API")
    shots.take(page, "api-docs-phone")
