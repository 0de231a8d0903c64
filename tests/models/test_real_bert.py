"""all-MiniLM-L6-v2 in numpy: the exact GELU, pieces and words, and the attention against the reference.

The reference is transformers' BertModel with eager attention. Where torch and transformers are installed it
runs live; everywhere the model is installed, the attention is also checked against values it produced once,
committed in tests/models/data/real_bert_reference.npz. Regenerate them (torch, transformers and the model
installed) with

    python -m tests.models.test_real_bert

Without the optional model the tests that need it are skipped, except under CI=true, where they fail: CI
installs it.
"""

from __future__ import annotations

import math
import threading
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from app.config import get_settings
from app.models.heads import get_relation_heads
from app.models.real_bert.answer import parse_layer
from app.models.real_bert.encoder import RealBert
from app.models.real_bert.gelu import erf, gelu
from app.models.real_bert.installed import INSTALL, missing_reason, packaged_model_dir
from app.models.real_bert.loading import load_real_bert
from app.models.real_bert.relation_fit import relation_targets, word_attention
from app.models.real_bert.weights import HEADS, LAYERS
from app.web.refusal import Refusal
from tests.optional import require_real_model

REFERENCE = Path(__file__).parent / "data" / "real_bert_reference.npz"
REFERENCE_SENTENCES = ("the river bank was steep", "Unbelievably, the bat flew!")
LIVE_SENTENCES = (
    "the river bank was steep",
    "She sold the old bat near the cave; it's 3:45 p.m.",
    "Unbelievably, the BANK by the lake was naïve about 🦇 bats and 東京.",
)
ATTENTION_TOLERANCE = 1e-5


def model_dir() -> Path | None:
    directory = get_settings().real_model_dir
    return directory if directory is not None else packaged_model_dir()


MODEL = "real model"  # what the `model` fixture (tests/models/conftest.py) hands these tests


# ---- no model needed ---------------------------------------------------------------------------------------


def test_erf_equals_math_erf() -> None:
    x = np.concatenate([np.linspace(-10, 10, 400_001), [0.0, -0.0, 0.5, 6.0, -6.0, 1e-300, 50.0, -np.inf]])
    expected = np.array([math.erf(v) for v in x])
    np.testing.assert_allclose(erf(x), expected, rtol=0, atol=1e-12)
    assert erf(np.array([np.inf, -np.inf])).tolist() == [1.0, -1.0]
    assert gelu(np.array([0.0]))[0] == 0.0


def test_gelu_is_the_exact_one() -> None:
    x = np.linspace(-12, 12, 10_001)
    expected = np.array([0.5 * v * (1 + math.erf(v / math.sqrt(2))) for v in x])
    np.testing.assert_allclose(gelu(x), expected, rtol=0, atol=1e-12)
    tanh_form = 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3)))
    assert np.abs(gelu(x) - tanh_form).max() > 1e-4  # the approximation is a different function


def test_word_attention_drops_specials_renormalises_sums_keys_and_averages_queries() -> None:
    from app.models.real_bert.pieces import Pieces

    # [CLS] un ##bel bat [SEP]: word 0 has two pieces, word 1 one.
    pieces = Pieces(
        ids=[101, 1, 2, 3, 102],
        tokens=["[CLS]", "un", "##bel", "bat", "[SEP]"],
        special=[True, False, False, False, True],
        word_index=[None, 0, 0, 1, None],
        words=["unbel", "bat"],
    )
    rng = np.random.default_rng(0)
    a = rng.random((2, 3, 5, 5))
    a /= a.sum(-1, keepdims=True)
    got = word_attention(a, pieces)
    assert got.shape == (2, 3, 2, 2)
    expected = np.zeros((2, 3, 2, 2))
    for layer in range(2):
        for head in range(3):
            real = a[layer, head][1:4, 1:4]
            real = real / real.sum(-1, keepdims=True)
            per_key = np.stack([real[:, 0] + real[:, 1], real[:, 2]], axis=-1)  # (3 pieces, 2 words)
            expected[layer, head] = [(per_key[0] + per_key[1]) / 2, per_key[2]]
    np.testing.assert_allclose(got, expected, atol=1e-12)
    np.testing.assert_allclose(got.sum(-1), 1.0, atol=1e-12)

    # Without renormalising, the same sums and means of the weights as given: what figure 11 draws with the
    # markers shown, where a row's words get what [CLS] and [SEP] leave them.
    kept = word_attention(a, pieces, renormalise=False)
    for layer in range(2):
        for head in range(3):
            w = a[layer, head]
            per_key = np.stack([w[:, 1] + w[:, 2], w[:, 3]], axis=-1)  # (5 pieces, 2 words)
            expected = [(per_key[1] + per_key[2]) / 2, per_key[3]]
            np.testing.assert_allclose(kept[layer, head], expected, atol=1e-12)
    on_words = a[..., 1:4, 1:4].sum(-1) @ [[0.5, 0], [0.5, 0], [0, 1]]  # (2, 3, 2): each word's rows' share
    np.testing.assert_allclose(kept.sum(-1), on_words, atol=1e-12)


