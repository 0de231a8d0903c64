"""How the trained models do on held-out data, measured with the numpy models the server runs.

The training commands write these figures into the records the page shows (relations_curve.json,
translator_record.json); the tests measure the committed weights the same way. Serving never imports this.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np
from numpy.typing import NDArray

from app.core.attention import multi_head_attention
from app.core.borrowing import own_pairs, relation_scores
from app.models.heads import Layer
from app.models.relations import RELATIONS, analyse, features
from app.models.translator.network import Translator
from app.models.translator.omissions import CHECKED_KINDS, CONTENT_KINDS, UNREAD_BELOW, readings, word_kinds
from app.models.translator.spelling import ELISION, spell
from app.models.translator.words import BOS, TRAINED_MAX_WORDS
from app.models.verdicts import every_relation_has_its_own_head, serves_every_relation
from training.french_vocabulary import ALLOWED_LINKS, english_kinds

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


# ---- the generator's translator ----------------------------------------------------------------------------


def alignment_hits(cross: FloatArray, alignment: tuple[tuple[int, ...], ...]) -> list[bool]:
    """For each aligned French word, whether the cross-attention's maximum falls on one of its sources.

    ``cross`` is (T, S): row t is the attention of the step that wrote French word t (its input is the word
    before, or <s>). Rows beyond the alignment (the </s> step) and inserted words are skipped.
    """
    return [int(np.argmax(cross[t])) in sources for t, sources in enumerate(alignment) if sources]


class AlignedPair(Protocol):
    """What ``measure`` needs of a pair (``training.parallel_phrases.Pair`` is one)."""

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
        reference = spell(pair.french)  # what a reader reads; the network writes pair.french
        exact += written == reference
        if written != reference and len(misses) < MISSES_KEPT:
            misses.append(
                {
                    "source": " ".join(pair.english),
                    "reference": " ".join(reference),
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


# ---- figure 5: what the translation never read -------------------------------------------------------------

UNREAD_TRIED = (0.3, 0.4, 0.5, 0.6, 0.7)  # thresholds the record measures beside UNREAD_BELOW


def joined_sentences(
    sources: Sequence[Sequence[str]], count: int, most: int, seed: int = 0
) -> list[list[str]]:
    """``count`` longer sentences, each two or three of ``sources`` joined by "and" or "but", at most ``most``
    words: sentences of known words the translator was never trained on the shape of, where it sometimes stops
    early or drops a word (what the check for unread words is measured on)."""
    rng = np.random.default_rng(seed)
    joined: list[list[str]] = []
    while len(joined) < count:
        parts = [
            list(sources[k]) for k in rng.choice(len(sources), size=int(rng.integers(2, 4)), replace=False)
        ]
        words = parts[0]
        for part in parts[1:]:
            words = words + [str(rng.choice(["and", "and", "but"]))] + part
        if len(words) <= most:
            joined.append(words)
    return joined


def omitted(source: Sequence[str], target: Sequence[str], links: dict[str, set[str]]) -> list[bool]:
    """For each source word, whether the target holds none of the French words the lexicon lets it translate
    to (``links``: English word -> French tokens): a word the translation left out."""
    written = set(target)
    return [not (links.get(word, set()) & written) for word in source]


def unread_record(
    translator: Translator,
    layer: int,
    kinds: dict[str, frozenset[str]],
    right: Sequence[AlignedPair],
    joined: Sequence[Sequence[str]],
    links: dict[str, set[str]],
) -> dict[str, Any]:
    """How the check for unread words (app.models.translator.omissions.unread) does, at its threshold
    UNREAD_BELOW and at UNREAD_TRIED: on the ``joined`` sentences, how many of the content words the
    translation left out (``omitted``) it flags; and of the pairs of ``right`` translated exactly right, how
    many it flags a word of. A form of "be" written in the wrong person is not a content word: it is not
    counted as left out."""
    thresholds = sorted({UNREAD_BELOW, *UNREAD_TRIED})

    def content_readings(words: Sequence[str]) -> tuple[list[str], FloatArray]:
        result = translator.translate(list(words))
        is_content = np.array([bool(kinds.get(w, frozenset()) & CONTENT_KINDS) for w in words])
        read = readings(result, layer, kinds)
        return result.target, np.where(is_content, read, np.inf)  # a word of no content kind is never flagged

    right_count = 0
    flagged_right = dict.fromkeys(thresholds, 0)
    for pair in right:
        target, read = content_readings(pair.english)
        if target == spell(pair.french):
            right_count += 1
            for t in thresholds:
                flagged_right[t] += bool((read < t).any())
    left_out = 0
    caught = dict.fromkeys(thresholds, 0)
    examples: list[dict[str, Any]] = []
    for words in joined:
        target, read = content_readings(words)
        missing = np.array(omitted(words, target, links)) & np.isfinite(read)
        left_out += int(missing.sum())
        for t in thresholds:
            caught[t] += int((missing & (read < t)).sum())
        flags = [w for w, r in zip(words, read, strict=True) if r < UNREAD_BELOW]
        if flags and len(examples) < 3:
            examples.append({"source": " ".join(words), "translation": " ".join(target), "unread": flags})
    return {
        "threshold": UNREAD_BELOW,
        "kinds": list(CHECKED_KINDS),
        "joined_sentences": len(joined),
        "left_out": left_out,
        "caught": caught[UNREAD_BELOW],
        "right_translations": right_count,
        "right_flagged": flagged_right[UNREAD_BELOW],
        "by_threshold": [
            {"threshold": t, "caught": caught[t], "right_flagged": flagged_right[t]} for t in thresholds
        ],
        "examples": examples,
    }


JOINED = 3000  # the joined sentences the check for unread words is measured on


def unread_measured(translator: Translator, best_layer: int, right: Sequence[AlignedPair]) -> dict[str, Any]:
    """The record's "vocabulary_kinds" (training.french_vocabulary.english_kinds) and "unread": how the check
    for words the translation never read does (``unread_record``) on JOINED sentences made of held-out ones,
    and on the pairs of ``right`` it translates right (the record's held-out and novel pairs)."""
    vocabulary_kinds = english_kinds()
    kinds = word_kinds(vocabulary_kinds)
    links: dict[str, set[str]] = {}
    for english, french in ALLOWED_LINKS:  # and the form spelling gives it before a vowel ("ne": "n'")
        links.setdefault(english, set()).update({french, ELISION.get(french, french)})
    joined = joined_sentences([p.english for p in right], JOINED, TRAINED_MAX_WORDS)
    found = unread_record(translator, best_layer, kinds, right, joined, links)
    return {"vocabulary_kinds": vocabulary_kinds, "unread": found}


# ---- figure 5: everyday sentences written blind ------------------------------------------------------------

EVERYDAY = Path(__file__).resolve().parent.parent / "tests" / "models" / "translator_everyday.txt"


@dataclass(frozen=True)
class EverydaySet:
    """A set of everyday sentences written blind to the translator's vocabulary. ``blind``: scored once, after
    the training, with nothing of the grammar grown on it; a set the grammar grew on afterwards is no longer
    blind."""

    name: str
    path: Path
    blind: bool


# Every set of everyday sentences, in the order they were written: each new set is written while the grammar
# changes, scored once when the translator is trained, and becomes a set the grammar may grow on after that.
EVERYDAY_SETS: tuple[EverydaySet, ...] = (
    EverydaySet("first", EVERYDAY, blind=False),
    EverydaySet("second", EVERYDAY.with_name("translator_everyday_second.txt"), blind=False),
    EverydaySet("third", EVERYDAY.with_name("translator_everyday_third.txt"), blind=False),
    EverydaySet("fourth", EVERYDAY.with_name("translator_everyday_fourth.txt"), blind=False),
    EverydaySet("fifth", EVERYDAY.with_name("translator_everyday_fifth.txt"), blind=False),
    EverydaySet("sixth", EVERYDAY.with_name("translator_everyday_sixth.txt"), blind=False),
    EverydaySet("seventh", EVERYDAY.with_name("translator_everyday_seventh.txt"), blind=True),
)
# The next set, written blind and sealed: it joins EVERYDAY_SETS, as the blind one, when the translator is
# next trained on a changed grammar, and nothing scores it before.
SEALED_EVERYDAY = EVERYDAY.with_name("translator_everyday_eighth.txt")


def everyday_sentences(path: Path = EVERYDAY) -> list[tuple[list[str], list[list[str]]]]:
    """The everyday sentences written for the test blind to the translator's vocabulary: each English
    sentence's words, and its French references (one or more), as tokens."""
    lines = path.read_text(encoding="utf-8").splitlines()
    rows = [line.split(" | ") for line in lines if line.strip() and not line.startswith("#")]
    return [(english.split(), [french.split() for french in references]) for english, *references in rows]


def everyday_measured(translator: Translator) -> dict[str, Any]:
    """How the translator does on each set of everyday sentences (EVERYDAY_SETS), in their order, for the
    record's "everyday_sets"."""
    root = EVERYDAY.parent.parent.parent
    return {
        "everyday_sets": [
            {
                "name": s.name,
                "file": s.path.relative_to(root).as_posix(),
                "blind": s.blind,
                **everyday_set(translator, s.path),
            }
            for s in EVERYDAY_SETS
        ]
    }


def everyday_set(translator: Translator, path: Path) -> dict[str, Any]:
    """How the translator does on one set of everyday sentences: how many it writes as one of the references
    (token for token), how many it refuses for a word it does not know, and those words."""
    sentences = everyday_sentences(path)
    known = set(translator.source_index)
    unknown = [[w for w in english if w not in known] for english, _ in sentences]
    right = [
        english
        for (english, references), missing in zip(sentences, unknown, strict=True)
        if not missing and translator.translate(english).target in references
    ]
    return {
        "sentences": len(sentences),
        "right": len(right),
        "refused": sum(bool(m) for m in unknown),
        "unknown_words": sorted({w for m in unknown for w in m}),
        "right_sentences": [" ".join(e) for e in right],
    }
