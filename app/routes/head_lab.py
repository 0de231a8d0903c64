"""Figure 4's endpoint, the head lab: every stage of multi-head attention over the reader's own matrices."""

from __future__ import annotations

from fastapi import APIRouter, Response

from app.core.custom_heads import HeadMatrices, custom_attention
from app.schemas.head_lab import CustomAttentionRequest, CustomAttentionResponse
from app.web.answers import answer, json_bytes
from app.web.errors import BODY_TOO_LARGE, refusal_doc
from app.web.offload import computed

# Bodies over 256 KB are refused with a 413 before this router sees them: app/web/limits.py.
router = APIRouter(prefix="/api/attention", tags=["head lab"])


@router.post(
    "/custom",
    response_model=CustomAttentionResponse,
    responses={
        413: BODY_TOO_LARGE,
        422: refusal_doc("a field that is missing, ragged, non-finite or of the wrong shape"),
    },
)
async def custom(body: CustomAttentionRequest) -> Response:
    """Scores, weights and context of every head, the concatenation, the output and the parameter count."""
    return answer(await computed(lambda: lab_answer(body)))


def lab_answer(body: CustomAttentionRequest) -> bytes:
    """The head lab's answer, written: every stage of every head, so its size follows the shapes, not the
    request's bytes (a request of 64 one-number rows and 16 heads of 64 columns is a few KB); docs/api.md
    gives its size at every limit at once."""
    heads = [HeadMatrices(w_q=h.w_q, w_k=h.w_k, w_v=h.w_v) for h in body.heads]
    lab = custom_attention(
        body.embeddings, heads, w_o=body.w_o, mask=body.mask, scale=body.scale, tokens=body.tokens
    )
    r = lab.result
    # CustomAttentionResponse, field for field; JSON has no −∞, so a masked-out score travels as null
    written = {
        "tokens": body.tokens,
        "mask": body.mask,
        "scale": body.scale,
        "q": r.q,
        "k": r.k,
        "v": r.v,
        "scores": [s.scores for s in r.stages],
        "scaled": [s.scaled for s in r.stages],
        "masked": [s.masked for s in r.stages],
        "weights": [s.weights for s in r.stages],
        "context": [s.context for s in r.stages],
        "concat": r.concat,
        "output": r.output,
        "parameters": {
            "per_head": lab.parameters.per_head,
            "w_o": lab.parameters.w_o,
            "total": lab.parameters.total,
        },
        "sqrt_d_k": lab.sqrt_d_k,
        "head_difference": lab.head_difference,
    }
    return json_bytes(written)
