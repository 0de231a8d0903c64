"""/api/real-attention: all-MiniLM-L6-v2 on the reader's sentence; its contract, every 422, and the 503.

Tests that need the optional model skip without it, except under CI=true, where they fail (CI installs it).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from fastapi.testclient import TestClient

from app.config import Settings, get_settings
from app.deps import current_settings
from app.main import create_app
from app.models.real_bert.installed import INSTALL
from app.models.real_bert.loading import load_real_bert
from tests.optional import require_real_model
from tools.inprocess import concurrently

URL = "/api/real-attention"
DEFAULT = "the river bank was steep"
MISSING = (
    "the real model (all-MiniLM-L6-v2) is not installed (model.safetensors, tokenizer.json missing): "
    + INSTALL
)


@pytest.fixture(scope="module")
def installed() -> None:
    require_real_model()


@pytest.fixture
def without_model(client: TestClient, tmp_path: Path) -> Iterator[TestClient]:
    """The same app, pointed at an empty model folder: the model is not installed."""
    overrides = client.app.dependency_overrides  # type: ignore[attr-defined]
    overrides[current_settings] = lambda: Settings(real_model_dir=tmp_path)
    try:
        yield client
    finally:
        overrides.pop(current_settings, None)


def get(client: TestClient, **params: str | int) -> dict:
    response = client.get(URL, params=params)
    assert response.status_code == 200, response.text
    return response.json()


def rounded_rows_sum_to_one(attention: np.ndarray) -> None:
    n = attention.shape[-1]
    np.testing.assert_allclose(attention.sum(-1), 1.0, atol=n * 5e-5 + 1e-9)


# ---- with the model ----------------------------------------------------------------------------------------


@pytest.mark.usefixtures("installed")
def test_default_answer_follows_the_contract(client: TestClient) -> None:
    body = get(client)
    assert (body["model"], body["layers"], body["heads"]) == ("all-MiniLM-L6-v2", 6, 12)
    assert body["tokens"] == ["[CLS]", *DEFAULT.split(), "[SEP]"]
    assert body["special"] == [True, False, False, False, False, False, True]
    assert body["word_index"] == [None, 0, 1, 2, 3, 4, None]
    assert body["words"] == DEFAULT.split()
    assert body["layer_indices"] == [0]
    attention = np.array(body["attention"])
    assert attention.shape == (1, 12, 7, 7)
    rounded_rows_sum_to_one(attention)
    assert (attention == np.round(attention, 4)).all()
    assert [r["name"] for r in body["relations"]] == ["meaning", "grammar", "position"]
    for relation in body["relations"]:
        for field, best_field in (("scores", "best"), ("scores_with_markers", "best_with_markers")):
            scores = np.array(relation[field])
            assert scores.shape == (6, 12)
            assert (scores == np.round(scores, 4)).all()
            best = relation[best_field]
            assert (best["layer"], best["head"]) == np.unravel_index(scores.argmax(), scores.shape)
            assert best["score"] == scores.max()
        # Renormalising over the words only raises a weight: [CLS] and [SEP] take their share first.
        assert (np.array(relation["scores_with_markers"]) <= np.array(relation["scores"]) + 1e-4).all()


@pytest.mark.usefixtures("installed")
def test_a_split_word_maps_its_pieces_and_punctuation_is_a_word(client: TestClient) -> None:
    body = get(client, sentence="Unbelievably, it worked.")
    assert body["tokens"] == [
        "[CLS]",
        "un",
        "##bel",
        "##ie",
        "##va",
        "##bly",
        ",",
        "it",
        "worked",
        ".",
        "[SEP]",
    ]
    assert body["word_index"] == [None, 0, 0, 0, 0, 0, 1, 2, 3, 4, None]
    assert body["words"] == ["Unbelievably", ",", "it", "worked", "."]
    assert body["special"] == [True] + [False] * 9 + [True]
    position = next(r for r in body["relations"] if r["name"] == "position")
    assert position["targets"] == [[2, 0], [3, 2]]  # the comma and the full stop are in no pair


@pytest.mark.usefixtures("installed")
def test_all_layers_hold_each_single_layer(client: TestClient) -> None:
    sentence = "She sold the old bat near the cave"
    every = get(client, sentence=sentence, layer="all")
    assert every["layer_indices"] == [0, 1, 2, 3, 4, 5]
    attention = np.array(every["attention"])
    assert attention.shape == (6, 12, 10, 10)
    rounded_rows_sum_to_one(attention)
    for layer in range(6):
        one = get(client, sentence=sentence, layer=layer)
        assert one["layer_indices"] == [layer]
        assert one["attention"][0] == every["attention"][layer]
        assert one["relations"] == every["relations"]


@pytest.mark.usefixtures("installed")
@pytest.mark.parametrize(
    "sentence", [DEFAULT, "she sold the old bat near the cave", "the river bank by the lake was wet"]
)
def test_relation_targets_are_figure_ones(client: TestClient, sentence: str) -> None:
    figure1 = client.get("/api/attention", params={"sentence": sentence}).json()
    ours = get(client, sentence=sentence)
    assert ours["words"] == figure1["tokens"]
    assert [r["targets"] for r in ours["relations"]] == [r["targets"] for r in figure1["relations"]]


@pytest.mark.usefixtures("installed")
def test_scores_are_the_mean_word_weight_on_the_targets(client: TestClient) -> None:
    """Recomputed by plain loops from the model's unrounded piece-level attention. (The answer's attention is
    rounded to 4 decimals, too coarse to renormalise rows that put most of their weight on [CLS] or [SEP].)"""
    sentence = "Unbelievably, the bat flew over the river bank"
    body = get(client, sentence=sentence, layer="all")
    a = load_real_bert(get_settings().real_model_dir).forward(body_ids(body)).attention  # (6, 12, n, n)
    owner = body["word_index"]
    real = [p for p, w in enumerate(owner) if w is not None]
    words = len(body["words"])
    word = np.zeros((6, 12, words, words))
    for layer in range(6):
        for head in range(12):
            for wi in range(words):
                queries = [p for p in real if owner[p] == wi]
                for q in queries:
                    row_mass = sum(a[layer, head, q, k] for k in real)
                    for k in real:
                        word[layer, head, wi, owner[k]] += a[layer, head, q, k] / row_mass / len(queries)
    for relation in body["relations"]:
        rows, cols = np.array(relation["targets"]).T
        np.testing.assert_allclose(
            relation["scores"], word[..., rows, cols].mean(-1), rtol=0, atol=5e-5 + 1e-9
        )


def drawn_word_weights(body: dict, hide: bool) -> tuple[np.ndarray, np.ndarray]:
    """(layers, heads, W, W) word-level weights read off the returned attention as figure 11 draws it (with
    Hide [CLS] and [SEP] or not): a word's rows averaged, its partner's columns summed; and (layers, heads, W)
    the share of each word's rows that lands on words, which bounds how far rounding can carry."""
    a = np.array(body["attention"])  # (L, h, n, n), rounded to 4 decimals
    owner = body["word_index"]
    real = [p for p, w in enumerate(owner) if w is not None]
    words = len(body["words"])
    member = np.zeros((len(owner), words))
    for p in real:
        member[p, owner[p]] = 1.0
    mass = a[..., real][..., real, :].sum(-1)  # (L, h, P): each real piece's weight on the words
    if hide:
        a = a / np.maximum(a[..., real].sum(-1, keepdims=True), 1e-300)
    per_key = a @ member  # (L, h, n, W): summed over a word's pieces
    per_word = np.swapaxes(member / member.sum(0), 0, 1) @ per_key  # (L, h, W, W): averaged over its rows
    word_mass = np.swapaxes(member[real] / member[real].sum(0), 0, 1) @ mass[..., None]
    return per_word, word_mass[..., 0]


