"""/api/real-attention: a real pretrained transformer (all-MiniLM-L6-v2) on the reader's sentence."""

from pydantic import BaseModel, Field

from app.figures import number
from app.schemas.common import RelationName

DIAL, REAL = number("heads-dial"), number("real-heads")  # the figures the descriptions name


class RealBest(BaseModel):
    layer: int = Field(description="0-based layer")
    head: int = Field(description="0-based head within the layer")
    score: float = Field(description="the relation's score for that head: the largest of its scores")


class RealRelation(BaseModel):
    name: RelationName
    targets: list[tuple[int, int]] = Field(
        description="pairs [i, j] of WORD indices (into words): word i should attend to word j, by "
        f"figure {DIAL}'s rules; punctuation marks take part in no pair"
    )
    scores: list[list[float]] | None = Field(
        description="[layer][head], all layers and heads: the mean word-level weight of word i on word j "
        "over the targets, on the words alone: [CLS] and [SEP] left out and each row renormalised, as figure "
        f"{REAL} draws with Hide [CLS] and [SEP] (null when the sentence has no pair for this relation)"
    )
    best: RealBest | None = Field(description="the head with the highest of scores (null without targets)")
    scores_with_markers: list[list[float]] | None = Field(
        description="[layer][head]: the same mean, on the attention as the model gives it, [CLS] and [SEP] "
        f"kept in every row (no renormalising), as figure {REAL} draws by default: the share of word i's "
        "whole row that lands on word j (null without targets)"
    )
    best_with_markers: RealBest | None = Field(
        description="the head with the highest of scores_with_markers (null without targets)"
    )


class RealAttentionResponse(BaseModel):
    model: str
    layers: int = Field(description="layers in the model")
    heads: int = Field(description="heads per layer")
    tokens: list[str] = Field(description="WordPiece pieces, lower-cased, [CLS] first and [SEP] last")
    special: list[bool] = Field(description="true for [CLS] and [SEP]")
    word_index: list[int | None] = Field(description="the word each piece belongs to; null for [CLS], [SEP]")
    words: list[str] = Field(
        description="the words as the pieces group them, spelled as in the sentence; a punctuation mark "
        "is a word of its own"
    )
    layer_indices: list[int] = Field(description="which layers attention holds, e.g. [0] or [0, …, 5]")
    attention: list[list[list[list[float]]]] = Field(
        description="[len(layer_indices)][head][query piece i][key piece j], every row sums to 1 (4 decimals)"
    )
    relations: list[RealRelation]


class RealModelStatus(BaseModel):
    available: bool = Field(description="the model is installed and /api/real-attention can answer")
    reason: str | None = Field(description="why it is not available (null when it is)")
    install: str = Field(description="the shell command that installs it")
    model: str
    layers: int
    heads: int
