"""A real pretrained transformer (all-MiniLM-L6-v2) on the reader's sentence, run in numpy on the server.

The model is optional: without it /api/real-attention answers 503 with the command that installs it, and
/api/real-attention/status says so without an error.
"""

from typing import Annotated

from fastapi import APIRouter, Depends, HTTPException, Query, Response
from pydantic import TypeAdapter

from app.cache import ResponseCache, get_response_cache
from app.config import Settings, get_settings
from app.errors import refusal
from app.models.heads import BadInput, sentence_words
from app.models.real_bert import (
    HEADS,
    INSTALL,
    LAYER_CHOICES,
    LAYERS,
    MAX_PIECES,
    MODEL_NAME,
    ModelUnavailable,
    RealBert,
    load_real_bert,
    missing_reason,
    packaged_model_dir,
    parse_layer,
)
from app.routes.params import Sentence
from app.schemas import RealAttentionResponse, RealModelStatus

router = APIRouter(prefix="/api/real-attention", tags=["real model"])
ANSWER = TypeAdapter(RealAttentionResponse)

DESCRIPTION = f"""\
Every head's attention in {MODEL_NAME} (BERT: {LAYERS} layers × {HEADS} heads, width 384) on the sentence,
computed in numpy, and how well each head serves figure 1's three relations.

`layer` is a 0-based layer, 0 to {LAYERS - 1}, or `all`. `attention` is piece-level: [CLS] and [SEP]
included, rows sum to 1.

A relation's `targets` are pairs of **word** indices found by figure 1's rules (punctuation takes part in no
pair). A head's score is the mean, over the targets, of the word-level weight of word i on word j: the
piece-level attention without the [CLS] and [SEP] rows and columns, each row renormalised over the real
words, then summed over a word's key pieces and averaged over its query pieces. `scores` covers every layer
and head, whatever `layer` asks for; `best` is its largest entry. Both are null for a relation with no
targets in the sentence.

Limits: 1 to 64 words (counted as /api/attention counts them), at most 500 characters and {MAX_PIECES}
WordPiece pieces with [CLS] and [SEP]. Without the optional model: 503, with the install command
(`{INSTALL}`).
"""


def real_bert(settings: Settings) -> RealBert:
    """The loaded model (once per process), or a 503 whose detail says how to install it."""
    try:
        return load_real_bert(settings.real_model_dir)
    except ModelUnavailable as error:
        raise HTTPException(status_code=503, detail=str(error)) from error


@router.get(
    "",
    response_model=RealAttentionResponse,
    description=DESCRIPTION,
    responses={
        422: refusal("no words or too many, too many pieces, or a bad `layer`"),
        503: refusal("the optional model is not installed: the detail says how to install it"),
    },
)
def real_attention(
    settings: Annotated[Settings, Depends(get_settings)],
    cache: Annotated[ResponseCache, Depends(get_response_cache)],
    sentence: Sentence = "the river bank was steep",
    layer: Annotated[
        str, Query(description=f"0 to {LAYERS - 1}, or all", json_schema_extra={"enum": list(LAYER_CHOICES)})
    ] = "0",
) -> Response:
    """all-MiniLM-L6-v2's attention on the sentence, and each head's score on figure 1's relations."""
    try:
        layers = parse_layer(layer)
        # A sentence past the limits gets its 422 even where the model is not installed.
        sentence_words(sentence, settings.max_sentence_tokens)
        model = real_bert(settings)
    except BadInput as error:
        raise HTTPException(status_code=422, detail=str(error)) from error

    def answer() -> bytes:
        try:
            result = model.attend(sentence, layers, settings.max_sentence_tokens, MAX_PIECES)
        except BadInput as error:
            raise HTTPException(status_code=422, detail=str(error)) from error
        # Built and validated by the model: serialised as is, not validated again (83,000 numbers for all).
        return ANSWER.dump_json(result)

    # WordPiece reads case and punctuation, so the key is the sentence as sent (and the model it went to).
    key = (
        "real-attention",
        sentence,
        tuple(layers),
        settings.max_sentence_tokens,
        str(settings.real_model_dir),
    )
    return Response(cache.get_or_compute(key, answer), media_type="application/json")


@router.get("/status", response_model=RealModelStatus)
def status(settings: Annotated[Settings, Depends(get_settings)]) -> RealModelStatus:
    """Whether the optional model is installed, and the command that installs it; never loads it."""
    directory = settings.real_model_dir if settings.real_model_dir is not None else packaged_model_dir()
    reason = missing_reason(directory)
    return RealModelStatus(
        available=reason is None,
        reason=reason,
        install=INSTALL,
        model=MODEL_NAME,
        layers=LAYERS,
        heads=HEADS,
    )
