"""Requests handed straight to the ASGI app (one at a time, or many at once), and the memory a piece of work
takes, and the bytes of an uploaded .npy: shared by the tests of the body limits, the upload and the batches,
and by bench/diagnose.py and bench/hostile.py."""

from __future__ import annotations

import asyncio
import io
import tracemalloc
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor

import httpx
import numpy as np


def npy(array: np.ndarray, allow_pickle: bool = False) -> bytes:
    """The bytes of `array` saved as a .npy file, as a reader's upload carries them."""
    buffer = io.BytesIO()
    np.save(buffer, array, allow_pickle=allow_pickle)
    return buffer.getvalue()


def http_scope(path: str, headers: list[tuple[bytes, bytes]]) -> dict:
    """The ASGI scope of a POST to `path` with `headers`, from a client on 127.0.0.1."""
    return {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "root_path": "",
        "query_string": b"",
        "headers": headers,
        "client": ("127.0.0.1", 5000),
        "server": ("127.0.0.1", 8000),
    }


def upload_scope(boundary: str, length: int) -> dict:
    """The scope of a POST /api/diagnose: a multipart body with `boundary`, said to be `length` bytes."""
    return http_scope(
        "/api/diagnose",
        [
            (b"content-type", f"multipart/form-data; boundary={boundary}".encode()),
            (b"content-length", str(length).encode()),
        ],
    )


def call(app, scope: dict, receive: Callable[[], Awaitable[dict]]) -> list[dict]:
    """Run one request straight through the ASGI app; the messages it sent."""
    sent: list[dict] = []

    async def send(message: dict) -> None:
        sent.append(message)

    # A thread of its own: the browser tests may leave an event loop running in this one.
    with ThreadPoolExecutor(max_workers=1) as pool:
        pool.submit(asyncio.run, app(scope, receive, send)).result()
    return sent


def concurrently(app, requests: list[tuple[str, str, dict]]) -> list[httpx.Response]:
    """Send every (method, url, httpx keyword arguments) request to the ASGI app at once, as concurrent
    clients would; their responses, in order."""

    async def main() -> list[httpx.Response]:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
            return list(await asyncio.gather(*(client.request(m, url, **kw) for m, url, kw in requests)))

    with ThreadPoolExecutor(max_workers=1) as pool:  # an event loop of its own, as in ``call``
        return pool.submit(asyncio.run, main()).result()


def traced_peak(work: Callable[[], object]) -> int:
    """Peak bytes allocated (numpy included) while ``work`` runs, above what was allocated before."""
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        base, _ = tracemalloc.get_traced_memory()
        work()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return peak - base