@pytest.mark.parametrize(
    "sentence",
    ["the river bank was steep", "she sold the old bat near the cave", "The river bank by the lake was wet"],
)
def test_relation_targets_are_figure_ones_without_punctuation(sentence: str) -> None:
    analysis, _ = get_relation_heads().inputs(sentence.split())
    assert relation_targets(sentence.split()) == analysis.targets


def test_punctuation_takes_part_in_no_relation() -> None:
    words = ["The", "river", "bank", ",", "was", "steep", "!"]
    targets = relation_targets(words)
    plain = relation_targets(["The", "river", "bank", "was", "steep"])
    index = [0, 1, 2, 4, 5]  # plain word k is words[index[k]]
    for name, pairs in plain.items():
        assert targets[name] == [(index[i], index[j]) for i, j in pairs]
    assert relation_targets([",", "!", "..."]) == {"meaning": [], "grammar": [], "position": []}


@pytest.mark.parametrize(("value", "layers"), [("0", [0]), ("5", [5]), ("all", [0, 1, 2, 3, 4, 5])])
def test_layer_choices(value: str, layers: list[int]) -> None:
    assert parse_layer(value) == layers


@pytest.mark.parametrize("value", ["6", "-1", "", "1.0", "one", "0,1", " 1", "ALL", "all "])
def test_other_layers_name_the_choices(value: str) -> None:
    with pytest.raises(Refusal, match=r"^layer must be one of 0, 1, 2, 3, 4, 5 or all \(got "):
        parse_layer(value)


def test_a_folder_without_the_files_says_how_to_install(tmp_path: Path) -> None:
    reason = missing_reason(tmp_path)
    assert reason is not None and reason.endswith(INSTALL)
    assert "model.safetensors" in reason
    none_reason = missing_reason(None)
    assert none_reason is not None and none_reason.endswith(INSTALL)


# ---- the model: words and pieces ---------------------------------------------------------------------------


def test_a_split_word_maps_every_piece_to_it(model: RealBert) -> None:
    p = model.pieces("Unbelievably good")
    assert p.tokens == ["[CLS]", "un", "##bel", "##ie", "##va", "##bly", "good", "[SEP]"]
    assert p.special == [True] + [False] * 6 + [True]
    assert p.word_index == [None, 0, 0, 0, 0, 0, 1, None]
    assert p.words == ["Unbelievably", "good"]
    assert p.ids[0] == 101 and p.ids[-1] == 102


def test_punctuation_marks_are_words_of_their_own(model: RealBert) -> None:
    p = model.pieces("Hello, world! It's 3.5")
    assert p.words == ["Hello", ",", "world", "!", "It", "'", "s", "3", ".", "5"]
    assert p.tokens[1:-1] == ["hello", ",", "world", "!", "it", "'", "s", "3", ".", "5"]


def test_casing_and_accents_are_folded_but_words_keep_the_sentence_spelling(model: RealBert) -> None:
    p = model.pieces("The BANK of Café")
    assert p.tokens == ["[CLS]", "the", "bank", "of", "cafe", "[SEP]"]
    assert p.words == ["The", "BANK", "of", "Café"]


def test_unknown_characters_become_unk_and_control_characters_vanish(model: RealBert) -> None:
    p = model.pieces("bat \x00\x07 🦇 x\u200b")
    assert p.tokens == ["[CLS]", "bat", "[UNK]", "x", "[SEP]"]
    assert p.words == ["bat", "🦇", "x"]
    chinese = model.pieces("東京 bank")
    assert chinese.words == ["東", "京", "bank"]  # every CJK character is a word of its own
    assert model.pieces("").tokens == ["[CLS]", "[SEP]"]


def test_long_sentences_are_neither_padded_nor_cut(model: RealBert) -> None:
    assert len(model.pieces("bank").ids) == 3
    assert len(model.pieces("bank " * 200).ids) == 202


def test_too_many_pieces_is_refused(model: RealBert) -> None:
    sentence = " ".join(["unbelievably"] * 30)  # 30 words of 5 pieces
    with pytest.raises(Refusal) as error:
        model.attend(sentence, [0])
    assert str(error.value) == (
        "sentence splits into 152 WordPiece pieces with [CLS] and [SEP]; at most 128 are allowed: shorten it"
    )


# ---- the model: the forward pass ---------------------------------------------------------------------------


def test_forward_shapes_and_rows(model: RealBert) -> None:
    ids = model.pieces("the river bank was steep").ids
    out = model.forward(ids)
    assert out.attention.shape == (LAYERS, HEADS, 7, 7)
    assert out.hidden.shape == (LAYERS + 1, 7, 384)
    np.testing.assert_allclose(out.attention.sum(-1), 1.0, atol=1e-12)
    assert (out.attention > 0).all()


