"""What the routes are handed: the settings, the answer cache, each model, and the reader's sentence.

A route names what it needs by type (``settings: SettingsDep``, ``model: RelationHeadsDep``); FastAPI calls
the dependency below (a model's loads it once per process), and tests override one through
``app.dependency_overrides``. They are coroutines: FastAPI runs a plain function dependency in its thread
pool, a hop that cost every request more than handing over an object already loaded. Only a model's first
load reads a file, and that runs in the thread pool, off the event loop.

The sentence is read the same way by every endpoint that takes one: at most the settings' number of
characters (ATTENTION_MAX_SENTENCE_CHARS) and 1 to ATTENTION_MAX_SENTENCE_TOKENS words, split by
app.words.tokenize once, so a route gets the words with the text and never splits them again.
"""

import gc
import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Annotated, Any, TypeVar

from fastapi import Depends, Query
from fastapi.exceptions import RequestValidationError
from starlette.concurrency import run_in_threadpool

from app.config import Settings, get_settings
from app.models.heads import RelationHeads, get_relation_heads
from app.models.real_bert.encoder import RealBert
from app.models.real_bert.loading import load_real_bert
from app.models.tiny_lm import TinyLMs, get_tiny_lms
from app.models.translator.committed import TranslatorModel, get_translator
from app.schemas.common import SENTENCE_LIMIT
from app.web.cache import ResponseCache, get_response_cache
from app.web.refusal import Refusal
from app.words import sentence_words

T = TypeVar("T")
LOG = logging.getLogger("uvicorn.error")


_LOADING = threading.Lock()  # one model file read at a time, so that requests arriving together share it


def _load_once(load: Callable[[], T]) -> T:
    """``load()``, one at a time. A model lives as long as the process, so its Python objects (vocabularies,
    the tokenizer's, the lexicon's) are then moved out of the garbage collector's sight (``gc.freeze``):
    otherwise every full collection walks them again, and each request pays for it. Measured with wrk on
    /healthz once all models were loaded: about 1,680 requests/s without, 1,960 with (1,880 before any load).
    """
    with _LOADING:
        model = load()
        gc.freeze()
        return model


# The models whose weights could not be read, each with what went wrong: their endpoints answer 503, and
# /healthz names them. A failed load is not tried again; the files do not change under a running server.
UNAVAILABLE: dict[str, str] = {}


async def loaded(getter: Callable[[], T], name: str) -> T:
    """What a cached getter returns: at once when it has been called before, else from the thread pool (the
    first call loads a file, which must not block the event loop). Requests that arrive before the first
    load ends wait for it, and get the same model: one copy in memory, and one set of batches. When the
    weights cannot be read (missing, cut short, not what the model expects), a 503 names the model, the log
    says why, and the model is listed in UNAVAILABLE."""
    if getter.cache_info().currsize:  # type: ignore[attr-defined]  # an lru_cache
        return getter()
    if name not in UNAVAILABLE:
        try:
            return await run_in_threadpool(_load_once, getter)
        except Exception as error:  # noqa: BLE001  # whatever a broken file makes numpy or json raise
            UNAVAILABLE[name] = f"{type(error).__name__}: {error}"
            LOG.error("the %s could not be loaded: %s", name, UNAVAILABLE[name])
    raise Refusal(f"the {name} cannot answer: its weights could not be loaded on this server", status=503)


async def current_settings() -> Settings:
    """The settings (app.config.get_settings); override this one in tests."""
    return get_settings()


async def response_cache() -> ResponseCache:
    """The process's response cache (app.web.cache.get_response_cache); override this one in tests."""
    return get_response_cache()


async def relation_heads() -> RelationHeads:
    return await loaded(get_relation_heads, "relation layer")


async def translator() -> TranslatorModel:
    return await loaded(get_translator, "translator")


async def tiny_lms() -> TinyLMs:
    return await loaded(get_tiny_lms, "language models")


