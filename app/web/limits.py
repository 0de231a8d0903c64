"""Request body limits, enforced before any endpoint reads a body whole.

One ASGI middleware for every endpoint that reads a body: a declared Content-Length over the path's limit is
refused with a 413 before a byte of the body is read; a body sent without one (chunked) is counted as it
streams in, and the
moment the count passes the limit the endpoint is told the client has gone (so it stops reading) and the
client gets the 413 instead of whatever the endpoint would have answered.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass

from starlette.types import ASGIApp, Message, Receive, Scope, Send

JSON_BODY_BYTES = 256 * 1024  # every JSON endpoint
JSON_TOO_LARGE = f"the request body is larger than {JSON_BODY_BYTES} bytes (256 KB)"


@dataclass(frozen=True)
class Limit:
    """At most ``size`` bytes of body; past it a 413 whose ``detail`` is ``message``."""

    size: int
    message: str


JSON_LIMIT = Limit(JSON_BODY_BYTES, JSON_TOO_LARGE)
# No route reads the body of these (FastAPI reads one only for a route that declares a body, and no GET route
# does), so a body sent with one is never pulled in, whatever its size, and they pass without counting.
BODILESS = frozenset({"GET", "HEAD"})


def declared_length(scope: Scope) -> int | None:
    """The request's Content-Length, or None when it has none (or one that is not a number)."""
    for name, value in scope.get("headers", []):
        if name.lower() == b"content-length":
            return int(value) if value.isdigit() else None
    return None


class BodyLimit:
    """ASGI middleware refusing a request body past its limit with a 413 and a JSON ``detail``.

    ``paths`` gives some paths a limit of their own (the upload endpoint's); every other path has
    ``default``, the JSON endpoints' limit.
    """

    def __init__(self, app: ASGIApp, default: Limit = JSON_LIMIT, paths: Mapping[str, Limit] | None = None):
        self.app = app
        self.default = default
        self.paths = dict(paths or {})

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.paths.get(scope["path"], self.default)
        if scope["method"] in BODILESS:
            await self.app(scope, receive, send)
            return
        declared = declared_length(scope)
        if declared is not None and declared > limit.size:
            await refuse(send, limit)
            return

        received = 0
        exceeded = False
        started = False

        async def counted_receive() -> Message:
            nonlocal received, exceeded
            if exceeded:
                return {"type": "http.disconnect"}
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit.size:  # the endpoint stops reading here, as if the client had gone
                    exceeded = True
                    return {"type": "http.disconnect"}
            return message

        async def guarded_send(message: Message) -> None:
            nonlocal started
            if exceeded and not started:
                return  # the endpoint's answer to a body cut short; the 413 below replaces it
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, counted_receive, guarded_send)
        except Exception:
            if not exceeded or started:
                raise
        if exceeded and not started:
            await refuse(send, limit)


async def refuse(send: Send, limit: Limit) -> None:
    """Answer 413 with the limit's message, and close the connection: the rest of the body is not read."""
    body = json.dumps({"detail": limit.message}).encode()
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        (b"connection", b"close"),
    ]
    await send({"type": "http.response.start", "status": 413, "headers": headers})
    await send({"type": "http.response.body", "body": body})
