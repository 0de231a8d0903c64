"""Figure 3's endpoint, the head lab: every stage of multi-head attention over the reader's own matrices."""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any

import numpy as np
from fastapi import APIRouter, HTTPException, Request, Response
from fastapi.responses import JSONResponse
from fastapi.routing import APIRoute
from starlette.types import Message

from app.core.attention import FloatArray
from app.core.custom_heads import HeadMatrices, custom_attention
from app.errors import BODY_TOO_LARGE, refusal
from app.schemas import CustomAttentionParameters, CustomAttentionRequest, CustomAttentionResponse

MAX_BODY_BYTES = 256 * 1024
TOO_LARGE = f"the request body is larger than {MAX_BODY_BYTES} bytes (256 KB)"


class LimitedBodyRoute(APIRoute):
    """A route that refuses a request body over MAX_BODY_BYTES with a 413 before parsing any of it.

    A declared Content-Length is checked first; a body sent without one is counted as it streams in.
    """

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        async def limited(request: Request) -> Response:
            declared = request.headers.get("content-length", "")
            if declared.isdigit() and int(declared) > MAX_BODY_BYTES:
                return JSONResponse({"detail": TOO_LARGE}, status_code=413)
            chunks: list[bytes] = []
            size = 0
            async for chunk in request.stream():
                size += len(chunk)
                if size > MAX_BODY_BYTES:
                    return JSONResponse({"detail": TOO_LARGE}, status_code=413)
                chunks.append(chunk)
            body = b"".join(chunks)
            replayed = False

            async def replay() -> Message:
                nonlocal replayed
                if replayed:
                    return {"type": "http.disconnect"}
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}

            return await handler(Request(request.scope, replay))

        return limited


router = APIRouter(prefix="/api/attention", tags=["head lab"], route_class=LimitedBodyRoute)


def _rows(a: FloatArray) -> list[list[float]]:
    return a.tolist()  # type: ignore[no-any-return]


def _rows_or_null(a: FloatArray) -> list[list[float | None]]:
    """JSON has no −∞: a masked-out score travels as null."""
    return [[None if np.isneginf(v) else float(v) for v in row] for row in a]


@router.post(
    "/custom",
    response_model=CustomAttentionResponse,
    responses={
        413: BODY_TOO_LARGE,
        422: refusal("a field that is missing, ragged, non-finite or of the wrong shape"),
    },
)
def custom(body: CustomAttentionRequest) -> CustomAttentionResponse:
    """Scores, weights and context of every head, the concatenation, the output and the parameter count."""
    heads = [HeadMatrices(w_q=h.w_q, w_k=h.w_k, w_v=h.w_v) for h in body.heads]
    try:
        lab = custom_attention(
            body.embeddings, heads, w_o=body.w_o, mask=body.mask, scale=body.scale, tokens=body.tokens
        )
    except ValueError as error:
        raise HTTPException(status_code=422, detail=str(error)) from error
    r = lab.result
    return CustomAttentionResponse(
        tokens=body.tokens,
        mask=body.mask,
        scale=body.scale,
        q=[_rows(q) for q in r.q],
        k=[_rows(k) for k in r.k],
        v=[_rows(v) for v in r.v],
        scores=[_rows(s.scores) for s in r.stages],
        scaled=[_rows(s.scaled) for s in r.stages],
        masked=[_rows_or_null(s.masked) for s in r.stages],
        weights=[_rows(s.weights) for s in r.stages],
        context=[_rows(s.context) for s in r.stages],
        concat=_rows(r.concat),
        output=None if r.output is None else _rows(r.output),
        parameters=CustomAttentionParameters(
            per_head=lab.parameters.per_head, w_o=lab.parameters.w_o, total=lab.parameters.total
        ),
    )
