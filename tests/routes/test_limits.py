"""Bad and hostile bodies: size limits enforced before a body is read whole, and every undecodable or
malformed JSON body refused with a 4xx and a JSON ``detail``, never a 5xx."""

from __future__ import annotations

import asyncio
import json
import tracemalloc
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import pytest
from fastapi.exceptions import RequestValidationError
from fastapi.testclient import TestClient

from app.main import create_app
from app.web.errors import ECHO_CHARS, MAX_ERRORS, validation_error
from app.web.limits import JSON_BODY_BYTES, BodyLimit, Limit
from tools.inprocess import call, http_scope

JSON_TOO_LARGE = {"detail": "the request body is larger than 262144 bytes (256 KB)"}
UPLOAD_TOO_LARGE = {"detail": "file too large: the limit is 256 MB (268,435,456 bytes)"}
VALID = {
    "/api/translate": {"sentence": "the cat sleeps"},
    "/api/lm/generate": {"model": "neg_inf", "prompt": "the"},
    "/api/attention/custom": {
        "embeddings": [[1.0, 0.0]],
        "heads": [{"w_q": [[1.0]] * 2, "w_k": [[1.0]] * 2, "w_v": [[1.0]] * 2}],
    },
}
JSON_ENDPOINTS = list(VALID)
JSON = {"content-type": "application/json"}


def padded(path: str, size: int) -> bytes:
    """The endpoint's valid body, padded with spaces (still valid JSON) to exactly ``size`` bytes."""
    body = json.dumps(VALID[path]).encode()
    return body + b" " * (size - len(body))


def answer(sent: list[dict]) -> tuple[int, dict[bytes, bytes], dict]:
    start = sent[0]
    body = b"".join(m.get("body", b"") for m in sent[1:])
    return start["status"], dict(start["headers"]), json.loads(body)


# ---- size -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("path", JSON_ENDPOINTS)
def test_a_json_body_of_exactly_256_kb_is_read(client: TestClient, path: str) -> None:
    response = client.post(path, content=padded(path, JSON_BODY_BYTES), headers=JSON)
    assert response.status_code == 200, response.text
    assert response.json() == client.post(path, json=VALID[path]).json()  # the padding changes nothing


@pytest.mark.parametrize("path", JSON_ENDPOINTS)
def test_a_json_body_one_byte_over_gets_a_413(client: TestClient, path: str) -> None:
    response = client.post(path, content=padded(path, JSON_BODY_BYTES + 1), headers=JSON)
    assert (response.status_code, response.json()) == (413, JSON_TOO_LARGE)
    assert response.headers["content-security-policy"].startswith("default-src 'self'")


@pytest.mark.parametrize("path", JSON_ENDPOINTS)
def test_a_chunked_json_body_is_counted_as_it_arrives(client: TestClient, path: str) -> None:
    def chunks() -> Iterator[bytes]:  # a generator body goes out chunked, with no Content-Length
        yield json.dumps(VALID[path])[:-1].encode() + b","
        for _ in range(30):
            yield b" " * 10_000
        yield b'"padding": 1}'

    response = client.post(path, content=chunks(), headers=JSON)
    assert "content-length" not in response.request.headers
    assert (response.status_code, response.json()) == (413, JSON_TOO_LARGE)


def test_a_body_is_capped_on_every_path_not_only_the_json_endpoints(client: TestClient) -> None:
    for path in ("/api/attention", "/healthz", "/nowhere"):
        response = client.post(path, content=b"x" * (JSON_BODY_BYTES + 1))
        assert (response.status_code, response.json()) == (413, JSON_TOO_LARGE), path