SettingsDep = Annotated[Settings, Depends(current_settings)]
CacheDep = Annotated[ResponseCache, Depends(response_cache)]
RelationHeadsDep = Annotated[RelationHeads, Depends(relation_heads)]
TranslatorDep = Annotated[TranslatorModel, Depends(translator)]
TinyLMsDep = Annotated[TinyLMs, Depends(tiny_lms)]


_REAL_BERTS: dict[Path | None, RealBert] = {}  # by the setting that named the folder; None: the package's


async def get_real_bert(settings: SettingsDep) -> RealBert:
    """The optional pretrained model, loaded once per process (in the thread pool: 90 MB are read); without
    it a 503 saying how to install it. Once loaded it is handed over here, with no thread hop."""
    model = _REAL_BERTS.get(settings.real_model_dir)
    if model is None:
        model = await run_in_threadpool(_load_once, partial(_real_bert, settings.real_model_dir))
    return model


def _real_bert(directory: Path | None) -> RealBert:
    """The model of ``directory``: the one loaded before, or loaded now (under _LOADING)."""
    if directory not in _REAL_BERTS:
        _REAL_BERTS[directory] = load_real_bert(directory)
    return _REAL_BERTS[directory]


RealBertDep = Annotated[RealBert, Depends(get_real_bert)]


# ---- the reader's sentence ---------------------------------------------------------------------------------

DEFAULT_SENTENCE = "the river bank was steep"  # what figure 1 and the real model's figure start with


@dataclass(frozen=True)
class Sentence:
    """The reader's sentence as sent, and its words as app.words.tokenize splits them (case kept)."""

    text: str
    words: list[str]

    @property
    def lower_words(self) -> list[str]:
        """The words lower-cased, as the translator and the tiny language models read them."""
        return [w.lower() for w in self.words]


def read_sentence(text: str, max_chars: int, max_words: int, where: tuple[str, str]) -> Sentence:
    """The sentence and its words; past ``max_chars`` a 422 worded as pydantic words every length limit
    (the field ``where`` names, "String should have at most 500 characters"), and a Refusal for no words or
    more than ``max_words``."""
    if len(text) > max_chars:
        error = {
            "type": "string_too_long",
            "loc": where,
            "msg": f"String should have at most {max_chars} characters",
            "input": text,
            "ctx": {"max_length": max_chars},
        }
        raise RequestValidationError([error])
    return Sentence(text, sentence_words(text, max_words))


def sentence_query(default: str, max_chars: int | None = None, max_words: int | None = None) -> Any:
    """The query parameter `sentence`, read into a Sentence: ``Annotated[Sentence, sentence_query(...)]``.

    The limits are the settings' unless the endpoint sets its own (the tiny language models read 14 words).
    """
    shown = f"at most {max_chars} characters" if max_chars else "at most maxLength characters (a setting)"
    extra = {"maxLength": max_chars} if max_chars else {SENTENCE_LIMIT: True}

    async def sentence(  # a coroutine for the reason the dependencies above are: no thread-pool hop
        settings: SettingsDep,
        sentence: Annotated[
            str,
            Query(
                min_length=1,
                description=f"{shown}, with at least one word (a letter or a digit)",
                json_schema_extra=extra,
            ),
        ] = default,
    ) -> Sentence:
        chars = max_chars or settings.max_sentence_chars
        words = max_words or settings.max_sentence_tokens
        return read_sentence(sentence, chars, words, ("query", "sentence"))

    return Depends(sentence)


def with_sentence_limit(openapi: Callable[[], dict[str, Any]], limit: int) -> Callable[[], dict[str, Any]]:
    """``app.openapi`` with ``limit`` written as the maxLength of every schema SENTENCE_LIMIT marks: the
    routes are declared before any settings are read, so the document learns the limit only when built."""

    def fill(node: Any) -> None:
        if isinstance(node, dict):
            if node.pop(SENTENCE_LIMIT, None):
                node["maxLength"] = limit
            for value in node.values():
                fill(value)
        elif isinstance(node, list):
            for value in node:
                fill(value)

    def document() -> dict[str, Any]:
        built = openapi()  # FastAPI's own: built on the first call, then kept on the app
        fill(built)  # once the marks are replaced, a later call finds none
        return built

    return document
