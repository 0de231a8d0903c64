"""The translator's check for words it left out: the content words of the source that no step of a
translation read, judged from the steps' cross-attention at the best layer."""

from __future__ import annotations

import numpy as np

from app.core.attention import FloatArray
from app.models.translator.steps import Translation

# A content word no step read: the most weight that any one step's cross-attention (the best layer, its heads
# averaged) put on it stays below this. Chosen from the training record's "unread" measurement, which
# train_translator --measure writes: how many of the words left out it catches and how many right
# translations it flags, at this threshold and at others (the record keeps them all).
UNREAD_BELOW = 0.5
# The kinds the check reads, in the order the page names them: words whose meaning a translation loses when no
# step reads them ("yesterday" too: a time word opening a clause was left out without a word said)
CHECKED_KINDS: tuple[str, ...] = ("noun", "verb", "adjective", "number", "time", "negation")
CONTENT_KINDS = frozenset(CHECKED_KINDS)
TIME_OPENERS = frozenset({"preposition", "determiner"})  # the kinds of word a time phrase may begin with


def word_kinds(by_kind: dict[str, list[str]]) -> dict[str, frozenset[str]]:
    """{kind: [words]} (the record's "vocabulary_kinds") -> {word: its kinds}."""
    kinds: dict[str, frozenset[str]] = {}
    for kind, words in by_kind.items():
        for word in words:
            kinds[word] = kinds.get(word, frozenset()) | {kind}
    return kinds


def readings(translation: Translation, layer: int, kinds: dict[str, frozenset[str]]) -> FloatArray:
    """For each source word, the most weight any one step of ``translation`` put on it: the step's
    cross-attention in ``layer``, its heads averaged (zeros when nothing was written). A noun right before
    another noun is read with it, as one ("bus" in "bus drivers" -> "chauffeurs", "apple" in "apple trees" ->
    "pommiers"), and so is a time word with the time word, preposition or determiner right before it ("on
    friday" -> "vendredi", "last summer" -> "l' été dernier"): both take the larger of the two. ``kinds`` maps
    a word to its kinds (the record's)."""
    source = translation.source
    if not translation.steps:
        return np.zeros(len(source))
    # every step's (layers, heads, S) -> (T, S) for the layer, its heads averaged -> the most a step gave
    read = np.stack([step.cross_attention[layer].mean(axis=0) for step in translation.steps]).max(axis=0)
    noun = [("noun" in kinds.get(w, ())) for w in source]
    time = [("time" in kinds.get(w, ())) for w in source]
    opens = [time[i] or bool(kinds.get(w, frozenset()) & TIME_OPENERS) for i, w in enumerate(source)]
    for i in range(len(source) - 1):
        if (noun[i] and noun[i + 1]) or (opens[i] and time[i + 1]):
            read[i] = read[i + 1] = max(read[i], read[i + 1])
    return read


def unread(translation: Translation, layer: int, kinds: dict[str, frozenset[str]]) -> list[int]:
    """The source positions of the content words (CONTENT_KINDS) that no step of ``translation`` read: their
    ``readings`` are below UNREAD_BELOW."""
    read = readings(translation, layer, kinds)
    return [
        i
        for i, word in enumerate(translation.source)
        if kinds.get(word, frozenset()) & CONTENT_KINDS and read[i] < UNREAD_BELOW
    ]
