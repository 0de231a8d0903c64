"""Request and response models of the HTTP API, named by direction; limits live in the fields."""

from itertools import islice
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator
from pydantic_core import PydanticCustomError

from app.core.borrowing import BORROWED

MaskName = Literal["none", "neg_inf", "zero"]
# The tiny language models (figures 6 and 7), named by the mask each was trained with (app/models/tiny_lm.py's
# MODEL_ORDER): next_word is the off-by-one triu(ones, diagonal=2), present once the weights file holds it.
LanguageModelName = Literal["neg_inf", "zero", "next_word", "none"]
# Any mask a pass of those models may apply: MaskName's and the mask bug zoo's (app/core/attention.py).
LanguageModelMask = Literal[
    "none", "neg_inf", "zero", "hides_self", "next_word", "transposed", "after_softmax", "additive"
]
RelationName = Literal["meaning", "grammar", "position"]
# A sentence's length limit is a setting (ATTENTION_MAX_SENTENCE_CHARS), unknown when these are declared: its
# schema carries this mark, and the app writes the settings' maxLength in its place (app.deps).
SENTENCE_LIMIT = "x-sentence-limit"


class RequestBody(BaseModel):
    """A JSON request body: no type coercion (`"seed": false` is not 0), and no field it does not define.

    What a refused body costs must not grow with the body. Left to itself, ``extra="forbid"`` reports every
    unknown field as an error of its own (29,000 stray keys, 29,000 errors); here one error names the first
    few and counts the rest, before pydantic looks at them. Lists in request bodies are declared
    ``fail_fast`` for the same reason: the first bad number of a 64 × 64 matrix is reported, not all 4,096.
    """

    model_config = ConfigDict(strict=True, extra="forbid")  # "forbid" also puts additionalProperties: false
    # in the JSON schema; the validator below refuses unknown fields before pydantic's own check is reached.

    @model_validator(mode="before")
    @classmethod
    def refuse_unknown_fields(cls, data: Any) -> Any:
        if isinstance(data, dict):
            known = cls.model_fields.keys()
            unknown = data.keys() - known
            if unknown:
                first = [
                    repr(k if len(k) <= 40 else k[:39] + "…")
                    for k in islice((k for k in data if k not in known), 3)
                ]
                more = f" and {len(unknown) - len(first):,} more" if len(unknown) > len(first) else ""
                fields = "field" if len(unknown) == 1 else "fields"
                # Without a context pydantic leaves the message as it is, braces in a field's name included.
                raise PydanticCustomError(
                    "extra_forbidden",
                    f"unknown {fields} {', '.join(first)}{more}: the fields are {', '.join(known)}",
                )
        return data


class Health(BaseModel):
    status: Literal["ok", "degraded"] = Field(
        description='"ok" while the process serves requests; "degraded" once weights failed to load'
    )
    unavailable: list[str] = Field(
        default=[], description="the models whose weights could not be loaded (their endpoints answer 503)"
    )


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
    mask: MaskName
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


class LanguageModelPredictions(BaseModel):
    model: LanguageModelName
    label: str
    final_train: float = Field(description="the stored training record's final training loss")
    final_validation: float = Field(description="the stored training record's final validation loss")
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


DiagnoseVerdict = Literal["causal", "leaks", "broken"]
DiagnoseSignature = Literal[
    "hides_self",
    "transposed",
    "next_word",
    "faint",
    "zero_fill",
    "unmasked",
    "after_softmax",
    "nan_rows",
    "causal",
]
VALID_ROWS = "over the valid rows (neither entirely NaN nor entirely 0); null when the head has none"


