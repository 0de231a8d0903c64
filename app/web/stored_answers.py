"""Answers kept whole, as HTTP answers: the pages and the GET endpoints whose answer is a function of the
address alone (its path and query, and the committed weights and code behind them).

An endpoint says it is one with ``@stored(cache_control)``: ``revalidated`` for a page (a browser asks again
before each use, since the page names today's static addresses) and ``stored_for_a_day`` for an API answer (a
browser uses it for a day without asking; the page's requests carry the answers' version,
``answers_version``, so a deploy that changes them changes the address too). The first 200 answer to such a
request is kept, in a bounded store of its own (app/web/cache.py's LRU, 8 MB), with

- an ``ETag`` over its bytes, so a browser holding it gets a 304 without a body;
- its gzipped bytes, made once, when it is 1 KB or more: sent to clients that take gzip, with an ETag of
  their own and ``Vary: Accept-Encoding``;

and a later GET of the same address is answered from the store before FastAPI routes it. Each worker keeps
its own store; an answer is the same in every worker, so a reader's ETag is good in any of them. Errors, and
answers the endpoint did not mark, pass through untouched, and so does everything while the app's
dependencies are overridden (a test pointing the app at other settings): the same address may then answer
differently.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, TypeVar

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.web.cache import ResponseCache
from app.web.static_files import MIN_GZIP_BYTES, compressed, send_kept

ANSWER_MAX_AGE = 86_400  # a day
ANSWER_BYTES = 8 * 1024 * 1024  # the store's bound, plain and gzipped bytes together, per worker
ANSWER_ENTRIES = 1024
GZIP_LEVEL = 6

E = TypeVar("E", bound=Callable[..., Any])
_SET_HERE = {b"content-length", b"etag", b"cache-control", b"vary", b"content-encoding"}


def stored(cache_control: str) -> Callable[[E], E]:
    """Mark an endpoint whose 200 answers are kept by address and sent with ``cache_control``."""

    def mark(endpoint: E) -> E:
        endpoint.stored_as = cache_control  # type: ignore[attr-defined]
        return endpoint

    return mark


revalidated = stored("no-cache")
stored_for_a_day = stored(f"public, max-age={ANSWER_MAX_AGE}")


@dataclass(frozen=True)
class Stored:
    """One kept answer: the endpoint's own headers (content type and the like), its bytes, gzipped bytes
    when worth it, and how browsers may cache it."""

    headers: tuple[tuple[bytes, bytes], ...]
    body: bytes
    gzipped: bytes | None
    cache_control: bytes
    etag: str

    @classmethod
    def made(cls, headers: list[tuple[bytes, bytes]], body: bytes, cache_control: str) -> Stored:
        own = tuple((name, value) for name, value in headers if name.lower() not in _SET_HERE)
        zipped = compressed(body, GZIP_LEVEL) if len(body) >= MIN_GZIP_BYTES else None
        digest = hashlib.sha256(body).hexdigest()[:20]
        return cls(own, body, zipped, cache_control.encode(), f'"{digest}"')

    def __len__(self) -> int:
        return len(self.body) + len(self.gzipped or b"")

    async def answer(self, scope: Scope, send: Send) -> None:
        """Send this answer (gzipped when the request takes it), or a 304 when the request holds it."""
        await send_kept(scope, send, self.body, self.gzipped, self.etag, self.cache_control, self.headers)


class StoredAnswers:
    """ASGI middleware: answers a GET from the store when its address is there, and keeps the answers of
    endpoints marked with ``stored``."""

    def __init__(self, app: ASGIApp, store: ResponseCache[Stored]) -> None:
        self.app = app
        self.store = store

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        overridden = getattr(scope.get("app"), "dependency_overrides", None)
        if scope["type"] != "http" or scope["method"] != "GET" or overridden:
            await self.app(scope, receive, send)
            return
        key = (scope["path"], scope.get("query_string", b""))
        hit = self.store.get(key)
        if hit is not None:
            await hit.answer(scope, send)
            return
        await self.app(scope, receive, self.keeping(scope, key, send))

    def keeping(self, scope: Scope, key: tuple[str, bytes], send: Send) -> Send:
        """``send`` that holds back a marked endpoint's 200 answer, keeps it, and sends it as kept."""
        start: Message | None = None
        chunks: list[bytes] = []

        async def send_or_keep(message: Message) -> None:
            nonlocal start
            if message["type"] == "http.response.start":
                cache_control = getattr(scope.get("endpoint"), "stored_as", None)
                headers = Headers(raw=message.get("headers", []))
                if message["status"] == 200 and cache_control and "content-encoding" not in headers:
                    start = {**message, "cache_control": cache_control}
                    return
            elif message["type"] == "http.response.body" and start is not None:
                chunks.append(message.get("body", b""))
                if message.get("more_body", False):
                    return
                answer = Stored.made(list(start.get("headers", [])), b"".join(chunks), start["cache_control"])
                self.store.put(key, answer)
                await answer.answer(scope, send)
                return
            await send(message)

        return send_or_keep


@lru_cache
def answers_version() -> str:
    """A version of every answer: 12 hex digits of a SHA-256 over the app's code and weights (every file
    under app/). The page sends it as ``v`` with its API requests (static/js/lib/api.js), so that an answer
    a browser keeps for a day is never one from before a deploy; the endpoints ignore it."""
    root = Path(__file__).resolve().parent.parent  # app/
    digest = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
        digest.update(f"{path.relative_to(root).as_posix()}\n".encode())
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()[:12]


def answer_store() -> ResponseCache[Stored]:
    """An empty store of kept answers, with its bounds: each application has its own."""
    return ResponseCache(max_entries=ANSWER_ENTRIES, max_bytes=ANSWER_BYTES)
