"""Error answers shared by every endpoint: what they say, and what they never do.

Three handlers make every 4xx: ``refused`` for a Refusal (app/web/refusal.py) raised by a model, a reader or a
route; ``validation_error`` for a parameter or body field pydantic turned down; ``http_error`` for what
Starlette itself refuses (no such path or method, a body it cannot decode).

An error answer is built from the request that caused it, so it must survive any request. It never fails to
serialise (NaN, infinities, undecodable bytes and lone UTF-16 surrogates are all spelled as text), never
grows with the input (at most MAX_ERRORS field errors, each echoing at most about ECHO_CHARS characters of
what was sent), and so costs the same small amount whatever the body held.
"""

from __future__ import annotations

import math
import re
from typing import Any

from fastapi import Request
from fastapi.encoders import jsonable_encoder
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from fastapi.utils import is_body_allowed_for_status_code
from pydantic import BaseModel, Field
from starlette.exceptions import HTTPException as StarletteHTTPException

from app.web.refusal import Refusal

MAX_ERRORS = 10  # field errors listed in one 422; the rest are counted in `errors_not_shown`
ECHO_CHARS = 200  # about how much of an offending input a field error repeats
# A lone surrogate (half of a UTF-16 pair) is legal in a JSON string ("\ud800") and in a Python str, but is
# not a character: UTF-8 cannot encode it. Pairs were already joined by the JSON decoder, so any left is lone.
LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def json_safe(value: Any) -> Any:
    """``value`` ready to be echoed back in JSON: every NaN or ±infinity spelled as a string, bytes decoded
    (undecodable ones replaced) and every lone surrogate replaced by U+FFFD, in values and keys alike."""
    if isinstance(value, str):
        return LONE_SURROGATE.sub("\ufffd", value)
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    if isinstance(value, dict):
        return {json_safe(k): json_safe(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [json_safe(v) for v in value]
    return value


def _longer_than(value: Any, room: int) -> bool:
    """Whether ``value`` written as JSON would take more than about ``room`` characters; it stops counting as
    soon as it does, so a 256 KB list costs no more to judge than a short one."""
    left = room

    def spend(item: Any) -> bool:  # True once the budget is spent
        nonlocal left
        if isinstance(item, dict):
            left -= 2
            return left < 0 or any(spend(k) or spend(v) for k, v in item.items())
        if isinstance(item, list | tuple):
            left -= 2
            return left < 0 or any(spend(v) for v in item)
        left -= len(item) + 3 if isinstance(item, str | bytes) else 8
        return left < 0

    return spend(value)


def brief(value: Any, room: int = ECHO_CHARS) -> Any:
    """``value`` as an error may repeat it: as it is when short, cut with "…" when a long text, and named
    rather than shown when a long list or object ("(a list of 4,096 items, not shown)")."""
    if isinstance(value, bytes):  # a body that is not UTF-8 reaches validation as bytes
        value = value.decode("utf-8", "replace")
    if isinstance(value, str):
        return value if len(value) <= room else value[: room - 1] + "…"
    if isinstance(value, list | tuple | dict) and _longer_than(value, room):
        kind = "an object with {:,} keys" if isinstance(value, dict) else "a list of {:,} items"
        return f"({kind.format(len(value))}, not shown)"
    return value


def _field_error(error: dict[str, Any]) -> dict[str, Any]:
    """One of pydantic's field errors, with everything that repeats the request kept short."""
    shown = {**error, "loc": [brief(part, 60) for part in error.get("loc", ())]}
    if "input" in shown:
        shown["input"] = brief(shown["input"])
    if isinstance(shown.get("ctx"), dict):
        shown["ctx"] = {k: brief(v) for k, v in shown["ctx"].items()}
    return shown


async def validation_error(request: Request, error: Exception) -> JSONResponse:
    """FastAPI's 422 with a bounded size: the first MAX_ERRORS field errors, their echoed inputs kept short,
    a count of the rest, and nothing in it that JSON or UTF-8 cannot carry."""
    assert isinstance(error, RequestValidationError)
    errors = error.errors()
    answer: dict[str, Any] = {"detail": [_field_error(e) for e in errors[:MAX_ERRORS]]}
    if len(errors) > MAX_ERRORS:
        answer["errors_not_shown"] = len(errors) - MAX_ERRORS
    return JSONResponse(jsonable_encoder(json_safe(answer)), status_code=422)


class ErrorAnswer(BaseModel):
    """Every 4xx answer's body: ``detail`` says what to fix, as one sentence (the endpoint's own refusals and
    the size limits) or as FastAPI's list of field errors (a parameter or a body field of the wrong type)."""

    detail: str | list[dict[str, Any]]
    errors_not_shown: int | None = Field(
        default=None,
        description=f"how many more field errors there were past the first {MAX_ERRORS} (absent when none)",
    )


def refusal_doc(description: str) -> dict[str, Any]:
    """One entry of a route's ``responses=``: a documented 4xx with its meaning and the ErrorAnswer body."""
    return {"model": ErrorAnswer, "description": description}


BODY_TOO_LARGE = refusal_doc("the request body is larger than 256 KB")


def json_refusal_doc(description: str) -> dict[str, Any]:
    """``refusal_doc`` for a route that answers HTML: its 4xx is still JSON, so the media type is spelled
    out."""
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


async def refused(request: Request, error: Exception) -> JSONResponse:
    """The answer to a Refusal raised anywhere below a route: its status, and its detail (and any fields it
    states beside it) made safe to encode (a detail may repeat what the reader sent: a file's odd string, an
    unknown word)."""
    assert isinstance(error, Refusal)
    return JSONResponse(json_safe({"detail": error.detail, **error.fields}), status_code=error.status)


async def http_error(request: Request, error: Exception) -> Response:
    """FastAPI's answer to an HTTPException (a 404, a 405, a body it could not parse), except that a body
    that could not be decoded gets a 422 that says why, like every other body the endpoint cannot use; the
    detail is made safe to encode."""
    assert isinstance(error, StarletteHTTPException)
    if error.status_code == 400 and error.__cause__ is not None:
        for kind, detail in UNREADABLE_BODY.items():
            if isinstance(error.__cause__, kind):
                return JSONResponse({"detail": detail}, status_code=422)
    headers = getattr(error, "headers", None)
    if not is_body_allowed_for_status_code(error.status_code):
        return Response(status_code=error.status_code, headers=headers)
    return JSONResponse({"detail": json_safe(error.detail)}, status_code=error.status_code, headers=headers)
