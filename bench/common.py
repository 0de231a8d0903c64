"""Shared by the benchmarks: start the explorable on a free loopback port and stop it afterwards."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


@dataclass(frozen=True)
class Server:
    base: str  # http://127.0.0.1:PORT
    pid: int  # the ``python -m app`` process (with --workers N, the supervisor of N worker processes)


@contextlib.contextmanager
def server(
    env: dict[str, str] | None = None, args: Sequence[str] = (), host: str = "127.0.0.1"
) -> Iterator[Server]:
    """A fresh ``python -m app`` on ``host`` with extra ``args`` (such as ``--workers 2``), stopped on exit.

    ``env`` adds variables to the server's environment (such as ``ATTENTION_MAX_UPLOAD_BYTES``).
    """
    port = free_port(host)
    process = subprocess.Popen(
        [sys.executable, "-m", "app", "--host", host, "--port", str(port), *args],
        cwd=ROOT,
        env={**os.environ, **env} if env else None,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    base = f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(f"{base}/healthz", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline or process.poll() is not None:
                raise RuntimeError("the server did not start")
            time.sleep(0.1)
        yield Server(base, process.pid)
    finally:
        process.terminate()
        process.wait(timeout=30)


@contextlib.contextmanager
def running_server(env: dict[str, str] | None = None, args: Sequence[str] = ()) -> Iterator[str]:
    """Yield the base URL of a fresh ``python -m app`` on 127.0.0.1, stopped on exit."""
    with server(env, args) as started:
        yield started.base


def process_tree(pid: int) -> list[int]:
    """``pid`` and its descendants (Linux /proc): a server's supervisor and its workers."""
    pids, todo = [], [pid]
    while todo:
        current = todo.pop()
        pids.append(current)
        children = Path(f"/proc/{current}/task/{current}/children")
        with contextlib.suppress(OSError):
            todo += [int(child) for child in children.read_text().split()]
    return pids


def rss_kib(pid: int, field: str = "VmRSS") -> int:
    """A /proc/<pid>/status memory figure in KiB (VmRSS: resident now; VmHWM: its peak), summed over the
    process and its descendants."""
    total = 0
    for member in process_tree(pid):
        with contextlib.suppress(OSError):
            for line in Path(f"/proc/{member}/status").read_text().splitlines():
                if line.startswith(field + ":"):
                    total += int(line.split()[1])
    return total


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds used so far by the process and its descendants (Linux /proc)."""
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0
    for member in process_tree(pid):
        with contextlib.suppress(OSError):
            fields = Path(f"/proc/{member}/stat").read_text().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])  # utime, stime (fields 14 and 15 of stat)
    return total / ticks
