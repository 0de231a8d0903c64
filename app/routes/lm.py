"""Figure 6's endpoints: the three tiny language models' records, live generations and attention maps."""

from typing import Annotated

import numpy as np
from fastapi import APIRouter

from app.core.diagnostics import future_leak
from app.deps import Sentence, TinyLMsDep, sentence_query
from app.errors import BODY_TOO_LARGE, refusal_doc
from app.models.lm_grammar import grammatical
from app.models.tiny_lm import MAX_POSITIONS, MAX_SENTENCE_CHARS
from app.schemas import (
    GenerateRequest,
    GenerateResponse,
    LanguageModelAttentionResponse,
    LanguageModelsResponse,
    MaskName,
    Sample,
)
from app.words import sentence_words

router = APIRouter(prefix="/api/lm", tags=["language models"])
MAX_WORDS = MAX_POSITIONS - 2  # the start token, the words, and room for one word written after them


@router.get("")
def language_models(models: TinyLMsDep) -> LanguageModelsResponse:
    """How the three models trained: loss curves, and how often their own sentences are grammatical."""
    record = models.record
    vocabulary = [w for w in models.models["neg_inf"].vocabulary if not w.startswith("<")]
    return LanguageModelsResponse(**{**record, "vocabulary": vocabulary})


@router.post(
    "/generate",
    responses={413: BODY_TOO_LARGE, 422: refusal_doc("a bad field, no words, too many, or unknown words")},
)
def generate(request: GenerateRequest, models: TinyLMsDep) -> GenerateResponse:
    """Continue the prompt with one model, greedily or by sampling, and check each sentence's grammar."""
    model = models.models[request.model]
    prompt = [w.lower() for w in sentence_words(request.prompt, MAX_WORDS)]
    rng = np.random.default_rng(request.seed)
    count = 1 if request.strategy == "greedy" else request.count
    made = [model.generate(prompt, request.strategy, rng, request.temperature) for _ in range(count)]
    samples = [Sample(text=" ".join(words), tokens=words, grammatical=grammatical(words)) for words in made]
    return GenerateResponse(
        model=request.model,
        strategy=request.strategy,
        samples=samples,
        grammatical_share=sum(s.grammatical for s in samples) / len(samples),
    )


@router.get(
    "/attention",
    responses={422: refusal_doc("a bad model name, no words, too many, or unknown words")},
)
def attention(
    models: TinyLMsDep,
    sentence: Annotated[
        Sentence,
        sentence_query("the old fox chased the goose", max_chars=MAX_SENTENCE_CHARS, max_words=MAX_WORDS),
    ],
    model: MaskName = "neg_inf",
) -> LanguageModelAttentionResponse:
    """One model's attention over a whole sentence, every layer and head: the mask's fingerprint."""
    lm = models.models[model]
    ids = lm.encode(sentence.lower_words)
    maps = lm.forward(ids).attention
    return LanguageModelAttentionResponse(
        model=model,
        tokens=[lm.vocabulary[k] for k in ids],
        weights=maps.tolist(),
        future_leak=future_leak(maps.reshape(-1, *maps.shape[-2:])),
    )
