"""Shared by the benchmarks: start the explorable on a free loopback port and stop it afterwards."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def running_server(env: dict[str, str] | None = None) -> Iterator[str]:
    """Yield the base URL of a fresh ``python -m app`` on 127.0.0.1, stopped on exit.

    ``env`` adds variables to the server's environment (such as ``ATTENTION_MAX_UPLOAD_BYTES``).
    """
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "app", "--port", str(port)],
        cwd=ROOT,
        env={**os.environ, **env} if env else None,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                if httpx.get(f"{base}/healthz", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline or process.poll() is not None:
                raise RuntimeError("the server did not start")
            time.sleep(0.1)
        yield base
    finally:
        process.terminate()
        process.wait(timeout=10)
