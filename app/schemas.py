"""Request and response models of the HTTP API, named by direction; limits live in the fields."""

from typing import Literal

from pydantic import BaseModel, Field

MaskName = Literal["none", "neg_inf", "zero"]
RelationName = Literal["meaning", "grammar", "position"]


class Health(BaseModel):
    status: Literal["ok"]


class Relation(BaseModel):
    name: RelationName
    targets: list[tuple[int, int]] = Field(description="pairs [i, j]: token i should attend to token j")
    best_head: int | None = Field(description="argmax over heads of the mean weight on the targets")
    score: float | None = Field(
        description="that mean weight, for best_head (null when there are no targets)"
    )
    head_scores: list[float] | None = Field(description="the mean weight on the targets, for every head")


class AttentionResponse(BaseModel):
    tokens: list[str]
    known: list[bool] = Field(description="the token is in the lexicon")
    d_model: int
    heads: int
    valid_heads: list[int]
    mask: MaskName
    trained: bool
    weights: list[list[list[float]]] = Field(description="[head][query i][key j]; every row sums to 1")
    future_leak: float = Field(description="mean over heads and query rows of the weight on keys j > i")
    relations: list[Relation]
