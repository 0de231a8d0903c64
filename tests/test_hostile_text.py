"""Text no reader types but anyone can send: lone UTF-16 surrogates, NULs and control characters, in every
string an endpoint reads (JSON fields and keys, query values, a path segment, an upload's file name and its
content). Whatever the text, the answer is never a 5xx, always JSON that decodes (for the API), and a 4xx
says what to fix.

A lone surrogate ("\\ud800") is legal in a JSON string and in a Python str, but UTF-8 cannot encode it; an
error answer that repeated it used to fail while being written, a 500 that closed the connection.
"""

from __future__ import annotations

import json
from urllib.parse import quote

import numpy as np
import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.core.masks import apply_mask, softmax

# Printable text salted with what breaks encoders: surrogates (Cs), controls (Cc, NUL among them), format
# characters (Cf: BOM, zero-width joiner, bidi overrides) and the line and paragraph separators.
NASTY_CHARACTERS = st.one_of(
    st.characters(categories=["Cs", "Cc", "Cf", "Zl", "Zp"]),
    st.sampled_from(["\x00", "\ud800", "\udfff", "\ufeff", "\u2028", "\x7f", "\u202e"]),
    st.characters(codec="utf-8"),
)
NASTY = st.text(NASTY_CHARACTERS, min_size=1, max_size=40)
WORDS = st.sampled_from(["", "the ", "the cat ", "river bank "])  # so some text reaches past validation
FUZZ = settings(max_examples=60, deadline=None, database=None, suppress_health_check=list(HealthCheck))

HEAD = {"w_q": [[1.0]], "w_k": [[1.0]], "w_v": [[1.0]]}
BODIES = {
    "/api/translate": lambda text: {"sentence": text},
    "/api/lm/generate": lambda text: {"model": "neg_inf", "prompt": text},
    "/api/attention/custom": lambda text: {"embeddings": [[1.0]], "heads": [HEAD], "tokens": [text[:40]]},
}
QUERIES = {
    "/api/attention": ["sentence", "mask", "heads", "trained"],
    "/api/order": ["sentence", "permutation", "positional"],
    "/api/real-attention": ["sentence", "layer"],
    "/api/lm/attention": ["sentence", "model"],
    "/api/lm/predictions": ["sentence"],
    "/figure/heads-dial": ["embed"],
}


def encoded(text: str) -> str:
    """``text`` percent-encoded as UTF-8, a lone surrogate as the three bytes it would take (not UTF-8)."""
    return quote(text.encode("utf-8", "surrogatepass"), safe="")


def post_json(client: TestClient, path: str, body: object):
    # json.dumps escapes what is not ASCII, so a lone surrogate travels as the six characters \ud800.
    return client.post(path, content=json.dumps(body), headers={"content-type": "application/json"})


def assert_answered(response, api: bool = True) -> None:
    """Not a server error; for the API, JSON that decodes, with a detail on every refusal."""
    assert response.status_code < 500, response.text[:500]
    if api:
        body = response.json()
        if response.status_code >= 400:
            assert body["detail"], body
    response.content.decode("utf-8")  # whatever was sent, what comes back is UTF-8


@pytest.mark.parametrize("path", list(BODIES))
@FUZZ
@given(prefix=WORDS, text=NASTY)
def test_json_fields_and_keys(client: TestClient, path: str, prefix: str, text: str) -> None:
    body = BODIES[path](prefix + text)
    assert_answered(post_json(client, path, body))
    assert_answered(post_json(client, path, {**body, text: text}))  # as an unknown field's name
    if path == "/api/attention/custom":
        assert_answered(post_json(client, path, {**body, "heads": [{**HEAD, text: 1}]}))  # in a nested one


def test_the_reported_case_is_a_422_that_names_the_field(client: TestClient) -> None:
    """The review's reproduction: curl --data-binary '{"sentence":"the \\ud800 dog"}' gave a 500."""
    response = client.post(
        "/api/translate",
        content=b'{"sentence":"the \\ud800 dog"}',
        headers={"content-type": "application/json"},
    )
    assert response.status_code == 422
    (error,) = response.json()["detail"]
    assert error["loc"] == ["body", "sentence"]
    assert error["input"] == "the \ufffd dog"  # echoed, the surrogate replaced by U+FFFD


@pytest.mark.parametrize("path", list(QUERIES))
@FUZZ
@given(prefix=WORDS, text=NASTY)
def test_query_values(client: TestClient, path: str, prefix: str, text: str) -> None:
    for name in QUERIES[path]:
        response = client.get(f"{path}?{name}={encoded(prefix + text)}")
        assert_answered(response, api=path.startswith("/api/"))


@FUZZ
@given(text=NASTY)
def test_a_path_segment(client: TestClient, text: str) -> None:
    assert_answered(client.get(f"/figure/{encoded(text)}"), api=False)


CAUSAL = softmax(apply_mask(np.zeros((3, 3)), "neg_inf")).tolist()


@FUZZ
@given(text=NASTY)
def test_an_uploads_name_and_content(client: TestClient, text: str) -> None:
    name = text.encode("utf-8", "surrogatepass")
    cases = [
        (name + b".json", json.dumps(CAUSAL).encode()),  # the name alone is odd
        (b"w.json", json.dumps([[text]]).encode()),  # a string where a number belongs (the review's case)
        (b"w.json", json.dumps({text: CAUSAL}).encode()),  # an object without "weights"
        (b"w.csv", text.encode("utf-8", "surrogatepass")),  # a CSV that is not UTF-8, or not numbers
    ]
    for filename, content in cases:
        response = client.post("/api/diagnose", files={"file": (filename.decode("latin-1"), content)})
        assert_answered(response)