class DiagnoseHead(BaseModel):
    layer: int = Field(
        description="the layer, an array index from 0 (an [n, n] or [h, n, n] upload is layer 0); the page, "
        "the summary and the CLI name it from 1"
    )
    head: int = Field(description="the head in its layer, an array index from 0 (named from 1 to readers)")
    max_future: float = Field(description="the largest weight strictly above the diagonal (key j > query i)")
    future_mass: float | None = Field(description=f"mean of the row's weight on keys j > i, {VALID_ROWS}")
    verdict: DiagnoseVerdict = Field(
        description='"leaks" exactly when max_future > 0; "broken" for no leak but the signature hides_self, '
        'after_softmax or nan_rows; else "causal"'
    )
    signature: DiagnoseSignature = Field(
        description="the fingerprint of a mask bug, the first that fits in this order: hides_self (a zero "
        "diagonal: triu(ones, diagonal=0)), transposed (no weight on the past, some on the future: tril for "
        "triu), next_word (future weight only on j = i + 1: triu(ones, diagonal=2)), faint (every future "
        "weight below 1e-3: a finite mask value too small for the scores), zero_fill (equal future weights "
        "along each row: masked_fill(mask, 0)), unmasked (any other leak, including an additive 0/1 mask, "
        "which weights alone cannot tell from none), after_softmax (no leak, rows summing to less than 1), "
        "nan_rows (no leak, rows entirely NaN); causal: none of these"
    )
    nan_rows: int = Field(description="rows entirely NaN: fully masked rows under -inf")
    empty_rows: int = Field(description="rows entirely 0: padding under a safe softmax, set aside")
    row_sum_min: float | None = Field(description=f"the smallest row sum, {VALID_ROWS}")
    row_sum_max: float | None = Field(description=f"the largest row sum, {VALID_ROWS}")
    entropy: float | None = Field(description=f"mean of -Σ_j w_ij log w_ij in nats, {VALID_ROWS}")


class DiagnoseLayer(BaseModel):
    layer: int = Field(description="the layer, an array index from 0 (named from 1 to readers)")
    heads: int = Field(description="heads in the layer")
    leaking: int = Field(description='heads of the layer whose verdict is "leaks"')
    zero_fill: int = Field(description='heads with the signature "zero_fill" (the ×0 bug)')
    unmasked: int = Field(description='heads with the signature "unmasked"')
    broken: int = Field(description='heads of the layer whose verdict is "broken"')
    max_future: float = Field(description="the largest max_future of the layer's heads; 0.0 when none leaks")


class DiagnoseGrid(BaseModel):
    future_mass: list[list[float | None]] = Field(description="[layer][head], as in heads")
    max_future: list[list[float]] = Field(description="[layer][head]")
    entropy: list[list[float | None]] = Field(description="[layer][head], in nats")
    signature: list[list[DiagnoseSignature]] = Field(description="[layer][head]")
    verdict: list[list[DiagnoseVerdict]] = Field(description="[layer][head], as in heads")
    nan_rows: list[list[int]] = Field(description="[layer][head]")


class DiagnoseLayout(BaseModel):
    offset: int = Field(description="the byte at which the numbers start in the uploaded .npy file")
    dtype: str = Field(description='the numbers\' NumPy type string, e.g. "<f2" (float16, little-endian)')
    shape: list[int] = Field(
        description="the array's shape, in C order: head (layer, head) of H heads a layer and n positions "
        "is the n² numbers from byte offset + (layer · H + head) · n² · itemsize"
    )


