"""Figure 1's endpoint: the trained relation heads applied to the reader's sentence."""

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query, Response

from app.core.diagnostics import future_share
from app.core.masks import MaskMode
from app.deps import DEFAULT_SENTENCE, CacheDep, RelationHeadsDep, Sentence, sentence_query
from app.models.heads import VALID_HEADS, RelationAttention, kv_head_of
from app.models.relations import D_MODEL
from app.schemas.attention import AttentionResponse
from app.web.answers import JSON, PACKED, PACKED_RELATIVE_ERROR, PACKED_SMALLEST, answer, json_bytes, packed
from app.web.errors import refusal_doc
from app.web.offload import remembered
from app.web.stored_answers import stored_for_a_day

router = APIRouter(prefix="/api", tags=["attention"])

AnswerFormat = Literal["json", "packed"]


def cost_ms(words: int, heads: int) -> float:
    """The measured cost of an answer in milliseconds (analysis, weights, scores and writing), for
    app/web/offload.py: 0.15 at 5 words × 3 heads, 1.1 at 64 × 12 (49,152 weights), 2.1 at 64 × 24."""
    return 0.15 + 0.02 * heads * words * words / 1000


DESCRIPTION = f"""\
Attention weights of every head of the relation model, and how well each head serves each relation.

`format=json` (the default) answers the JSON below, every number a float64 written in full. `format=packed`
answers the same facts in fewer bytes (`{PACKED}`): at 64 words × 12 heads 169 KB against 1.1 MB.

- bytes 0-3: n, the length of the JSON head, as a little-endian uint32;
- bytes 4 to 4 + n: the JSON head, which is the JSON answer without `weights` and with
  `weights_shape` ([heads, tokens, tokens]), padded with spaces to a multiple of 4 bytes;
- then the weights, row-major in that shape, three bytes each: the top three bytes of the little-endian
  float32, rounded to nearest. Put a zero byte below each three to read them as float32.

`kv_heads` = g serves the layer whose h query heads share g key/value heads (grouped-query attention;
g = 1 is multi-query): W_K and W_V are 24 × g·(24/h) instead of 24 × 24, and query head i reads key/value
head i // (h/g). Left out, or g = h, it is the ordinary layer, and an answer without it is what it always
was. Every g that divides h was trained for h = 2, 3, 4, 6, 8 and 12 (h = 1 has nothing to share); at
h = 24 only g = 24. With `kv_heads` given the answer adds `kv_heads` and `kv_head_of` (the key/value head
each query head reads), in both forms. A g that does not divide h, or one not trained, is a 422 naming the
values there are.

A packed weight is within {PACKED_RELATIVE_ERROR:g} of its float64, relatively (below 1.2e-38, within
{PACKED_SMALLEST:.2g}):
an exact 0 stays 0, equal weights (the ×0 mask's future) stay equal, no positive weight
becomes 0, and every row sums to 1 within {PACKED_RELATIVE_ERROR:g}. Every other field is as exact as in JSON.
"""


@router.get(
    "/attention",
    response_model=AttentionResponse,
    description=DESCRIPTION,
    responses={
        200: {"content": {PACKED: {"schema": {"type": "string", "format": "binary"}}}},
        422: refusal_doc(
            "no words or too many, a `heads` that does not divide d_model, a `kv_heads` that does not divide "
            "`heads` or was not trained for it, a bad `mask`"
        ),
    },
)
@stored_for_a_day
async def attention(
    model: RelationHeadsDep,
    cache: CacheDep,
    sentence: Annotated[Sentence, sentence_query(DEFAULT_SENTENCE)],
    heads: Annotated[
        int,
        Query(description="how many heads d_model is sliced into", json_schema_extra={"enum": VALID_HEADS}),
    ] = 3,
    kv_heads: Annotated[
        int | None,
        Query(description="how many key/value heads the query heads share (g divides h); left out: h"),
    ] = None,
    mask: MaskMode = "none",
    trained: bool = True,
    format: Annotated[
        AnswerFormat, Query(description="`json`, or `packed`: the weights in three bytes each (see above)")
    ] = "json",
) -> Response:
    def compute() -> bytes:  # written once, then kept as bytes
        result = model.attend(sentence.words, heads=heads, mask=mask, trained=trained, kv_heads=kv_heads)
        if format == "packed":
            head = attention_answer(result, heads, mask, trained, weights=False, kv_heads=kv_heads)
            return packed(head, "weights", result.weights)
        return json_bytes(attention_answer(result, heads, mask, trained, kv_heads=kv_heads))

    # The answer depends on the words alone: "the river bank." and "the  river bank" are one entry.
    key = ("attention", tuple(sentence.words), heads, kv_heads, mask, trained, format)
    estimate = cost_ms(len(sentence.words), heads)
    return answer(await remembered(cache, key, compute, estimate), PACKED if format == "packed" else JSON)


def attention_answer(
    result: RelationAttention,
    heads: int,
    mask: MaskMode,
    trained: bool,
    weights: bool = True,
    kv_heads: int | None = None,
) -> dict[str, Any]:
    """The layer's answer as /api/attention states it, in the order AttentionResponse lists the fields;
    without `weights` for the packed form, which sends them after it. `kv_heads` and `kv_head_of` are there
    only when the request named `kv_heads`, so that an answer without it is unchanged."""
    relations = [
        {
            "name": fit.name,
            "targets": fit.targets,
            "best_head": fit.best_head,
            "score": fit.score,
            "head_scores": fit.head_scores,
            "shared_pairs": [{"pair": pair, "also": also} for pair, also in fit.borrowing.shared_pairs],
            "own_score": fit.borrowing.own_score,
            "borrowed": fit.borrowing.borrowed,
        }
        for fit in result.relations
    ]
    shares = future_share(result.weights)  # [head][query i]
    return {
        "tokens": [t.text for t in result.tokens],
        "known": [t.known for t in result.tokens],
        "d_model": D_MODEL,
        "heads": heads,
        "valid_heads": VALID_HEADS,
        **({"kv_heads": kv_heads, "kv_head_of": kv_head_of(heads, kv_heads)} if kv_heads is not None else {}),
        "mask": mask,
        "trained": trained,
        **({"weights": result.weights} if weights else {}),
        "future_leak": float(shares.mean()),
        "future_shares": shares,
        "row_future_shares": shares.mean(axis=0),
        "relations": relations,
        "verdicts": [{"kind": v.kind, "relations": list(v.relations)} for v in result.verdicts],
        "own_heads": result.own_heads,
    }
