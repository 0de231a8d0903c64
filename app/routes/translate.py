"""Figure 5's endpoints: translate step by step with every attention map, and the model's record."""

from functools import partial
from typing import Any

import numpy as np
from fastapi import APIRouter, Response
from pydantic import Field

from app.deps import CacheDep, SettingsDep, TranslatorDep, read_sentence
from app.models.translator.committed import TranslatorModel
from app.models.translator.network import FLOAT32_MAPS
from app.models.translator.steps import Translation
from app.models.translator.words import SUGGESTED_AT_MOST, TRAINED_MAX_WORDS
from app.schemas.translate import TranslateRequest, TranslateResponse, TranslatorAbout
from app.web.answers import json_bytes
from app.web.errors import BODY_TOO_LARGE, ErrorAnswer
from app.web.offload import Batches, batches_of, computed, kept
from app.web.stored_answers import stored_for_a_day

router = APIRouter(prefix="/api/translate", tags=["translator"])
FRENCH_SPACE_BEFORE = {"!": " !", "?": " ?", ".": "."}  # French sets ! and ? off by a space


def as_sentence(target: list[str], source_text: str) -> str:
    """The French words as a sentence: capitalised, ending with the source's final . ! or ? if it had one.

    An elided word (l', d', j', spelled from the network's "le", "de", "je": app.models.translator.spelling)
    is a token of its own and joins the next word in writing: ["l'", "arbre"] -> "l'arbre".
    """
    text = " ".join(target).replace("' ", "'")
    end = source_text.rstrip()[-1:]
    return text[:1].upper() + text[1:] + (FRENCH_SPACE_BEFORE.get(end, "") if text else "")


class TranslateRefusal(ErrorAnswer):
    """A 422 of /api/translate: ``detail`` says what to fix; a sentence the translator refuses also states
    its facts as fields (each absent when it does not apply)."""

    unknown: list[str] | None = Field(
        default=None, description="the words outside the translator's vocabulary, once each, in order"
    )
    suggestions: dict[str, list[str]] | None = Field(
        default=None,
        description="for each unknown word, up to three words of the vocabulary that fit where it stands: "
        "for an English word, its other forms and words of its field; for a typo, words spelt alike "
        f"(possibly none); looked for only for the first {SUGGESTED_AT_MOST} unknown words, the others map "
        "to none",
    )
    max_words: int | None = Field(
        default=None, description="the longest sentence (in words) the translator was trained on"
    )
    word_count: int | None = Field(default=None, description="how many words the refused sentence has")


PRECISION = f"""

Decoded in float32, the precision the translator was trained in: every attention weight is within
{FLOAT32_MAPS:g} of a float64 decoding, alone or in a batch, with the same words (checked on all 3,000
held-out and novel pairs). Sentences that arrive while others are being decoded are decoded together, in one
batch; a sentence's numbers in a batch may differ from its numbers alone by float32 rounding."""

REFUSALS = f"""

**Refused before any decoding** (422, with a `detail` sentence):

- words outside the translator's vocabulary (`GET /api/translate/about` lists it): named, each with close
  known words, as in `not in the translator's vocabulary: apel (did you mean apple or paper?)`; the answer
  also has `unknown` (the words) and `suggestions` (`{{"apel": ["apple", "paper"]}}`);
- a sentence longer than any the translator was trained on ({TRAINED_MAX_WORDS} words): `The translator was
  trained on sentences of at most {TRAINED_MAX_WORDS} words; this one has 20.`, with `max_words` and
  `word_count`;
- no words, or more than the page's sentence limit.

A sentence both too long and with unknown words gets one answer that names both."""


@router.post(
    "",
    response_model=TranslateResponse,
    responses={
        413: BODY_TOO_LARGE,
        422: {
            "model": TranslateRefusal,
            "description": "unknown words (with suggestions), a sentence longer than the translator was "
            "trained on, no words, or too many",
        },
    },
    description="Translate English to French greedily, one token a step, with each step's self- and "
    "cross-attention, and the content words no step read (`unread`: words the French most likely leaves "
    "out)." + PRECISION + REFUSALS,
)
async def translate(
    body: TranslateRequest, model: TranslatorDep, settings: SettingsDep, cache: CacheDep
) -> Response:
    """Translate English to French greedily, one token a step, with each step's self- and cross-attention."""
    sentence = read_sentence(
        body.sentence, settings.max_sentence_chars, settings.max_sentence_tokens, ("body", "sentence")
    )
    words = sentence.lower_words
    if len(words) > TRAINED_MAX_WORDS or model.translator.unknown(words):
        # refused before any decoding; the refusal's close words are looked for in a thread, off the loop
        await computed(partial(model.translator.check, words))

    # The answer depends on the lower-cased words and on the sentence's final . ! or ? alone (as_sentence).
    end = sentence.text.rstrip()[-1:]
    key = ("translate", tuple(words), end if end in FRENCH_SPACE_BEFORE else "")
    answer = partial(batches(model), (words, sentence.text), cost_ms(len(words)))
    return Response(await kept(cache, key, answer), media_type="application/json")


def cost_ms(words: int) -> float:
    """The measured cost of a translation in milliseconds, for app/web/offload.py: a step per French word and
    one for the end, each longer as the sentence grows; 1.1 at 3 words, 1.7 at 6, 3.3 at 14, 7 at 30."""
    return 0.5 + 0.2 * words


BATCH_MS = 40.0  # the most lone-sentence milliseconds one batch takes on (about 23 six-word sentences)


def batches(model: TranslatorModel) -> Batches[tuple[list[str], str], bytes]:
    """The translator's batches of answers: the sentences that wait together are decoded together, in
    float32 (``Translator.translate_many``: each weight read once a step for all of them), then each answer
    is written on its own, serialised once and kept as bytes."""

    def run(asked: list[tuple[list[str], str]]) -> list[bytes]:
        results = model.translator.translate_many([words for words, _ in asked], float32=True)
        return [
            json_bytes(translate_response(result, model, text))
            for result, (_, text) in zip(results, asked, strict=True)
        ]

    return batches_of(model, "translate", run, BATCH_MS)


def head_means(maps: np.ndarray) -> np.ndarray:
    """[layer][head][key] -> [layer][key]: each layer's heads averaged, key by key (numpy adds a short axis
    head by head, in order, as a reader would; tests/routes/test_translate.py checks it against a loop)."""
    return maps.sum(axis=1) / maps.shape[1]


def translate_response(result: Translation, model: TranslatorModel, text: str) -> dict[str, Any]:
    """The translation as /api/translate states it (TranslateResponse, field for field): every step's
    attention, the French as a sentence, and the content words no step read."""
    translator, best_layer = model.translator, model.best_layer
    return {
        "source": result.source,
        "target": result.target,
        "translation": as_sentence(result.target, text),
        "layers": translator.decoder_layers,
        "heads": translator.heads,
        "best_layer": best_layer,
        "unread": model.unread(result),
        "steps": [
            {
                "token": token,
                "cross": step.cross_attention,
                "self": step.self_attention,
                "cross_mean": head_means(step.cross_attention),
                "self_mean": head_means(step.self_attention),
            }
            for token, step in zip(result.target, result.steps, strict=True)
        ],
    }


@router.get("/about")
@stored_for_a_day
async def about(model: TranslatorDep) -> TranslatorAbout:
    """How the translator was built and trained, and how it does on held-out pairs (for the page's note)."""
    return TranslatorAbout(**{**model.record, "vocabulary": model.translator.words})
