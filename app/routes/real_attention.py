"""A real pretrained transformer (all-MiniLM-L6-v2) on the reader's sentence, run in numpy on the server.

The model is optional: without it /api/real-attention answers 503 with the command that installs it, and
/api/real-attention/status says so without an error.
"""

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Response

from app.deps import DEFAULT_SENTENCE, CacheDep, RealBertDep, Sentence, SettingsDep, sentence_query
from app.figures import number
from app.models.real_bert.answer import LAYER_CHOICES, RealAttention, attended, parse_layer
from app.models.real_bert.encoder import RealBert
from app.models.real_bert.installed import INSTALL, MODEL_NAME, missing_reason, packaged_model_dir
from app.models.real_bert.pieces import MAX_PIECES, Pieces
from app.models.real_bert.weights import HEADS, LAYERS
from app.schemas.real_attention import RealAttentionResponse, RealModelStatus
from app.web.answers import json_bytes
from app.web.errors import refusal_doc
from app.web.offload import Batches, batches_of, kept
from app.web.stored_answers import stored_for_a_day

router = APIRouter(prefix="/api/real-attention", tags=["real model"])

DIAL, REAL = number("heads-dial"), number("real-heads")  # the figures the description names

DESCRIPTION = f"""\
Every head's attention in {MODEL_NAME} (BERT: {LAYERS} layers × {HEADS} heads, width 384) on the sentence,
computed in numpy, and how well each head serves figure {DIAL}'s three relations.

`layer` is a 0-based layer, 0 to {LAYERS - 1}, or `all`. `attention` is piece-level: [CLS] and [SEP]
included, rows sum to 1.

A relation's `targets` are pairs of **word** indices found by figure {DIAL}'s rules (punctuation takes part
in no pair). A head's score is the mean, over the targets, of the word-level weight of word i on word j: the
piece-level attention summed over a word's key pieces and averaged over its query pieces, in two versions:

- `scores_with_markers`: on the attention as the model gives it, [CLS] and [SEP] kept in every row: the
  share of word i's whole row that lands on word j (what figure {REAL} draws by default);
- `scores`: on the words alone: the [CLS] and [SEP] rows and columns left out and each row renormalised
  over the real words (what figure {REAL} draws with "Hide [CLS] and [SEP]"). A head that parks most of a row
  on [CLS] can score high here and low above.

Each covers every layer and head, whatever `layer` asks for; `best_with_markers` and `best` are their
largest entries (not always the same head). All four are null for a relation with no targets in the
sentence.

The maps are computed in float32, as the model was trained (within 1e-5 of float64). Sentences that arrive
together go through one forward pass; a sentence's numbers in such a batch may differ from its numbers
alone by float32 rounding (one unit of the 4th decimal at most).

Limits: 1 to 64 words (counted as /api/attention counts them), at most `sentence`'s maxLength
characters and {MAX_PIECES} WordPiece pieces with [CLS] and [SEP]. Without the optional model: 503, with the
install command (`{INSTALL}`).
"""


def layers_query(
    layer: Annotated[
        str, Query(description=f"0 to {LAYERS - 1}, or all", json_schema_extra={"enum": list(LAYER_CHOICES)})
    ] = "0",
) -> list[int]:
    """The query parameter `layer` as the list of layers it asks for (a Refusal for any other value)."""
    return parse_layer(layer)


@router.get(
    "",
    response_model=RealAttentionResponse,
    description=DESCRIPTION,
    responses={
        422: refusal_doc("no words or too many, too many pieces, or a bad `layer`"),
        503: refusal_doc("the optional model is not installed: the detail says how to install it"),
    },
)
@stored_for_a_day
async def real_attention(
    settings: SettingsDep,
    cache: CacheDep,
    # The sentence and the layer are read first: past the limits a 422, even where the model is not installed.
    sentence: Annotated[Sentence, sentence_query(DEFAULT_SENTENCE)],
    layers: Annotated[list[int], Depends(layers_query)],
    model: RealBertDep,
) -> Response:
    """all-MiniLM-L6-v2's attention on the sentence, and each head's score on figure 1's relations."""

    async def answer() -> bytes:  # serialised once, then kept as bytes (83,000 numbers for all layers)
        pieces = model.readable_pieces(sentence.text, MAX_PIECES)  # a refusal is this request's alone
        return await batches(model)((pieces, layers), cost_ms(len(pieces.ids)))

    # WordPiece reads case and punctuation, so the key is the sentence as sent (and the model it went to).
    key = ("real-attention", sentence.text, tuple(layers), str(settings.real_model_dir))
    return Response(await kept(cache, key, answer), media_type="application/json")


def cost_ms(pieces: int) -> float:
    """The measured cost of one sentence's answer in milliseconds, alone, by its pieces ([CLS] and [SEP]
    included): 3.2 at 8 pieces, 10.3 at 34."""
    return 1.0 + 0.27 * pieces


BATCH_MS = 60.0  # the most lone-sentence milliseconds one batch takes on (about 18 five-word sentences)


def batches(model: RealBert) -> Batches[tuple[Pieces, list[int]], bytes]:
    """The model's batches of answers: the sentences that wait together go through one forward pass
    (``RealBert.attention_many``), then each answer is written on its own."""

    def run(asked: list[tuple[Pieces, list[int]]]) -> list[bytes]:
        maps = model.attention_many([pieces.ids for pieces, _ in asked])
        return [
            json_bytes(real_attention_response(attended(pieces, layers, m)))
            for (pieces, layers), m in zip(asked, maps, strict=True)
        ]

    return batches_of(model, "real-attention", run, BATCH_MS)


def real_best(best: tuple[int, int, float] | None) -> dict[str, Any] | None:
    """(layer, head, score) as the answer states it (RealBest)."""
    return None if best is None else {"layer": best[0], "head": best[1], "score": best[2]}


def real_attention_response(result: RealAttention) -> dict[str, Any]:
    """The model's answer as /api/real-attention states it (RealAttentionResponse, field for field)."""
    relations = [
        {
            "name": fit.name,
            "targets": fit.targets,
            "scores": fit.scores,
            "best": real_best(fit.best),
            "scores_with_markers": fit.scores_with_markers,
            "best_with_markers": real_best(fit.best_with_markers),
        }
        for fit in result.relations
    ]
    pieces = result.pieces
    return {
        "model": MODEL_NAME,
        "layers": LAYERS,
        "heads": HEADS,
        "tokens": pieces.tokens,
        "special": pieces.special,
        "word_index": pieces.word_index,
        "words": pieces.words,
        "layer_indices": result.layers,
        "attention": result.attention,
        "relations": relations,
    }


@router.get("/status")
async def status(settings: SettingsDep) -> RealModelStatus:
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
