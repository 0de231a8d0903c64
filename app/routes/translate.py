"""Figure 4's endpoints: translate step by step with every attention map, and the model's record."""

from typing import Annotated

from fastapi import APIRouter, Depends, HTTPException, Response
from pydantic import TypeAdapter

from app.cache import ResponseCache, get_response_cache
from app.config import Settings, get_settings
from app.errors import BODY_TOO_LARGE, refusal
from app.models.relations import tokenize
from app.models.translator import TranslatorModel, UnknownWords, get_translator
from app.schemas import TranslateRequest, TranslateResponse, TranslateStep, TranslatorAbout

router = APIRouter(prefix="/api/translate", tags=["translator"])
Model = Annotated[TranslatorModel, Depends(get_translator)]
FRENCH_SPACE_BEFORE = {"!": " !", "?": " ?", ".": "."}  # French sets ! and ? off by a space
ANSWER = TypeAdapter(TranslateResponse)


def words_of(sentence: str, max_tokens: int) -> list[str]:
    """The sentence's words, lower-cased, punctuation dropped; a 422 when there are none or too many."""
    words = [w.lower() for w in tokenize(sentence)]
    if not words:
        raise HTTPException(status_code=422, detail="sentence has no words: type at least one word")
    if len(words) > max_tokens:
        raise HTTPException(
            status_code=422, detail=f"sentence has {len(words)} tokens; at most {max_tokens} are allowed"
        )
    return words


def as_sentence(target: list[str], source_text: str) -> str:
    """The French words as a sentence: capitalised, ending with the source's final . ! or ? if it had one."""
    text = " ".join(target)
    end = source_text.rstrip()[-1:]
    return text[:1].upper() + text[1:] + (FRENCH_SPACE_BEFORE.get(end, "") if text else "")


@router.post(
    "",
    response_model=TranslateResponse,
    responses={413: BODY_TOO_LARGE, 422: refusal("no words, too many, or words outside the vocabulary")},
)
def translate(
    request: TranslateRequest,
    model: Model,
    settings: Annotated[Settings, Depends(get_settings)],
    cache: Annotated[ResponseCache, Depends(get_response_cache)],
) -> Response:
    """Translate English to French greedily, one token a step, with each step's self- and cross-attention."""
    words = words_of(request.sentence, settings.max_sentence_tokens)

    def answer() -> bytes:  # built and validated here: serialised as is, not validated again
        try:
            result = model.translator.translate(words)
        except UnknownWords as error:
            raise HTTPException(status_code=422, detail=str(error)) from error
        translator = model.translator
        response = TranslateResponse(
            source=result.source,
            target=result.target,
            translation=as_sentence(result.target, request.sentence),
            layers=translator.decoder_layers,
            heads=translator.heads,
            best_layer=model.best_layer,
            steps=[
                TranslateStep.model_validate(
                    {
                        "token": token,
                        "cross": step.cross_attention.tolist(),
                        "self": step.self_attention.tolist(),
                    }
                )
                for token, step in zip(result.target, result.steps, strict=True)
            ],
        )
        return ANSWER.dump_json(response, by_alias=True)  # "self", as the schema spells it

    # The answer depends on the lower-cased words and on the sentence's final . ! or ? alone (as_sentence).
    end = request.sentence.rstrip()[-1:]
    key = ("translate", tuple(words), end if end in FRENCH_SPACE_BEFORE else "")
    return Response(cache.get_or_compute(key, answer), media_type="application/json")


@router.get("/about", response_model=TranslatorAbout)
def about(model: Model) -> TranslatorAbout:
    """How the translator was built and trained, and how it does on held-out pairs (for the page's note)."""
    return TranslatorAbout(**{**model.record, "vocabulary": model.translator.words})
