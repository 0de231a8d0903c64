"""GET /api/order: a sentence and a permutation of it, through the trained layer."""

from pydantic import BaseModel, Field

from app.figures import number


class OrderResponse(BaseModel):
    # The docstring, as an assignment: the figure numbers come from the registry, and a docstring cannot.
    __doc__ = (
        f"Figure {number('order')}: a sentence and a permutation of it, through "
        f"figure {number('heads-dial')}'s layer with or without positions."
    )

    tokens: list[str]
    positional: bool = Field(description="whether the words' inputs carry their position code")
    heads: int
    permutation: list[int] = Field(description="permuted_tokens[k] = tokens[permutation[k]]")
    permuted_tokens: list[str]
    weights: list[list[list[float]]] = Field(description="[head][query i][key j] for the sentence as written")
    permuted_weights: list[list[list[float]]] = Field(description="[head][k][l] for the permuted sentence")
    mean_weights: list[list[float]] = Field(description="[i][j]: weights averaged over the heads")
    permuted_mean_weights: list[list[float]] = Field(
        description="[k][l]: permuted_weights averaged over the heads"
    )
    unpermuted_mean_weights: list[list[float]] = Field(
        description="[i][j]: permuted_mean_weights with rows and columns put back in the written order"
    )
    row_differences: list[float] = Field(
        description="per word of the sentence: the largest |difference| between its attention in the two "
        "orders once the permutation is undone (over heads and keys)"
    )
    max_difference: float = Field(description="the largest of row_differences")
    tolerance: float = Field(description="differences at most this large are floating-point rounding")
    equivariant: bool = Field(description="max_difference <= tolerance: the same attention, just permuted")
