"""Figure 3's endpoint, the head lab: every stage of multi-head attention over the reader's own matrices."""

from __future__ import annotations

import numpy as np
from fastapi import APIRouter, Response
from pydantic import TypeAdapter

from app.core.attention import FloatArray
from app.core.custom_heads import HeadMatrices, custom_attention
from app.errors import BODY_TOO_LARGE, refusal_doc
from app.schemas import CustomAttentionParameters, CustomAttentionRequest, CustomAttentionResponse

# Bodies over 256 KB are refused with a 413 before this router sees them: app/limits.py.
router = APIRouter(prefix="/api/attention", tags=["head lab"])
ANSWER = TypeAdapter(CustomAttentionResponse)


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
        422: refusal_doc("a field that is missing, ragged, non-finite or of the wrong shape"),
    },
)
def custom(body: CustomAttentionRequest) -> Response:
    """Scores, weights and context of every head, the concatenation, the output and the parameter count."""
    heads = [HeadMatrices(w_q=h.w_q, w_k=h.w_k, w_v=h.w_v) for h in body.heads]
    lab = custom_attention(
        body.embeddings, heads, w_o=body.w_o, mask=body.mask, scale=body.scale, tokens=body.tokens
    )
    r = lab.result
    answer = CustomAttentionResponse(
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
        sqrt_d_k=lab.sqrt_d_k,
        head_difference=lab.head_difference,
    )
    # Serialised here, in the thread pool, not by FastAPI on the event loop: up to 4 MB of numbers.
    return Response(ANSWER.dump_json(answer), media_type="application/json")
