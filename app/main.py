"""Assembles the web application: middleware, error answers, static files and routers."""

from fastapi import FastAPI
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException

from app.config import get_settings
from app.core.matrix_files import file_too_large
from app.deps import with_sentence_limit
from app.routes import (
    api_docs,
    attention,
    diagnose,
    head_lab,
    health,
    lm,
    order,
    pages,
    real_attention,
    translate,
)
from app.web.errors import http_error, refused, validation_error
from app.web.limits import Limit
from app.web.middleware import Explorable
from app.web.multipart import ENVELOPE_BYTES
from app.web.refusal import Refusal
from app.web.static_files import get_static_site
from app.web.stored_answers import answer_store


def create_app() -> FastAPI:
    """Build the application; uvicorn calls this as a factory."""
    settings = get_settings()
    # Every body is capped before an endpoint reads it: 256 KB of JSON, or the upload limit plus its envelope.
    upload = Limit(settings.max_upload_bytes + ENVELOPE_BYTES, file_too_large(settings.max_upload_bytes))
    app = Explorable(
        limits={"/api/diagnose": upload},
        static=get_static_site(),  # /static/, answered by the Edge layer (app/web/static_files.py)
        stored=answer_store(),  # pages and GET answers kept whole (app/web/stored_answers.py)
        title="Attention Explorable",
        summary="Transformer attention computed live from real matrices.",
        version="0.1.0",
        embed_frame_ancestors=settings.embed_frame_ancestors,
        docs_url=None,  # FastAPI's Swagger UI and ReDoc load from a CDN; /docs is served by api_docs instead
        redoc_url=None,
    )
    app.openapi = with_sentence_limit(app.openapi, settings.max_sentence_chars)  # type: ignore[method-assign]
    app.add_exception_handler(Refusal, refused)
    app.add_exception_handler(RequestValidationError, validation_error)
    app.add_exception_handler(StarletteHTTPException, http_error)
    health.add_probe(app)
    app.include_router(attention.router)
    app.include_router(head_lab.router)
    app.include_router(diagnose.router)
    app.include_router(lm.router)
    app.include_router(translate.router)
    app.include_router(order.router)
    app.include_router(real_attention.router)
    app.include_router(pages.router)
    app.include_router(api_docs.router)
    return app
