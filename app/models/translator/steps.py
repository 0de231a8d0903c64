"""What the translator's decoder gives back: one step's logits and attention, a whole prefix's at once, and a
translation (the words written and every step)."""

from __future__ import annotations

from dataclasses import dataclass, field

from app.core.attention import FloatArray

MAX_STEPS = 80  # the longest translation written, whatever the source


@dataclass(frozen=True)
class Step:
    """One decoding step at position t: next-token logits (V_tgt,), masked self-attention (layers, h, t + 1)
    over the decoder inputs so far, and cross-attention (layers, h, S) over the source."""

    logits: FloatArray
    self_attention: FloatArray
    cross_attention: FloatArray


@dataclass(frozen=True)
class Forward:
    """A whole target prefix at once: logits (T, V_tgt), self-attention (layers, h, T, T) with the future
    masked, cross-attention (layers, h, T, S)."""

    logits: FloatArray
    self_attention: FloatArray
    cross_attention: FloatArray


@dataclass(frozen=True)
class Translation:
    """Greedy decoding of one source: the words written and every step's attention."""

    source: list[str]
    target: list[str]
    steps: list[Step] = field(repr=False)
