"""The liveness probe, the security headers every response carries, and the OpenAPI document."""

from fastapi.testclient import TestClient


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
