"""Where an answer's maths runs: on the event loop when it is short, else in threads, at most COMPUTATIONS
at a time per worker.

Every endpoint that computes is a coroutine that hands its computation to ``computed``, with an estimate of
its cost from the endpoint's measured cost model. Work estimated at INLINE_MS or less runs on the event loop
at once: that is about what the loop spends on reading and answering any one request anyway, and handing
work to a thread and back is not free. Measured with bench/distinct.py's loads, the same answers done in a
thread cost a quarter to a third more server time (the thread and the loop take turns at the interpreter
lock around every numpy call). Longer work goes to a thread, so the loop keeps reading and answering other
requests (a health check, a cached answer, a page) while numpy works.

The bound on threads is small on purpose: the computations are CPU-bound Python around numpy, so threads
beyond a couple only take turns at the interpreter lock. Two threads answered 32% more distinct
translations per second and 36% more 64-word attention answers than the 40 that anyio's shared thread pool
allows; the shared pool stays for blocking I/O (static files, templates). A request waiting for a turn holds
no thread.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import TypeVar

from anyio import CapacityLimiter, to_thread
from anyio.lowlevel import RunVar

from app.cache import ResponseCache

COMPUTATIONS = 2
INLINE_MS = 2.0  # work estimated at this many milliseconds or less runs on the event loop
_LIMITER: RunVar[CapacityLimiter] = RunVar("computations")  # one per event loop, as anyio keeps its own

T = TypeVar("T")


def limiter() -> CapacityLimiter:
    """This event loop's limiter of computations."""
    try:
        return _LIMITER.get()
    except LookupError:
        _LIMITER.set(CapacityLimiter(COMPUTATIONS))
        return _LIMITER.get()


async def computed(work: Callable[[], T], estimate_ms: float | None = None) -> T:
    """``work()``: here, on the event loop, when ``estimate_ms`` (the caller's measured cost model) is at
    most INLINE_MS; else in a thread, once one of the COMPUTATIONS turns is free."""
    if estimate_ms is not None and estimate_ms <= INLINE_MS:
        return work()
    return await to_thread.run_sync(work, limiter=limiter())


async def remembered(
    cache: ResponseCache, key: Hashable, work: Callable[[], bytes], estimate_ms: float | None = None
) -> bytes:
    """The answer stored under ``key``, or ``computed(work, estimate_ms)``'s, then stored. An exception from
    ``work`` propagates and stores nothing. Two requests missing the same key at once both compute it (the
    answers are equal); no lock is held while computing."""
    body = cache.get(key)
    if body is None:
        body = await computed(work, estimate_ms)
        cache.put(key, body)
    return body
