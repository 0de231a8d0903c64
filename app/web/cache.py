"""A bounded LRU of serialised JSON answers, so that asking the same question twice computes it once.

The endpoints whose answers depend only on their inputs (``/api/attention``, ``/api/translate``,
``/api/real-attention``) key it on their normalised inputs and store the exact bytes they send, through
app.web.offload.remembered. Bounded twice: by entries and by bytes, so a run of 64-token, 24-head answers
(about 2 MB each) cannot grow a worker without limit. Thread-safe: the event loop and the computing threads
both read it. Errors are never stored: a computation that raises leaves the cache as it was. Each worker
process has its own cache; nothing is shared, so workers stay stateless.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable, Sized
from dataclasses import dataclass
from functools import lru_cache
from typing import Generic, TypeVar

MAX_ENTRIES = 512
MAX_BYTES = 8 * 1024 * 1024  # per worker, under a tenth of its RSS; a 64-token answer at 12 heads is 1 MB

V = TypeVar("V", bound=Sized)  # what is kept; len() is its size in bytes


@dataclass(frozen=True)
class CacheStats:
    hits: int
    misses: int
    evictions: int
    entries: int
    bytes: int


class ResponseCache(Generic[V]):
    """Least-recently-used map from a hashable key to response bytes, at most ``max_entries`` entries and
    ``max_bytes`` bytes in all; a value larger than ``max_bytes`` on its own is answered but not kept."""

    def __init__(self, max_entries: int = MAX_ENTRIES, max_bytes: int = MAX_BYTES) -> None:
        if max_entries < 0 or max_bytes < 0:
            raise ValueError("max_entries and max_bytes must be >= 0 (0 turns the cache off)")
        self.max_entries = max_entries
        self.max_bytes = max_bytes
        self._items: OrderedDict[Hashable, V] = OrderedDict()
        self._bytes = 0
        self._hits = self._misses = self._evictions = 0
        self._lock = threading.Lock()

    def get(self, key: Hashable) -> V | None:
        """The stored bytes for ``key`` (now the most recently used), or None; counts a hit or a miss."""
        with self._lock:
            value = self._items.get(key)
            if value is None:
                self._misses += 1
                return None
            self._items.move_to_end(key)
            self._hits += 1
            return value

    def put(self, key: Hashable, value: V) -> None:
        """Store ``value`` under ``key``, evicting the least recently used entries until both bounds hold."""
        size = len(value)
        with self._lock:
            old = self._items.pop(key, None)
            if old is not None:
                self._bytes -= len(old)
            if size > self.max_bytes or self.max_entries == 0:
                return
            self._items[key] = value
            self._bytes += size
            while len(self._items) > self.max_entries or self._bytes > self.max_bytes:
                _, evicted = self._items.popitem(last=False)
                self._bytes -= len(evicted)
                self._evictions += 1

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self._bytes = 0
            self._hits = self._misses = self._evictions = 0

    def stats(self) -> CacheStats:
        with self._lock:
            return CacheStats(self._hits, self._misses, self._evictions, len(self._items), self._bytes)


@lru_cache
def get_response_cache() -> ResponseCache[bytes]:
    """The process's one cache; a dependency that tests can override (or clear)."""
    return ResponseCache()
