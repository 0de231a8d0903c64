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

Two models are costly per answer and read far more weight than a short sentence needs: figure 5's
translator and figure 11's real model. Their requests are ``Batches``: while one batch computes, the
requests that arrive wait, and the next batch takes them all in one pass over the weights. A lone request is
a batch of one and waits for nothing.
"""

from __future__ import annotations

import asyncio
import weakref
from collections import Counter
from collections.abc import Awaitable, Callable, Hashable, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Generic, TypeVar

from anyio import CapacityLimiter, to_thread
from anyio.lowlevel import RunVar

from app.web.cache import ResponseCache

COMPUTATIONS = 2
INLINE_MS = 2.0  # work estimated at this many milliseconds or less runs on the event loop
_LIMITER: RunVar[CapacityLimiter] = RunVar("computations")  # one per event loop, as anyio keeps its own

T = TypeVar("T")
R = TypeVar("R")


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
    """The answer stored under ``key``, or ``computed(work, estimate_ms)``'s, then stored."""
    return await kept(cache, key, lambda: computed(work, estimate_ms))


async def kept(cache: ResponseCache, key: Hashable, compute: Callable[[], Awaitable[bytes]]) -> bytes:
    """The answer stored under ``key``, or ``await compute()``'s, then stored. An exception propagates and
    stores nothing. Two requests missing the same key at once both compute it (the answers are equal); no
    lock is held while computing."""
    body = cache.get(key)
    if body is None:
        body = await compute()
        cache.put(key, body)
    return body


@dataclass
class _Queue(Generic[T, R]):
    """One event loop's requests waiting for a batch, and whether a batch is being worked through."""

    waiting: list[tuple[T, float, asyncio.Future[R]]] = field(default_factory=list)
    draining: bool = False


class Batches(Generic[T, R]):
    """Requests for one computation, answered in batches: ``await batches(item)`` is ``run([item])[0]``.

    ``run`` takes a list of items and returns their results in order; it must answer every item it is given
    (check each item before it waits here: a refusal belongs to its own request, not to its batch). While a
    batch computes, the items that arrive wait; when it ends, the next batch takes the waiting items in the
    order they came, as many as ``most_ms`` of estimated work allows (at least one), so no batch, and no
    request's wait, grows without bound. A batch runs like any computation here (``computed``): on the event
    loop if its estimate is at most INLINE_MS, else in a thread. A lone item is a batch of one, at once.

    A request that gives up (a client that hangs up) leaves its item to be computed and its result dropped.
    """

    def __init__(self, run: Callable[[list[T]], Sequence[R]], most_ms: float) -> None:
        self.run = run
        self.most_ms = most_ms
        self._queues: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Queue[T, R]] = (
            weakref.WeakKeyDictionary()
        )
        self._drains: set[asyncio.Task[None]] = set()  # held, so that a running drain is not collected
        self.sizes: Counter[int] = Counter()  # how many batches of each size have run (tests, bench)

    async def __call__(self, item: T, estimate_ms: float) -> R:
        """``item``'s result, ``estimate_ms`` being its measured cost on its own."""
        loop = asyncio.get_running_loop()
        queue = self._queues.get(loop)
        if queue is None:
            queue = self._queues[loop] = _Queue()
        result: asyncio.Future[R] = loop.create_future()
        queue.waiting.append((item, estimate_ms, result))
        if not queue.draining:
            queue.draining = True
            drain = loop.create_task(self._drain(queue))
            self._drains.add(drain)
            drain.add_done_callback(self._drains.discard)
        return await result

    def _next_batch(self, queue: _Queue[T, R]) -> list[tuple[T, float, asyncio.Future[R]]]:
        total, size = 0.0, 0
        for _, estimate, _ in queue.waiting:
            if size and total + estimate > self.most_ms:
                break
            total, size = total + estimate, size + 1
        batch, queue.waiting[:size] = queue.waiting[:size], []
        return batch

    async def _drain(self, queue: _Queue[T, R]) -> None:
        try:
            while queue.waiting:
                batch = self._next_batch(queue)
                items = [item for item, _, _ in batch]
                self.sizes[len(items)] += 1
                try:
                    results = await computed(partial(self.run, items), sum(e for _, e, _ in batch))
                except Exception as error:  # every request of the batch gets the error
                    for _, _, result in batch:
                        if not result.done():
                            result.set_exception(error)
                    continue
                except BaseException:  # the loop is closing: nobody is left to answer
                    for _, _, result in batch:
                        result.cancel()
                    raise
                for (_, _, result), value in zip(batch, results, strict=True):
                    if not result.done():
                        result.set_result(value)
        finally:
            queue.draining = False


_OWNED: weakref.WeakKeyDictionary[Any, dict[str, Batches[Any, Any]]] = weakref.WeakKeyDictionary()


def batches_of(
    owner: object, name: str, run: Callable[[list[T]], Sequence[R]], most_ms: float
) -> Batches[T, R]:
    """``owner``'s batches called ``name`` (a model's, for one kind of answer), made with ``run`` and
    ``most_ms`` on first use. ``run`` usually refers to its owner, so an owner of batches lives as long as
    the process, as the loaded models do anyway."""
    owned = _OWNED.setdefault(owner, {})
    if name not in owned:
        owned[name] = Batches(run, most_ms)
    return owned[name]
