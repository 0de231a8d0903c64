"""POST /api/diagnose and GET /api/lm/diagnose: an attention array checked head by head for mask bugs."""

from typing import Any, Literal

from pydantic import BaseModel, Field

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


def heads_whose(verdict: DiagnoseVerdict) -> Any:
    """A layer's count of the heads given `verdict`: the field, with its description."""
    return Field(description=f'heads of the layer whose verdict is "{verdict}"')


def heads_with(signature: DiagnoseSignature, note: str = "") -> Any:
    """A layer's count of the heads that carry `signature`: the field, with its description."""
    return Field(description=f'heads with the signature "{signature}"{note}')


class DiagnoseLayer(BaseModel):
    layer: int = Field(description="the layer, an array index from 0 (named from 1 to readers)")
    heads: int = Field(description="heads in the layer")
    leaking: int = heads_whose("leaks")
    zero_fill: int = heads_with("zero_fill", " (the ×0 bug)")
    unmasked: int = heads_with("unmasked")
    broken: int = heads_whose("broken")
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
