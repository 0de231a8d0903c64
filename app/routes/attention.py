"""Figure 1's endpoint: the trained relation heads applied to the reader's sentence."""

from typing import Annotated

from fastapi import APIRouter, Query, Response
from pydantic import TypeAdapter

from app.core.diagnostics import future_leak, future_share
from app.deps import DEFAULT_SENTENCE, CacheDep, RelationHeadsDep, Sentence, sentence_query
from app.errors import refusal_doc
from app.models.heads import VALID_HEADS, RelationAttention
from app.models.relations import D_MODEL
from app.schemas import AttentionResponse, MaskName, Relation, SharedPair

router = APIRouter(prefix="/api", tags=["attention"])
ANSWER = TypeAdapter(AttentionResponse)


@router.get(
    "/attention",
    response_model=AttentionResponse,
    responses={
        422: refusal_doc("no words or too many, a `heads` that does not divide d_model, a bad `mask`")
    },
)
def attention(
    model: RelationHeadsDep,
    cache: CacheDep,
    sentence: Annotated[Sentence, sentence_query(DEFAULT_SENTENCE)],
    heads: Annotated[
        int,
        Query(description="how many heads d_model is sliced into", json_schema_extra={"enum": VALID_HEADS}),
    ] = 3,
    mask: MaskName = "none",
    trained: bool = True,
) -> Response:
    """Attention weights of every head of the relation model, and how well each head serves each relation."""

    def answer() -> bytes:  # serialised once, then kept as bytes
        result = model.attend(sentence.words, heads=heads, mask=mask, trained=trained)
        return ANSWER.dump_json(attention_response(result, heads, mask, trained))

    # The answer depends on the words alone: "the river bank." and "the  river bank" are one entry.
    key = ("attention", tuple(sentence.words), heads, mask, trained)
    return Response(cache.get_or_compute(key, answer), media_type="application/json")


def attention_response(
    result: RelationAttention, heads: int, mask: MaskName, trained: bool
) -> AttentionResponse:
    """The layer's answer as /api/attention states it."""
    relations = [
        Relation(
            name=fit.name,
            targets=fit.targets,
            best_head=fit.best_head,
            score=fit.score,
            head_scores=None if fit.head_scores is None else fit.head_scores.tolist(),
            shared_pairs=[SharedPair(pair=pair, also=also) for pair, also in fit.borrowing.shared_pairs],
            own_score=fit.borrowing.own_score,
            borrowed=fit.borrowing.borrowed,
        )
        for fit in result.relations
    ]
    shares = future_share(result.weights)  # [head][query i]
    return AttentionResponse(
        tokens=[t.text for t in result.tokens],
        known=[t.known for t in result.tokens],
        d_model=D_MODEL,
        heads=heads,
        valid_heads=VALID_HEADS,
        mask=mask,
        trained=trained,
        weights=result.weights.tolist(),
        future_leak=future_leak(result.weights),
        future_shares=shares.tolist(),
        row_future_shares=shares.mean(axis=0).tolist(),
        relations=relations,
    )
