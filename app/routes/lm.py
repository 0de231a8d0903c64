"""Figure 7's endpoints: the three tiny language models' records, live generations, attention maps, and their
next-word predictions read two ways (the sentence in the input, or only the words so far)."""

from typing import Annotated

import numpy as np
from fastapi import APIRouter, Query, Response

from app.answers import answer, json_bytes
from app.core.diagnostics import future_leak, future_share
from app.deps import Sentence, TinyLMsDep, sentence_query
from app.errors import BODY_TOO_LARGE, refusal_doc
from app.figures import number
from app.models.lm_grammar import fits, grammatical
from app.models.tiny_lm import (
    DEFAULT_SENTENCE,
    EOS,
    MAX_POSITIONS,
    MAX_SENTENCE_CHARS,
    Reading,
    TinyLMs,
)
from app.offload import computed
from app.schemas import (
    GenerateRequest,
    GenerateResponse,
    LanguageModelAttentionResponse,
    LanguageModelPredictions,
    LanguageModelPredictionsResponse,
    LanguageModelsResponse,
    MaskName,
    NextWordReading,
    Sample,
)
from app.words import sentence_words

router = APIRouter(prefix="/api/lm", tags=["language models"])
MAX_WORDS = MAX_POSITIONS - 2  # the start token, the words, and room for one word written after them


@router.get("")
async def language_models(models: TinyLMsDep) -> LanguageModelsResponse:
    """How the three models trained: loss curves, and how often their own sentences are grammatical."""
    record = models.record
    vocabulary = [w for w in models.models["neg_inf"].vocabulary if not w.startswith("<")]
    return LanguageModelsResponse(**{**record, "vocabulary": vocabulary})


@router.post(
    "/generate",
    responses={413: BODY_TOO_LARGE, 422: refusal_doc("a bad field, no words, too many, or unknown words")},
)
async def generate(request: GenerateRequest, models: TinyLMsDep) -> GenerateResponse:
    """Continue the prompt with one model, greedily or by sampling, and check each sentence's grammar."""
    return await computed(lambda: generated(request, models))


def generated(request: GenerateRequest, models: TinyLMs) -> GenerateResponse:
    """The model's sentences for the request, each checked against the grammar."""
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
    response_model=LanguageModelAttentionResponse,
    responses={422: refusal_doc("a bad model or mask name, no words, too many, or unknown words")},
)
async def attention(
    models: TinyLMsDep,
    sentence: Annotated[
        Sentence,
        sentence_query(DEFAULT_SENTENCE, max_chars=MAX_SENTENCE_CHARS, max_words=MAX_WORDS),
    ],
    model: Annotated[
        MaskName, Query(description="which of the three models: the mask it was trained with")
    ] = "neg_inf",
    mask: Annotated[
        MaskName | None,
        Query(
            description="the mask every layer applies in this pass: none, neg_inf or zero; by default the "
            f"one the model was trained with (figure {number('mask-lab')} runs the neg_inf model under each)"
        ),
    ] = None,
) -> Response:
    """One model's attention over a whole sentence, every layer and head, under its own mask or another one:
    the mask's fingerprint (figure 7), and what a mask does to a trained decoder (figure 6)."""
    return answer(await computed(lambda: lm_attention(models, sentence, model, mask)))


def lm_attention(models: TinyLMs, sentence: Sentence, model: MaskName, mask: MaskName | None) -> bytes:
    """The answer of /api/lm/attention, written."""
    lm = models.models[model]
    ids = lm.encode(sentence.lower_words)
    run = lm.forward(ids, mask=mask)
    maps = run.attention  # (layers, h, T, T)
    shares = future_share(maps)  # (layers, h, T)
    return json_bytes(  # LanguageModelAttentionResponse, field for field
        {
            "model": model,
            "mask": lm.mask if mask is None else mask,
            "tokens": [lm.vocabulary[k] for k in ids],
            "weights": maps,
            "scaled": run.scaled,
            "future_leak": future_leak(maps.reshape(-1, *maps.shape[-2:])),
            "future_shares": shares,
            "row_future_shares": shares.mean(axis=(0, 1)),
        }
    )


def next_word_reading(reading: Reading, sentence: list[str]) -> NextWordReading:
    """A Reading of ``sentence`` for the answer, each prediction checked against the sentence and grammar."""
    targets = [*sentence, EOS]
    correct = [p == t for p, t in zip(reading.predicted, targets, strict=True)]
    allowed = [fits(sentence[:t], None if p == EOS else p) for t, p in enumerate(reading.predicted)]
    return NextWordReading(
        predicted=reading.predicted,
        probability=reading.probability.tolist(),
        target_probability=reading.target_probability.tolist(),
        correct=correct,
        allowed=allowed,
        right=sum(correct),
        accuracy=sum(correct) / len(correct),
        allowed_count=sum(a is True for a in allowed),
        judged=sum(a is not None for a in allowed),
        loss=reading.loss,
    )


def predictions(models: TinyLMs, sentence: list[str]) -> LanguageModelPredictionsResponse:
    """Every model's next words on ``sentence``, teacher-forced and free-running, beside its stored losses."""
    record = {m["mask"]: m for m in models.record["models"]}
    answers = []
    for mask, lm in models.models.items():
        forced, free = lm.read_and_write(sentence)
        written = lm.generate(sentence[:1])
        stored = record[mask]
        answers.append(
            LanguageModelPredictions(
                model=mask,
                label=stored["label"],
                final_train=stored["final_train"],
                final_validation=stored["final_validation"],
                validation_gap=round(stored["final_validation"] - stored["final_train"], 6),
                teacher_forced=next_word_reading(forced, sentence),
                free_running=next_word_reading(free, sentence),
                same=sum(a == b for a, b in zip(forced.predicted, free.predicted, strict=True)),
                written=written,
                written_grammatical=grammatical(written),
            )
        )
    order = {"neg_inf": 0, "zero": 1, "none": 2}
    return LanguageModelPredictionsResponse(
        sentence=sentence,
        inputs=["<s>", *sentence],
        targets=[*sentence, EOS],
        positions=len(sentence) + 1,
        models=sorted(answers, key=lambda a: order[a.model]),
    )


@router.get(
    "/predictions",
    responses={422: refusal_doc("no words, too many, or words the models never saw")},
)
async def next_words(
    models: TinyLMsDep,
    sentence: Annotated[
        Sentence,
        sentence_query(
            "the old fox chased the hungry duck", max_chars=MAX_SENTENCE_CHARS, max_words=MAX_WORDS
        ),
    ],
) -> LanguageModelPredictionsResponse:
    """Each model's next word at every position of the sentence, fed the whole sentence as in training and
    validation (teacher forcing) and fed only the words so far as when it writes (free running), beside its
    recorded losses. At most 14 words: one network pass per position per model, run off the event loop."""
    return await computed(lambda: predictions(models, sentence.lower_words))
