"""/api/lm/...: the tiny language models, their samples, their attention under any mask, their predictions."""

from typing import Any, Literal

from pydantic import BaseModel, Field

from app.core.masks import MaskMode, ZooMode
from app.schemas.common import RequestBody

# The tiny language models (the mask lab's and the interview question's), named by the mask each was trained
# with (app/models/tiny_lm.py's MODEL_ORDER): next_word is the off-by-one triu(ones, diagonal=2), present once
# the weights file holds it.
LanguageModelName = Literal["neg_inf", "zero", "next_word", "none"]
# Any mask a pass of those models may apply: the causal masks and the mask bug zoo's (app/core/masks.py's
# AttentionMode, as one Literal: the document then lists them as one enum, where the union is two).
LanguageModelMask = Literal[MaskMode, ZooMode]


class LanguageModelRecord(BaseModel):
    mask: LanguageModelName
    label: str
    curves: dict[str, list[float]] = Field(description="step, train and validation loss every 100 steps")
    final_train: float
    final_validation: float
    grammatical_share: float = Field(description="share of sampled sentences the grammar accepts")
    samples_measured: int


class LanguageModelsResponse(BaseModel):
    prompt: str
    d_model: int
    layers: int
    heads: int
    vocab_size: int
    vocabulary: list[str] = Field(
        description="the word pieces the models read (a piece after the first of a word starts with ##)"
    )
    models: list[LanguageModelRecord]


class GenerateRequest(RequestBody):
    model: LanguageModelName = Field(description="which of the models: the mask it was trained with")
    prompt: str = Field(default="the", min_length=1, max_length=100)
    strategy: Literal["greedy", "sample"] = "greedy"
    count: int = Field(default=5, ge=1, le=20)
    seed: int | None = Field(default=None, ge=0, le=2**32 - 1)
    temperature: float = Field(default=1.0, ge=0.1, le=2.0)


class Sample(BaseModel):
    text: str
    tokens: list[str]
    grammatical: bool


class GenerateResponse(BaseModel):
    model: LanguageModelName
    strategy: Literal["greedy", "sample"]
    samples: list[Sample]
    grammatical_share: float


class LanguageModelAttentionResponse(BaseModel):
    model: LanguageModelName = Field(description="which of the models: the mask it was trained with")
    mask: LanguageModelMask = Field(
        description="the mask every layer applied in this pass (by default the model's own)"
    )
    tokens: list[str] = Field(
        description="the start token, then the sentence's word pieces (lower-cased, accents dropped; a piece "
        "after the first of a word starts with ##)"
    )
    word_index: list[int | None] = Field(description="the word each token belongs to; null for the start")
    words: list[str] = Field(description="the sentence's words, spelled as sent")
    weights: list[list[list[list[float | None]]]] = Field(
        description="[layer][head][query i][key j]; every row sums to 1 (less under after_softmax); null "
        "in a row with no weights (NaN: `nan_rows`)"
    )
    scaled: list[list[list[list[float | None]]]] = Field(
        description="[layer][head][query i][key j]: the scores q·k/√d_k the mask acts on (before it); null "
        "where they are NaN, read from a NaN row of the layer before"
    )
    nan_rows: list[list[list[int]]] = Field(
        description="[layer][head]: the query rows whose weights are NaN (only hides_self has any: row 0 "
        "sees nothing, and the next layer's rows that read its output)"
    )
    future_leak: float | None = Field(
        description="mean over layers, heads and the query rows that have weights of the weight on keys j > i"
    )
    future_shares: list[list[list[float | None]]] = Field(
        description="[layer][head][query i]: Σ_{j>i} w_ij, the weight the row puts on later keys (null in a "
        "NaN row)"
    )
    row_future_shares: list[float | None] = Field(
        description="[query i]: `future_shares` averaged over the layers and heads where the row has weights"
    )


class LanguageModelAttentionMasksResponse(BaseModel):
    model: LanguageModelName = Field(description="which of the models: the mask it was trained with")
    answers: dict[LanguageModelMask, LanguageModelAttentionResponse] = Field(
        description="for every mask a pass may apply, what /api/lm/attention answers under it"
    )


