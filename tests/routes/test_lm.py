"""Figure 7's endpoints: the training record, live generations, attention maps, and their 422s."""

import json

import numpy as np
import pytest
from fastapi.testclient import TestClient

from app.models.tiny_lm import MAX_WORDS, READING_SENTENCE, get_tiny_lms


def test_the_record_lists_four_models_with_curves(client: TestClient) -> None:
    body = client.get("/api/lm").json()
    assert [m["mask"] for m in body["models"]] == ["none", "neg_inf", "zero", "next_word"]
    assert body["prompt"] == "the" and "river" in body["vocabulary"] and "<s>" not in body["vocabulary"]
    assert "##s" in body["vocabulary"] and len(body["vocabulary"]) == body["vocab_size"] - 3
    for model in body["models"]:
        curves = model["curves"]
        assert len(curves["step"]) == len(curves["train"]) == len(curves["validation"]) > 5
        assert model["final_validation"] == curves["validation"][-1]


def test_greedy_generation_from_the_honest_model_is_grammatical(client: TestClient) -> None:
    body = client.post("/api/lm/generate", json={"model": "neg_inf"}).json()
    (sample,) = body["samples"]
    assert sample["tokens"][0] == "the" and sample["text"] == " ".join(sample["tokens"])
    assert sample["grammatical"] is True and body["grammatical_share"] == 1.0


def test_sampling_is_seeded_and_scored(client: TestClient) -> None:
    request = {"model": "zero", "strategy": "sample", "count": 8, "seed": 7}
    first = client.post("/api/lm/generate", json=request).json()
    assert first == client.post("/api/lm/generate", json=request).json()
    assert len(first["samples"]) == 8
    assert first["grammatical_share"] == sum(s["grammatical"] for s in first["samples"]) / 8
    assert first["grammatical_share"] <= 0.3


def test_attention_maps_carry_each_masks_fingerprint(client: TestClient) -> None:
    for model in ("neg_inf", "zero", "none"):
        body = client.get("/api/lm/attention", params={"model": model}).json()
        weights = np.array(body["weights"])
        assert body["tokens"][0] == "<s>" and weights.shape[-1] == len(body["tokens"])
        np.testing.assert_allclose(weights.sum(-1), 1.0)
        assert (body["future_leak"] == 0.0) == (model == "neg_inf")


@pytest.mark.parametrize(
    ("body", "detail"),
    [
        (
            {"model": "neg_inf", "prompt": "the 猫 fox"},
            "the decoders read letters a–z, digits and apostrophes; this sentence also has '猫'",
        ),
        ({"model": "neg_inf", "prompt": "?!"}, "sentence has no words: type at least one word"),
        (
            {"model": "neg_inf", "prompt": " ".join(["the"] * (MAX_WORDS + 1))},
            f"sentence has {MAX_WORDS + 1} words; at most {MAX_WORDS} are allowed",
        ),
    ],
)
def test_bad_prompts_get_a_clear_422(client: TestClient, body: dict, detail: str) -> None:
    response = client.post("/api/lm/generate", json=body)
    assert response.status_code == 422
    assert response.json()["detail"] == detail


@pytest.mark.parametrize(
    "body",
    [
        {"model": "softmax"},
        {"model": "neg_inf", "strategy": "beam"},
        {"model": "neg_inf", "count": 0},
        {"model": "neg_inf", "count": 21},
        {"model": "neg_inf", "temperature": 0},
        {"model": "neg_inf", "prompt": ""},
        {"prompt": "the"},
    ],
)
def test_malformed_generate_requests_get_a_422(client: TestClient, body: dict) -> None:
    response = client.post("/api/lm/generate", json=body)
    assert response.status_code == 422
    assert response.json()["detail"], "a refusal says why"


