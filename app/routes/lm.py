"""Figure 7's endpoints: the tiny language models' records, live generations, attention maps, and their
next-word predictions read two ways (the sentence in the input, or only the words so far); and figure 6's
mask bug zoo panels (a padded batch, finite sentinels in low precision)."""

import warnings
from typing import Annotated, Any

import numpy as np
from fastapi import APIRouter, Query, Response

from app.core.diagnostics import diagnose, future_share
from app.core.mask_zoo import FULLY_MASKED_KEYS, FUTURE_SCORE, padded_attention, precision_table
from app.core.masks import ATTENTION_MODES, ZOO_MODES
from app.deps import Sentence, TinyLMsDep, sentence_query
from app.figures import number
from app.models.lm_grammar import WORD_CLASS, fits, grammatical
from app.models.tiny_lm import (
    DEFAULT_SENTENCE,
    EOS,
    MAX_SENTENCE_CHARS,
    MAX_WORDS,
    MODEL_ORDER,
    PAD,
    READING_SENTENCE,
    Reading,
    TinyLM,
    TinyLMs,
)
from app.models.word_pieces import PREFIX, plain
from app.routes.diagnose import response as diagnosis_answer
from app.schemas.diagnose import DiagnoseResponse
from app.schemas.lm import (
    GenerateRequest,
    GenerateResponse,
    LanguageModelAttentionMasksResponse,
    LanguageModelAttentionResponse,
    LanguageModelMask,
    LanguageModelMaskZooResponse,
    LanguageModelName,
    LanguageModelPredictions,
    LanguageModelPredictionsResponse,
    LanguageModelsResponse,
    NextWordReading,
    Sample,
)
from app.web.answers import answer, json_bytes
from app.web.errors import BODY_TOO_LARGE, refusal_doc
from app.web.offload import computed
from app.web.refusal import Refusal
from app.web.stored_answers import stored_for_a_day
from app.words import sentence_words

router = APIRouter(prefix="/api/lm", tags=["language models"])


@router.get("")
@stored_for_a_day
async def language_models(models: TinyLMsDep) -> LanguageModelsResponse:
    """How the models trained: loss curves, and how often their own sentences are grammatical."""
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


def installed(models: TinyLMs, name: str) -> TinyLM:
    """The model trained with mask ``name``, or a 422 naming the ``model`` field and the models installed."""
    if name not in models.models:
        raise Refusal(
            f"model: {name!r} is not installed; the weights file holds {', '.join(models.models)}",
            fields={"field": "model", "installed": list(models.models)},
        )
    return models.models[name]


def generated(request: GenerateRequest, models: TinyLMs) -> GenerateResponse:
    """The model's sentences for the request, each checked against the grammar."""
    model = installed(models, request.model)
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


MASK_LAB, INTERVIEW = number("mask-lab"), number("interview")  # the figures the descriptions name
MASK_DESCRIPTION = (
    "the mask every layer applies in this pass: none, neg_inf or zero, or one of the mask bug zoo's "
    f"{', '.join(ZOO_MODES)} (app/core/masks.py); by default the one the model was trained with (figure "
    f"{MASK_LAB} runs the neg_inf model under each)"
)


# The parameters of the endpoints that run one model over a sentence (attention, diagnose, mask zoo).
DecoderSentence = Annotated[
    Sentence, sentence_query(DEFAULT_SENTENCE, max_chars=MAX_SENTENCE_CHARS, max_words=MAX_WORDS)
]
ModelChoice = Annotated[
    LanguageModelName,
    Query(description="which of the models: the mask it was trained with (next_word once installed)"),
]
MaskChoice = Annotated[LanguageModelMask | None, Query(description=MASK_DESCRIPTION)]
MODEL_REFUSALS: dict[int | str, dict[str, Any]] = {
    422: refusal_doc("a bad or missing model, a bad mask name, no words, too many, or unknown words")
}


@router.get(
    "/attention",
    response_model=LanguageModelAttentionResponse,
    responses=MODEL_REFUSALS,
    description=f"""\
One model's attention over a whole sentence, every layer and head, under its own mask or another one:
the mask's fingerprint (figure {INTERVIEW}), and what a mask does to a trained decoder (figure {MASK_LAB}).

NaN: under hides_self the first row sees nothing, so its weights are 0/0 = NaN, and so is everything in
the next layer that reads its output. JSON has no NaN: such a row's weights (and scores, and future
share) are null, `nan_rows` lists the rows, and `future_leak` and `row_future_shares` are means over the
rows that have weights (null when none has).""",
)
@stored_for_a_day
async def attention(
    models: TinyLMsDep,
    sentence: DecoderSentence,
    model: ModelChoice = "neg_inf",
    mask: MaskChoice = None,
) -> Response:
    return answer(await computed(lambda: lm_attention(models, sentence, model, mask)))


