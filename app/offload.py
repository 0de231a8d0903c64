"""Where an answer's maths runs: off the event loop, in threads, at most COMPUTATIONS at a time per worker.

Every endpoint that computes is a coroutine that hands its computation to ``computed``. The event loop
keeps reading and answering other requests meanwhile (a health check, a cached answer, a page) while numpy
works. The bound is small on purpose: the computations are CPU-bound Python around numpy, so threads beyond
a couple only take turns at the interpreter lock, and each turn costs. Measured with bench/distinct.py's
loads on two cores, two threads answered 32% more distinct translations per second and 36% more 64-word
attention answers than the 40 that anyio's shared thread pool allows; the shared pool stays for blocking
I/O (static files, templates). A request waiting for a turn holds no thread.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import TypeVar

from anyio import CapacityLimiter, to_thread
from anyio.lowlevel import RunVar

from app.cache import ResponseCache

COMPUTATIONS = 2
_LIMITER: RunVar[CapacityLimiter] = RunVar("computations")  # one per event loop, as anyio keeps its own

T = TypeVar("T")


def limiter() -> CapacityLimiter:
    """This event loop's limiter of computations."""
    try:
        return _LIMITER.get()
    except LookupError:
        _LIMITER.set(CapacityLimiter(COMPUTATIONS))
        return _LIMITER.get()


async def computed(work: Callable[[], T], inline: bool = False) -> T:
    """``work()``, run in a thread once one of the COMPUTATIONS turns is free; or here, on the event loop,
    when ``inline`` (for work smaller than handing it over costs: the caller bounds it)."""
    if inline:
        return work()
    return await to_thread.run_sync(work, limiter=limiter())


async def remembered(
    cache: ResponseCache, key: Hashable, work: Callable[[], bytes], inline: bool = False
) -> bytes:
    """The answer stored under ``key``, or ``computed(work)``'s, then stored. An exception from ``work``
    propagates and stores nothing. Two requests missing the same key at once both compute it (the answers
    are equal), as ResponseCache.get_or_compute does."""
    body = cache.get(key)
    if body is None:
        body = await computed(work, inline)
        cache.put(key, body)
    return body