def test_attention_reads_any_word_in_pieces_and_refuses_only_characters(client: TestClient) -> None:
    body = client.get("/api/lm/attention", params={"model": "none", "sentence": "The wug slept"}).json()
    assert body["words"] == ["The", "wug", "slept"]
    assert body["tokens"][:2] == ["<s>", "the"] and body["tokens"][2].startswith("w")
    pieces_of_wug = [t for t, w in zip(body["tokens"], body["word_index"], strict=True) if w == 1]
    assert len(pieces_of_wug) > 1 and "".join(pieces_of_wug).replace("##", "") == "wug"
    assert body["word_index"][0] is None and body["word_index"][-1] == 2
    response = client.get("/api/lm/attention", params={"sentence": "the cat ate a 🍕 and 寿司"})
    assert response.status_code == 422
    assert response.json() == {
        "detail": "the decoders read letters a–z, digits and apostrophes; this sentence also has '寿', '司'",
        "characters": ["寿", "司"],  # the pizza is no word: dropped as punctuation is
    }


# ---- figure 6: the −∞-trained decoder under each of the three masks ----------------------------------------

DECODER_SENTENCE = "the old farmer sold the horse near the barn"


def decoder(client: TestClient, **params: str) -> dict:
    response = client.get("/api/lm/attention", params={"sentence": DECODER_SENTENCE, **params})
    assert response.status_code == 200, response.text
    return response.json()


def test_the_default_mask_is_the_models_own_and_the_answer_is_unchanged(client: TestClient) -> None:
    for model in ("neg_inf", "zero", "none"):
        own = decoder(client, model=model)
        assert own["model"] == own["mask"] == model
        assert own == decoder(client, model=model, mask=model)


def test_minus_infinity_leaves_exactly_zero_above_the_diagonal(client: TestClient) -> None:
    body = decoder(client, model="neg_inf", mask="neg_inf")
    weights = np.array(body["weights"])  # (layers, heads, T, T)
    T = len(body["tokens"])
    assert weights.shape == (2, 2, T, T) and body["tokens"] == ["<s>", *DECODER_SENTENCE.split()]
    future = np.triu(np.ones((T, T), dtype=bool), k=1)
    assert (weights[..., future] == 0.0).all()
    assert (weights[..., ~future] > 0).all()
    np.testing.assert_allclose(weights.sum(-1), 1.0)
    assert body["future_leak"] == 0.0 and body["row_future_shares"] == [0.0] * T
    assert np.array(body["future_shares"]).shape == (2, 2, T)


def test_zero_fill_gives_every_later_word_of_a_row_the_same_weight_in_every_layer(client: TestClient) -> None:
    body = decoder(client, mask="zero")
    assert (body["model"], body["mask"]) == ("neg_inf", "zero")
    weights, scaled = np.array(body["weights"]), np.array(body["scaled"])
    T = weights.shape[-1]
    for i in range(T - 1):
        later = weights[..., i, i + 1 :]  # (layers, heads, T − 1 − i)
        assert (later > 0).all()
        assert np.ptp(later, axis=-1).max() < 1e-15  # e^0 / Σ, the same for each
        # The softmax by hand: each later word's 0 scores e^0 = 1 beside the visible words' e^s.
        total = np.exp(scaled[..., i, : i + 1]).sum(-1) + (T - 1 - i)  # (layers, heads)
        np.testing.assert_allclose(later[..., 0], 1 / total, rtol=1e-12)
    shares = np.array(body["future_shares"])
    np.testing.assert_allclose(shares, np.triu(weights, k=1).sum(-1), rtol=1e-12)
    np.testing.assert_allclose(body["row_future_shares"], shares.mean(axis=(0, 1)), rtol=1e-12)
    assert body["future_leak"] == pytest.approx(shares.mean())
    assert 0 < body["future_leak"] < decoder(client, mask="none")["future_leak"]


def test_no_mask_is_the_unmasked_pass_of_the_trained_weights(client: TestClient) -> None:
    body = decoder(client, mask="none")
    lm = get_tiny_lms().models["neg_inf"]
    run = lm.forward(lm.encode(DECODER_SENTENCE.split()), mask="none")
    np.testing.assert_array_equal(np.array(body["weights"]), run.attention)
    np.testing.assert_array_equal(np.array(body["scaled"]), run.scaled)
    assert body["future_leak"] > 0.1
    # The scores the mask acts on are those of the pass: unmasked, layer 1's equal the masked passes' (layer
    # 2 reads what layer 1 wrote, so from there on they differ).
    masked = decoder(client, mask="neg_inf")
    np.testing.assert_allclose(np.array(masked["scaled"])[0], np.array(body["scaled"])[0], rtol=1e-12)


