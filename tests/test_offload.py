"""Computations take turns off the event loop (app/web/offload.py): at most COMPUTATIONS at once, the event
loop free meanwhile, errors passed on and never remembered; requests that wait together share a batch."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import anyio
import pytest

from app.web.cache import ResponseCache
from app.web.offload import COMPUTATIONS, INLINE_MS, Batches, computed, remembered
from tools.serving import REPO


def run_in_thread(main):  # noqa: ANN001, ANN201
    """``anyio.run(main)`` in a thread of its own: the browser tests may leave an event loop running in this
    one (as tools/inprocess.py's call does)."""
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

    loop_thread, threads = run_in_thread(main)
    assert peak == COMPUTATIONS
    assert loop_thread not in threads
    assert ticks == 10


def test_short_work_runs_on_the_event_loop_and_longer_work_in_a_thread() -> None:
    async def main() -> tuple[int, list[int]]:
        estimates = [0.2, INLINE_MS, 2 * INLINE_MS, None]
        return threading.get_ident(), [await computed(threading.get_ident, e) for e in estimates]

    loop, (short, at_the_bound, longer, unknown) = run_in_thread(main)
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

    run_in_thread(main)
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


LONG = 2 * INLINE_MS  # an estimate that sends a batch to a thread, so that others arrive while it runs


def test_requests_that_wait_together_share_a_batch_in_order_and_a_lone_one_waits_for_nothing() -> None:
    batches_run: list[list[int]] = []

    def run(items: list[int]) -> list[int]:
        batches_run.append(items)
        time.sleep(0.05)  # long enough for every other request to arrive meanwhile
        return [10 * item for item in items]

    batches = Batches(run, most_ms=5 * LONG)

    async def main() -> dict[int, int]:
        answers: dict[int, int] = {}

        async def one(item: int) -> None:
            answers[item] = await batches(item, LONG)

        assert await batches(7, LONG) == 70  # alone: a batch of one
        async with anyio.create_task_group() as group:
            for item in range(12):
                group.start_soon(one, item)
                await anyio.sleep(0)  # each arrives in turn
        return answers

    answers = run_in_thread(main)
    assert answers == {item: 10 * item for item in range(12)}
    assert batches_run[0] == [7]
    # the first of the twelve starts a batch alone; the rest wait for it and go in fives (most_ms / LONG)
    assert batches_run[1:] == [[0], [1, 2, 3, 4, 5], [6, 7, 8, 9, 10], [11]]
    assert batches.sizes == {1: 3, 5: 2}


def test_a_batch_that_fails_fails_each_of_its_requests_and_the_next_batch_runs() -> None:
    def run(items: list[str]) -> list[str]:
        time.sleep(0.02)
        if "bad" in items:
            raise ValueError("no")
        return [item.upper() for item in items]

    batches = Batches(run, most_ms=2 * LONG)

    async def main() -> list[object]:
        outcomes: list[object] = [None] * 5

        async def one(k: int, item: str) -> None:
            try:
                outcomes[k] = await batches(item, LONG)
            except ValueError as error:
                outcomes[k] = error

        async with anyio.create_task_group() as group:
            for k, item in enumerate(["a", "b", "bad", "c", "d"]):
                group.start_soon(one, k, item)
                await anyio.sleep(0)
        return outcomes

    a, b, bad, c, d = run_in_thread(main)
    assert a == "A"  # alone
    assert isinstance(b, ValueError) and isinstance(bad, ValueError)  # b shared the batch with "bad"
    assert (c, d) == ("C", "D")


def test_requests_arriving_before_a_model_is_loaded_share_one_load() -> None:
    """app.deps.loaded: the first load goes to the thread pool; requests that come while it reads wait for
    it and get the same model (one copy in memory, one set of batches), which the garbage collector then no
    longer walks."""
    import gc
    from functools import lru_cache

    from app.deps import loaded

    loads = 0

    @lru_cache
    def get_model() -> object:
        nonlocal loads
        loads += 1
        time.sleep(0.05)  # reading a file
        return [object() for _ in range(1000)]  # a model's Python objects

    async def main() -> list[object]:
        models: list[object] = []

        async def one() -> None:
            models.append(await loaded(get_model, "model"))

        async with anyio.create_task_group() as group:
            for _ in range(6):
                group.start_soon(one)
        return models

    gc.unfreeze()
    models = run_in_thread(main)
    assert loads == 1 and len(models) == 6 and len({id(m) for m in models}) == 1
    assert gc.get_freeze_count() >= 1000  # frozen out of the collections with the model's objects
