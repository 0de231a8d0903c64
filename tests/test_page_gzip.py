"""The pages travel gzipped to a browser that accepts it; the API's answers and static files are left to
themselves (static files carry their own gzip, see test_static_files.py)."""

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


@pytest.mark.parametrize("path", ["/api/attention?heads=12", "/healthz"])
def test_api_answers_are_not_gzipped(client: TestClient, path: str) -> None:
    response = client.get(path, headers={"Accept-Encoding": "gzip"})
    assert response.status_code == 200
    assert "content-encoding" not in response.headers


def test_embed_pages_keep_their_own_frame_policy(client: TestClient) -> None:
    response = client.get("/figure/mask-lab?embed=1", headers={"Accept-Encoding": "gzip"})
    assert "frame-ancestors *" in response.headers["content-security-policy"]