@router.get(
    "/attention/masks",
    response_model=LanguageModelAttentionMasksResponse,
    responses=MODEL_REFUSALS,
)
@stored_for_a_day
async def attention_masks(
    models: TinyLMsDep,
    sentence: DecoderSentence,
    model: ModelChoice = "neg_inf",
) -> Response:
    """One model's attention over a sentence under every mask at once: `answers` holds, for each mask, what
    /api/lm/attention answers under it. The mask lab draws one mask and compares the future leak of all, so
    it asks once per sentence rather than once per mask."""
    return answer(await computed(lambda: lm_attention_masks(models, sentence, model)))


def lm_attention_masks(models: TinyLMs, sentence: Sentence, model: LanguageModelName) -> bytes:
    """The answer of /api/lm/attention/masks: each mask's /api/lm/attention answer, written once and joined
    (each is a JSON object, so the whole is one)."""
    answers = b",".join(
        json_bytes(mask) + b":" + lm_attention(models, sentence, model, mask) for mask in ATTENTION_MODES
    )
    return b'{"model":' + json_bytes(model) + b',"answers":{' + answers + b"}}"


def lm_attention(
    models: TinyLMs, sentence: Sentence, model: LanguageModelName, mask: LanguageModelMask | None
) -> bytes:
    """The answer of /api/lm/attention, written (NaN as null, by json_bytes)."""
    lm = installed(models, model)
    pieces, owner = lm.pieces(sentence.words)
    ids = lm.encode(sentence.words)
    run = lm.forward(ids, mask=mask)
    maps = run.attention  # (layers, h, T, T)
    shares = future_share(maps)  # (layers, h, T), NaN in a NaN row
    empty = np.isnan(maps).any(axis=-1)  # (layers, h, T): the rows with no weights
    with warnings.catch_warnings():  # a mean over no rows is NaN (written null), not an error
        warnings.simplefilter("ignore", RuntimeWarning)
        leak = float(np.nanmean(shares)) if not empty.all() else None
        row_shares = np.nanmean(shares, axis=(0, 1))
    return json_bytes(  # LanguageModelAttentionResponse, field for field
        {
            "model": model,
            "mask": lm.mask if mask is None else mask,
            "tokens": [lm.vocabulary[k] for k in ids],
            "word_index": [None, *owner],
            "words": sentence.words,
            "weights": maps,
            "scaled": run.scaled,
            "nan_rows": [[np.flatnonzero(rows).tolist() for rows in layer] for layer in empty],
            "future_leak": leak,
            "future_shares": shares,
            "row_future_shares": row_shares,
        }
    )


@router.get(
    "/diagnose",
    response_model=DiagnoseResponse,
    responses=MODEL_REFUSALS,
    description="One model's attention over a sentence, under its own mask or another, diagnosed as an "
    "upload would be:\n/api/diagnose's answer, with the weights and the model's tokens "
    f"(figure {INTERVIEW}'s examples, in one trip).",
)
@stored_for_a_day
async def diagnose_model(
    models: TinyLMsDep,
    sentence: DecoderSentence,
    model: ModelChoice = "neg_inf",
    mask: MaskChoice = None,
) -> Response:
    return answer(await computed(lambda: lm_diagnosis(models, sentence, model, mask)))


def lm_diagnosis(
    models: TinyLMs, sentence: Sentence, model: LanguageModelName, mask: LanguageModelMask | None
) -> bytes:
    """The answer of /api/lm/diagnose, written (NaN as null, by json_bytes)."""
    lm = installed(models, model)
    ids = lm.encode(sentence.words)
    maps = lm.forward(ids, mask=mask).attention  # (layers, h, T, T)
    tokens = [lm.vocabulary[k] for k in ids]
    return json_bytes(diagnosis_answer(diagnose(maps), tokens, maps, None))


@router.get(
    "/mask-zoo",
    response_model=LanguageModelMaskZooResponse,
    responses={422: refusal_doc("no words, too many, or unknown words")},
    description=f"""\
Figure {MASK_LAB}'s two mask bugs that are not a mask mode, computed live.

A padded batch: the sentence and its first half, left-padded to the same length, under a key-padding
mask and the causal mask, both −∞, with the −∞ decoder's layer 1, head 1 scores. A padding row hides
every key, so its softmax (and the softmax's gradient) is NaN; the safe softmax gives it zeros. NaN is
written null.

Finite sentinels: −1e9, finfo(dtype).min and −1e4 as the mask value in float32, float16 and bfloat16
(float32 rounded to nearest even at 16 bits), every step in that dtype; ±∞ and NaN as strings.""",
)
@stored_for_a_day
async def mask_zoo(
    models: TinyLMsDep,
    sentence: DecoderSentence,
) -> Response:
    return answer(await computed(lambda: mask_zoo_answer(models, sentence)))


