"""The layers every request passes through: security headers, the HTTP rules, static files, stored answers,
body limits, gzip for pages.

``Explorable`` is FastAPI with ``Edge`` wrapped around everything else it builds; Edge applies
``SecurityHeaders``, the HTTP rules (HEAD, 405, redirects: app/web/http_rules.py), answers ``/static/`` from
memory (app/web/static_files.py) and stored answers (app/web/stored_answers.py) itself, and applies the body
limits (app/web/limits.py) and ``PageGzip`` (pages that are not stored, and the OpenAPI document) in one
layer.
"""

from collections.abc import Mapping
from typing import Any
from urllib.parse import parse_qs

from fastapi import FastAPI
from starlette.middleware.gzip import GZipMiddleware
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.web.cache import ResponseCache
from app.web.http_rules import by_the_rules
from app.web.limits import BODILESS, JSON_LIMIT, BodyLimit, Limit
from app.web.static_files import StaticSite, serve
from app.web.stored_answers import Stored, StoredAnswers

# The page loads nothing from elsewhere and runs no inline script or style. Only a figure's embed view
# (/figure/<name>?embed=1, for slides) may be framed by other sites; every other page only by its own.
_POLICY = [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "font-src 'self'",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
]


def content_security_policy(frame_ancestors: str = "'self'") -> str:
    """The page's Content-Security-Policy, with `frame-ancestors` set to who may frame the response."""
    return "; ".join([*_POLICY, f"frame-ancestors {frame_ancestors}"])


CONTENT_SECURITY_POLICY = content_security_policy()

SECURITY_HEADERS = {
    b"x-content-type-options": b"nosniff",
    b"referrer-policy": b"no-referrer",
    b"permissions-policy": b"camera=(), microphone=(), geolocation=(), interest-cohort=()",
    b"cross-origin-opener-policy": b"same-origin",
}

NAMES = {b"content-security-policy", *SECURITY_HEADERS}


def is_embed_view(scope: Scope) -> bool:
    """True for a figure's embed view, /figure/<name>?embed=1."""
    if not scope["path"].startswith("/figure/"):
        return False
    query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
    return query.get("embed", [""])[-1].lower() in {
        "1",
        "true",
        "t",
        "yes",
        "y",
        "on",
    }  # as FastAPI reads a bool


class SecurityHeaders:
    """ASGI middleware adding the security headers to every HTTP response."""

    def __init__(self, app: ASGIApp, embed_frame_ancestors: str = "*") -> None:
        self.app = app
        self.policy = CONTENT_SECURITY_POLICY.encode()
        self.embed_policy = content_security_policy(embed_frame_ancestors).encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        await self.app(scope, receive, self.secured(scope, send))

    def secured(self, scope: Scope, send: Send) -> Send:
        """``send`` adding the security headers to the answer (those the route has not set itself)."""
        policy = self.embed_policy if is_embed_view(scope) else self.policy
        headers = [(b"content-security-policy", policy), *SECURITY_HEADERS.items()]

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                own = list(message.get("headers", []))
                present = {name.lower() for name, _ in own if name.lower() in NAMES}
                message["headers"] = own + [(k, v) for k, v in headers if k not in present]
            await send(message)

        return send_with_headers


def accepts_gzip(scope: Scope) -> bool:
    """True when the request's Accept-Encoding names gzip."""
    return any(name == b"accept-encoding" and b"gzip" in value for name, value in scope["headers"])


class PageGzip(GZipMiddleware):
    """Gzip for the pages and the OpenAPI document, to clients that ask for it, compressed per request: what
    is not stored (a figure's 404 page, /openapi.json). The article's HTML shrinks about fourfold. Stored
    answers (the article, each figure's page, the API's GET answers) carry gzip made once
    (app/web/stored_answers.py), which passes through here untouched, as do static files
    (app/web/static_files.py). Every other request passes straight through, where Starlette's own middleware
    would still read a plain answer through a responder of its own."""

    SKIPPED = ("/api/", "/static/", "/healthz")

    @classmethod
    def applies(cls, scope: Scope) -> bool:
        """True for a page asked for by a client that takes gzip."""
        return not scope["path"].startswith(cls.SKIPPED) and accepts_gzip(scope)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and self.applies(scope):
            await super().__call__(scope, receive, send)
        else:
            await self.app(scope, receive, send)


class Edge:
    """The layers every HTTP request passes through on its way in and its answer on its way out, in one
    ASGI middleware: the security headers (SecurityHeaders), the HTTP rules (app/web/http_rules.py), static
    files and stored answers answered from memory, the body limits (app/web/limits.py) and page gzip
    (PageGzip).

    One layer, not four nested ones, because a request's every pause (waiting for its body, for a thread)
    passes back out and in through each layer around it; here the headers and the rules are wrappers of
    ``send`` set up in one call, and the body limit and gzip are entered only by the requests they concern
    (a body to count; a page for a client that takes gzip). They sit outside Starlette's error middleware,
    so its plain-text 500 carries the headers and follows the rules too.
    """

    def __init__(
        self,
        app: ASGIApp,
        embed_frame_ancestors: str = "*",
        default: Limit = JSON_LIMIT,
        paths: Mapping[str, Limit] | None = None,
        static: StaticSite | None = None,
        stored: ResponseCache[Stored] | None = None,
    ) -> None:
        self.app = app
        self.static = static
        self.stored = stored
        if stored is not None:
            app = StoredAnswers(app, stored)
        self.inner = app
        self.security = SecurityHeaders(app, embed_frame_ancestors)
        self.gzip = PageGzip(app, minimum_size=1024, compresslevel=6)
        self.limited = BodyLimit(app, default, paths)  # the same limits around the app, and around gzip
        self.limited_gzip = BodyLimit(self.gzip, default, paths)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        scope, send = by_the_rules(scope, self.security.secured(scope, send))
        path = scope["path"]
        if self.static is not None:
            if path.startswith("/static/"):
                await serve(self.static, scope, send)
                return
            if not path.startswith(PageGzip.SKIPPED) and self.static.refresh() and self.stored is not None:
                self.stored.clear()  # a static file changed on disk: pages name new addresses now
        zipped = PageGzip.applies(scope)
        if scope["method"] in BODILESS:
            await (self.gzip if zipped else self.inner)(scope, receive, send)
        else:
            await (self.limited_gzip if zipped else self.limited)(scope, receive, send)


class Explorable(FastAPI):
    """FastAPI with Edge outside every other layer, so that even the plain-text 500 of Starlette's
    ServerErrorMiddleware (the outermost layer of a stock app) carries the security headers. ``limits`` are
    the body limits by path (the rest have JSON_LIMIT)."""

    def __init__(
        self,
        *,
        embed_frame_ancestors: str,
        limits: Mapping[str, Limit] | None = None,
        static: StaticSite | None = None,
        stored: ResponseCache[Stored] | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.embed_frame_ancestors = embed_frame_ancestors
        self.limits = dict(limits or {})
        self.static = static
        self.stored = stored

    def build_middleware_stack(self) -> ASGIApp:
        return Edge(
            super().build_middleware_stack(),
            self.embed_frame_ancestors,
            JSON_LIMIT,
            self.limits,
            static=self.static,
            stored=self.stored,
        )
