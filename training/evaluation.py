"""How the trained models do on held-out data, measured with the numpy models the server runs.

The training commands write these figures into the records the page shows (relations_curve.json,
translator_record.json); the tests measure the committed weights the same way. Serving never imports this.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

import numpy as np
from numpy.typing import NDArray

from app.core.attention import multi_head_attention
from app.core.borrowing import own_pairs, relation_scores
from app.models.heads import Layer
from app.models.relations import RELATIONS, analyse, features
from app.models.translator import BOS, Translator
from app.models.verdicts import every_relation_has_its_own_head, serves_every_relation

FloatArray = NDArray[np.float64]
MISSES_KEPT = 8  # held-out pairs translated wrongly, kept in the record as examples


# ---- figure 1: the relation heads --------------------------------------------------------------------------


def evaluate(
    layer: Layer, heads: int, held_out: list[list[str]], field_codes: dict[str, NDArray[np.float64]]
) -> dict[str, Any]:
    """Per relation and head, the score (app.core.borrowing.relation_scores: the weight a word puts on all of
    its partners together) averaged over every word with partners in the held-out sentences (numpy
    inference).

    Two ways: over all of a relation's pairs, and under ``own`` over only the pairs no other relation claims
    (app.core.borrowing.own_pairs), so that a head serving grammar earns nothing for meaning on a pair that
    is both. ``own["words"]`` and ``words`` count the words each average runs over.
    """
    sums = {name: np.zeros(heads) for name in RELATIONS}
    counts = dict.fromkeys(RELATIONS, 0)
    own_sums = {name: np.zeros(heads) for name in RELATIONS}
    own_counts = dict.fromkeys(RELATIONS, 0)
    diversity = []
    for words in held_out:
        analysis = analyse(words)
        x = features(analysis, field_codes)
        w = multi_head_attention(x, layer.w_q, layer.w_k, layer.w_v, heads).stages.weights
        for name in RELATIONS:
            for pairs, total, count in (
                (analysis.targets[name], sums, counts),
                (own_pairs(name, analysis.targets), own_sums, own_counts),
            ):
                if pairs:
                    queries = len({i for i, _ in pairs})
                    total[name] += relation_scores(w, pairs) * queries
                    count[name] += queries
        diversity.append(head_spread(w))
    return {
        **_best(sums, counts),
        "words": counts,
        "own": {**_best(own_sums, own_counts), "words": own_counts},
        "head_spread": float(np.mean(diversity)) if heads > 1 else 0.0,
    }


def sentence_scores(
    layer: Layer,
    heads: int,
    words: list[str],
    field_codes: dict[str, NDArray[np.float64]],
    targets: dict[str, list[tuple[int, int]]] | None = None,
) -> dict[str, list[float]]:
    """{relation: [score of head k]} on one sentence, for every relation with pairs: the rules' pairs, or
    ``targets`` when given (pairs written by hand, say); the layer's inputs always come from the rules."""
    analysis = analyse(words)
    x = features(analysis, field_codes)
    w = multi_head_attention(x, layer.w_q, layer.w_k, layer.w_v, heads).stages.weights
    pairs = targets if targets is not None else analysis.targets
    return {name: relation_scores(w, pairs[name]).tolist() for name in RELATIONS if pairs.get(name)}


def story(
    layers: dict[int, Layer],
    sentences: list[list[str]],
    field_codes: dict[str, NDArray[np.float64]],
    targets: list[dict[str, list[tuple[int, int]]]] | None = None,
) -> dict[str, Any]:
    """How often figure 1's story holds (app.models.verdicts): at 3 heads every relation a sentence has is
    served by a head of its own, and at 1 head the lone head serves them all. ``layers`` holds the layers
    for h = 1 and 3; ``targets``, when given, the pairs to score each sentence on (default: the rules')."""
    own = lone = holds = 0
    for k, words in enumerate(sentences):
        pairs = targets[k] if targets is not None else None
        three = sentence_scores(layers[3], 3, words, field_codes, pairs)
        one = sentence_scores(layers[1], 1, words, field_codes, pairs)
        own_heads = every_relation_has_its_own_head(three)
        one_serves = serves_every_relation(one)
        own += own_heads
        lone += one_serves
        holds += own_heads and not one_serves
    n = max(len(sentences), 1)
    return {
        "sentences": len(sentences),
        "own_head_at_3": own / n,
        "one_head_serves_all": lone / n,
        "story_holds": holds / n,
    }


