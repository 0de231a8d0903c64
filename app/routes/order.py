"""Figure 9's endpoint: is self-attention the same after shuffling the words? Only without positions."""

from typing import Annotated

from fastapi import APIRouter, Depends, HTTPException, Query

from app.config import Settings, get_settings
from app.errors import refusal
from app.models.heads import BadInput, RelationHeads, get_relation_heads
from app.models.order import EXACT, HEADS, order_check
from app.schemas import OrderResponse

router = APIRouter(prefix="/api", tags=["order"])


def parse_permutation(text: str | None) -> list[int] | None:
    """ "2,0,1" -> [2, 0, 1]; None or blank -> None (the model's default: the sentence reversed)."""
    if text is None or not text.strip():
        return None
    try:
        return [int(part) for part in text.split(",")]
    except ValueError as error:
        raise BadInput(
            f"permutation must be comma-separated word positions such as 2,0,1 (got {text!r})"
        ) from error


@router.get(
    "/order",
    response_model=OrderResponse,
    responses={422: refusal("no words or too many, or a list that is not a permutation of the words")},
)
def order(
    model: Annotated[RelationHeads, Depends(get_relation_heads)],
    settings: Annotated[Settings, Depends(get_settings)],
    sentence: Annotated[str, Query(min_length=1, max_length=500)] = "dog bites man",
    positional: bool = False,
    permutation: Annotated[
        str | None,
        Query(max_length=400, description="comma-separated positions, e.g. 2,0,1; default: reversed"),
    ] = None,
) -> OrderResponse:
    """Attention of the sentence and of a permutation, and their difference once the permutation is undone."""
    try:
        check = order_check(
            model,
            sentence,
            positional=positional,
            permutation=parse_permutation(permutation),
            max_tokens=settings.max_sentence_tokens,
        )
    except BadInput as error:
        raise HTTPException(status_code=422, detail=str(error)) from error
    return OrderResponse(
        tokens=check.tokens,
        positional=positional,
        heads=HEADS,
        permutation=check.permutation,
        permuted_tokens=check.permuted_tokens,
        weights=check.weights.tolist(),
        permuted_weights=check.permuted_weights.tolist(),
        row_differences=check.row_differences.tolist(),
        max_difference=check.max_difference,
        tolerance=EXACT,
        equivariant=check.equivariant,
    )