class PaddedBatchPanel(BaseModel):
    """One sequence of a left-padded batch under the padding and causal masks, both −∞."""

    tokens: list[str] = Field(description="the sequence as the batch holds it, padding first")
    pads: int = Field(description="how many padding positions it starts with")
    scaled: list[list[float]] = Field(description="[query i][key j]: layer 1, head 1's scores, before masks")
    naive: list[list[float | None]] = Field(description="softmax of the masked scores; null is NaN")
    safe: list[list[float]] = Field(description="the safe softmax: a fully masked row gives zeros")
    naive_nan_rows: list[int] = Field(description="rows of `naive` that are NaN")
    safe_nan_rows: list[int] = Field(description="rows of `safe` that are NaN (none)")
    naive_gradient_nan_rows: list[int] = Field(description="rows of the softmax's gradient that are NaN")
    safe_gradient_nan_rows: list[int] = Field(description="the same with the safe softmax (none)")


class SentinelRow(BaseModel):
    """A finite mask value stored in a low-precision dtype; "-inf", "inf" and "nan" are written as strings."""

    dtype: Literal["float32", "float16", "bfloat16"]
    sentinel: Literal["−1e9", "finfo.min", "−1e4"]
    stored: float | str = Field(description="the sentinel as the dtype holds it")
    twice: float | str = Field(description="0 + m + m: a score under two masks added (padding and causal)")
    fully_masked: float | str = Field(
        description="a weight of a row whose keys (fully_masked_keys) are each masked twice: uniform while "
        "finite, NaN at −∞"
    )
    leak: float | str = Field(
        description="the future's weight in a row of one visible score 0 and one future score (future_score) "
        "masked once"
    )


class LanguageModelMaskZooResponse(BaseModel):
    sentence: list[str]
    layer: int = Field(description="the decoder's layer whose scores the padding panel uses (1-based)")
    head: int = Field(description="its head (1-based)")
    batch: list[PaddedBatchPanel] = Field(
        description="the reader's sentence, then its first half, left-padded to the same length"
    )
    nan_rows: int = Field(description="rows of the batch whose naive weights are NaN")
    precision: list[SentinelRow] = Field(description="every sentinel in float32, float16 and bfloat16")
    fully_masked_keys: int = Field(description="the keys of the precision table's fully masked row")
    future_score: float = Field(description="the future score of the precision table's leak row")


class NextWordReading(BaseModel):
    """One model's next-word predictions over a sentence, read one way; lists run over positions."""

    predicted: list[str] = Field(
        description="[position]: the likeliest next word; '</s>' ends the sentence there"
    )
    probability: list[float] = Field(description="[position]: the model's probability of `predicted`")
    target_probability: list[float] = Field(
        description="[position]: the model's probability of the sentence's own next word"
    )
    correct: list[bool] = Field(description="[position]: `predicted` is the sentence's next word")
    allowed: list[bool | None] = Field(
        description="[position]: the grammar allows `predicted` after the words so far; null where those "
        "words begin no sentence of the grammar"
    )
    right: int = Field(description="positions where `correct` is true")
    accuracy: float = Field(description="right / positions")
    allowed_count: int = Field(description="positions where `allowed` is true")
    judged: int = Field(description="positions where `allowed` is not null")
    loss: float = Field(description="mean over positions of −ln target_probability (nats), as in training")


def recorded(loss: Literal["training", "validation"]) -> Any:
    """A final loss copied from the model's stored training record (LanguageModelRecord): the field, with its
    description."""
    return Field(description=f"the stored training record's final {loss} loss")


class LanguageModelPredictions(BaseModel):
    model: LanguageModelName
    label: str
    final_train: float = recorded("training")
    final_validation: float = recorded("validation")
    validation_gap: float = Field(description="final_validation − final_train: large when a model overfits")
    teacher_forced: NextWordReading = Field(
        description="the whole sentence is the input, as in training and validation (the mask decides what "
        "each position sees)"
    )
    free_running: NextWordReading = Field(
        description="at each position the input holds only the words so far, as when the model writes"
    )
    same: int = Field(description="positions where both readings predict the same word")
    written: list[str] = Field(
        description="what the model writes alone (greedy) after the sentence's first word, that word included"
    )
    written_grammatical: bool = Field(description="the grammar accepts `written` as a sentence")


class LanguageModelPredictionsResponse(BaseModel):
    sentence: list[str]
    inputs: list[str] = Field(
        description="[position]: the token fed there: the start token, then the sentence's word pieces"
    )
    targets: list[str] = Field(description="[position]: the sentence's next piece, '</s>' after its last")
    word_index: list[int | None] = Field(description="[position]: the word of the piece fed there")
    positions: int
    models: list[LanguageModelPredictions] = Field(description="−∞, ×0, next word (when installed), no mask")