def mask_zoo_answer(models: TinyLMs, sentence: Sentence) -> bytes:
    """The answer of /api/lm/mask-zoo, written."""
    lm = installed(models, "neg_inf")
    words = sentence.words
    ids = lm.encode(words)
    short = lm.encode(words[: len(words) // 2])
    pads = len(ids) - len(short)
    batch = []
    for seq, p in ((ids, 0), ([lm.index[PAD]] * pads + short, pads)):
        scaled = lm.forward(seq, mask="none").scaled[0, 0]  # layer 1, head 1: before any mask
        panel = padded_attention(scaled, p)
        batch.append({"tokens": [lm.vocabulary[k] for k in seq], "scaled": scaled, **panel})
    return json_bytes(  # LanguageModelMaskZooResponse, field for field
        {
            "sentence": words,
            "layer": 1,
            "head": 1,
            "batch": batch,
            "nan_rows": sum(len(b["naive_nan_rows"]) for b in batch),
            "precision": precision_table(),
            "fully_masked_keys": FULLY_MASKED_KEYS,
            "future_score": FUTURE_SCORE,
        }
    )


def _judged(words_so_far: list[str] | None, predicted: str) -> bool | None:
    """Whether the grammar allows ``predicted`` after ``words_so_far``; None where that cannot be judged: in
    the middle of a word, for a piece that is not a whole word, or after words that begin no sentence."""
    if words_so_far is None or (predicted != EOS and predicted not in WORD_CLASS):
        return None
    return fits(words_so_far, None if predicted == EOS else predicted)


def next_word_reading(
    reading: Reading, targets: list[str], so_far: list[list[str] | None]
) -> NextWordReading:
    """A Reading of a sentence's pieces for the answer, each prediction checked against the sentence's next
    piece and, where a word ends, the grammar (``so_far``: the words before each position, None mid-word)."""
    correct = [p == t for p, t in zip(reading.predicted, targets, strict=True)]
    allowed = [_judged(words, p) for words, p in zip(so_far, reading.predicted, strict=True)]
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
    """Every model's next pieces on ``sentence``, teacher-forced and free-running, beside its recorded
    losses."""
    record = {m["mask"]: m for m in models.record["models"]}
    pieces, owner = models.models["neg_inf"].pieces(sentence)  # every model reads the same vocabulary
    words = [plain(w) for w in sentence]
    targets = [*pieces, EOS]
    # Before position t the input holds pieces[:t]; a word ends there when the next piece starts a word.
    so_far = [words[: owner[t - 1] + 1] if t else [] for t in range(len(targets))]
    so_far_or_none = [
        w if t == len(pieces) or not pieces[t].startswith(PREFIX) else None for t, w in enumerate(so_far)
    ]
    answers = []
    for mask, lm in models.models.items():
        forced, free = lm.read_and_write(sentence)
        written = lm.generate(sentence[:1])
        stored = record[mask]  # the loader loads only the models the record lists
        answers.append(
            LanguageModelPredictions(
                model=mask,
                label=stored["label"],
                final_train=stored["final_train"],
                final_validation=stored["final_validation"],
                validation_gap=round(stored["final_validation"] - stored["final_train"], 6),
                teacher_forced=next_word_reading(forced, targets, so_far_or_none),
                free_running=next_word_reading(free, targets, so_far_or_none),
                same=sum(a == b for a, b in zip(forced.predicted, free.predicted, strict=True)),
                written=written,
                written_grammatical=grammatical(written),
            )
        )
    order = {mask: k for k, mask in enumerate(MODEL_ORDER)}
    return LanguageModelPredictionsResponse(
        sentence=sentence,
        inputs=["<s>", *pieces],
        targets=targets,
        word_index=[None, *owner],
        positions=len(targets),
        models=sorted(answers, key=lambda a: order[a.model]),
    )


@router.get(
    "/predictions",
    responses={422: refusal_doc("no words, too many, or words the models never saw")},
)
@stored_for_a_day
async def next_words(
    models: TinyLMsDep,
    sentence: Annotated[
        Sentence,
        sentence_query(READING_SENTENCE, max_chars=MAX_SENTENCE_CHARS, max_words=MAX_WORDS),
    ],
) -> LanguageModelPredictionsResponse:
    """Each model's next word at every position of the sentence, fed the whole sentence as in training and
    validation (teacher forcing) and fed only the words so far as when it writes (free running), beside its
    recorded losses. At most 14 words: one network pass per position per model, run off the event loop."""
    return await computed(lambda: predictions(models, sentence.words))
