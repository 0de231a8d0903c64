"""The sentence limit is one setting: ATTENTION_MAX_SENTENCE_CHARS moves the page's limit, the API's and the
OpenAPI document's together (once only the page's moved: the API kept a hard-coded 500)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from app.config import get_settings
from app.main import create_app

LIMIT = 40
SENTENCE = "the river bank was steep and the old dog"  # 40 characters, 9 words
GETS = ["/api/attention", "/api/order", "/api/real-attention"]


@pytest.fixture
def limited() -> Iterator[TestClient]:
    """The app built under ATTENTION_MAX_SENTENCE_CHARS=40, as a server started with it would be."""
    with pytest.MonkeyPatch.context() as env:
        env.setenv("ATTENTION_MAX_SENTENCE_CHARS", str(LIMIT))
        get_settings.cache_clear()
        try:
            with TestClient(create_app()) as client:
                yield client
        finally:
            get_settings.cache_clear()  # the next get_settings() reads the environment without the limit


def page_data(html: str) -> dict:
    found = re.search(r'<script type="application/json" id="page-data">(.*?)</script>', html, re.S)
    assert found is not None
    return json.loads(found.group(1))


@pytest.mark.parametrize("path", ["/", "/figure/heads-dial", "/figure/order"])
def test_the_page_takes_the_limit_from_the_setting(limited: TestClient, path: str) -> None:
    html = limited.get(path).text
    assert page_data(html)["maxChars"] == LIMIT
    lengths = re.findall(r'maxlength="(\d+)"', html)
    assert lengths and all(int(n) in (LIMIT, 200) for n in lengths)  # 200: the tiny language models' own
    assert str(LIMIT) in lengths


def test_the_api_refuses_one_character_more_naming_the_limit(limited: TestClient) -> None:
    assert len(SENTENCE) == LIMIT
    for path in GETS:
        response = limited.get(path, params={"sentence": SENTENCE + "s"})
        assert response.status_code == 422, path
        (error,) = response.json()["detail"]
        assert error["loc"] == ["query", "sentence"]
        assert error["msg"] == f"String should have at most {LIMIT} characters"
        assert error["ctx"] == {"max_length": LIMIT}
    response = limited.post("/api/translate", json={"sentence": SENTENCE + "s"})
    assert response.status_code == 422
    (error,) = response.json()["detail"]
    assert error["loc"] == ["body", "sentence"]
    assert error["msg"] == f"String should have at most {LIMIT} characters"


def test_the_api_answers_a_sentence_at_the_limit(limited: TestClient) -> None:
    for path in ["/api/attention", "/api/order"]:
        response = limited.get(path, params={"sentence": SENTENCE})
        assert response.status_code == 200, (path, response.text)
        assert response.json()["tokens"] == SENTENCE.split()
    response = limited.post("/api/translate", json={"sentence": SENTENCE})
    assert response.status_code == 200, response.text
    assert response.json()["source"] == SENTENCE.split()
    # The real model may be absent here: then its answer is the 503, never a refusal of the length.
    assert limited.get("/api/real-attention", params={"sentence": SENTENCE}).status_code in (200, 503)


def test_the_openapi_document_states_the_setting(limited: TestClient) -> None:
    document = limited.get("/openapi.json").json()
    for path in GETS:
        (sentence,) = [p for p in document["paths"][path]["get"]["parameters"] if p["name"] == "sentence"]
        assert sentence["schema"]["maxLength"] == LIMIT, path
    body = document["components"]["schemas"]["TranslateRequest"]["properties"]["sentence"]
    assert body["maxLength"] == LIMIT
    assert "x-sentence-limit" not in json.dumps(document)


def test_without_the_setting_the_limit_is_500(client: TestClient) -> None:
    assert client.get("/api/attention", params={"sentence": "a" * 500}).status_code == 200
    assert client.get("/api/attention", params={"sentence": "a" * 501}).status_code == 422
    document = client.get("/openapi.json").json()
    (sentence,) = [p for p in document["paths"]["/api/order"]["get"]["parameters"] if p["name"] == "sentence"]
    assert sentence["schema"]["maxLength"] == 500
