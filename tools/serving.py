"""The real server for tests and benchmarks that need one: `python -m app` in a subprocess on a free port.

bench/ starts its servers through `served` too, so a test and a benchmark run the app the same way.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


class ServerDidNotStart(RuntimeError):
    """The server exited, or did not answer /healthz in time; the message ends with the last of its log."""


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as s:
        s.bind((host, 0))
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

    @property
    def pid(self) -> int:
        """The `python -m app` process (with --workers N, the supervisor of the N worker processes)."""
        return self.process.pid

    def log(self) -> str:
        """Everything the server has logged so far: start-up, access lines, warnings."""
        return self.log_path.read_text(errors="replace")


@contextmanager
def served(
    *args: str, env: Mapping[str, str] | None = None, host: str = "127.0.0.1", timeout: float = 30
) -> Iterator[Served]:
    """Serve the app from the repository root on `host`, with `args` added to its command line (such as
    `--workers 2`) and `env` to its environment, until the block ends.

    The log goes to a file rather than a pipe, so a server that logs a lot never blocks on a pipe nobody
    reads, and a test can read it whenever it likes. Raises ServerDidNotStart if the server exits or does
    not answer /healthz within `timeout` seconds.
    """
    port = free_port(host)
    url = f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"
    with tempfile.NamedTemporaryFile(prefix="app-server-", suffix=".log") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "app", "--host", host, "--port", str(port), *args],
            cwd=REPO,
            env={**os.environ, **env} if env else None,
            stdout=log,  # uvicorn's access log
            stderr=log,  # and everything else it logs
        )
        server = Served(url, port, process, Path(log.name))
        try:
            deadline = time.monotonic() + timeout
            while not healthy(url):
                if process.poll() is not None:
                    raise ServerDidNotStart(
                        f"the server exited with {process.returncode}:\n{server.log()[-2000:]}"
                    )
                if time.monotonic() > deadline:
                    raise ServerDidNotStart(
                        f"the server did not answer /healthz within {timeout:.0f} s:\n{server.log()[-2000:]}"
                    )
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
def app_server(*args: str, env: Mapping[str, str] | None = None, timeout: float = 30) -> Iterator[str]:
    """`served` on 127.0.0.1, for tests and benchmarks that only need the base URL."""
    with served(*args, env=env, timeout=timeout) as server:
        yield server.url
