"""Error answers shared by every endpoint."""

from __future__ import annotations

import math
from typing import Any

from fastapi import Request
from fastapi.encoders import jsonable_encoder
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse


def json_safe(value: Any) -> Any:
    """``value`` with every NaN or ±infinity spelled as a string, so it can be echoed back in JSON."""
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    if isinstance(value, dict):
        return {k: json_safe(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [json_safe(v) for v in value]
    return value


async def validation_error(request: Request, error: Exception) -> JSONResponse:
    """FastAPI's 422, except that a NaN or an infinity in the input is echoed as text instead of
    failing to serialise (JSON has neither, and the default handler would answer 500)."""
    assert isinstance(error, RequestValidationError)
    return JSONResponse({"detail": json_safe(jsonable_encoder(error.errors()))}, status_code=422)