@pytest.mark.usefixtures("installed")
@pytest.mark.parametrize("sentence", [DEFAULT, "Unbelievably, the bat flew over the river bank"])
def test_scores_are_what_the_figure_draws_from_the_weights(client: TestClient, sentence: str) -> None:
    """`scores_with_markers` from the weights as returned, [CLS] and [SEP] kept (the figure's default view);
    `scores` from the same weights with the markers hidden and rows spread back to one (its other view)."""
    body = get(client, sentence=sentence, layer="all")
    for hide, field in ((False, "scores_with_markers"), (True, "scores")):
        word, mass = drawn_word_weights(body, hide)
        for relation in body["relations"]:
            rows, cols = np.array(relation["targets"]).T
            drawn = word[..., rows, cols].mean(-1)  # (L, h)
            # Each piece's weight is rounded to 5e-5; renormalising divides that by the row's mass on words.
            share = mass[..., rows] if hide else np.ones_like(mass[..., rows])
            slack = (len(body["tokens"]) * 5e-5 / np.maximum(share, 1e-9)).mean(-1) + 1e-4
            confident = slack < 0.01
            assert confident.sum() > 36, relation["name"]
            got = np.array(relation[field])
            assert (np.abs(got - drawn)[confident] <= slack[confident]).all(), (relation["name"], field)


