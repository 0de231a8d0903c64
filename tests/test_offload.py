"""Computations take turns off the event loop (app/offload.py): at most COMPUTATIONS at once, the event
loop free meanwhile, errors passed on and never remembered."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import anyio
import pytest

from app.cache import ResponseCache
from app.offload import COMPUTATIONS, INLINE_MS, computed, remembered
from tests.serving import REPO


def run(main):  # noqa: ANN001, ANN201
    """``anyio.run(main)`` in a thread of its own: the browser tests may leave an event loop running in this
    one (as tests/inprocess.py's call does)."""
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(anyio.run, main).result()


def test_no_more_than_the_bound_run_at_once_and_the_event_loop_stays_free() -> None:
    running = peak = 0
    lock = threading.Lock()
    ticks = 0

    def work() -> int:
        nonlocal running, peak
        with lock:
            running += 1
            peak = max(peak, running)
        time.sleep(0.05)
        with lock:
            running -= 1
        return threading.get_ident()

    async def main() -> tuple[int, set[int]]:
        nonlocal ticks
        threads: set[int] = set()

        async def one() -> None:
            threads.add(await computed(work))

        async def clock() -> None:  # runs on the event loop while the computations wait or work
            nonlocal ticks
            for _ in range(10):
                ticks += 1
                await anyio.sleep(0.01)

        async with anyio.create_task_group() as group:
            group.start_soon(clock)
            for _ in range(3 * COMPUTATIONS):
                group.start_soon(one)
        return threading.get_ident(), threads

    loop_thread, threads = run(main)
    assert peak == COMPUTATIONS
    assert loop_thread not in threads
    assert ticks == 10


def test_short_work_runs_on_the_event_loop_and_longer_work_in_a_thread() -> None:
    async def main() -> tuple[int, list[int]]:
        estimates = [0.2, INLINE_MS, 2 * INLINE_MS, None]
        return threading.get_ident(), [await computed(threading.get_ident, e) for e in estimates]

    loop, (short, at_the_bound, longer, unknown) = run(main)
    assert short == at_the_bound == loop
    assert longer != loop and unknown != loop


def test_remembered_computes_once_and_never_stores_an_error() -> None:
    cache = ResponseCache()
    calls = 0

    def work() -> bytes:
        nonlocal calls
        calls += 1
        return b"answer"

    def broken() -> bytes:
        raise ValueError("no")

    async def main() -> None:
        assert await remembered(cache, "k", work) == b"answer"
        assert await remembered(cache, "k", work) == b"answer"
        with pytest.raises(ValueError):
            await remembered(cache, "bad", broken)
        assert cache.get("bad") is None

    run(main)
    assert calls == 1


def test_the_server_runs_one_blas_thread_unless_told_otherwise() -> None:
    """`python -m app` sets the BLAS thread counts before numpy is first imported, and keeps an operator's."""
    script = (
        "import app.__main__, os; print(os.environ['OPENBLAS_NUM_THREADS'], os.environ['OMP_NUM_THREADS'])"
    )
    env = {k: v for k, v in os.environ.items() if not k.endswith("_NUM_THREADS")}
    ours = subprocess.run([sys.executable, "-c", script], env=env, cwd=REPO, capture_output=True, text=True)
    assert ours.stdout.split() == ["1", "1"], ours.stderr
    theirs = subprocess.run(
        [sys.executable, "-c", script],
        env={**env, "OPENBLAS_NUM_THREADS": "3"},
        cwd=REPO,
        capture_output=True,
        text=True,
    )
    assert theirs.stdout.split() == ["3", "1"], theirs.stderr
