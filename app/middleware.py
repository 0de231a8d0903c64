"""The layers every request passes through: security headers outermost, then gzip for the pages.

``Explorable`` is FastAPI with ``SecurityHeaders`` wrapped around everything else it builds; ``PageGzip``
compresses the pages and the OpenAPI document only. The body limits are app/limits.py, the HTTP rules
(HEAD, 405, redirects) app/http_rules.py.
"""

from typing import Any
from urllib.parse import parse_qs

from fastapi import FastAPI
from starlette.middleware.gzip import GZipMiddleware
from starlette.types import ASGIApp, Message, Receive, Scope, Send

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

        policy = self.embed_policy if is_embed_view(scope) else self.policy
        headers = [(b"content-security-policy", policy), *SECURITY_HEADERS.items()]

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                own = list(message.get("headers", []))
                present = {
                    name.lower() for name, _ in own if name.lower() in NAMES
                }  # set by the route itself
                message["headers"] = own + [(k, v) for k, v in headers if k not in present]
            await send(message)

        await self.app(scope, receive, send_with_headers)


def accepts_gzip(scope: Scope) -> bool:
    """True when the request's Accept-Encoding names gzip."""
    return any(name == b"accept-encoding" and b"gzip" in value for name, value in scope["headers"])


class PageGzip(GZipMiddleware):
    """Gzip for the pages and the OpenAPI document only, to clients that ask for it. The article's HTML
    shrinks about fourfold; the API's answers are not compressed, because a 1 MB cached answer would be
    compressed again on every request and cost more than it saves on loopback or a LAN (the page asks for the
    packed form of the large ones instead, app/answers.py). Static files carry their own gzip
    (app/static_files.py). Every other request passes straight through, where Starlette's own middleware would
    still read a plain answer through a responder of its own."""

    SKIPPED = ("/api/", "/static/", "/healthz")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and not scope["path"].startswith(self.SKIPPED) and accepts_gzip(scope):
            await super().__call__(scope, receive, send)
        else:
            await self.app(scope, receive, send)


class Explorable(FastAPI):
    """FastAPI with the security headers outside every other layer, so that even the plain-text 500 of
    Starlette's ServerErrorMiddleware (the outermost layer of a stock app) carries them."""

    def __init__(self, *, embed_frame_ancestors: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.embed_frame_ancestors = embed_frame_ancestors

    def build_middleware_stack(self) -> ASGIApp:
        return SecurityHeaders(super().build_middleware_stack(), self.embed_frame_ancestors)
