"""/static: ETag and Last-Modified on every file, 304 on a matching If-None-Match, Cache-Control: no-cache,
and gzip for clients that take it (with an ETag of its own)."""

import gzip
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app.config import get_settings
from app.static_files import CACHE_CONTROL

PATHS = (
    "/static/css/main.css",
    "/static/css/figures/heads-dial.css",
    "/static/js/main.js",
    "/static/js/lib/svg.js",
)
PLAIN = {"accept-encoding": "identity"}
GZIP = {"accept-encoding": "gzip"}


def on_disk(path: str) -> bytes:
    return (get_settings().static_dir / Path(path).relative_to("/static")).read_bytes()


@pytest.mark.parametrize("encoding", [PLAIN, GZIP])
def test_static_files_carry_validators_and_ask_to_be_revalidated(client: TestClient, encoding: dict) -> None:
    for path in PATHS:
        response = client.get(path, headers=encoding)
        assert response.status_code == 200, path
        assert response.headers["etag"].startswith('"'), path
        assert "last-modified" in response.headers, path
        assert response.headers["cache-control"] == CACHE_CONTROL == "no-cache"
        assert response.content == on_disk(path)  # httpx undoes the gzip


@pytest.mark.parametrize("encoding", [PLAIN, GZIP])
def test_a_matching_etag_gets_a_304_without_a_body(client: TestClient, encoding: dict) -> None:
    for path in PATHS:
        etag = client.get(path, headers=encoding).headers["etag"]
        for sent in (etag, f"W/{etag}", f'"other", {etag}'):
            response = client.get(path, headers={**encoding, "if-none-match": sent})
            assert response.status_code == 304, (path, sent)
            assert response.content == b""
            assert response.headers["etag"] == etag
            assert response.headers["cache-control"] == "no-cache"


def test_a_changed_etag_gets_the_file(client: TestClient) -> None:
    response = client.get(PATHS[0], headers={"if-none-match": '"not-the-etag"'})
    assert response.status_code == 200 and response.content


def test_text_files_are_gzipped_for_clients_that_take_gzip(client: TestClient) -> None:
    for path in PATHS:
        plain = client.get(path, headers=PLAIN)
        zipped = client.get(path, headers=GZIP)
        assert "content-encoding" not in plain.headers
        assert zipped.headers["content-encoding"] == "gzip"
        assert plain.headers["vary"] == zipped.headers["vary"] == "Accept-Encoding"
        assert zipped.headers["content-type"] == plain.headers["content-type"]
        # two representations, two ETags: a cache must not answer one's If-None-Match with the other
        assert zipped.headers["etag"] == plain.headers["etag"][:-1] + '-gzip"'
        assert int(zipped.headers["content-length"]) < len(plain.content)
        # the plain ETag does not validate the gzipped representation
        stale = client.get(path, headers={**GZIP, "if-none-match": plain.headers["etag"]})
        assert stale.status_code == 200


def test_the_gzipped_bytes_are_the_file(client: TestClient) -> None:
    with client.stream("GET", PATHS[0], headers=GZIP) as response:
        raw = b"".join(response.iter_raw())
    assert gzip.decompress(raw) == on_disk(PATHS[0])


@pytest.mark.parametrize("accept", ["gzip;q=0", "br", "identity", ""])
def test_no_gzip_unless_asked(client: TestClient, accept: str) -> None:
    response = client.get(PATHS[0], headers={"accept-encoding": accept})
    assert response.status_code == 200 and "content-encoding" not in response.headers


def test_a_range_request_gets_the_plain_bytes(client: TestClient) -> None:
    response = client.get(PATHS[0], headers={**GZIP, "range": "bytes=0-9"})
    assert response.status_code == 206
    assert "content-encoding" not in response.headers
    assert response.content == on_disk(PATHS[0])[:10]


def test_head_and_missing_files(client: TestClient) -> None:
    head = client.head(PATHS[0], headers=GZIP)
    assert head.status_code == 200 and head.content == b""
    assert head.headers["content-encoding"] == "gzip"
    assert client.get("/static/js/nowhere.js").status_code == 404