def test_a_declared_length_over_the_limit_is_refused_without_reading_a_byte() -> None:
    async def receive() -> dict:
        raise AssertionError("the body was read")

    for path, declared, expected in (
        ("/api/translate", JSON_BODY_BYTES + 1, JSON_TOO_LARGE),
        ("/api/diagnose", 300 * 2**20, UPLOAD_TOO_LARGE),
    ):
        headers = [(b"content-type", b"application/json"), (b"content-length", str(declared).encode())]
        status, sent_headers, body = answer(call(create_app(), http_scope(path, headers), receive))
        assert (status, body) == (413, expected)
        assert sent_headers[b"connection"] == b"close"


@pytest.mark.parametrize("path", JSON_ENDPOINTS)
def test_an_endless_body_that_claims_to_be_small_is_read_only_up_to_the_limit(path: str) -> None:
    pulled = 0

    async def receive() -> dict:
        nonlocal pulled
        pulled += 1
        return {"type": "http.request", "body": b"[" if pulled == 1 else b" " * 65536, "more_body": True}

    headers = [(b"content-type", b"application/json"), (b"content-length", b"300")]
    status, _, body = answer(call(create_app(), http_scope(path, headers), receive))
    assert (status, body) == (413, JSON_TOO_LARGE)
    assert pulled <= JSON_BODY_BYTES // 65536 + 2


def test_the_middleware_replaces_the_answer_to_a_body_cut_short() -> None:
    """Whatever the endpoint makes of the disconnect it is shown, even an exception, the client gets a 413."""
    seen: list[str] = []

    async def endpoint(scope, receive, send) -> None:
        while True:
            message = await receive()
            seen.append(message["type"])
            if message["type"] == "http.disconnect":
                raise RuntimeError("the client went away")

    async def receive() -> dict:
        return {"type": "http.request", "body": b"x" * 40, "more_body": True}

    app = BodyLimit(endpoint, default=Limit(100, "too big"))
    status, _, body = answer(call(app, http_scope("/", []), receive))
    assert (status, body) == (413, {"detail": "too big"})
    assert seen == ["http.request", "http.request", "http.disconnect"]


def test_an_endpoint_that_never_reads_the_body_answers_as_usual() -> None:
    async def endpoint(scope, receive, send) -> None:
        await send({"type": "http.response.start", "status": 204, "headers": []})
        await send({"type": "http.response.body", "body": b""})

    async def receive() -> dict:
        return {"type": "http.request", "body": b"x" * 1000, "more_body": True}

    sent = call(BodyLimit(endpoint, default=Limit(100, "too big")), http_scope("/", []), receive)
    assert sent[0]["status"] == 204


@pytest.mark.parametrize("method", ["GET", "HEAD"])
def test_a_body_sent_with_a_get_is_never_pulled_in(method: str) -> None:
    """GET and HEAD pass the body limit uncounted, since no route reads their body: an endless one sent with
    a GET is not read at all, and the answer is the route's."""
    pulled = 0

    async def receive() -> dict:
        nonlocal pulled
        pulled += 1
        return {"type": "http.request", "body": b" " * 65536, "more_body": True}

    scope = {**http_scope("/healthz", [(b"transfer-encoding", b"chunked")]), "method": method}
    sent = call(create_app(), scope, receive)
    assert sent[0]["status"] == 200
    assert pulled == 0


# ---- hostile JSON -----------------------------------------------------------------------------------------

UNREADABLE = [
    ("nested 100,000 deep", b"[" * 100_000, "the JSON body is nested too deeply to read"),
    (
        "nested inside a field",
        b'{"sentence": ' + b"[" * 100_000,
        "the JSON body is nested too deeply to read",
    ),
    (
        "a 100,000-digit integer",
        b'{"sentence": ' + b"9" * 100_000 + b"}",
        "the JSON body holds a number too long to read (more than 4300 digits)",
    ),
    ("invalid UTF-8", b'{"sentence": "\xff\xfe"}', "the body is not valid UTF-8: send JSON as UTF-8 text"),
]


