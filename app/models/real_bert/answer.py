"""The answer of all-MiniLM-L6-v2 on one sentence: its pieces, the chosen layers' attention rounded to
DECIMALS, and every head's scores on figure 1's relations; and the layer a request may ask for."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from app.models.real_bert.pieces import Pieces
from app.models.real_bert.relation_fit import (
    RealRelationFit,
    relation_scores,
    relation_targets,
    word_attentions,
)
from app.models.real_bert.weights import LAYERS
from app.web.refusal import Refusal

FloatArray = NDArray[np.float64]

LAYER_CHOICES = (*(str(i) for i in range(LAYERS)), "all")
DECIMALS = 4  # what the answer rounds attention and scores to


@dataclass(frozen=True)
class RealAttention:
    """The model on one sentence: its pieces, the chosen layers' attention, each relation's scores."""

    pieces: Pieces
    layers: list[int]
    attention: FloatArray  # (len(layers), heads, n, n), rounded to DECIMALS; rows sum to 1
    relations: list[RealRelationFit]


def attended(pieces: Pieces, layers: list[int], maps: NDArray[np.floating[Any]]) -> RealAttention:
    """The answer on a sentence's pieces from its attention ``maps`` (L, h, n, n): the chosen layers' maps
    rounded to DECIMALS, and every head's scores on figure 1's relations."""
    maps = maps.astype(np.float64)  # rounded below in float64
    per_word, as_given = word_attentions(maps, pieces)  # (L, h, W, W) each: renormalised, markers kept
    relations = []
    for name, pairs in relation_targets(pieces.words).items():
        if not pairs:
            relations.append(RealRelationFit(name, pairs, None, None))
            continue
        scores = np.round(relation_scores(per_word, pairs), DECIMALS)  # (L, h)
        with_markers = np.round(relation_scores(as_given, pairs), DECIMALS)  # (L, h)
        relations.append(RealRelationFit(name, pairs, scores, with_markers))
    attention = np.round(maps[layers], DECIMALS)  # (len(layers), h, n, n)
    return RealAttention(pieces=pieces, layers=layers, attention=attention, relations=relations)


def parse_layer(value: str) -> list[int]:
    """ "0" … "5" -> [that layer]; "all" -> [0, …, 5]; anything else (" 1", "ALL") is a Refusal naming the
    choices, exactly as the OpenAPI document's enum of LAYER_CHOICES says."""
    if value == "all":
        return list(range(LAYERS))
    if value in LAYER_CHOICES:
        return [int(value)]
    valid = ", ".join(LAYER_CHOICES[:-1])
    raise Refusal(f"layer must be one of {valid} or all (got {value!r})")
