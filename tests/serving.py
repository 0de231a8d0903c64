"""The real server for tests that need one: `python -m app` in a subprocess on a free loopback port."""

from __future__ import annotations

import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def healthy(url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/healthz", timeout=1) as response:
            return response.status == 200
    except (urllib.error.URLError, OSError):
        return False


@dataclass(frozen=True)
class Served:
    """A running server: where it answers, its process, and the file its log (stdout and stderr) goes to."""

    url: str
    port: int
    process: subprocess.Popen[bytes]
    log_path: Path

    def log(self) -> str:
        """Everything the server has logged so far: start-up, access lines, warnings."""
        return self.log_path.read_text(errors="replace")


@contextmanager
def served(*args: str, timeout: float = 30) -> Iterator[Served]:
    """Serve the app from the repository root, with `args` added to its command line, until the block ends.

    The log goes to a file rather than a pipe, so a server that logs a lot never blocks on a pipe nobody
    reads, and a test can read it whenever it likes. Fails the test if the server exits or does not answer
    /healthz within `timeout` seconds.
    """
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    with tempfile.NamedTemporaryFile(prefix="app-server-", suffix=".log") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "app", "--port", str(port), *args],
            cwd=REPO,
            stdout=log,  # uvicorn's access log
            stderr=log,  # and everything else it logs
        )
        server = Served(url, port, process, Path(log.name))
        try:
            deadline = time.monotonic() + timeout
            while not healthy(url):
                if process.poll() is not None:
                    pytest.fail(f"the server exited with {process.returncode}:\n{server.log()[-2000:]}")
                if time.monotonic() > deadline:
                    pytest.fail(f"the server did not answer /healthz within {timeout:.0f} s")
                time.sleep(0.1)
            yield server
        finally:
            stop(process)


def stop(process: subprocess.Popen) -> None:
    """Ask a server to stop (SIGTERM), and kill it if it has not within 10 s."""
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


@contextmanager
def app_server(*args: str, timeout: float = 30) -> Iterator[str]:
    """`served`, for tests that only need the base URL."""
    with served(*args, timeout=timeout) as server:
        yield server.url
