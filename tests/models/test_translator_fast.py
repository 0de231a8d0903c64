"""The translator's fast decoding (FastDecoder, what ``translate`` serves) against the readable one
(``translate_stepwise``: ``encode`` and ``step`` through app/core/attention.py): the same tokens and the same
attention maps, on a hundred sentences of every length up to the longest the translator was trained on."""

import itertools

import numpy as np
import pytest

from app.models.translator.committed import TranslatorModel
from app.models.translator.network import FLOAT32_MAPS
from app.models.translator.steps import MAX_STEPS, Translation
from app.models.translator.words import TRAINED_MAX_WORDS
from app.web.refusal import UnknownWords
from training.parallel_corpus import HELDOUT_SEED, NOVEL_SEED, distinct_pairs

# Measured: bit for bit equal on all 2,000 held-out and 1,000 novel pairs on the development machine; the
# tolerance leaves room for a BLAS that splits a fused product differently, nothing more.
ATTENTION_TOLERANCE = 1e-12
LOGIT_TOLERANCE = 1e-10


MODEL = "translator"  # what the `model` fixture (tests/models/conftest.py) hands these tests


def longest_sentences(pool: list[list[str]], count: int, length: int) -> list[list[str]]:
    """``count`` distinct sentences of exactly ``length`` words: held-out sentences joined by "and", cut."""
    result: list[list[str]] = []
    for start in range(count):
        words: list[str] = []
        for sentence in pool[start * 7 :]:
            words += [*sentence, "and"]
            if len(words) >= length:
                break
        result.append(words[:length])
    return result


@pytest.fixture(scope="module")
def sentences(model: TranslatorModel) -> list[list[str]]:
    """60 sentences of the held-out sets' streams (their seeds, drawn without the training set's exclusion,
    which only the accuracy figures need), 20 of the novel one, five 3-word and every 30-word one among them,
    and 20 more of 30 words made by joining sentences. (The development machine checked all 3,000 held-out
    pairs.)"""
    heldout = [list(p.english) for p in distinct_pairs(600, HELDOUT_SEED)]
    novel = [list(p.english) for p in distinct_pairs(20, NOVEL_SEED, novel=True)]
    longest = [s for s in heldout if len(s) == TRAINED_MAX_WORDS]
    shortest = [s for s in heldout if len(s) == 3][:5]
    return heldout[:60] + novel + shortest + longest + longest_sentences(heldout, 20, TRAINED_MAX_WORDS)


def assert_same(fast: Translation, reference: Translation) -> None:
    assert fast.source == reference.source
    assert fast.target == reference.target
    assert len(fast.steps) == len(reference.steps)
    for ours, theirs in zip(fast.steps, reference.steps, strict=True):
        assert ours.self_attention.shape == theirs.self_attention.shape
        assert ours.cross_attention.shape == theirs.cross_attention.shape
        np.testing.assert_allclose(
            ours.self_attention, theirs.self_attention, rtol=0, atol=ATTENTION_TOLERANCE
        )
        np.testing.assert_allclose(
            ours.cross_attention, theirs.cross_attention, rtol=0, atol=ATTENTION_TOLERANCE
        )
        np.testing.assert_allclose(ours.logits, theirs.logits, rtol=0, atol=LOGIT_TOLERANCE)


def test_the_sample_reaches_every_length(sentences: list[list[str]]) -> None:
    lengths = {len(s) for s in sentences}
    assert len(sentences) >= 100 and {3, TRAINED_MAX_WORDS} <= lengths and len(lengths) >= 20


def test_fast_decoding_equals_the_readable_one(model: TranslatorModel, sentences: list[list[str]]) -> None:
    t = model.translator
    worst = 0.0
    for words in sentences:
        fast, reference = t.translate(words), t.translate_stepwise(words)
        assert_same(fast, reference)
        for ours, theirs in zip(fast.steps, reference.steps, strict=True):
            worst = max(
                worst,
                float(np.abs(ours.self_attention - theirs.self_attention).max()),
                float(np.abs(ours.cross_attention - theirs.cross_attention).max()),
            )
    assert worst <= ATTENTION_TOLERANCE