def test_attention_equals_the_committed_reference(model: RealBert) -> None:
    with np.load(REFERENCE, allow_pickle=False) as data:
        assert [str(s) for s in data["sentences"]] == list(REFERENCE_SENTENCES)
        for k, sentence in enumerate(REFERENCE_SENTENCES):
            ids = model.pieces(sentence).ids
            assert ids == data[f"ids/{k}"].tolist()
            out = model.forward(ids)
            np.testing.assert_allclose(
                out.attention, data[f"attention/{k}"], rtol=0, atol=ATTENTION_TOLERANCE
            )
            np.testing.assert_allclose(out.hidden[-1, 0], data[f"cls/{k}"], rtol=0, atol=1e-4)


def test_the_model_loads_once_across_threads() -> None:
    require_real_model()
    from app.models.real_bert.loading import _load

    _load.cache_clear()  # four threads ask at once for a model nobody has loaded yet
    found: list[RealBert] = []
    threads = [
        threading.Thread(target=lambda: found.append(load_real_bert(get_settings().real_model_dir)))
        for _ in range(4)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(found) == 4 and all(m is found[0] for m in found)


def reference(directory: Path, ids: list[int]) -> tuple[Any, Any]:
    """transformers' BertModel (eager attention, float32): every layer's attention (L, h, n, n) and the last
    hidden state (n, d_model), as numpy arrays."""
    import torch

    bert = _reference_model(directory)
    with torch.no_grad():
        out = bert(torch.tensor([ids]), output_attentions=True)
    attention = np.stack([a[0].numpy() for a in out.attentions])
    return attention, out.last_hidden_state[0].numpy()


_REFERENCE_MODELS: dict[Path, Any] = {}


def _reference_model(directory: Path) -> Any:
    from transformers import BertModel

    if directory not in _REFERENCE_MODELS:
        _REFERENCE_MODELS[directory] = BertModel.from_pretrained(
            str(directory), attn_implementation="eager"
        ).eval()
    return _REFERENCE_MODELS[directory]


@pytest.mark.parametrize("sentence", LIVE_SENTENCES)
def test_attention_equals_transformers_live(model: RealBert, sentence: str) -> None:
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    from transformers import AutoTokenizer

    pieces = model.pieces(sentence)
    theirs = AutoTokenizer.from_pretrained(str(model.directory))(sentence)["input_ids"]
    assert pieces.ids == theirs
    attention, last = reference(model.directory, pieces.ids)
    out = model.forward(pieces.ids)
    np.testing.assert_allclose(out.attention, attention, rtol=0, atol=ATTENTION_TOLERANCE)
    np.testing.assert_allclose(out.hidden[-1], last, rtol=0, atol=1e-4)


def write_reference() -> None:
    """Write tests/models/data/real_bert_reference.npz from transformers (float32, eager attention)."""
    import torch
    import transformers

    directory = model_dir()
    reason = missing_reason(directory)
    if reason is not None:
        raise SystemExit(reason)
    assert directory is not None
    model = load_real_bert(get_settings().real_model_dir)
    arrays: dict[str, Any] = {
        "sentences": np.array(REFERENCE_SENTENCES),
        "made_with": np.array([f"torch {torch.__version__}", f"transformers {transformers.__version__}"]),
    }
    for k, sentence in enumerate(REFERENCE_SENTENCES):
        ids = model.pieces(sentence).ids
        attention, last = reference(directory, ids)
        arrays[f"ids/{k}"] = np.array(ids, dtype=np.int32)
        arrays[f"attention/{k}"] = attention.astype(np.float32)
        arrays[f"cls/{k}"] = last[0].astype(np.float32)
    REFERENCE.parent.mkdir(exist_ok=True)
    np.savez_compressed(REFERENCE, **arrays)
    print(f"wrote {REFERENCE} ({REFERENCE.stat().st_size} bytes)")


if __name__ == "__main__":
    write_reference()


def test_scores_with_markers_are_each_words_share_of_its_whole_row(model: RealBert) -> None:
    """Plain loops over the model's own attention, [CLS] and [SEP] kept in every row: the share of word i's
    row (averaged over its pieces) that lands on word j's pieces, meaned over the relation's pairs. Never
    more than the renormalised score, and the best head of each is the argmax of its own scores."""
    sentence = "Unbelievably, the bat flew over the river bank"
    result = model.attend(sentence, [0])
    pieces = model.pieces(sentence)
    a = model.forward(pieces.ids).attention  # (6, 12, n, n), rows sum to 1 over every piece
    owner = pieces.word_index
    for fit in result.relations:
        if not fit.targets:
            assert fit.scores_with_markers is None and fit.best_with_markers is None
            continue
        assert fit.scores is not None and fit.scores_with_markers is not None
        expected = np.zeros((LAYERS, HEADS))
        for i, j in fit.targets:
            rows = [p for p, w in enumerate(owner) if w == i]
            cols = [p for p, w in enumerate(owner) if w == j]
            expected += a[:, :, rows][..., cols].sum(-1).mean(-1) / len(fit.targets)
        np.testing.assert_allclose(fit.scores_with_markers, expected, rtol=0, atol=5e-5 + 1e-12)
        assert (fit.scores_with_markers <= fit.scores + 1e-4).all()
        layer, head, score = fit.best_with_markers
        assert score == fit.scores_with_markers.max() == fit.scores_with_markers[layer, head]
