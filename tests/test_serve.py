"""``python -m app --workers N``: N uvicorn worker processes behind one port, no server banner, clean exit."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from app.__main__ import build_parser
from tools.serving import free_port

ROOT = Path(__file__).resolve().parent.parent


def children(pid: int) -> set[tuple[int, str]]:
    """A process's children (Linux /proc), each as its pid and start time (a pid alone may be reused)."""
    path = Path(f"/proc/{pid}/task/{pid}/children")
    pids = [int(p) for p in path.read_text().split()] if path.exists() else []
    return {(child, start) for child in pids if (start := started(child))}


def is_worker(pid: int) -> bool:
    """A uvicorn worker, as against multiprocessing's resource tracker (the supervisor's other child)."""
    try:
        return b"spawn_main" in Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False


def started(pid: int) -> str:
    """The process's start time in clock ticks since boot, or "" once it is gone or a zombie."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return ""
    return "" if fields[0] == "Z" else fields[19]  # state, ..., starttime (fields 3 and 22 of stat)


def test_the_parser_takes_a_worker_count() -> None:
    assert build_parser().parse_args([]).workers == 1
    assert build_parser().parse_args(["--workers", "3"]).workers == 3


@pytest.mark.parametrize("count", ["0", "-1", "two"])
def test_a_worker_count_below_one_is_a_usage_error(count: str) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "app", "--workers", count],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2
    assert "--workers" in result.stderr


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="counts worker processes through /proc")
def test_two_workers_serve_without_a_server_header_and_stop_cleanly() -> None:
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "app", "--workers", "2", "--port", str(port)],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 60
        response = None
        while response is None or sum(is_worker(pid) for pid, _ in children(process.pid)) < 2:
            assert process.poll() is None, process.stderr.read().decode() if process.stderr else ""
            assert time.monotonic() < deadline, "the workers did not start"
            try:
                response = httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=2)
            except httpx.HTTPError:
                response = None
            time.sleep(0.2)
        assert response.status_code == 200 and response.json() == {"status": "ok"}
        assert "server" not in response.headers
        family = children(process.pid)
        assert sum(is_worker(pid) for pid, _ in family) == 2  # uvicorn's supervisor runs the workers
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            code = process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            raise
    assert code == 0
    # The supervisor joins its workers before it exits; the resource tracker leaves once it sees that.
    deadline = time.monotonic() + 10
    while (
        left := {(pid, start) for pid, start in family if started(pid) == start}
    ) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not left, f"children left running: {left}"