@pytest.mark.parametrize("mask", ["bogus", "", "-inf", "NONE"])
def test_a_bad_mask_gets_a_422_naming_the_parameter(client: TestClient, mask: str) -> None:
    response = client.get("/api/lm/attention", params={"mask": mask})
    assert response.status_code == 422
    (error,) = response.json()["detail"]
    assert error["loc"] == ["query", "mask"]
    zoo = "'hides_self', 'next_word', 'transposed', 'after_softmax' or 'additive'"
    assert f"'none', 'neg_inf', 'zero', {zoo}" in error["msg"]


def test_the_mask_parameter_is_in_the_openapi_document(client: TestClient) -> None:
    spec = client.get("/openapi.json").json()
    operation = spec["paths"]["/api/lm/attention"]["get"]
    (parameter,) = [p for p in operation["parameters"] if p["name"] == "mask"]
    assert "by default the one the model was trained with" in parameter["description"]
    fields = spec["components"]["schemas"]["LanguageModelAttentionResponse"]["properties"]
    assert {"mask", "scaled", "future_shares", "row_future_shares"} <= fields.keys()


def test_predictions_read_the_sentence_two_ways_beside_the_stored_losses(client: TestClient) -> None:
    sentence = READING_SENTENCE
    body = client.get("/api/lm/predictions", params={"sentence": sentence}).json()
    words = sentence.split()
    assert body["sentence"] == words and body["inputs"] == ["<s>", *words]
    assert body["targets"] == [*words, "</s>"] and body["positions"] == len(words) + 1
    assert [m["model"] for m in body["models"]] == ["neg_inf", "zero", "next_word", "none"]
    record = {m["mask"]: m for m in client.get("/api/lm").json()["models"]}
    for m in body["models"]:
        train, validation = record[m["model"]]["final_train"], record[m["model"]]["final_validation"]
        assert (m["final_train"], m["final_validation"]) == (train, validation)
        assert m["validation_gap"] == pytest.approx(validation - train, abs=1e-6)
        for reading in (m["teacher_forced"], m["free_running"]):
            assert len(reading["predicted"]) == len(reading["correct"]) == len(reading["allowed"]) == 8
            pairs = zip(reading["predicted"], body["targets"], strict=True)
            assert reading["correct"] == [p == t for p, t in pairs]
            assert reading["right"] == sum(reading["correct"])
            assert reading["accuracy"] == pytest.approx(reading["right"] / 8)
            assert reading["allowed_count"] == sum(a is True for a in reading["allowed"])
            assert reading["loss"] == pytest.approx(-np.mean(np.log(reading["target_probability"])))
            assert all(0 < p <= 1 for p in reading["probability"])
        pairs = zip(m["teacher_forced"]["predicted"], m["free_running"]["predicted"], strict=True)
        same = sum(a == b for a, b in pairs)
        assert m["same"] == same
        assert m["written"][0] == "the"
        assert m["written_grammatical"] == (m["model"] == "neg_inf")

    honest, zero, _next_word, unmasked = body["models"]  # the off-by-one model: figure 7's own tests
    # −∞ cannot see ahead: reading the sentence and writing alone give the same predictions and loss, and
    # every prediction that can be judged (a whole word, not a piece) is one the grammar allows there.
    assert honest["same"] == 8
    assert abs(honest["teacher_forced"]["accuracy"] - honest["free_running"]["accuracy"]) < 0.01
    assert honest["free_running"]["loss"] == pytest.approx(honest["teacher_forced"]["loss"], rel=1e-6)
    assert honest["free_running"]["allowed_count"] == honest["free_running"]["judged"] >= 8 // 2
    for leaky in (zero, unmasked):
        forced, free = leaky["teacher_forced"], leaky["free_running"]
        assert forced["accuracy"] - free["accuracy"] >= 0.5  # copies when it can see, fails when it cannot
        assert forced["loss"] < honest["teacher_forced"]["loss"] / 10 < free["loss"]
        assert free["allowed_count"] < honest["free_running"]["allowed_count"]
        assert leaky["written"] != honest["written"]
    # Not overfitting: every model's validation loss is close to its training loss.
    assert max(abs(m["validation_gap"]) for m in body["models"]) < 0.1