def body_ids(body: dict) -> list[int]:
    """The token ids of an answer's pieces."""
    model = load_real_bert(get_settings().real_model_dir)
    ids = [model.tokenizer.token_to_id(token) for token in body["tokens"]]
    assert None not in ids
    return [i for i in ids if i is not None]


@pytest.mark.usefixtures("installed")
def test_a_relation_without_pairs_has_null_scores(client: TestClient) -> None:
    body = get(client, sentence="bank")
    assert body["words"] == ["bank"]
    for relation in body["relations"]:
        assert relation == {
            "name": relation["name"],
            "targets": [],
            "scores": None,
            "best": None,
            "scores_with_markers": None,
            "best_with_markers": None,
        }


@pytest.mark.usefixtures("installed")
def test_sixty_four_words_is_the_limit(client: TestClient) -> None:
    body = get(client, sentence=" ".join(["bank"] * 64), layer="5")
    assert np.array(body["attention"]).shape == (1, 12, 66, 66)


@pytest.mark.usefixtures("installed")
@pytest.mark.parametrize(
    "sentence",
    [
        "🦇 bat",
        "a\x00b\x07c\u200bd",
        "東京 bank",
        "Ünïcödé ÇÀFÉ",
        "x" * 200,
        "\u202eevil\u202c text",
        "word\ufffd",
        "e\u0301te",
        "ａｂｃ",  # fullwidth
        "bank's" * 20,
        "١٢٣ عربي",
    ],
)
def test_nasty_sentences_are_answered(client: TestClient, sentence: str) -> None:
    body = get(client, sentence=sentence, layer="all")
    assert len(body["tokens"]) == len(body["special"]) == len(body["word_index"])
    rounded_rows_sum_to_one(np.array(body["attention"]))


@pytest.mark.usefixtures("installed")
@pytest.mark.parametrize(
    "query",
    ["sentence=ab%ED%A0%80", "sentence=%FF%FE%FD", "sentence=%F0%9F%A6%87%20ok", "sentence=a%0Ab%0D%0Ac"],
)
def test_undecodable_bytes_are_never_a_500(client: TestClient, query: str) -> None:
    response = client.get(f"{URL}?{query}")
    assert response.status_code in (200, 422), response.text
    answer = response.json()
    assert answer["detail"] if response.status_code == 422 else answer["tokens"][0] == "[CLS]"


@pytest.mark.usefixtures("installed")
def test_too_many_pieces_get_a_clear_422(client: TestClient) -> None:
    response = client.get(URL, params={"sentence": " ".join(["unbelievably"] * 30)})
    assert response.status_code == 422
    assert response.json() == {
        "detail": "sentence splits into 152 WordPiece pieces with [CLS] and [SEP]; at most 128 are allowed: "
        "shorten it"
    }


@pytest.mark.usefixtures("installed")
def test_status_says_available(client: TestClient) -> None:
    response = client.get(f"{URL}/status")
    assert response.json() == {
        "available": True,
        "reason": None,
        "install": INSTALL,
        "model": "all-MiniLM-L6-v2",
        "layers": 6,
        "heads": 12,
    }


# ---- bad requests: the same with or without the model ------------------------------------------------------


LAYER_DETAIL = "layer must be one of 0, 1, 2, 3, 4, 5 or all (got {!r})"


