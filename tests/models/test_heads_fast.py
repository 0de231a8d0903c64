"""The fast paths of figure 1's model against plain, readable computations of the same numbers, compared
exactly (==): the weights against app.core.attention's stage-by-stage layer, the relation scores, shared pairs
and own scores against loops over the pairs (to the last bits), the meaning cues against a walk outwards from
each word, and the cached input rows against token_row."""

import random

import numpy as np
import pytest

from app.core.attention import multi_head_attention
from app.core.borrowing import BORROWED, Claims, borrowing
from app.core.masks import MASK_MODES
from app.models.heads import VALID_HEADS, RelationHeads
from app.models.relations import Token, analyse, cue_strength, features, named_cue, sense_cues
from training.relation_corpus import training_sentences

UNKNOWN = ["glorpy", "zibbets", "snurfling", "Zorblat", "flarbs", "crumbly", "doesn't", "they're"]


MODEL = "relation heads"  # what the `model` fixture (tests/models/conftest.py) hands these tests


@pytest.fixture(scope="module")
def sentences() -> list[list[str]]:
    """Sentences of 1 to 64 words: training sentences strung together and cut, and random words from their
    vocabulary with a few unknown ones."""
    rng = random.Random(17)
    base = training_sentences(200) + [
        "the river bank was steep".split(),
        "the bat flew out of the cave and the dog barked".split(),
    ]
    vocabulary = sorted({w for s in base for w in s}) + UNKNOWN
    chosen = []
    for k in range(120):
        length = rng.randint(1, 64)
        if k % 2:
            chosen.append([rng.choice(vocabulary) for _ in range(length)])
        else:
            words: list[str] = []
            while len(words) < length:
                words += rng.choice(base)
            chosen.append(words[:length])
    return chosen


def walked_cue(tokens: tuple[Token, ...], grammar: list[tuple[int, int]], i: int) -> int | None:
    """Word i's cue found by hand: an adjective's described noun (the nearer of two), whatever it evokes;
    otherwise a walk outwards from i, right before left, that keeps the first word of the highest strength
    it meets, a verb's object counting above every other word, then a word the cue lists name for word i,
    and a noun modifying the next word (a noun as strong a cue) below it; failing that, for a noun, the noun
    right before it that modifies it."""
    senses, word = tokens[i].fields, tokens[i].text
    if tokens[i].pos == "adj":
        described = [j for a, j in grammar if a == i and tokens[j].tag == "noun"]
        if described:
            return min(described, key=lambda j: (abs(j - i), -j))

    def modifies_an_equal(j: int) -> bool:
        k = j + 1
        return (
            (j, k) in grammar
            and tokens[j].pos == "noun"
            and k < len(tokens)
            and tokens[k].pos == "noun"
            and cue_strength(tokens[k], senses, word) == cue_strength(tokens[j], senses, word)
        )

    def is_object(j: int) -> bool:
        return (
            tokens[i].pos == "verb"
            and tokens[j].tag == "noun"
            and j > i
            and (j, i) in grammar
            and (i, j) not in grammar
        )

    best, best_key = None, (False, -1.0, False, False)
    for d in range(1, len(tokens)):
        for j in (i + d, i - d):
            if 0 <= j < len(tokens):
                strength = cue_strength(tokens[j], senses, word)
                named = named_cue(tokens[j], senses, word)
                key = (is_object(j), strength or 0.0, named, not modifies_an_equal(j))
                if strength is not None and key > best_key:
                    best, best_key = j, key
    kind = i - 1
    if best is None and tokens[i].pos == "noun" and kind >= 0 and (kind, i) in grammar:
        return kind if tokens[kind].tag == tokens[i].tag == "noun" else None
    return best


def looped_score(weights: np.ndarray, pairs: list) -> float:
    """One head's score by loops: per word with partners, its weight on them all; then the mean."""
    partners: dict[int, list[int]] = {}
    for i, j in pairs:
        partners.setdefault(i, []).append(j)
    per_word = [sum(weights[i, j] for j in js) for i, js in partners.items()]
    return sum(per_word) / len(per_word)


