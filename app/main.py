"""Assembles the web application: security headers, static files, templates and routers."""

from fastapi import FastAPI
from fastapi.exceptions import RequestValidationError
from fastapi.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.config import get_settings
from app.errors import validation_error
from app.routes import attention, diagnose, head_lab, health, lm, pages, translate

# The page loads nothing from elsewhere and runs no inline script or style.
CONTENT_SECURITY_POLICY = "; ".join(
    [
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",
        "font-src 'self'",
        "connect-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'self'",
    ]
)

SECURITY_HEADERS = {
    b"content-security-policy": CONTENT_SECURITY_POLICY.encode(),
    b"x-content-type-options": b"nosniff",
    b"referrer-policy": b"no-referrer",
    b"permissions-policy": b"camera=(), microphone=(), geolocation=(), interest-cohort=()",
    b"cross-origin-opener-policy": b"same-origin",
}


class SecurityHeaders:
    """ASGI middleware adding the security headers to every HTTP response."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                present = {name.lower() for name, _ in message.get("headers", [])}
                extra = [(k, v) for k, v in SECURITY_HEADERS.items() if k not in present]
                message["headers"] = list(message.get("headers", [])) + extra
            await send(message)

        await self.app(scope, receive, send_with_headers)


def create_app() -> FastAPI:
    """Build the application; uvicorn calls this as a factory."""
    settings = get_settings()
    app = FastAPI(
        title="Attention Explorable",
        summary="Transformer attention computed live from real matrices.",
        version="0.1.0",
    )
    app.add_middleware(SecurityHeaders)
    app.add_exception_handler(RequestValidationError, validation_error)
    app.mount("/static", StaticFiles(directory=settings.static_dir), name="static")
    app.include_router(health.router)
    app.include_router(attention.router)
    app.include_router(head_lab.router)
    app.include_router(diagnose.router)
    app.include_router(lm.router)
    app.include_router(translate.router)
    app.include_router(pages.router)
    return app
