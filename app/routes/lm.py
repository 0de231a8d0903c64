"""Figure 6's endpoints: the three tiny language models' records, live generations and attention maps."""

from typing import Annotated

import numpy as np
from fastapi import APIRouter, Depends, HTTPException

from app.core.diagnostics import future_leak
from app.errors import BODY_TOO_LARGE, refusal
from app.models.lm_grammar import grammatical
from app.models.relations import tokenize
from app.models.tiny_lm import MAX_POSITIONS, TinyLMs, UnknownWords, get_tiny_lms
from app.routes.params import sentence_query
from app.schemas import (
    GenerateRequest,
    GenerateResponse,
    LanguageModelAttentionResponse,
    LanguageModelsResponse,
    MaskName,
    Sample,
)

router = APIRouter(prefix="/api/lm", tags=["language models"])
Models = Annotated[TinyLMs, Depends(get_tiny_lms)]


def words_of(text: str) -> list[str]:
    words = [w.lower() for w in tokenize(text)]
    if not words:
        raise HTTPException(status_code=422, detail="type at least one word")
    if len(words) > MAX_POSITIONS - 2:
        raise HTTPException(status_code=422, detail=f"at most {MAX_POSITIONS - 2} words fit these models")
    return words


@router.get("", response_model=LanguageModelsResponse)
def language_models(models: Models) -> LanguageModelsResponse:
    """How the three models trained: loss curves, and how often their own sentences are grammatical."""
    record = models.record
    vocabulary = [w for w in models.models["neg_inf"].vocabulary if not w.startswith("<")]
    return LanguageModelsResponse(**{**record, "vocabulary": vocabulary})


@router.post(
    "/generate",
    response_model=GenerateResponse,
    responses={413: BODY_TOO_LARGE, 422: refusal("a bad field, no words, too many, or unknown words")},
)
def generate(request: GenerateRequest, models: Models) -> GenerateResponse:
    """Continue the prompt with one model, greedily or by sampling, and check each sentence's grammar."""
    model = models.models[request.model]
    prompt = words_of(request.prompt)
    rng = np.random.default_rng(request.seed)
    count = 1 if request.strategy == "greedy" else request.count
    try:
        made = [model.generate(prompt, request.strategy, rng, request.temperature) for _ in range(count)]
    except UnknownWords as error:
        raise HTTPException(status_code=422, detail=str(error)) from error
    samples = [Sample(text=" ".join(words), tokens=words, grammatical=grammatical(words)) for words in made]
    return GenerateResponse(
        model=request.model,
        strategy=request.strategy,
        samples=samples,
        grammatical_share=sum(s.grammatical for s in samples) / len(samples),
    )


@router.get(
    "/attention",
    response_model=LanguageModelAttentionResponse,
    responses={422: refusal("a bad model name, no words, too many, or unknown words")},
)
def attention(
    models: Models,
    model: MaskName = "neg_inf",
    sentence: Annotated[str, sentence_query(max_length=200)] = "the old fox chased the goose",
) -> LanguageModelAttentionResponse:
    """One model's attention over a whole sentence, every layer and head: the mask's fingerprint."""
    lm = models.models[model]
    try:
        ids = lm.encode(words_of(sentence))
    except UnknownWords as error:
        raise HTTPException(status_code=422, detail=str(error)) from error
    maps = lm.forward(ids).attention
    return LanguageModelAttentionResponse(
        model=model,
        tokens=[lm.vocabulary[k] for k in ids],
        weights=maps.tolist(),
        future_leak=future_leak(maps.reshape(-1, *maps.shape[-2:])),
    )