class DiagnoseResponse(BaseModel):
    shape: list[int] = Field(description="the uploaded array's shape: [n, n], [h, n, n] or [layers, h, n, n]")
    heads: list[DiagnoseHead] = Field(
        description="every head, in (layer, head) order, when there are at most 1,024; past that only the "
        "heads that leak or are broken, the first 1,024 in (layer, head) order"
    )
    heads_total: int = Field(description="heads in the upload: layers × heads per layer")
    heads_listed: int = Field(
        description="entries in heads: heads_total up to 1,024 heads, else the heads that leak or are "
        "broken, at most 1,024"
    )
    layers: list[DiagnoseLayer] = Field(
        description="one record per layer, in order, counting every head whether listed or not"
    )
    signatures: dict[DiagnoseSignature, int] = Field(
        description="how many heads carry each signature, counting every head; only those some head carries"
    )
    grid: DiagnoseGrid = Field(
        description="every head's figures as [layer][head] grids, for the summary grid"
    )
    verdict: DiagnoseVerdict = Field(
        description='"leaks" when some head leaks, else "broken" when some head is, else "causal"'
    )
    summary: str = Field(
        description='one to three sentences: the verdict ("causal: ...", "leaks: ..." or "broken: ..."), how '
        "many heads leak or are broken and with which signatures, and the worst head"
    )
    tokens: list[str] | None = Field(
        description="one label per position, from the tokens field or a .json object's tokens, each cut to "
        "40 characters; null when none were sent"
    )
    weights: list[list[list[list[float | None]]]] | None = Field(
        description="[layer][head][query i][key j] (a NaN row's numbers are null): a language model's own "
        "attention, from /api/lm/diagnose; null for an upload, which is never sent back (a page reads its "
        "heads from its own copy of the file: a .npy where layout says, a .json or .csv by parsing it)"
    )
    layout: DiagnoseLayout | None = Field(
        description="for a .npy upload in C order, where its numbers are, so that a page can read any head "
        "from its own copy of the file; null otherwise"
    )


# ---- figure 3, the head lab: attention over the reader's own matrices --------------------------------------

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
    mask: MaskName = "none"
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
    mask: MaskName
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


# ---- figure 4, the translator: an encoder-decoder writing French one token at a time -----------------------

Maps = list[list[list[float]]]


class TranslateRequest(RequestBody):
    model_config = ConfigDict(
        json_schema_extra={"examples": [{"sentence": "the river bank was steep"}]},
    )

    sentence: str = Field(
        min_length=1,
        description="English: at most maxLength characters (a setting), 1 to 64 words of the translator's "
        "vocabulary",
        json_schema_extra={SENTENCE_LIMIT: True},
    )


class TranslateStep(BaseModel):
    model_config = ConfigDict(populate_by_name=True)

    token: str = Field(description="the French word written at this step")
    cross: Maps = Field(
        description="[layer][head][source position]: where the step looked in the English; rows sum to 1"
    )
    self_attention: Maps = Field(
        alias="self",
        description="[layer][head][decoder position p ≤ t]: p = 0 is the start token, p ≥ 1 is target[p - 1] "
        "(the French already written); rows sum to 1 and never reach past t",
    )

    cross_mean: list[list[float]] = Field(
        description="[layer][source position]: `cross` averaged over the heads"
    )
    self_mean: list[list[float]] = Field(
        description="[layer][decoder position p ≤ t]: `self` averaged over the heads"
    )


class TranslateResponse(BaseModel):
    source: list[str] = Field(description="the English words, lower-cased, punctuation dropped")
    target: list[str] = Field(description="the French words written, one per step")
    translation: str = Field(
        description="the target as a sentence: capitalised, with the source's final . ! ?"
    )
    layers: int = Field(description="decoder layers")
    heads: int
    best_layer: int = Field(
        description="the decoder layer (from 0) whose head-averaged cross-attention aligns best with the "
        "source words on held-out pairs"
    )
    unread: list[int] = Field(
        description="positions in `source` of the nouns, verbs, adjectives, numbers and “not” that no step "
        "read: on "
        "none did best_layer's cross-attention, its heads averaged, put the translator's threshold or more "
        "(a noun right before a noun is read with it). A word left out of the translation is almost "
        "always one of them; `GET /api/translate/about` gives the threshold and how it was measured"
    )
    steps: list[TranslateStep]


class TranslatorExample(BaseModel):
    source: str
    translation: str


class TranslatorMiss(BaseModel):
    source: str
    reference: str
    translation: str = Field(description="what the model wrote instead of the reference")


class TranslatorNovel(BaseModel):
    """Figure 4's translator on pairs held out by construction (training/parallel_corpus.py novel_pairs)."""

    heldout_pairs: int
    exact_match: float
    aligned_words: int
    alignment: float = Field(description="at the novel set's own best layer")
    alignment_by_layer: list[float]
    best_layer: int
    misses: list[TranslatorMiss]


