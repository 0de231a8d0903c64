"""The pages travel gzipped to a browser that accepts it, and so do the API's stored GET answers of 1 KB or
more (test_stored_answers.py); a small answer, a POST's and /healthz are sent as they are (static files carry
their own gzip, see test_static_files.py)."""

import gzip

import pytest
from fastapi.testclient import TestClient

from app.main import create_app


@pytest.fixture(scope="module")
def client() -> TestClient:
    return TestClient(create_app())


@pytest.mark.parametrize("path", ["/", "/figure/heads-dial", "/figure/mask-lab?embed=1", "/openapi.json"])
def test_pages_are_gzipped_for_a_browser_that_accepts_it(client: TestClient, path: str) -> None:
    plain = client.get(path, headers={"Accept-Encoding": "identity"})
    zipped = client.get(path, headers={"Accept-Encoding": "gzip"})
    assert "content-encoding" not in plain.headers
    assert zipped.headers["content-encoding"] == "gzip"
    assert "accept-encoding" in zipped.headers["vary"].lower()
    assert zipped.text == plain.text  # httpx undoes the gzip
    assert int(zipped.headers["content-length"]) < len(plain.content) / 2
    assert zipped.headers["content-security-policy"] == plain.headers["content-security-policy"]


def test_the_article_shrinks_about_fourfold(client: TestClient) -> None:
    plain = client.get("/", headers={"Accept-Encoding": "identity"}).content
    assert len(gzip.compress(plain, 6)) < len(plain) / 3


def test_a_large_api_answer_is_gzipped_and_a_small_one_is_not(client: TestClient) -> None:
    large = client.get("/api/attention?heads=12", headers={"Accept-Encoding": "gzip"})
    assert large.status_code == 200 and large.headers["content-encoding"] == "gzip"
    assert int(large.headers["content-length"]) < len(large.content) / 2
    for path in ("/healthz", "/api/real-attention/status"):
        small = client.get(path, headers={"Accept-Encoding": "gzip"})
        assert small.status_code == 200 and "content-encoding" not in small.headers, path
        assert len(small.content) < 1024 or path == "/healthz", path


def test_embed_pages_keep_their_own_frame_policy(client: TestClient) -> None:
    response = client.get("/figure/mask-lab?embed=1", headers={"Accept-Encoding": "gzip"})
    assert "frame-ancestors *" in response.headers["content-security-policy"]
