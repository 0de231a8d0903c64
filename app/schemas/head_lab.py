"""POST /api/attention/custom: attention over the reader's own matrices."""

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from app.core.masks import MaskMode
from app.schemas.common import RequestBody

LAB_MAX_DIM = 64  # tokens, and every matrix dimension
LAB_MAX_HEADS = 16
LAB_MAX_ABS = 1e6  # |x| <= 1e6 keeps every stage finite: scores stay below 64 · (64 · 1e12)² ≈ 3e29

LabNumber = Annotated[float, Field(allow_inf_nan=False, ge=-LAB_MAX_ABS, le=LAB_MAX_ABS)]
LabRow = Annotated[list[LabNumber], Field(min_length=1, max_length=LAB_MAX_DIM, fail_fast=True)]
LabMatrix = Annotated[list[LabRow], Field(min_length=1, max_length=LAB_MAX_DIM, fail_fast=True)]
Matrices = list[list[list[float]]]


class HeadWeights(RequestBody):
    w_q: LabMatrix = Field(description="d_in × d_k; rows are input dimensions")
    w_k: LabMatrix = Field(description="d_in × d_k")
    w_v: LabMatrix = Field(description="d_in × d_v")


class CustomAttentionRequest(RequestBody):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "embeddings": [[1, 0], [0, 1], [1, 1]],
                    "heads": [{"w_q": [[1], [0]], "w_k": [[1], [0]], "w_v": [[1, 0], [0, 1]]}],
                    "mask": "none",
                    "scale": True,
                    "tokens": ["a", "b", "c"],
                }
            ]
        },
    )

    embeddings: LabMatrix = Field(description="n × d_in: one row per token")
    heads: list[HeadWeights] = Field(min_length=1, max_length=LAB_MAX_HEADS, fail_fast=True)
    w_o: (
        Annotated[list[LabRow], Field(min_length=1, max_length=LAB_MAX_DIM * LAB_MAX_HEADS, fail_fast=True)]
        | None
    ) = Field(default=None, description="(Σ d_v) × d_out: the concatenated heads' columns, projected")
    mask: MaskMode = "none"
    scale: bool = Field(default=True, description="divide the scores by √d_k")
    tokens: list[Annotated[str, Field(max_length=40)]] | None = Field(
        default=None, max_length=LAB_MAX_DIM, fail_fast=True, description="labels for the n rows"
    )


class CustomAttentionParameters(BaseModel):
    per_head: list[int] = Field(description="|W_Q| + |W_K| + |W_V| of every head")
    w_o: int = Field(description="|W_O|, 0 without W_O")
    total: int


class CustomAttentionResponse(BaseModel):
    tokens: list[str] | None
    mask: MaskMode
    scale: bool
    q: Matrices = Field(description="[head][token][d_k]: X W_Q of every head")
    k: Matrices = Field(description="[head][token][d_k]: X W_K")
    v: Matrices = Field(description="[head][token][d_v]: X W_V")
    scores: Matrices = Field(description="[head][query i][key j]: Q Kᵀ")
    scaled: Matrices = Field(description="the scores divided by √d_k (unchanged when scale is false)")
    masked: list[list[list[float | None]]] = Field(description="the scaled scores after the mask; null is −∞")
    weights: Matrices = Field(description="softmax of the masked scores; every row sums to 1")
    context: Matrices = Field(description="[head][token][d_v]: weights · V")
    concat: list[list[float]] = Field(description="n × Σ d_v: the heads' context vectors side by side")
    output: list[list[float]] | None = Field(description="concat · W_O, null without W_O")
    parameters: CustomAttentionParameters
    sqrt_d_k: list[float] = Field(description="√d_k of every head: what its scores are divided by, scaled")
    head_difference: float | None = Field(
        description="max |context of head 1 − context of head 2|: 0 when tied; null with one head or when "
        "the two heads' value widths differ"
    )
