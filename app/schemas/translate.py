"""/api/translate: an encoder-decoder writing French one token at a time, and how well it does."""

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from app.figures import number
from app.schemas.common import SENTENCE_LIMIT, RequestBody

Maps = list[list[list[float]]]


class TranslateRequest(RequestBody):
    model_config = ConfigDict(
        json_schema_extra={"examples": [{"sentence": "the river bank was steep"}]},
    )

    sentence: str = Field(
        min_length=1,
        description="English: at most maxLength characters (a setting), 1 to 64 words of the translator's "
        "vocabulary",
        json_schema_extra={SENTENCE_LIMIT: True},
    )


class TranslateStep(BaseModel):
    model_config = ConfigDict(populate_by_name=True)

    token: str = Field(description="the French word written at this step")
    cross: Maps = Field(
        description="[layer][head][source position]: where the step looked in the English; rows sum to 1"
    )
    self_attention: Maps = Field(
        alias="self",
        description="[layer][head][decoder position p ≤ t]: p = 0 is the start token, p ≥ 1 is target[p - 1] "
        "(the French already written); rows sum to 1 and never reach past t",
    )

    cross_mean: list[list[float]] = Field(
        description="[layer][source position]: `cross` averaged over the heads"
    )
    self_mean: list[list[float]] = Field(
        description="[layer][decoder position p ≤ t]: `self` averaged over the heads"
    )


class TranslateResponse(BaseModel):
    source: list[str] = Field(description="the English words, lower-cased, punctuation dropped")
    target: list[str] = Field(description="the French words written, one per step")
    translation: str = Field(
        description="the target as a sentence: capitalised, with the source's final . ! ?"
    )
    layers: int = Field(description="decoder layers")
    heads: int
    best_layer: int = Field(
        description="the decoder layer (from 0) whose head-averaged cross-attention aligns best with the "
        "source words on held-out pairs"
    )
    unread: list[int] = Field(
        description="positions in `source` of the nouns, verbs, adjectives, numbers, time words and “not” "
        "that no step read: on "
        "none did best_layer's cross-attention, its heads averaged, put the translator's threshold or more "
        "(a noun right before a noun is read with it). A word left out of the translation is almost "
        "always one of them; `GET /api/translate/about` gives the threshold and how it was measured"
    )
    steps: list[TranslateStep]


class TranslatorExample(BaseModel):
    source: str
    translation: str


class TranslatorMiss(BaseModel):
    source: str
    reference: str
    translation: str = Field(description="what the model wrote instead of the reference")


class TranslatorNovel(BaseModel):
    # The docstring, as an assignment: the figure number comes from the registry, and a docstring cannot.
    __doc__ = (
        f"Figure {number('generator')}'s translator on pairs held out by construction "
        "(training/parallel_corpus.py novel_pairs)."
    )

    heldout_pairs: int
    exact_match: float
    aligned_words: int
    alignment: float = Field(description="at the novel set's own best layer")
    alignment_by_layer: list[float]
    best_layer: int
    misses: list[TranslatorMiss]


class TranslatorConstruction(TranslatorNovel):
    __doc__ = (
        f"Figure {number('generator')}'s translator on a held-out set of one construction "
        "(training/parallel_corpus.py CONSTRUCTION_SETS)."
    )

    description: str = Field(description="what the set holds")


class EverydayRecord(BaseModel):
    """How the translator does on a set of everyday sentences written for the test blind to its vocabulary
    (training.evaluation.EVERYDAY_SETS), measured with the committed weights."""

    name: str = Field(description="first, second, …: the sets in the order they were written")
    file: str = Field(description="the set's file in the repository")
    blind: bool = Field(
        description="scored once after the training, with nothing of the grammar grown on it; false for a "
        "set the grammar grew on afterwards"
    )
    sentences: int
    right: int = Field(description="how many it translates as one of the references, token for token")
    refused: int = Field(description="how many it refuses for a word outside its vocabulary")
    unknown_words: list[str] = Field(description="those words, alphabetically")
    right_sentences: list[str] = Field(description="the English of the sentences it translates right")


class UnreadThreshold(BaseModel):
    threshold: float
    caught: int = Field(description="of the `left_out` words, how many this threshold flags")
    right_flagged: int = Field(description="of the `right_translations`, how many it flags a word of")


class UnreadRecord(BaseModel):
    """How the check for unread words does (``unread`` of an /api/translate answer), measured with the
    committed weights by ``python -m training.train_translator --measure``."""

    threshold: float = Field(description="a content word is unread when no step puts this much on it")
    joined_sentences: int = Field(
        description="sentences of two or three held-out ones joined by and/but, where words get left out"
    )
    left_out: int = Field(
        description="their words of the kinds the check reads (`kinds`) whose French is nowhere in the "
        "translation"
    )
    kinds: list[str] = Field(description="the kinds of word the check reads (`vocabulary_kinds` names them)")
    caught: int = Field(description="how many of those the check flags")
    right_translations: int = Field(description="held-out and novel pairs translated exactly right")
    right_flagged: int = Field(description="how many of those it flags a word of")
    by_threshold: list[UnreadThreshold]
    examples: list[dict[str, Any]]


class TranslatorAbout(BaseModel):
    architecture: str
    d_model: int
    heads: int
    encoder_layers: int
    layers: int = Field(description="decoder layers")
    d_ff: int
    parameters: int
    source_vocab_size: int
    target_vocab_size: int
    lexicon_entries: int
    training_pairs: int
    steps: int
    training_seconds: float
    heldout_pairs: int = Field(description="pairs whose English never occurs in training")
    exact_match: float = Field(description="share of held-out pairs translated exactly, greedy decoding")
    aligned_words: int = Field(description="held-out French words with a known English source")
    alignment: float = Field(
        description="share of those words whose best_layer cross-attention peaks on a source"
    )
    alignment_by_layer: list[float]
    alignment_by_head: list[list[float]] = Field(
        description="[layer][head]: the same measure, one head alone"
    )
    best_layer: int
    max_words: int = Field(description="the longest English sentence among the training pairs")
    novel: TranslatorNovel = Field(
        description="the same measures on a second held-out set, of combinations training never saw"
    )
    novel_description: str = Field(description="what that second set holds")
    constructions: dict[str, TranslatorConstruction] = Field(
        description="the same measures on a held-out set per construction, by name (its `description` says "
        "what it holds): a combination training never has in that construction"
    )
    alignment_method: str
    examples: list[TranslatorExample]
    misses: list[TranslatorMiss] = Field(description="the first held-out pairs the model translated wrongly")
    vocabulary: list[str] = Field(description="the English words the translator knows")
    vocabulary_kinds: dict[str, list[str]] = Field(
        description="the same words by kind (noun, verb, be, adjective, number, determiner, preposition, "
        "pronoun, conjunction), alphabetically; a word may be of two kinds"
    )
    unread: UnreadRecord
    everyday_sets: list[EverydayRecord] = Field(
        description="every set of everyday sentences, in the order they were written"
    )
