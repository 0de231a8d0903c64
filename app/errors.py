"""Error answers shared by every endpoint."""

from __future__ import annotations

import math
from typing import Any

from fastapi import Request
from fastapi.encoders import jsonable_encoder
from fastapi.exception_handlers import http_exception_handler
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel
from starlette.exceptions import HTTPException as StarletteHTTPException


def json_safe(value: Any) -> Any:
    """``value`` with every NaN or ±infinity spelled as a string and bytes decoded (undecodable ones
    replaced), so it can be echoed back in JSON."""
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    if isinstance(value, dict):
        return {k: json_safe(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [json_safe(v) for v in value]
    return value


async def validation_error(request: Request, error: Exception) -> JSONResponse:
    """FastAPI's 422, except that a NaN or an infinity in the input is echoed as text instead of
    failing to serialise (JSON has neither, and the default handler would answer 500), and so is a body
    that is not UTF-8 (sent as something other than JSON, it reaches validation as bytes)."""
    assert isinstance(error, RequestValidationError)
    return JSONResponse({"detail": jsonable_encoder(json_safe(error.errors()))}, status_code=422)


class ErrorAnswer(BaseModel):
    """Every 4xx answer's body: ``detail`` says what to fix, as one sentence (the endpoint's own refusals and
    the size limits) or as FastAPI's list of field errors (a parameter or a body field of the wrong type)."""

    detail: str | list[dict[str, Any]]


def refusal(description: str) -> dict[str, Any]:
    """One entry of a route's ``responses=``: a documented 4xx with its meaning and the ErrorAnswer body."""
    return {"model": ErrorAnswer, "description": description}


BODY_TOO_LARGE = refusal("the request body is larger than 256 KB")


def json_refusal(description: str) -> dict[str, Any]:
    """``refusal`` for a route that answers HTML: its 4xx is still JSON, so the media type is spelled out."""
    return {
        "description": description,
        "content": {"application/json": {"schema": ErrorAnswer.model_json_schema()}},
    }


# FastAPI answers a JSON body it cannot even decode with a 400 "There was an error parsing the body"; the
# cause says what was wrong, and these say it in words. Malformed JSON syntax is FastAPI's 422 `json_invalid`.
UNREADABLE_BODY = {
    UnicodeDecodeError: "the body is not valid UTF-8: send JSON as UTF-8 text",
    RecursionError: "the JSON body is nested too deeply to read",
    ValueError: "the JSON body holds a number too long to read (more than 4300 digits)",
}


async def http_error(request: Request, error: Exception) -> Response:
    """FastAPI's answer to an HTTPException, except that a body that could not be decoded gets a 422 that
    says why, like every other body the endpoint cannot use."""
    assert isinstance(error, StarletteHTTPException)
    if error.status_code == 400 and error.__cause__ is not None:
        for kind, detail in UNREADABLE_BODY.items():
            if isinstance(error.__cause__, kind):
                return JSONResponse({"detail": detail}, status_code=422)
    return await http_exception_handler(request, error)
