"""POST /api/diagnose's size caps: a 413 however the body arrives (declared, chunked or lying about its
length), each type's own limit (256 MB for .npy, 2 MB for .json and .csv), inclusive and taken from Settings;
a .npy only ever in an anonymous temporary file, closed with the answer, and a .json or .csv never on disk."""

from __future__ import annotations

import errno
import json
import os
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
import starlette.formparsers
from fastapi.testclient import TestClient

from app.config import Settings
from app.deps import current_settings
from app.main import create_app
from app.routes.diagnose import UPLOADS
from app.web import multipart
from app.web.multipart import ENVELOPE_BYTES, MAX_BOUNDARY, NO_ROOM, PARSE_BYTES, TOO_MANY_PARTS, TOO_SLOW
from tests.routes.test_diagnose import LIMIT, diagnosed, npy, upload
from tools.inprocess import call, upload_scope

TOO_LARGE = {"detail": "file too large: the limit for .csv files is 2 MB (2,097,152 bytes)"}
NPY_TOO_LARGE = {"detail": "file too large: the limit is 256 MB (268,435,456 bytes)"}


def test_a_json_or_csv_file_over_2_mb_is_a_413_naming_its_own_limit(client: TestClient) -> None:
    assert upload(client, "w.json", b"[" + b" " * LIMIT + b"]") == (
        413,
        {"detail": "file too large: the limit for .json files is 2 MB (2,097,152 bytes)"},
    )
    assert upload(client, "w.csv", b"1,0\n0,1\n" + b"\n" * LIMIT) == (413, TOO_LARGE)


def test_an_npy_declared_over_256_mb_is_a_413_before_a_byte_is_read() -> None:
    async def receive() -> dict:
        raise AssertionError("the body was read")

    sent = call(create_app(), upload_scope("XYZ", 256 * 2**20 + ENVELOPE_BYTES + 1), receive)
    assert sent[0]["status"] == 413
    assert json.loads(b"".join(m.get("body", b"") for m in sent[1:])) == NPY_TOO_LARGE


def test_a_413_without_content_length_is_found_by_counting(client: TestClient) -> None:
    boundary = b"XYZ"
    head = b'--XYZ\r\nContent-Disposition: form-data; name="file"; filename="w.csv"\r\n\r\n'

    def chunks() -> Iterator[bytes]:  # a generator body goes out chunked, with no Content-Length
        yield head
        for _ in range(40):
            yield b"0" * 65536
        yield b"\r\n--XYZ--\r\n"

    response = client.post(
        "/api/diagnose",
        content=chunks(),
        headers={"content-type": "multipart/form-data; boundary=" + boundary.decode()},
    )
    assert "content-length" not in response.request.headers
    assert (response.status_code, response.json()) == (413, TOO_LARGE)


@pytest.mark.parametrize("length", [MAX_BOUNDARY, MAX_BOUNDARY + 1, 300])
def test_a_boundary_longer_than_the_rfc_allows_is_a_422(client: TestClient, length: int) -> None:
    """A 300-character boundary once made the multipart parser fail with a 500 and a traceback."""
    boundary = "b" * length
    body = (
        f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="w.npy"\r\n\r\n'.encode()
        + npy(np.tril(np.ones((3, 3))) / np.arange(1, 4)[:, None])
        + f"\r\n--{boundary}--\r\n".encode()
    )
    response = client.post(
        "/api/diagnose", content=body, headers={"content-type": f"multipart/form-data; boundary={boundary}"}
    )
    if length <= MAX_BOUNDARY:
        assert response.status_code == 200
    else:
        assert response.status_code == 422 and response.json() == {
            "detail": f"the multipart boundary has {length:,} characters, more than {MAX_BOUNDARY}"
        }
        assert response.headers["content-security-policy"]


def test_a_lying_content_length_stops_the_read_at_the_limit() -> None:
    """An endless body that claims to be small is read only up to the limit, then refused."""
    app = create_app()
    pulled = 0
    head = b'--XYZ\r\nContent-Disposition: form-data; name="file"; filename="w.csv"\r\n\r\n'

    async def receive() -> dict:
        nonlocal pulled
        pulled += 1
        return {"type": "http.request", "body": head if pulled == 1 else b"1" * 65536, "more_body": True}

    sent = call(app, upload_scope("XYZ", 300), receive)
    assert sent[0]["status"] == 413
    assert json.loads(b"".join(m.get("body", b"") for m in sent[1:])) == TOO_LARGE
    # It stopped at the .csv cap (the body is parsed a megabyte at a time), not at the end of the stream.
    assert pulled <= (LIMIT + PARSE_BYTES) // 65536 + 2


@pytest.fixture
def small_limit(client: TestClient) -> Iterator[int]:
    limit = 1000
    client.app.dependency_overrides[current_settings] = lambda: Settings(max_upload_bytes=limit)  # type: ignore[attr-defined]
    try:
        yield limit
    finally:
        client.app.dependency_overrides.pop(current_settings)  # type: ignore[attr-defined]