class UnreadThreshold(BaseModel):
    threshold: float
    caught: int = Field(description="of the `left_out` words, how many this threshold flags")
    right_flagged: int = Field(description="of the `right_translations`, how many it flags a word of")


class UnreadRecord(BaseModel):
    """How the check for unread words does (``unread`` of an /api/translate answer), measured with the
    committed weights by ``python -m training.train_translator --measure``."""

    threshold: float = Field(description="a content word is unread when no step puts this much on it")
    joined_sentences: int = Field(
        description="sentences of two or three held-out ones joined by and/but, where words get left out"
    )
    left_out: int = Field(
        description="their nouns, verbs, adjectives, numbers and “not” whose French is nowhere in the "
        "translation"
    )
    caught: int = Field(description="how many of those the check flags")
    right_translations: int = Field(description="held-out and novel pairs translated exactly right")
    right_flagged: int = Field(description="how many of those it flags a word of")
    by_threshold: list[UnreadThreshold]
    examples: list[dict[str, Any]]


class TranslatorAbout(BaseModel):
    architecture: str
    d_model: int
    heads: int
    encoder_layers: int
    layers: int = Field(description="decoder layers")
    d_ff: int
    parameters: int
    source_vocab_size: int
    target_vocab_size: int
    lexicon_entries: int
    training_pairs: int
    steps: int
    training_seconds: float
    heldout_pairs: int = Field(description="pairs whose English never occurs in training")
    exact_match: float = Field(description="share of held-out pairs translated exactly, greedy decoding")
    aligned_words: int = Field(description="held-out French words with a known English source")
    alignment: float = Field(
        description="share of those words whose best_layer cross-attention peaks on a source"
    )
    alignment_by_layer: list[float]
    alignment_by_head: list[list[float]] = Field(
        description="[layer][head]: the same measure, one head alone"
    )
    best_layer: int
    max_words: int = Field(description="the longest English sentence among the training pairs")
    novel: TranslatorNovel = Field(
        description="the same measures on a second held-out set, of combinations training never saw"
    )
    novel_description: str = Field(description="what that second set holds")
    negated: TranslatorNovel = Field(
        description="the same measures on a third held-out set: verbs negated that training never negates"
    )
    negated_description: str = Field(description="what that third set holds")
    alignment_method: str
    examples: list[TranslatorExample]
    misses: list[TranslatorMiss] = Field(description="the first held-out pairs the model translated wrongly")
    vocabulary: list[str] = Field(description="the English words the translator knows")
    vocabulary_kinds: dict[str, list[str]] = Field(
        description="the same words by kind (noun, verb, be, adjective, number, determiner, preposition, "
        "pronoun, conjunction), alphabetically; a word may be of two kinds"
    )
    unread: UnreadRecord


class OrderResponse(BaseModel):
    """Figure 9: a sentence and a permutation of it, through figure 1's layer with or without positions."""

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


# ---- a real pretrained transformer (all-MiniLM-L6-v2) on the reader's sentence -----------------------------


class RealBest(BaseModel):
    layer: int = Field(description="0-based layer")
    head: int = Field(description="0-based head within the layer")
    score: float = Field(description="the relation's score for that head: the largest of its scores")


class RealRelation(BaseModel):
    name: RelationName
    targets: list[tuple[int, int]] = Field(
        description="pairs [i, j] of WORD indices (into words): word i should attend to word j, by "
        "figure 1's rules; punctuation marks take part in no pair"
    )
    scores: list[list[float]] | None = Field(
        description="[layer][head], all layers and heads: the mean word-level weight of word i on word j "
        "over the targets, on the words alone: [CLS] and [SEP] left out and each row renormalised, as figure "
        "10 draws with Hide [CLS] and [SEP] (null when the sentence has no pair for this relation)"
    )
    best: RealBest | None = Field(description="the head with the highest of scores (null without targets)")
    scores_with_markers: list[list[float]] | None = Field(
        description="[layer][head]: the same mean, on the attention as the model gives it, [CLS] and [SEP] "
        "kept in every row (no renormalising), as figure 10 draws by default: the share of word i's whole "
        "row that lands on word j (null without targets)"
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