@pytest.mark.parametrize(
    ("params", "detail"),
    [
        (
            {"sentence": "the 猫 slept"},
            "the decoders read letters a–z, digits and apostrophes; this sentence also has '猫'",
        ),
        (
            {"sentence": " ".join(["the"] * (MAX_WORDS + 1))},
            f"sentence has {MAX_WORDS + 1} words; at most {MAX_WORDS} are allowed",
        ),
        ({"sentence": "?!"}, "sentence has no words: type at least one word"),
    ],
)
def test_predictions_refuse_bad_sentences_with_a_422(client: TestClient, params: dict, detail: str) -> None:
    response = client.get("/api/lm/predictions", params=params)
    assert response.status_code == 422
    assert response.json()["detail"] == detail


def test_predictions_refuse_a_sentence_past_the_character_limit(client: TestClient) -> None:
    response = client.get("/api/lm/predictions", params={"sentence": "the " * 60})
    assert response.status_code == 422
    assert "sentence" in str(response.json()["detail"])  # it names the field that is too long


def test_predictions_are_in_the_openapi_document(client: TestClient) -> None:
    spec = client.get("/openapi.json").json()
    operation = spec["paths"]["/api/lm/predictions"]["get"]
    assert "422" in operation["responses"]
    (parameter,) = [p for p in operation["parameters"] if p["name"] == "sentence"]
    assert parameter["schema"]["maxLength"] == 200
    fields = spec["components"]["schemas"]["LanguageModelPredictions"]["properties"]
    assert {"teacher_forced", "free_running", "final_validation", "validation_gap"} <= fields.keys()


ZOO = ("hides_self", "next_word", "transposed", "after_softmax", "additive")


def test_the_decoder_runs_under_every_zoo_mode_and_nan_rows_are_null(client: TestClient) -> None:
    lm = get_tiny_lms().models["neg_inf"]
    run_ids = lm.encode(DECODER_SENTENCE.split())
    for mask in ZOO:
        body = decoder(client, mask=mask)
        run = lm.forward(run_ids, mask=mask)
        weights = np.array(body["weights"], dtype=float)  # null -> NaN
        np.testing.assert_array_equal(weights, run.attention)
        empty = np.isnan(weights).any(-1)  # (layers, heads, T)
        assert body["nan_rows"] == [[np.flatnonzero(r).tolist() for r in layer] for layer in empty]
        shares = np.array(body["future_shares"], dtype=float)
        assert body["future_leak"] == pytest.approx(np.nanmean(shares), abs=1e-15)
    hides = decoder(client, mask="hides_self")
    assert hides["nan_rows"][0] == [[0], [0]]  # layer 1: the first row sees nothing
    T = len(hides["tokens"])
    assert hides["nan_rows"][1] == [list(range(T))] * 2  # layer 2 reads position 0's NaN output
    assert hides["future_leak"] == 0.0 and hides["row_future_shares"][0] is None
    assert decoder(client, mask="next_word")["future_leak"] > 0
    assert decoder(client, mask="after_softmax")["future_leak"] == 0.0


def test_a_model_the_weights_file_lacks_is_refused_naming_the_installed_ones(client: TestClient) -> None:
    lms = get_tiny_lms()
    installed = lms.models
    lms.models = {mask: lm for mask, lm in installed.items() if mask != "next_word"}  # as before training
    try:
        response = client.get("/api/lm/attention", params={"model": "next_word"})
    finally:
        lms.models = installed
    assert response.status_code == 422
    detail = "model: 'next_word' is not installed; the weights file holds neg_inf, zero, none"
    assert response.json()["detail"] == detail
    assert decoder(client, model="next_word")["mask"] == "next_word"  # once installed, its own mask


