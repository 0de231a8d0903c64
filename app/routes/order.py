"""Figure 10's endpoint: is self-attention the same after shuffling the words? Only without positions."""

import re
from typing import Annotated, Any

from fastapi import APIRouter, Query, Response

from app.deps import RelationHeadsDep, Sentence, sentence_query
from app.models.order import EXACT, HEADS, OrderCheck, order_check
from app.schemas.order import OrderResponse
from app.web.answers import answer, json_bytes
from app.web.errors import refusal_doc
from app.web.offload import computed
from app.web.refusal import Refusal
from app.web.stored_answers import stored_for_a_day

router = APIRouter(prefix="/api", tags=["order"])
# Digits and commas, blank allowed; the white space around is allowed so that the pattern means the same in
# ECMAScript and in Python, whose "$" also matches before a final newline.
PERMUTATION = re.compile(r"^\s*([0-9]+(,[0-9]+)*)?\s*$")


def parse_permutation(text: str) -> list[int] | None:
    """ "2,0,1" -> [2, 0, 1]; blank -> None (the model's default: the sentence reversed). Anything else that
    PERMUTATION does not match ("2, 0", "+1", "2_0") is refused, as the OpenAPI document says."""
    match = PERMUTATION.fullmatch(text)
    if match is None:
        raise Refusal(f"permutation must be comma-separated word positions such as 2,0,1 (got {text!r})")
    return [int(part) for part in match.group(1).split(",")] if match.group(1) else None


@router.get(
    "/order",
    response_model=OrderResponse,
    responses={422: refusal_doc("no words or too many, or a list that is not a permutation of the words")},
)
@stored_for_a_day
async def order(
    model: RelationHeadsDep,
    sentence: Annotated[Sentence, sentence_query("dog bites man")],
    positional: bool = False,
    permutation: Annotated[
        str,
        Query(
            max_length=400,
            description="comma-separated positions, e.g. 2,0,1; empty: the sentence reversed",
            json_schema_extra={"pattern": PERMUTATION.pattern},
        ),
    ] = "",
) -> Response:
    """Attention of the sentence and of a permutation, and their difference once the permutation is undone."""
    chosen = parse_permutation(permutation)

    def work() -> bytes:  # half a MB at 64 words, written off the event loop too
        return json_bytes(order_response(order_check(model, sentence.words, positional, chosen), positional))

    return answer(await computed(work))


def order_response(check: OrderCheck, positional: bool) -> dict[str, Any]:
    """The check's answer as /api/order states it (OrderResponse, field for field), with the head-averaged
    maps the figure draws."""
    return {
        "tokens": check.tokens,
        "positional": positional,
        "heads": HEADS,
        "permutation": check.permutation,
        "permuted_tokens": check.permuted_tokens,
        "weights": check.weights,
        "permuted_weights": check.permuted_weights,
        "mean_weights": check.weights.mean(axis=0),
        "permuted_mean_weights": check.permuted_weights.mean(axis=0),
        "unpermuted_mean_weights": check.unpermuted_weights.mean(axis=0),
        "row_differences": check.row_differences,
        "max_difference": check.max_difference,
        "tolerance": EXACT,
        "equivariant": check.equivariant,
    }
