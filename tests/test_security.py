"""Security headers on every response, whatever made it (a page, the API, static files, a 404, a 405, a 413,
a 500, /openapi.json, /docs), a /docs that works under the page's own policy, and no server banner from the
real server."""

from __future__ import annotations

import re
import urllib.error
import urllib.request
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from app.main import create_app
from tools.serving import app_server

REQUIRED = {
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "cross-origin-opener-policy": "same-origin",
}


def policy(headers) -> dict[str, list[str]]:
    """The Content-Security-Policy as {directive: [sources]}."""
    csp = headers["content-security-policy"]
    directives = [d.split() for d in csp.split(";") if d.strip()]
    return {d[0]: d[1:] for d in directives}


def assert_secured(headers, frame_ancestors: str = "'self'") -> None:
    csp = policy(headers)
    assert csp["default-src"] == ["'self'"] and csp["script-src"] == ["'self'"]
    assert csp["style-src"] == ["'self'"] and csp["object-src"] == ["'none'"]
    for directive, sources in csp.items():
        if directive != "frame-ancestors":
            assert all(s in ("'self'", "'none'", "data:") for s in sources), (directive, sources)
    assert csp["frame-ancestors"] == [frame_ancestors]
    for name, value in REQUIRED.items():
        assert headers[name] == value, name
    assert "camera=()" in headers["permissions-policy"] and "geolocation=()" in headers["permissions-policy"]
    assert "server" not in headers and "x-powered-by" not in headers


@pytest.fixture(scope="module")
def failing_client() -> Iterator[TestClient]:
    """The app with one extra route that fails, answered as a real server would (a 500, not a raise)."""
    app = create_app()

    @app.get("/test-only/boom")
    def boom() -> None:
        raise RuntimeError("boom")

    with TestClient(app, raise_server_exceptions=False) as test_client:
        yield test_client


@pytest.mark.parametrize(
    ("method", "path", "status"),
    [
        ("GET", "/", 200),
        ("HEAD", "/", 200),
        ("GET", "/healthz", 200),
        ("GET", "/api/attention", 200),
        ("GET", "/api/attention?heads=5", 422),
        ("GET", "/static/css/main.css", 200),
        ("GET", "/static/nope.css", 404),
        ("GET", "/nope", 404),
        ("GET", "/figure/nope", 404),
        ("POST", "/healthz", 405),
        ("DELETE", "/api/attention", 405),
        ("GET", "/openapi.json", 200),
        ("GET", "/docs", 200),
        ("GET", "/figure/heads-dial", 200),
        ("GET", "/figure/heads-dial?embed=0", 200),
    ],
)
def test_every_kind_of_response_carries_the_headers(client: TestClient, method: str, path: str, status: int):
    response = client.request(method, path)
    assert response.status_code == status
    assert_secured(response.headers)


def test_a_413_carries_them(client: TestClient) -> None:
    response = client.post(
        "/api/translate", content=b" " * (300 * 1024), headers={"content-type": "text/plain"}
    )
    assert response.status_code == 413
    assert_secured(response.headers)


def test_a_500_carries_them_too(failing_client: TestClient) -> None:
    response = failing_client.get("/test-only/boom")
    assert response.status_code == 500
    assert "boom" not in response.text  # no traceback for the reader
    assert_secured(response.headers)


def test_a_not_modified_static_file_carries_them(client: TestClient) -> None:
    etag = client.get("/static/css/main.css").headers["etag"]
    response = client.get("/static/css/main.css", headers={"if-none-match": etag})
    assert response.status_code == 304
    assert_secured(response.headers)


def test_only_a_figures_embed_view_may_be_framed_by_other_sites(client: TestClient) -> None:
    assert_secured(client.get("/figure/mask-lab?embed=1").headers, frame_ancestors="*")
    assert_secured(client.get("/figure/mask-lab?embed=true").headers, frame_ancestors="*")
    for path in ("/?embed=1", "/api/attention?embed=1", "/static/css/main.css?embed=1", "/docs?embed=1"):
        assert_secured(client.get(path).headers), path


# ---- /docs ------------------------------------------------------------------------------------------------


def test_docs_lists_every_endpoint_of_the_openapi_document(client: TestClient) -> None:
    document = client.get("/openapi.json").json()
    page = client.get("/docs")
    assert page.headers["content-type"].startswith("text/html")
    for path, item in document["paths"].items():
        for method in item:
            assert f"<code>{method.upper()} {path}</code>" in page.text, (method, path)
    assert 'href="/openapi.json"' in page.text


def test_docs_needs_nothing_the_policy_forbids(client: TestClient) -> None:
    """FastAPI's stock Swagger UI loads from a CDN and runs an inline script; this page does neither."""
    html = client.get("/docs").text
    assert not re.search(r"""(?:src|href)=["']?(?:https?:)?//""", html)
    for tag in re.findall(r"<script\b[^>]*>", html):
        assert "src=" in tag or 'type="application/json"' in tag, tag
    assert not re.search(r"<style\b|\sstyle=|\son[a-z]+=", html)
    assert client.get("/redoc").status_code == 404


# ---- the real server --------------------------------------------------------------------------------------


def _get(url: str) -> tuple[int, dict[str, str]]:
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return response.status, {k.lower(): v for k, v in response.headers.items()}
    except urllib.error.HTTPError as error:
        return error.code, {k.lower(): v for k, v in error.headers.items()}


def test_the_real_server_sends_no_server_banner() -> None:
    """uvicorn adds `server: uvicorn` unless told not to; `python -m app` tells it."""
    with app_server() as url:
        for path in ("/healthz", "/nope", "/static/css/main.css", "/docs"):
            status, headers = _get(url + path)
            assert "server" not in headers, (path, headers.get("server"))
            assert_secured(headers)
