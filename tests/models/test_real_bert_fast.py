"""all-MiniLM-L6-v2's fast path (``RealBert.attention``: float32, fused, column blocks, tabulated GELU)
against the float64 reference it replaces in the answers (``RealBert.forward``, the network as written).

Tolerances, with what bench/real_attention.py measured on 300 sentences of 1 to 40 words:

- every attention weight within FAST_TOLERANCE = 1e-5 of the reference (largest difference measured 3.3e-6),
  the same tolerance as the reference's own to transformers' BertModel; and of transformers' values
  committed in tests/models/data/real_bert_reference.npz;
- the answer's numbers, rounded to 4 decimals, differ from the reference's by at most one unit of the last
  decimal (0.02% of them do), and the scores by far less than the page's 2 decimals.

Without the optional model the tests that need it are skipped (under CI=true they fail: CI installs it).
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from app.config import get_settings
from app.models.real_bert.answer import DECIMALS
from app.models.real_bert.encoder import RealBert
from app.models.real_bert.gelu import gelu, gelu_float32
from app.models.real_bert.installed import packaged_model_dir
from app.models.real_bert.pieces import Pieces
from app.models.real_bert.relation_fit import word_attention, word_attentions
from app.models.real_bert.weights import BLOCK_COLUMNS, HEADS, LAYERS, Dense
from tests.optional import require_real_model

REFERENCE = Path(__file__).parent / "data" / "real_bert_reference.npz"
FAST_TOLERANCE = 1e-5
SENTENCES = (
    "the river bank was steep",
    "a",
    "She sold the old bat near the cave; it's 3:45 p.m.",
    "Unbelievably, the BANK by the lake was naïve about 🦇 bats and 東京.",
    "the old farmer sold the black bat near the cave and the river bank was steep so we walked along the "
    "cold water to the small town by the lake at night",
    " ".join(["unbelievably"] * 25),  # 127 pieces with [CLS] and [SEP]: near the limit of 128
)


MODEL = "real model"  # what the `model` fixture (tests/models/conftest.py) hands these tests


# ---- no model needed ---------------------------------------------------------------------------------------


def test_gelu_float32_is_the_exact_gelu_to_float32_rounding() -> None:
    x = np.linspace(-12, 12, 400_001).astype(np.float32)
    exact = np.array([0.5 * v * (1 + math.erf(v / math.sqrt(2))) for v in x.astype(np.float64)])
    got = gelu_float32(x)
    assert got.dtype == np.float32
    # float32 itself rounds GELU(12) to within 4.8e-7, GELU(2) to 1.2e-7; interpolating adds 1.4e-7 at most.
    np.testing.assert_allclose(got, exact, rtol=0, atol=1e-6)
    small = np.abs(x) <= 2
    np.testing.assert_allclose(got[small], exact[small], rtol=0, atol=3e-7)
    np.testing.assert_allclose(got, gelu(x.astype(np.float64)), rtol=0, atol=1e-6)
    assert gelu_float32(np.array([0.0], dtype=np.float32))[0] == 0.0


@pytest.mark.parametrize("d_out", [64, 384, 1000, 1536])
def test_dense_is_one_product(d_out: int) -> None:
    rng = np.random.default_rng(d_out)
    w, b = rng.normal(size=(384, d_out)), rng.normal(size=d_out)
    x = rng.normal(size=(7, 384)).astype(np.float32)
    dense = Dense(w, b)
    assert len(dense.blocks) == math.ceil(d_out / BLOCK_COLUMNS)
    got = dense(x)
    assert got.dtype == np.float32 and got.shape == (7, d_out)
    expected = x.astype(np.float64) @ w.astype(np.float32).astype(np.float64) + b.astype(np.float32)
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-4)  # sums of 384 terms of about 1 in float32


def odd_pieces() -> Pieces:
    # [CLS] un ##bel bat , [SEP] [SEP]: a word of two pieces, a marker in the middle of nothing, a last word.
    return Pieces(
        ids=[101, 1, 2, 3, 4, 102, 102],
        tokens=["[CLS]", "un", "##bel", "bat", ",", "[SEP]", "[SEP]"],
        special=[True, False, False, False, False, True, True],
        word_index=[None, 0, 0, 1, 2, None, None],
        words=["unbel", "bat", ","],
    )


def test_word_attentions_are_word_attention_both_ways() -> None:
    pieces = odd_pieces()
    rng = np.random.default_rng(1)
    a = rng.random((LAYERS, HEADS, 7, 7))
    a /= a.sum(-1, keepdims=True)
    a[0, 0, 3] = [1, 0, 0, 0, 0, 0, 0]  # a row that gives the markers everything: 0 once renormalised
    per_word, as_given = word_attentions(a, pieces)
    np.testing.assert_allclose(per_word, word_attention(a, pieces), rtol=0, atol=1e-12)
    np.testing.assert_allclose(as_given, word_attention(a, pieces, renormalise=False), rtol=0, atol=1e-12)


# ---- the model ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("sentence", SENTENCES)
def test_fast_attention_is_the_reference(model: RealBert, sentence: str) -> None:
    ids = model.pieces(sentence).ids
    fast = model.attention(ids)
    reference = model.forward(ids).attention
    assert fast.dtype == np.float32 and fast.shape == reference.shape == (LAYERS, HEADS, len(ids), len(ids))
    np.testing.assert_allclose(fast, reference, rtol=0, atol=FAST_TOLERANCE)
    np.testing.assert_allclose(fast.sum(-1), 1.0, rtol=0, atol=1e-6)
    assert (fast > 0).all()


def test_fast_attention_equals_the_committed_transformers_values(model: RealBert) -> None:
    with np.load(REFERENCE, allow_pickle=False) as data:
        for k, sentence in enumerate(str(s) for s in data["sentences"]):
            fast = model.attention(model.pieces(sentence).ids)
            np.testing.assert_allclose(fast, data[f"attention/{k}"], rtol=0, atol=FAST_TOLERANCE)


@pytest.mark.parametrize("sentence", SENTENCES[:5])
def test_the_answer_is_the_reference_answer_to_its_last_decimal(model: RealBert, sentence: str) -> None:
    layers = list(range(LAYERS))
    fast, reference = model.attend(sentence, layers), model.attend(sentence, layers, reference=True)
    assert fast.pieces == reference.pieces and fast.layers == reference.layers
    unit = 10.0**-DECIMALS
    np.testing.assert_allclose(fast.attention, reference.attention, rtol=0, atol=unit * 1.001)
    assert np.array_equal(fast.attention, np.round(fast.attention, DECIMALS))  # rounded in float64
    for f, r in zip(fast.relations, reference.relations, strict=True):
        assert (f.name, f.targets) == (r.name, r.targets)
        if r.scores is None:
            assert f.scores is None and f.scores_with_markers is None
            continue
        assert f.scores is not None and f.scores_with_markers is not None
        np.testing.assert_allclose(f.scores, r.scores, rtol=0, atol=unit * 1.001)
        np.testing.assert_allclose(f.scores_with_markers, r.scores_with_markers, rtol=0, atol=unit * 1.001)


BATCH_TOLERANCE = 2e-6  # a map in a batch against the same map alone: float32 rounding (1.3e-6 measured)


def test_a_batch_is_each_sentence_alone_and_a_batch_of_one_is_bit_for_bit(model: RealBert) -> None:
    ids = [model.pieces(sentence).ids for sentence in SENTENCES]
    alone = [model.attention(one) for one in ids]
    assert np.array_equal(model.attention_many([ids[0]])[0], alone[0])
    for batch in ([0, 1], [2, 3, 4], [5, 4, 3, 2, 1, 0], [1] * 7):  # mixed lengths, a sentence many times
        together = model.attention_many([ids[k] for k in batch])
        for k, maps in zip(batch, together, strict=True):
            assert maps.dtype == np.float32 and maps.shape == alone[k].shape
            np.testing.assert_allclose(maps, alone[k], rtol=0, atol=BATCH_TOLERANCE)
            np.testing.assert_allclose(maps.sum(-1), 1.0, rtol=0, atol=1e-6)
    with pytest.raises(ValueError, match="1 to 512 pieces"):
        model.attention_many([ids[0], []])


def test_a_server_never_reads_the_float64_weights() -> None:
    """The answers come from the float32 weights alone; the reference's are read on first use of forward."""
    require_real_model()
    directory = get_settings().real_model_dir or packaged_model_dir()
    assert directory is not None
    fresh = RealBert(directory)
    fresh.attend("the river bank was steep", list(range(LAYERS)))
    assert "layers" not in vars(fresh)
    fresh.forward(fresh.pieces("the bank").ids)
    assert len(vars(fresh)["layers"]) == LAYERS