def looped_borrowing(name: str, targets: dict, head_weights: np.ndarray, score: float) -> tuple:
    """Shared pairs (with the first other relation claiming each), own score and borrowed flag, by loops."""
    claimed: dict = {}
    for other, pairs in targets.items():
        if other != name:
            for pair in pairs:
                claimed.setdefault(pair, other)
    shared = [(pair, claimed[pair]) for pair in targets[name] if pair in claimed]
    own = [pair for pair in targets[name] if pair not in claimed]
    if not shared or not own:
        return shared, None, False
    own_score = looped_score(head_weights, own)
    return shared, pytest.approx(own_score, rel=1e-12), score - own_score >= BORROWED


def test_the_weights_are_the_stage_by_stage_layers_bit_for_bit(model: RelationHeads, sentences: list) -> None:
    for k, words in enumerate(sentences):
        _, x = model.inputs(words)
        heads = VALID_HEADS[k % len(VALID_HEADS)]
        for trained in (True, False):
            layer = model.layers[(heads, "trained" if trained else "init")]
            for mask in MASK_MODES:
                expected = multi_head_attention(x, layer.w_q, layer.w_k, layer.w_v, heads, mask=mask)
                got = model.weights(x, heads, mask, trained)
                assert got.tobytes() == expected.stages.weights.tobytes(), (words, heads, mask, trained)


def test_relation_fits_match_loops_over_the_pairs(model: RelationHeads, sentences: list) -> None:
    for k, words in enumerate(sentences):
        heads = (3, 12, 1, 24)[k % 4]
        mask = MASK_MODES[k % 3]
        result = model.attend(words, heads, mask)
        analysis = analyse(words)
        weights = result.weights
        for fit in result.relations:
            pairs = analysis.targets[fit.name]
            assert fit.targets == pairs
            if not pairs:
                assert (fit.head_scores, fit.best_head, fit.score) == (None, None, None)
                continue
            # by loops the sums are added up in another order and may differ in the last bits
            per_head = fit.head_scores.tolist()
            looped = [looped_score(weights[h], pairs) for h in range(heads)]
            assert per_head == pytest.approx(looped, rel=1e-12)
            assert fit.best_head == per_head.index(max(per_head)) and fit.score == max(per_head)
            shares = fit.borrowing
            expected = looped_borrowing(fit.name, analysis.targets, weights[fit.best_head], fit.score)
            assert (shares.shared_pairs, shares.own_score, shares.borrowed) == expected


def test_borrowing_with_claims_made_once_is_borrowing_by_loops() -> None:
    weights = np.random.default_rng(3).dirichlet(np.ones(5), size=5)  # (T, T), rows sum to 1
    targets = {"meaning": [(2, 1), (1, 0)], "grammar": [(2, 1), (0, 2), (3, 2)], "position": [(1, 0), (2, 1)]}
    claims = Claims(targets)
    for name in targets:
        alone = borrowing(name, targets, weights, 0.5)
        assert alone == borrowing(name, targets, weights, 0.5, claims)
        expected = looped_borrowing(name, targets, weights, 0.5)
        assert (alone.shared_pairs, alone.own_score, alone.borrowed) == expected
    assert borrowing("grammar", targets, weights, 0.5).shared_pairs == [((2, 1), "meaning")]
    assert borrowing("meaning", targets, weights, 0.5).own_score is None  # every pair shared


def test_every_ambiguous_word_takes_the_cue_a_walk_outwards_finds(sentences: list) -> None:
    for words in sentences:
        analysis = analyse(words)
        tokens, grammar = analysis.tokens, analysis.targets["grammar"]
        walked = [(i, walked_cue(tokens, grammar, i)) for i, t in enumerate(tokens) if t.ambiguous]
        assert sense_cues(tokens, grammar) == [(i, j) for i, j in walked if j is not None]


def test_the_remembered_rows_are_the_words_own_rows(model: RelationHeads, sentences: list) -> None:
    for words in sentences[:30]:
        analysis, x = model.inputs(words)
        assert x.tobytes() == features(analysis, model.field_codes).tobytes()
        assert x.flags.writeable  # the sentence's own matrix, not a shared one
