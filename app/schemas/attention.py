"""GET /api/attention: the trained layer on the reader's sentence, its relations and its heads' verdicts."""

from typing import Literal

from pydantic import BaseModel, Field

from app.core.borrowing import BORROWED
from app.core.masks import MaskMode
from app.schemas.common import RelationName


class SharedPair(BaseModel):
    pair: tuple[int, int] = Field(description="[i, j], one of the relation's targets")
    also: RelationName = Field(description="the other relation that claims it too (the first, when two do)")


class Relation(BaseModel):
    name: RelationName
    targets: list[tuple[int, int]] = Field(description="pairs [i, j]: token i should attend to token j")
    best_head: int | None = Field(description="argmax over heads of the score")
    score: float | None = Field(
        description="best_head's score: the weight each word puts on all of its partners (its targets) "
        "together, averaged over the words that have partners; 1 is all of it (null without targets)"
    )
    head_scores: list[float] | None = Field(description="that score, for every head")
    shared_pairs: list[SharedPair] = Field(description="the targets that another relation also claims")
    own_score: float | None = Field(
        description="best_head's score on the targets no other relation claims; null when there are "
        "no shared targets or no others"
    )
    borrowed: bool = Field(
        description=f"own_score is at least {BORROWED} below score: the score owes most to shared targets"
    )


class HeadVerdict(BaseModel):
    kind: Literal["serves", "shares", "torn", "leans", "none"] = Field(
        description="serves: one relation scores at least the `serves` threshold, and no other reaches it "
        "within `clear_lead`; shares: several do, within `clear_lead` of the best; torn: none does and two "
        "or more take a `share`; leans: just one takes a share; none: no relation does (thresholds in "
        "app/models/verdicts.py)"
    )
    relations: list[RelationName] = Field(
        description="the relations it serves or is torn between, best first"
    )


class AttentionResponse(BaseModel):
    tokens: list[str]
    known: list[bool] = Field(description="the token is in the lexicon")
    d_model: int
    heads: int
    valid_heads: list[int]
    kv_heads: int | None = Field(
        default=None,
        description="g, the key/value heads the query heads share; only when the request names `kv_heads`",
    )
    kv_head_of: list[int] | None = Field(
        default=None,
        description="[query head i]: the key/value head it reads, i // (h/g); only with `kv_heads`",
    )
    mask: MaskMode
    trained: bool
    weights: list[list[list[float]]] = Field(description="[head][query i][key j]; every row sums to 1")
    future_leak: float = Field(description="mean over heads and query rows of the weight on keys j > i")
    future_shares: list[list[float]] = Field(
        description="[head][query i]: Σ_{j>i} w_ij, the weight the row puts on later keys"
    )
    row_future_shares: list[float] = Field(description="[query i]: `future_shares` averaged over the heads")
    relations: list[Relation]
    verdicts: list[HeadVerdict] = Field(description="[head]: what the head does, judged from its scores")
    own_heads: dict[RelationName, int | None] = Field(
        description="each relation the sentence has -> its own head: one that serves it alone, or serves it "
        "beside relations other heads serve alone (their pairs overlap); null when it has none"
    )
