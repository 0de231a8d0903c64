"""Figure 1's endpoint: the trained relation heads applied to the reader's sentence."""

from typing import Annotated

from fastapi import APIRouter, Depends, HTTPException, Query, Response
from pydantic import TypeAdapter

from app.cache import ResponseCache, get_response_cache
from app.config import Settings, get_settings
from app.errors import refusal
from app.models.heads import VALID_HEADS, BadInput, RelationHeads, get_relation_heads
from app.models.relations import tokenize
from app.routes.params import Sentence
from app.schemas import AttentionResponse, MaskName

router = APIRouter(prefix="/api", tags=["attention"])
ANSWER = TypeAdapter(AttentionResponse)


@router.get(
    "/attention",
    response_model=AttentionResponse,
    responses={422: refusal("no words or too many, a `heads` that does not divide d_model, a bad `mask`")},
)
def attention(
    model: Annotated[RelationHeads, Depends(get_relation_heads)],
    settings: Annotated[Settings, Depends(get_settings)],
    cache: Annotated[ResponseCache, Depends(get_response_cache)],
    sentence: Sentence = "the river bank was steep",
    heads: Annotated[
        int,
        Query(description="how many heads d_model is sliced into", json_schema_extra={"enum": VALID_HEADS}),
    ] = 3,
    mask: MaskName = "none",
    trained: bool = True,
) -> Response:
    """Attention weights of every head of the relation model, and how well each head serves each relation."""
    max_tokens = settings.max_sentence_tokens

    def answer() -> bytes:  # the model's AttentionResponse, serialised once, then kept as bytes
        try:
            result = model.attend(sentence, heads=heads, mask=mask, trained=trained, max_tokens=max_tokens)
        except BadInput as error:
            raise HTTPException(status_code=422, detail=str(error)) from error
        return ANSWER.dump_json(result)

    # The answer depends on the words alone: "the river bank." and "the  river bank" are one entry.
    key = ("attention", tuple(tokenize(sentence)), heads, mask, trained, max_tokens)
    return Response(cache.get_or_compute(key, answer), media_type="application/json")