def test_the_limit_is_on_the_file_and_inclusive(client: TestClient, small_limit: int) -> None:
    at_limit = b"1,0\n0,1\n" + b"\n" * (small_limit - 8)  # trailing blank lines are allowed
    assert len(at_limit) == small_limit
    assert diagnosed(client, "w.csv", at_limit)["verdict"] == "causal"
    assert upload(client, "w.csv", at_limit + b"\n") == (
        413,
        {"detail": "file too large: the limit is 1,000 bytes"},
    )


def test_a_body_of_many_parts_is_refused_at_the_first_past_the_limit(client: TestClient) -> None:
    """32 MB of 589k tiny parts once took 10.5 s to parse: now the count stops it in its first megabyte."""
    part = b'--XYZ\r\nContent-Disposition: form-data; name="x"\r\n\r\n1\r\n'
    body = part * 100_000 + b"--XYZ--\r\n"
    response = client.post(
        "/api/diagnose", content=body, headers={"content-type": "multipart/form-data; boundary=XYZ"}
    )
    assert (response.status_code, response.json()) == (422, {"detail": TOO_MANY_PARTS})
    assert upload(client, "w.csv", b"1,0\n0,1\n")[0] == 200  # a file and the tokens are two parts


def test_an_upload_that_trickles_is_cut_and_frees_its_place(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Four uploads sending a byte every 8 s once held all four places for as long as they went on (the
    server's body timeout fires only on a whole stall); one averaging below MIN_RATE is now stopped."""
    monkeypatch.setattr(multipart, "RATE_GRACE", 0.2)
    head = b'--XYZ\r\nContent-Disposition: form-data; name="file"; filename="w.csv"\r\n\r\n'

    def trickle() -> Iterator[bytes]:
        yield head
        for _ in range(20):
            time.sleep(0.1)
            yield b"0"

    response = client.post(
        "/api/diagnose", content=trickle(), headers={"content-type": "multipart/form-data; boundary=XYZ"}
    )
    assert (response.status_code, response.json()) == (408, {"detail": TOO_SLOW})
    assert UPLOADS.now == 0
    assert upload(client, "w.csv", b"1,0\n0,1\n")[0] == 200


def test_an_upload_that_finds_no_room_on_disk_is_a_413_and_leaves_nothing(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A full temporary directory once made every .npy upload a 500 with a traceback."""
    made: list = []
    anonymous = tempfile.TemporaryFile

    def full(*args: object, **kwargs: object) -> object:
        file = anonymous(*args, **kwargs)  # type: ignore[call-overload]
        made.append(file)

        def write(data: bytes) -> int:
            raise OSError(errno.ENOSPC, "No space left on device")

        file.write = write
        return file

    monkeypatch.setattr(tempfile, "TemporaryFile", full)
    status, body = upload(client, "w.npy", npy(np.tril(np.ones((3, 3))) / np.arange(1, 4)[:, None]))
    assert (status, body) == (413, {"detail": NO_ROOM})
    assert made and all(file.closed for file in made)


@pytest.fixture
def temporary_files(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> list:
    """Every anonymous temporary file an upload makes, in a private temporary directory; every other way to
    make a temporary file fails loudly."""
    private = tmp_path / "tmp"
    private.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(private))
    made: list = []
    anonymous = tempfile.TemporaryFile

    def kept(*args: object, **kwargs: object) -> object:
        file = anonymous(*args, **kwargs)  # type: ignore[call-overload]
        made.append(file)
        return file

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("an upload was about to be written to a named temporary file")

    monkeypatch.setattr(tempfile, "TemporaryFile", kept)
    for name in ("NamedTemporaryFile", "SpooledTemporaryFile", "mkstemp", "mkdtemp"):
        monkeypatch.setattr(tempfile, name, refuse)
    monkeypatch.setattr(starlette.formparsers, "SpooledTemporaryFile", refuse)
    yield made
    assert os.listdir(private) == []  # anonymous: unlinked as made, nothing left whatever happened


def test_an_npy_goes_to_an_anonymous_temporary_file_closed_with_the_answer(
    client: TestClient, temporary_files: list
) -> None:
    weights = np.tile(np.eye(256), (3, 1, 1))  # (3, 256, 256) float64: 1.6 MB, over Starlette's 1 MB spool
    assert diagnosed(client, "big.npy", npy(weights))["verdict"] == "causal"
    assert [file.closed for file in temporary_files] == [True]
    # Refused, whether by its header, its data or its size: the file is closed all the same.
    assert upload(client, "w.npy", npy(np.array([[np.nan, 1.0], [1.0, 0.0]])))[0] == 422
    assert upload(client, "w.npy", b"\x93NUMPY")[0] == 422
    assert len(temporary_files) == 3 and all(file.closed for file in temporary_files)


def test_json_csv_and_refused_types_never_touch_the_disk(client: TestClient, temporary_files: list) -> None:
    weights = json.dumps(np.tile(np.eye(100), (2, 1, 1)).tolist()).encode()
    assert 50_000 < len(weights) < LIMIT
    assert diagnosed(client, "w.json", weights)["verdict"] == "causal"
    assert diagnosed(client, "w.csv", b"1,0\n0,1\n")["verdict"] == "causal"
    assert upload(client, "w.txt", b"\0" * 2**20)[0] == 415  # refused on the part's headers
    assert temporary_files == []