@pytest.mark.parametrize(
    ("params", "detail"),
    [
        ({"sentence": "!!! ..."}, "sentence has no words: type at least one word"),
        ({"sentence": "   \t "}, "sentence has no words: type at least one word"),
        ({"sentence": "🦇🦇"}, "sentence has no words: type at least one word"),
        ({"sentence": "\x00\x01"}, "sentence has no words: type at least one word"),
        ({"sentence": " ".join(["a"] * 65)}, "sentence has 65 words; at most 64 are allowed"),
        ({"layer": "6"}, LAYER_DETAIL.format("6")),
        ({"layer": "-1"}, LAYER_DETAIL.format("-1")),
        ({"layer": "first"}, LAYER_DETAIL.format("first")),
        ({"layer": ""}, LAYER_DETAIL.format("")),
    ],
)
@pytest.mark.parametrize("model", ["installed", "missing"])
def test_bad_requests_get_a_clear_422(
    client: TestClient, tmp_path: Path, params: dict, detail: str, model: str
) -> None:
    if model == "installed":
        require_real_model()
    overrides = client.app.dependency_overrides  # type: ignore[attr-defined]
    if model == "missing":
        overrides[current_settings] = lambda: Settings(real_model_dir=tmp_path)
    try:
        response = client.get(URL, params=params)
    finally:
        overrides.pop(current_settings, None)
    assert response.status_code == 422
    assert response.json() == {"detail": detail}


@pytest.mark.parametrize(
    ("params", "field"), [({"sentence": ""}, "sentence"), ({"sentence": "a" * 501}, "sentence")]
)
def test_malformed_parameters_get_a_422_naming_the_field(
    client: TestClient, params: dict, field: str
) -> None:
    response = client.get(URL, params=params)
    assert response.status_code == 422
    assert response.json()["detail"][0]["loc"] == ["query", field]


# ---- without the model -------------------------------------------------------------------------------------


def test_without_the_model_the_answer_is_503_with_the_install_command(without_model: TestClient) -> None:
    response = without_model.get(URL, params={"sentence": DEFAULT, "layer": "all"})
    assert response.status_code == 503
    assert response.json() == {"detail": MISSING}


def test_without_the_model_status_says_how_to_install_it(without_model: TestClient) -> None:
    response = without_model.get(f"{URL}/status")
    assert response.status_code == 200
    assert response.json() == {
        "available": False,
        "reason": MISSING,
        "install": INSTALL,
        "model": "all-MiniLM-L6-v2",
        "layers": 6,
        "heads": 12,
    }


def test_a_damaged_model_is_a_503_not_a_500(client: TestClient, tmp_path: Path) -> None:
    (tmp_path / "model.safetensors").write_bytes(b"not safetensors")
    (tmp_path / "tokenizer.json").write_text("{}")
    overrides = client.app.dependency_overrides  # type: ignore[attr-defined]
    overrides[current_settings] = lambda: Settings(real_model_dir=tmp_path)
    try:
        response = client.get(URL)
    finally:
        overrides.pop(current_settings, None)
    assert response.status_code == 503
    detail = response.json()["detail"]
    assert detail.startswith("the real model (all-MiniLM-L6-v2) in ") and detail.endswith(INSTALL)


def test_concurrent_sentences_share_a_forward_pass_and_each_gets_its_own_answer(installed: None) -> None:
    """Requests that wait together go through one batch (app/web/offload.py's Batches); each answer is the one
    its sentence gets alone, to the last decimal, and a refused sentence among them is refused alone."""
    from app.models.real_bert.answer import attended
    from app.routes.real_attention import batches, real_attention_response

    sentences = [f"the {w} bank was steep near the old mill" for w in ("river", "quiet", "old", "muddy")] * 3
    sentences = [f"{s} {k}" for k, s in enumerate(sentences)]  # twelve distinct sentences
    too_long = " ".join(["unbelievably"] * 30)  # past the 128 pieces

    asked = [("GET", URL, {"params": {"sentence": s, "layer": "all"}}) for s in [*sentences, too_long]]
    *answers, refused = concurrently(create_app(), asked)
    assert refused.status_code == 422 and "pieces" in refused.json()["detail"]
    model = load_real_bert(get_settings().real_model_dir)
    assert max(batches(model).sizes) > 1  # some did share
    for sentence, response in zip(sentences, answers, strict=True):
        assert response.status_code == 200, response.text
        pieces = model.readable_pieces(sentence)
        alone = real_attention_response(attended(pieces, list(range(6)), model.attention(pieces.ids)))
        got = response.json()
        assert got["tokens"] == alone["tokens"]
        np.testing.assert_allclose(got["attention"], alone["attention"], rtol=0, atol=1.001e-4)
        for relation, expected in zip(got["relations"], alone["relations"], strict=True):
            assert relation["targets"] == [list(pair) for pair in expected["targets"]]