def meaning_overlap(sentences: list[list[str]]) -> float:
    """The share of meaning pairs that are also grammar or position pairs, by the rules."""
    total = shared = 0
    for words in sentences:
        targets = analyse(words).targets
        others = set(targets["grammar"]) | set(targets["position"])
        total += len(targets["meaning"])
        shared += sum(pair in others for pair in targets["meaning"])
    return shared / max(total, 1)


def _best(sums: dict[str, NDArray[np.float64]], counts: dict[str, int]) -> dict[str, Any]:
    """Per relation: every head's mean score, the best head and its score."""
    per_head = {name: (sums[name] / max(counts[name], 1)).tolist() for name in RELATIONS}
    return {
        "per_head": per_head,
        "best_head": {name: int(np.argmax(s)) for name, s in per_head.items()},
        "best_score": {name: float(max(s)) for name, s in per_head.items()},
    }


def head_spread(weights: NDArray[np.float64]) -> float:
    """How differently the heads look: the mean total-variation distance between two heads' attention rows.

    0 means every head asks the same question (identical rows); 1 means two heads never look at the same
    token. Averaged over all pairs of heads and all query rows.
    """
    h = weights.shape[0]
    if h < 2:
        return 0.0
    distances = [
        0.5 * np.abs(weights[a] - weights[b]).sum(-1).mean() for a in range(h) for b in range(a + 1, h)
    ]
    return float(np.mean(distances))


# ---- figure 4: the translator ------------------------------------------------------------------------------


def alignment_hits(cross: FloatArray, alignment: tuple[tuple[int, ...], ...]) -> list[bool]:
    """For each aligned French word, whether the cross-attention's maximum falls on one of its sources.

    ``cross`` is (T, S): row t is the attention of the step that wrote French word t (its input is the word
    before, or <s>). Rows beyond the alignment (the </s> step) and inserted words are skipped.
    """
    return [int(np.argmax(cross[t])) in sources for t, sources in enumerate(alignment) if sources]


class AlignedPair(Protocol):
    """What ``measure`` needs of a pair (``app.models.parallel_corpus.Pair`` is one)."""

    @property
    def english(self) -> tuple[str, ...]: ...
    @property
    def french(self) -> tuple[str, ...]: ...
    @property
    def alignment(self) -> tuple[tuple[int, ...], ...]: ...


def measure(translator: Translator, pairs: Sequence[AlignedPair]) -> dict[str, Any]:
    """Exact match of greedy decoding, and per decoder layer the alignment of the head-averaged
    cross-attention under teacher forcing on the reference, over ``pairs``; the best layer by alignment,
    and the first few pairs translated wrongly."""
    exact = 0
    misses: list[dict[str, str]] = []
    layers, heads = translator.decoder_layers, translator.heads
    hits: list[list[bool]] = [[] for _ in range(layers)]
    head_hits: list[list[list[bool]]] = [[[] for _ in range(heads)] for _ in range(layers)]
    bos = translator.target_index[BOS]
    for pair in pairs:
        written = translator.translate(list(pair.english)).target
        exact += written == list(pair.french)
        if written != list(pair.french) and len(misses) < MISSES_KEPT:
            misses.append(
                {
                    "source": " ".join(pair.english),
                    "reference": " ".join(pair.french),
                    "translation": " ".join(written),
                }
            )
        encoding = translator.encode(translator.source_ids(list(pair.english)))
        ids = [bos] + [translator.target_index[w] for w in pair.french]
        cross = translator.forward(encoding, ids).cross_attention  # (layers, h, T, S)
        for layer in range(layers):
            hits[layer] += alignment_hits(cross[layer].mean(axis=0), pair.alignment)  # (h, T, S) -> (T, S)
            for head in range(heads):
                head_hits[layer][head] += alignment_hits(cross[layer, head], pair.alignment)
    per_layer = [float(np.mean(h)) for h in hits]
    best = int(np.argmax(per_layer))
    return {
        "heldout_pairs": len(pairs),
        "exact_match": exact / len(pairs),
        "aligned_words": len(hits[0]),
        "alignment_by_layer": per_layer,
        "alignment_by_head": [[float(np.mean(h)) for h in layer] for layer in head_hits],
        "best_layer": best,
        "alignment": per_layer[best],
        "misses": misses,
    }