@pytest.mark.parametrize("max_steps", [1, 3, MAX_STEPS + 10])
def test_a_step_limit_and_a_longer_source_than_the_position_table(
    model: TranslatorModel, max_steps: int
) -> None:
    """A limit cuts both decodings at the same step; past MAX_STEPS positions (source or target), the fast
    path's table of positions grows and still equals the reference's."""
    t = model.translator
    long_source = ("the dog saw the cat and " * 16).split()[: MAX_STEPS + 5]
    for words in ("the river bank was steep".split(), long_source):
        assert_same(t.translate(words, max_steps), t.translate_stepwise(words, max_steps))


def test_the_maps_of_each_step_are_its_own(model: TranslatorModel) -> None:
    """The steps view one array per sentence: each step's maps are the right shape and sum to 1, and a
    second translation does not overwrite the first's."""
    t = model.translator
    first = t.translate("a farmer sold the bat near the cave".split())
    kept = [(s.self_attention.copy(), s.cross_attention.copy()) for s in first.steps]
    t.translate("she saw the old crane on the dock".split())
    for position, (step, (self_map, cross_map)) in enumerate(zip(first.steps, kept, strict=True)):
        assert step.self_attention.shape == (t.decoder_layers, t.heads, position + 1)
        assert step.cross_attention.shape == (t.decoder_layers, t.heads, 8)
        np.testing.assert_array_equal(step.self_attention, self_map)
        np.testing.assert_array_equal(step.cross_attention, cross_map)
        np.testing.assert_allclose(step.self_attention.sum(-1), 1.0, atol=1e-12)


# ---- batched decoding (translate_many): several sentences in one pass over the weights --------------------

BATCH_SIZES = (2, 3, 7, 16, 32)
# The batched products (gemm) round differently from the lone ones (gemv), so not bit for bit: measured on
# the development machine, at most 5e-15 in an attention weight and 2e-14 in a logit.
BATCH_TOLERANCE = 1e-12


def batches(sentences: list[list[str]]) -> list[list[list[str]]]:
    """The sentences cut into batches of the sizes in BATCH_SIZES, in turn."""
    result: list[list[list[str]]] = []
    start = 0
    for size in itertools.cycle(BATCH_SIZES):
        if start >= len(sentences):
            return result
        result.append(sentences[start : start + size])
        start += size
    raise AssertionError("unreachable")


def assert_agrees(batched: Translation, lone: Translation) -> None:
    """The same words, and every step's maps and logits of the same shape and dtype and within
    BATCH_TOLERANCE; a cross-attention weight is exactly 0 where and only where the lone one is, and every
    map's rows sum to 1 (the padding of a shorter source took nothing)."""
    assert batched.source == lone.source
    assert batched.target == lone.target
    assert len(batched.steps) == len(lone.steps)
    for ours, theirs in zip(batched.steps, lone.steps, strict=True):
        for name in ("logits", "self_attention", "cross_attention"):
            a, b = getattr(ours, name), getattr(theirs, name)
            assert a.shape == b.shape and a.dtype == b.dtype, name
            np.testing.assert_allclose(a, b, rtol=0, atol=BATCH_TOLERANCE, err_msg=name)
        assert ((ours.cross_attention == 0.0) == (theirs.cross_attention == 0.0)).all()
        np.testing.assert_allclose(ours.cross_attention.sum(-1), 1.0, atol=1e-12)
        np.testing.assert_allclose(ours.self_attention.sum(-1), 1.0, atol=1e-12)


def test_batched_decoding_agrees_with_translate(model: TranslatorModel, sentences: list[list[str]]) -> None:
    """Over the hundred-odd held-out and novel sentences, shuffled so that every batch mixes source
    lengths (3 to 30 words: padded cross-attention) and translation lengths (rows leaving the batch)."""
    t = model.translator
    for seed in range(18, 118):  # the first shuffle (from 18) whose every batch mixes lengths
        shuffled = [sentences[k] for k in np.random.default_rng(seed).permutation(len(sentences))]
        groups = batches(shuffled)
        if all(len({len(words) for words in g}) > 1 for g in groups):
            break
    assert set(BATCH_SIZES) <= {len(g) for g in groups}  # the last batch may be shorter
    assert all(len({len(words) for words in g}) > 1 for g in groups)
    worst = 0.0
    for group in groups:
        for batched, words in zip(t.translate_many(group), group, strict=True):
            lone = t.translate(words)
            assert_agrees(batched, lone)
            for ours, theirs in zip(batched.steps, lone.steps, strict=True):
                worst = max(worst, float(np.abs(ours.cross_attention - theirs.cross_attention).max()))
    assert 0.0 < worst <= BATCH_TOLERANCE  # 0.0 would mean the batches never reached the batched path