@pytest.mark.parametrize("path", JSON_ENDPOINTS)
@pytest.mark.parametrize(("case", "body", "detail"), UNREADABLE, ids=[u[0] for u in UNREADABLE])
def test_a_body_that_cannot_be_decoded_gets_a_422_saying_why(
    client: TestClient, path: str, case: str, body: bytes, detail: str
) -> None:
    response = client.post(path, content=body, headers=JSON)
    assert (response.status_code, response.json()) == (422, {"detail": detail})


@pytest.mark.parametrize("path", JSON_ENDPOINTS)
@pytest.mark.parametrize("literal", ["NaN", "Infinity", "-Infinity", "1e999999", "-1e999999"])
def test_non_finite_and_overflowing_numbers_get_a_422_that_still_serialises(
    client: TestClient, path: str, literal: str
) -> None:
    fields = {**VALID[path]}
    field = next(iter(fields))
    body = json.dumps(fields).replace(json.dumps(fields[field]), literal, 1)
    response = client.post(path, content=body, headers=JSON)
    assert response.status_code == 422, response.text
    assert response.json()["detail"]


@pytest.mark.parametrize("path", JSON_ENDPOINTS)
@pytest.mark.parametrize(
    ("content", "content_type"),
    [
        (b"sentence=the+cat", "application/x-www-form-urlencoded"),
        (b'{"sentence": "the cat"}', "text/plain"),
        (b"\x93NUMPY\x01\x00", "application/octet-stream"),
        (b"", "application/json"),
        (b"{", "application/json"),
        (b"null", "application/json"),
        (b"[]", "application/json"),
    ],
)
def test_a_body_of_the_wrong_type_or_shape_gets_a_4xx_with_a_detail(
    client: TestClient, path: str, content: bytes, content_type: str
) -> None:
    response = client.post(path, content=content, headers={"content-type": content_type})
    assert 400 <= response.status_code < 500, response.text
    assert response.headers["content-type"] == "application/json"
    assert response.json()["detail"]


def test_a_huge_exponent_in_the_head_lab_is_named_as_not_finite(client: TestClient) -> None:
    body = json.dumps(VALID["/api/attention/custom"]).replace("1.0", "1e999999", 1)
    response = client.post("/api/attention/custom", content=body, headers=JSON)
    assert response.status_code == 422
    assert "embeddings" in json.dumps(response.json())


# ---- refusals that cost little, whatever the body ----------------------------------------------------------
# A review sent bodies under 256 KB that made the old 422 huge and slow: 64 × 64 empty strings in six heads
# (77,824 field errors, an 8.4 MB answer, seconds of work on the event loop) and 29,000 unknown keys (a 2.8 MB
# answer). Now the field errors stop at the first bad item of each list, unknown keys are one error, at most
# MAX_ERRORS errors are listed and no error repeats more than about ECHO_CHARS characters of the input.


def lab_of_empty_strings() -> bytes:
    matrix = [[""] * 64] * 64
    return compact({"embeddings": matrix, "heads": [{"w_q": matrix, "w_k": matrix, "w_v": matrix}] * 6})


def many_unknown_keys(count: int = 29_000) -> bytes:
    return compact({"sentence": "the cat", **{f"{i:x}": 1 for i in range(count)}})


def compact(value: object) -> bytes:
    return json.dumps(value, separators=(",", ":")).encode()


def refused(client: TestClient, path: str, body: bytes) -> tuple[dict, int]:
    """The 422's JSON and its size in bytes, checked to be bounded."""
    response = client.post(path, content=body, headers=JSON)
    assert response.status_code == 422, response.text[:300]
    assert len(response.content) < 2048, len(response.content)
    answer = response.json()
    assert 1 <= len(answer["detail"]) <= MAX_ERRORS
    return answer, len(response.content)


