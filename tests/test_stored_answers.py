"""Stored answers (app/web/stored_answers.py): the pages and the API's GET answers are kept whole by address,
sent with an ETag and how long a browser may keep them, gzipped once, and answered again before FastAPI routes
the request."""

import importlib
import pkgutil
import re

import pytest
from fastapi.routing import APIRoute
from fastapi.testclient import TestClient

import app.routes
from app.main import create_app
from app.web.stored_answers import ANSWER_MAX_AGE, answers_version

GZIP = {"accept-encoding": "gzip"}
PLAIN = {"accept-encoding": "identity"}
ANSWER = "/api/attention?sentence=the+river+bank+was+steep&heads=3&format=packed"

# The GET endpoints whose answers are not stored, and why. Every other GET endpoint must be marked.
NOT_STORED = {
    "/api/real-attention/status": "whether the optional model is installed, which may change while it runs",
}


@pytest.fixture
def fresh() -> TestClient:
    """An app of its own, with an empty store."""
    return TestClient(create_app())


def get_routes() -> list[APIRoute]:
    routes = []
    for module in pkgutil.iter_modules(app.routes.__path__):
        router = getattr(importlib.import_module(f"app.routes.{module.name}"), "router", None)
        routes += [r for r in getattr(router, "routes", []) if isinstance(r, APIRoute) and "GET" in r.methods]
    return routes


def test_every_get_endpoint_is_stored_or_says_why_not() -> None:
    routes = get_routes()
    assert len(routes) > 10
    unmarked = {r.path for r in routes if not hasattr(r.endpoint, "stored_as")}
    assert unmarked == set(NOT_STORED)
    for route in routes:
        marked = getattr(route.endpoint, "stored_as", None)
        if route.path.startswith("/api/") and marked:
            assert marked == f"public, max-age={ANSWER_MAX_AGE}", route.path
        elif marked:
            assert marked == "no-cache", route.path  # a page names today's static addresses


def test_an_answer_is_kept_and_sent_again_from_the_store(fresh: TestClient) -> None:
    store = fresh.app.stored  # type: ignore[attr-defined]
    first = fresh.get(ANSWER, headers=PLAIN)
    assert first.status_code == 200
    assert first.headers["cache-control"] == f"public, max-age={ANSWER_MAX_AGE}"
    assert re.fullmatch(r'"[0-9a-f]{20}"', first.headers["etag"])
    assert first.headers["content-type"] == "application/octet-stream"
    assert store.stats().entries == 1 and store.stats().hits == 0
    second = fresh.get(ANSWER, headers=PLAIN)
    assert store.stats().hits == 1
    assert second.content == first.content and second.headers["etag"] == first.headers["etag"]
    assert second.headers["content-type"] == first.headers["content-type"]
    assert second.headers["content-security-policy"] == first.headers["content-security-policy"]


def test_a_browser_holding_the_answer_gets_a_304(fresh: TestClient) -> None:
    for headers in (PLAIN, GZIP):
        etag = fresh.get(ANSWER, headers=headers).headers["etag"]
        again = fresh.get(ANSWER, headers={**headers, "if-none-match": etag})
        assert again.status_code == 304 and again.content == b""
        assert again.headers["etag"] == etag
        assert again.headers["cache-control"] == f"public, max-age={ANSWER_MAX_AGE}"


def test_gzip_is_made_once_with_an_etag_of_its_own(fresh: TestClient) -> None:
    url = "/api/attention?sentence=the+river+bank+was+steep&heads=12"
    plain = fresh.get(url, headers=PLAIN)
    zipped = fresh.get(url, headers=GZIP)
    assert zipped.headers["content-encoding"] == "gzip" and "content-encoding" not in plain.headers
    assert zipped.content == plain.content  # httpx undoes the gzip
    assert zipped.headers["etag"] == plain.headers["etag"][:-1] + '-gzip"'
    assert plain.headers["vary"] == zipped.headers["vary"] == "Accept-Encoding"
    stale = fresh.get(url, headers={**GZIP, "if-none-match": plain.headers["etag"]})
    assert stale.status_code == 200


def test_a_head_request_gets_the_headers_of_the_stored_answer(fresh: TestClient) -> None:
    get = fresh.get(ANSWER, headers=GZIP)
    head = fresh.head(ANSWER, headers=GZIP)
    assert head.status_code == 200 and head.content == b""
    assert head.headers["etag"] == get.headers["etag"]
    assert head.headers["content-length"] == get.headers["content-length"]


def test_refusals_posts_and_unmarked_answers_are_not_stored(fresh: TestClient) -> None:
    store = fresh.app.stored  # type: ignore[attr-defined]
    refused = fresh.get("/api/attention?sentence=&heads=3")
    assert refused.status_code == 422 and "cache-control" not in refused.headers
    posted = fresh.post("/api/translate", json={"sentence": "the dog sleeps"})
    assert posted.status_code == 200 and "cache-control" not in posted.headers
    status = fresh.get("/api/real-attention/status")
    assert status.status_code == 200 and "cache-control" not in status.headers
    assert store.stats().entries == 0


def test_pages_are_stored_and_revalidated(fresh: TestClient) -> None:
    for path in ("/", "/figure/heads-dial", "/figure/heads-dial?embed=1", "/docs"):
        first = fresh.get(path, headers=GZIP)
        assert first.headers["cache-control"] == "no-cache", path
        again = fresh.get(path, headers={**GZIP, "if-none-match": first.headers["etag"]})
        assert again.status_code == 304, path
    missing = fresh.get("/figure/nowhere")
    assert missing.status_code == 404 and "cache-control" not in missing.headers


def test_the_page_names_the_answers_version(fresh: TestClient) -> None:
    page = fresh.get("/").text
    (version,) = re.findall(r'<meta name="answers-version" content="([0-9a-f]{12})">', page)
    assert version == answers_version()
    # the endpoints ignore it: the same question with and without it has the same answer
    assert fresh.get(f"{ANSWER}&v={version}").content == fresh.get(ANSWER).content


def test_an_app_with_overridden_dependencies_stores_nothing() -> None:
    application = create_app()
    application.dependency_overrides[answers_version] = lambda: "x"
    client = TestClient(application)
    client.get(ANSWER)
    client.get(ANSWER)
    assert application.stored.stats().entries == 0  # type: ignore[attr-defined]