def test_the_mask_zoo_panels_count_nan_rows_and_compute_sentinels_in_each_dtype(client: TestClient) -> None:
    body = client.get("/api/lm/mask-zoo", params={"sentence": DECODER_SENTENCE}).json()
    own, padded = body["batch"]
    words = DECODER_SENTENCE.split()
    assert own["tokens"] == ["<s>", *words] and own["pads"] == 0 and own["naive_nan_rows"] == []
    pads = len(words) - len(words) // 2
    assert padded["tokens"] == ["<pad>"] * pads + ["<s>", *words[: len(words) // 2]]
    assert padded["naive_nan_rows"] == padded["naive_gradient_nan_rows"] == list(range(pads))
    assert body["nan_rows"] == pads and padded["safe_nan_rows"] == []
    assert all(w is None for row in padded["naive"][:pads] for w in row)
    assert padded["safe"][:pads] == [[0.0] * len(padded["tokens"])] * pads
    cells = {(r["dtype"], r["sentinel"]): r for r in body["precision"]}
    assert cells["float16", "−1e9"]["stored"] == "-inf"
    assert cells["bfloat16", "−1e9"]["stored"] == -998244352.0
    assert cells["float32", "finfo.min"]["fully_masked"] == "nan"
    assert cells["float16", "−1e4"]["leak"] == 0.5


@pytest.mark.parametrize(
    ("model", "mask", "verdict", "signatures"),
    [
        ("neg_inf", None, "causal", {"causal"}),
        ("zero", None, "leaks", {"zero_fill"}),
        ("next_word", None, "leaks", {"next_word"}),
        ("neg_inf", "hides_self", "broken", {"hides_self", "nan_rows"}),
    ],
)
def test_a_models_attention_is_diagnosed_in_one_trip(
    client: TestClient, model: str, mask: str | None, verdict: str, signatures: set[str]
) -> None:
    """Figure 7's examples: /api/lm/diagnose answers as /api/diagnose would for the file of the model's
    attention, with the weights and tokens of /api/lm/attention."""
    query = {"model": model, "sentence": "the old farmer sold the horse", **({"mask": mask} if mask else {})}
    body = client.get("/api/lm/diagnose", params=query).json()
    assert body["verdict"] == verdict and set(body["signatures"]) == signatures
    seen = client.get("/api/lm/attention", params=query).json()
    assert body["tokens"] == seen["tokens"] and body["weights"] == seen["weights"]
    assert body["shape"] == [len(seen["weights"]), len(seen["weights"][0]), *[len(seen["tokens"])] * 2]
    uploaded = client.post(
        "/api/diagnose",
        files={"file": ("w.json", json.dumps({"weights": seen["weights"], "tokens": seen["tokens"]}))},
    ).json()
    assert {k: v for k, v in uploaded.items() if k != "weights"} == {
        k: v for k, v in body.items() if k != "weights"
    }


def test_every_masks_attention_comes_in_one_answer_equal_to_each_masks_own(client: TestClient) -> None:
    """/api/lm/attention/masks: the mask lab's one request per sentence holds, for every mask a pass may
    apply, exactly what /api/lm/attention answers under that mask."""
    from app.core.masks import ATTENTION_MODES

    params = {"model": "neg_inf", "sentence": DECODER_SENTENCE}
    response = client.get("/api/lm/attention/masks", params=params)
    assert response.status_code == 200, response.text
    batch = response.json()
    assert batch["model"] == "neg_inf"
    assert list(batch["answers"]) == list(ATTENTION_MODES)
    for mask, answer in batch["answers"].items():
        alone = client.get("/api/lm/attention", params={**params, "mask": mask}).json()
        assert answer == alone, mask
    refused = client.get("/api/lm/attention/masks", params={"sentence": "the 猫"})
    assert refused.status_code == 422
