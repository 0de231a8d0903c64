"""app/web/http_rules.py: HEAD answers like GET without a body, a 405 lists the methods (HEAD beside GET),
and no redirect leaves the site, whatever Host header the request carried."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from app.main import create_app
from app.web.http_rules import relative, with_head

PAGES = [
    "/",
    "/healthz",
    "/figure/heads-dial",
    "/figure/nope",
    "/docs",
    "/openapi.json",
    "/static/js/lib/svg.js",
]
API = ["/api/attention?sentence=the+cat", "/api/translate/about", "/api/lm", "/api/order"]


@pytest.fixture(scope="module")
def plain() -> TestClient:
    """A client that neither follows redirects nor asks for gzip, so lengths compare byte for byte."""
    with TestClient(create_app(), follow_redirects=False, headers={"accept-encoding": "identity"}) as client:
        yield client


@pytest.mark.parametrize("path", PAGES + API)
def test_head_is_get_without_the_body(plain: TestClient, path: str) -> None:
    got = plain.get(path)
    head = plain.head(path)
    assert head.status_code == got.status_code
    assert head.content == b""
    assert head.headers["content-type"] == got.headers["content-type"]
    assert head.headers["content-length"] == str(len(got.content))
    assert head.headers["content-security-policy"] == got.headers["content-security-policy"]


@pytest.mark.parametrize(
    ("method", "path", "allow"),
    [
        ("OPTIONS", "/", "GET, HEAD"),  # was "HEAD": the page's GET and HEAD were two routes
        ("POST", "/healthz", "GET, HEAD"),
        ("DELETE", "/api/attention", "GET, HEAD"),
        ("PUT", "/figure/heads-dial", "GET, HEAD"),
        ("GET", "/api/translate", "POST"),
        ("HEAD", "/api/diagnose", "POST"),
        ("POST", "/static/css/main.css", "GET, HEAD"),  # StaticFiles' own 405 had no Allow at all
    ],
)
def test_a_405_lists_every_method_the_resource_takes(plain: TestClient, method: str, path: str, allow: str):
    response = plain.request(method, path)
    assert response.status_code == 405
    assert response.headers["allow"] == allow
    if method != "HEAD":
        assert response.json() == {"detail": "Method Not Allowed"}


@pytest.mark.parametrize("host", ["evil.example", "evil.example:8080", "127.0.0.1:8000"])
@pytest.mark.parametrize(
    ("path", "location"), [("/figure/heads-dial/", "/figure/heads-dial"), ("/healthz/", "/healthz")]
)
def test_a_trailing_slash_redirect_stays_on_the_site(plain: TestClient, host: str, path: str, location: str):
    response = plain.get(path, headers={"host": host})
    assert response.status_code == 307
    assert response.headers["location"] == location


@pytest.mark.parametrize(
    ("location", "expected"),
    [
        ("http://evil.example/static/?a=1#top", "/static/?a=1#top"),
        ("https://evil.example", "/"),
        ("//evil.example/x", "/x"),
        ("http://127.0.0.1//evil.example/", "/evil.example/"),  # a path of "//host" would name the host
        ("http://127.0.0.1/\\evil.example/", "/evil.example/"),  # browsers read "/\" as "//"
        ("/figure/heads-dial?embed=1", "/figure/heads-dial?embed=1"),
    ],
)
def test_relative_keeps_only_the_path(location: str, expected: str) -> None:
    assert relative(location) == expected


def test_with_head_adds_head_only_beside_get() -> None:
    assert with_head("GET") == "GET, HEAD"
    assert with_head("GET, POST") == "GET, HEAD, POST"
    assert with_head("HEAD, GET") == "HEAD, GET"
    assert with_head("POST") == "POST"