def test_a_head_lab_body_of_empty_strings_reports_the_first_bad_number_of_each_matrix(
    client: TestClient,
) -> None:
    body = lab_of_empty_strings()
    assert 200_000 < len(body) <= JSON_BODY_BYTES
    answer, _ = refused(client, "/api/attention/custom", body)
    assert [tuple(e["loc"]) for e in answer["detail"]] == [
        ("body", "embeddings", 0, 0),
        ("body", "heads", 0, "w_q", 0, 0),
        ("body", "heads", 0, "w_k", 0, 0),
        ("body", "heads", 0, "w_v", 0, 0),
    ]
    assert "errors_not_shown" not in answer


def test_thousands_of_unknown_keys_are_one_error_that_counts_them(client: TestClient) -> None:
    answer, _ = refused(client, "/api/translate", many_unknown_keys())
    (error,) = answer["detail"]
    assert error["type"] == "extra_forbidden" and error["loc"] == ["body"]
    assert error["msg"] == "unknown fields '0', '1', '2' and 28,997 more: the fields are sentence"
    assert error["input"] == "(an object with 29,001 keys, not shown)"


def test_an_unknown_field_in_a_nested_object_is_named_where_it_is(client: TestClient) -> None:
    head = {"w_q": [[1.0]], "w_k": [[1.0]], "w_v": [[1.0]], "w_0": [[1.0]]}
    answer, _ = refused(
        client, "/api/attention/custom", json.dumps({"embeddings": [[1.0]], "heads": [head]}).encode()
    )
    (error,) = answer["detail"]
    assert error["loc"] == ["body", "heads", 0]
    assert error["msg"] == "unknown field 'w_0': the fields are w_q, w_k, w_v"


@pytest.mark.parametrize("path", JSON_ENDPOINTS)
def test_a_large_invalid_body_is_not_echoed_back(client: TestClient, path: str) -> None:
    """A 255 KB body used to get a 261 KB 422 repeating all of it."""
    field = next(iter(VALID[path]))
    for value in (list(range(30_000)), "x" * 250_000, {f"k{i}": i for i in range(15_000)}):
        body = compact({**VALID[path], field: value})
        assert len(body) > 150_000
        answer, size = refused(client, path, body)
        assert size < 1024
        for error in answer["detail"]:
            assert len(json.dumps(error.get("input"), ensure_ascii=False)) <= ECHO_CHARS + 2, error
    answer, size = refused(client, path, compact(list(range(30_000))))  # not even an object
    assert answer["detail"][0]["input"] == "(a list of 30,000 items, not shown)"


def test_past_max_errors_the_answer_counts_the_rest() -> None:
    """No endpoint's schema can produce more than MAX_ERRORS errors any more; the handler still caps them."""
    errors = [
        {"type": "missing", "loc": ("body", f"f{i}"), "msg": "Field required", "input": None}
        for i in range(500)
    ]
    # A thread of its own, as in call(): the browser tests may leave an event loop running in this one.
    with ThreadPoolExecutor(max_workers=1) as pool:
        response = pool.submit(asyncio.run, validation_error(None, RequestValidationError(errors))).result()
    answer = json.loads(response.body)
    assert [e["loc"] for e in answer["detail"]] == [["body", f"f{i}"] for i in range(MAX_ERRORS)]
    assert answer["errors_not_shown"] == 500 - MAX_ERRORS


def test_refusing_the_hostile_bodies_allocates_little() -> None:
    """Memory, not time: the old 422 of the head-lab body built 77,824 error objects and 8.4 MB of JSON."""
    app = create_app()
    with TestClient(app) as client:
        for path, body in (
            ("/api/attention/custom", lab_of_empty_strings()),
            ("/api/translate", many_unknown_keys()),
        ):
            client.post(path, content=body, headers=JSON)  # warm: imports and caches are not the request's
            tracemalloc.start()
            try:
                refused(client, path, body)
                _, peak = tracemalloc.get_traced_memory()
            finally:
                tracemalloc.stop()
            # The body itself, parsed into Python objects, is most of it: a few MB, never tens.
            assert peak < 8 * 2**20, (path, peak)
