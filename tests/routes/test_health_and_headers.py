"""The liveness probe, the security headers every response carries, and the OpenAPI document."""

from functools import lru_cache
from pathlib import Path

import numpy as np
import pytest
from fastapi.testclient import TestClient

from app import deps
from app.routes import health


def test_healthz_answers_ok(client: TestClient) -> None:
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}


def test_every_response_carries_a_strict_content_security_policy(client: TestClient) -> None:
    for path in ("/", "/healthz", "/api/attention", "/static/css/main.css", "/nope"):
        csp = client.get(path).headers["content-security-policy"]
        assert "script-src 'self'" in csp, path
        assert "unsafe-inline" not in csp and "http" not in csp, path


def test_security_headers_are_set(client: TestClient) -> None:
    headers = client.get("/").headers
    assert headers["x-content-type-options"] == "nosniff"
    assert headers["referrer-policy"] == "no-referrer"
    assert "camera=()" in headers["permissions-policy"]


def test_openapi_lists_the_public_endpoints(client: TestClient) -> None:
    paths = client.get("/openapi.json").json()["paths"]
    assert {"/healthz", "/api/attention"} <= set(paths)
    params = {p["name"] for p in paths["/api/attention"]["get"]["parameters"]}
    assert {"sentence", "heads", "mask", "trained"} <= params


def test_head_requests_are_answered_for_probes(client: TestClient) -> None:
    for path in ("/", "/healthz"):
        response = client.head(path)
        assert response.status_code == 200, path
        assert response.content == b""


def test_non_finite_numbers_get_a_422_not_a_500(client: TestClient) -> None:
    """JSON has no NaN or Infinity, but Python's parser accepts them: the 422 must still serialise."""
    for value in ("NaN", "Infinity", "-Infinity"):
        body = f'{{"model": "neg_inf", "temperature": {value}}}'
        response = client.post("/api/lm/generate", content=body, headers={"content-type": "application/json"})
        assert response.status_code == 422
        assert response.json()["detail"][0]["input"] == value


def test_weights_that_cannot_be_read_give_a_503_and_healthz_names_the_model(
    client: TestClient, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A translator whose weight file is cut short: every request for it was a 500 with a traceback while
    /healthz said ok. Now its endpoints answer 503, once loaded or not, and /healthz says what is missing."""
    broken = tmp_path / "translator.npz"
    broken.write_bytes(b"PK\x03\x04 not a zip file")

    @lru_cache
    def cut_short() -> object:
        return np.load(broken, allow_pickle=False)["src_emb"]

    monkeypatch.setattr(deps, "get_translator", cut_short)
    monkeypatch.setattr(deps, "UNAVAILABLE", {})
    monkeypatch.setattr(health, "UNAVAILABLE", deps.UNAVAILABLE)
    for _ in range(2):  # the first request tries to load, the second is told at once
        response = client.post("/api/translate", json={"sentence": "the dog ran"})
        assert response.status_code == 503
        assert response.json() == {
            "detail": "the translator cannot answer: its weights could not be loaded on this server"
        }
        assert response.headers["content-security-policy"]
    assert cut_short.cache_info().misses == 1
    assert client.get("/healthz").json() == {"status": "degraded", "unavailable": ["translator"]}
    assert client.get("/api/attention", params={"sentence": "the dog ran"}).status_code == 200  # others serve
