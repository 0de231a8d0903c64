"""Figure 1's endpoint: the trained relation heads applied to the reader's sentence."""

from typing import Annotated

from fastapi import APIRouter, Depends, HTTPException, Query

from app.config import Settings, get_settings
from app.models.heads import BadInput, RelationHeads, get_relation_heads
from app.schemas import AttentionResponse, MaskName

router = APIRouter(prefix="/api", tags=["attention"])


@router.get("/attention", response_model=AttentionResponse)
def attention(
    model: Annotated[RelationHeads, Depends(get_relation_heads)],
    settings: Annotated[Settings, Depends(get_settings)],
    sentence: Annotated[str, Query(min_length=1, max_length=500)] = "the river bank was steep",
    heads: int = 3,
    mask: MaskName = "none",
    trained: bool = True,
) -> AttentionResponse:
    """Attention weights of every head of the relation model, and how well each head serves each relation."""
    try:
        return model.attend(
            sentence, heads=heads, mask=mask, trained=trained, max_tokens=settings.max_sentence_tokens
        )
    except BadInput as error:
        raise HTTPException(status_code=422, detail=str(error)) from error
