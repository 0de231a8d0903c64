"""POST /api/diagnose's size cap: a 413 however the body arrives (declared, chunked or lying about its
length), the limit inclusive and taken from Settings, and never a byte of the upload on disk."""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
import starlette.formparsers
from fastapi.testclient import TestClient

from app.config import Settings
from app.deps import current_settings
from app.main import create_app
from tests.inprocess import call, upload_scope
from tests.routes.test_diagnose import LIMIT, diagnosed, npy, upload

TOO_LARGE = {"detail": "file too large: the limit is 2 MB (2,097,152 bytes)"}


def test_a_file_over_2_mb_is_a_413(client: TestClient) -> None:
    assert upload(client, "w.npy", b"\x93NUMPY" + b"\0" * LIMIT) == (413, TOO_LARGE)


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
    assert pulled <= (LIMIT + 16 * 1024) // 65536 + 2  # it stopped at the cap, not at the end of the stream


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


def test_an_upload_never_touches_the_disk(
    client: TestClient, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Starlette's UploadFile would spool this 1.6 MB part to a temporary file; this endpoint must not."""
    private = tmp_path / "tmp"
    private.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(private))
    assert tempfile.gettempdir() == str(private)

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("an upload was about to be written to a temporary file")

    for name in ("TemporaryFile", "NamedTemporaryFile", "SpooledTemporaryFile", "mkstemp", "mkdtemp"):
        monkeypatch.setattr(tempfile, name, refuse)
    monkeypatch.setattr(starlette.formparsers, "SpooledTemporaryFile", refuse)

    weights = np.tile(np.eye(256), (3, 1, 1))  # (3, 256, 256) float64: 1.6 MB, over Starlette's 1 MB spool
    data = npy(weights)
    assert 1024 * 1024 < len(data) < LIMIT
    assert diagnosed(client, "big.npy", data)["verdict"] == "causal"
    assert os.listdir(private) == []
