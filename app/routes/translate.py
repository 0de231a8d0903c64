"""Figure 4's endpoints: translate step by step with every attention map, and the model's record."""

import numpy as np
from fastapi import APIRouter, Response
from pydantic import TypeAdapter

from app.deps import CacheDep, SettingsDep, TranslatorDep, read_sentence
from app.errors import BODY_TOO_LARGE, refusal_doc
from app.models.translator import Translation, Translator
from app.schemas import TranslateRequest, TranslateResponse, TranslateStep, TranslatorAbout

router = APIRouter(prefix="/api/translate", tags=["translator"])
FRENCH_SPACE_BEFORE = {"!": " !", "?": " ?", ".": "."}  # French sets ! and ? off by a space
ANSWER = TypeAdapter(TranslateResponse)


def as_sentence(target: list[str], source_text: str) -> str:
    """The French words as a sentence: capitalised, ending with the source's final . ! or ? if it had one."""
    text = " ".join(target)
    end = source_text.rstrip()[-1:]
    return text[:1].upper() + text[1:] + (FRENCH_SPACE_BEFORE.get(end, "") if text else "")


@router.post(
    "",
    response_model=TranslateResponse,
    responses={413: BODY_TOO_LARGE, 422: refusal_doc("no words, too many, or words outside the vocabulary")},
)
def translate(
    body: TranslateRequest, model: TranslatorDep, settings: SettingsDep, cache: CacheDep
) -> Response:
    """Translate English to French greedily, one token a step, with each step's self- and cross-attention."""
    sentence = read_sentence(
        body.sentence, settings.max_sentence_chars, settings.max_sentence_tokens, ("body", "sentence")
    )
    words = sentence.lower_words

    def answer() -> bytes:  # serialised once, then kept as bytes
        result = model.translator.translate(words)
        response = translate_response(result, model.translator, model.best_layer, sentence.text)
        return ANSWER.dump_json(response, by_alias=True)  # "self", as the schema spells it

    # The answer depends on the lower-cased words and on the sentence's final . ! or ? alone (as_sentence).
    end = sentence.text.rstrip()[-1:]
    key = ("translate", tuple(words), end if end in FRENCH_SPACE_BEFORE else "")
    return Response(cache.get_or_compute(key, answer), media_type="application/json")


def head_means(maps: np.ndarray) -> list[list[float]]:
    """[layer][head][key] -> [layer][key]: each layer's heads averaged, key by key (added head by head, in
    order, as a reader would)."""
    return (sum(maps[:, k] for k in range(maps.shape[1])) / maps.shape[1]).tolist()


def translate_response(
    result: Translation, translator: Translator, best_layer: int, text: str
) -> TranslateResponse:
    """The translation as /api/translate states it: every step's attention, and the French as a sentence."""
    return TranslateResponse(
        source=result.source,
        target=result.target,
        translation=as_sentence(result.target, text),
        layers=translator.decoder_layers,
        heads=translator.heads,
        best_layer=best_layer,
        steps=[
            TranslateStep.model_validate(
                {
                    "token": token,
                    "cross": step.cross_attention.tolist(),
                    "self": step.self_attention.tolist(),
                    "cross_mean": head_means(step.cross_attention),
                    "self_mean": head_means(step.self_attention),
                }
            )
            for token, step in zip(result.target, result.steps, strict=True)
        ],
    )


@router.get("/about")
def about(model: TranslatorDep) -> TranslatorAbout:
    """How the translator was built and trained, and how it does on held-out pairs (for the page's note)."""
    return TranslatorAbout(**{**model.record, "vocabulary": model.translator.words})