def test_a_batch_of_one_is_translate_bit_for_bit(model: TranslatorModel, sentences: list[list[str]]) -> None:
    t = model.translator
    for words in sentences[:10] + sentences[-3:]:
        (batched,), lone = t.translate_many([words]), t.translate(words)
        assert batched.target == lone.target
        for ours, theirs in zip(batched.steps, lone.steps, strict=True):
            np.testing.assert_array_equal(ours.logits, theirs.logits)
            np.testing.assert_array_equal(ours.self_attention, theirs.self_attention)
            np.testing.assert_array_equal(ours.cross_attention, theirs.cross_attention)


def test_a_sentence_answers_the_same_in_any_batch(model: TranslatorModel, sentences: list[list[str]]) -> None:
    """One sentence among shorter and longer ones, first or last, in batches of 2 to 32: one answer."""
    t = model.translator
    words = "she saw the old crane on the dock".split()
    alone = t.translate(words)
    others = sentences[:40]
    for batch in ([words, others[0]], [*others[:6], words], [words, *others[5:36]], [*others[10:25], words]):
        batched = t.translate_many(batch)
        assert_agrees(batched[batch.index(words)], alone)
        for translation, other in zip(batched, batch, strict=True):
            assert translation.source == other


@pytest.mark.parametrize("max_steps", [0, 1, 3])
def test_a_step_limit_cuts_every_sentence_of_a_batch(model: TranslatorModel, max_steps: int) -> None:
    t = model.translator
    batch = [s.split() for s in ("the river bank was steep", "a farmer sold the bat near the cave", "we ran")]
    for batched, words in zip(t.translate_many(batch, max_steps), batch, strict=True):
        assert_agrees(batched, t.translate(words, max_steps))


def test_each_sentence_of_a_batch_stops_at_its_own_limit(model: TranslatorModel) -> None:
    """FastDecoder.greedy_many takes a limit per sentence: each one's answer is greedy's at that limit."""
    t = model.translator
    words = "a farmer sold the bat near the cave".split()
    ids = [t.source_ids(words)] * 5 + [t.source_ids(words[:3])]
    limits = [0, 1, 3, 5, MAX_STEPS + 10, 2]
    for (target, steps), source, limit in zip(t.fast.greedy_many(ids, limits), ids, limits, strict=True):
        reference, reference_steps = t.fast.greedy(source, limit)
        assert target == reference and len(target) <= limit
        assert_agrees(Translation(words, target, steps), Translation(words, reference, reference_steps))


def test_a_batch_refuses_what_translate_refuses(model: TranslatorModel) -> None:
    t = model.translator
    assert t.translate_many([]) == []
    with pytest.raises(UnknownWords):
        t.translate_many([["the", "dog"], ["the", "zzyzx"]])


def test_float32_decoding_writes_the_same_words_with_maps_within_its_bound(
    model: TranslatorModel, sentences: list[list[str]]
) -> None:
    """What the server answers with (``translate_many(..., float32=True)``) against the float64 decoding: the
    same words on the held-out and novel sentences, every map within FLOAT32_MAPS, alone and in batches. (The
    development machine checked all 2,000 held-out and 1,000 novel pairs alone and in batches of 16: the same
    words, 2.5e-6 and 4.2e-6 at most; a reviewer's batches reached 4.8e-6.)"""
    t = model.translator
    worst = 0.0
    for group in [sentences[:1], *batches(sentences[1:])]:
        for ours, words in zip(t.translate_many(group, float32=True), group, strict=True):
            reference = t.translate(words)
            assert ours.target == reference.target
            for a, b in zip(ours.steps, reference.steps, strict=True):
                assert a.cross_attention.dtype == np.float32
                assert a.cross_attention.shape == b.cross_attention.shape
                for name in ("self_attention", "cross_attention"):
                    difference = float(np.abs(getattr(a, name) - getattr(b, name)).max())
                    worst = max(worst, difference)
                np.testing.assert_allclose(a.cross_attention.sum(-1), 1.0, rtol=0, atol=1e-6)
    assert 0.0 < worst <= FLOAT32_MAPS
