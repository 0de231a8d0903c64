"""Figure 6's endpoints: the training record, live generations, attention maps, and their 422s."""

import numpy as np
import pytest
from fastapi.testclient import TestClient


def test_the_record_lists_three_models_with_curves(client: TestClient) -> None:
    body = client.get("/api/lm").json()
    assert [m["mask"] for m in body["models"]] == ["none", "neg_inf", "zero"]
    assert body["prompt"] == "the" and "fox" in body["vocabulary"] and "<s>" not in body["vocabulary"]
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
        ({"model": "neg_inf", "prompt": "the zorb fox"}, "not in the models' vocabulary: zorb"),
        ({"model": "neg_inf", "prompt": "?!"}, "sentence has no words: type at least one word"),
        (
            {"model": "neg_inf", "prompt": " ".join(["the"] * 15)},
            "sentence has 15 words; at most 14 are allowed",
        ),
    ],
)
def test_bad_prompts_get_a_clear_422(client: TestClient, body: dict, detail: str) -> None:
    response = client.post("/api/lm/generate", json=body)
    assert response.status_code == 422
    assert response.json() == {"detail": detail}


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
    assert client.post("/api/lm/generate", json=body).status_code == 422


def test_attention_refuses_unknown_words(client: TestClient) -> None:
    response = client.get("/api/lm/attention", params={"model": "none", "sentence": "the wug slept"})
    assert response.status_code == 422
    assert response.json() == {"detail": "not in the models' vocabulary: wug"}


def test_predictions_read_the_sentence_two_ways_beside_the_stored_losses(client: TestClient) -> None:
    sentence = "the old fox chased the hungry duck"
    body = client.get("/api/lm/predictions", params={"sentence": sentence}).json()
    words = sentence.split()
    assert body["sentence"] == words and body["inputs"] == ["<s>", *words]
    assert body["targets"] == [*words, "</s>"] and body["positions"] == len(words) + 1
    assert [m["model"] for m in body["models"]] == ["neg_inf", "zero", "none"]
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

    honest, zero, unmasked = body["models"]
    # −∞ cannot see ahead: reading the sentence and writing alone give the same predictions and loss, and
    # every prediction is a word the grammar allows there.
    assert honest["same"] == 8
    assert abs(honest["teacher_forced"]["accuracy"] - honest["free_running"]["accuracy"]) < 0.01
    assert honest["free_running"]["loss"] == pytest.approx(honest["teacher_forced"]["loss"], rel=1e-6)
    assert honest["free_running"]["allowed_count"] == honest["free_running"]["judged"] == 8
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
        ({"sentence": "the wug slept"}, "not in the models' vocabulary: wug"),
        ({"sentence": " ".join(["the"] * 15)}, "sentence has 15 words; at most 14 are allowed"),
        ({"sentence": "?!"}, "sentence has no words: type at least one word"),
    ],
)
def test_predictions_refuse_bad_sentences_with_a_422(client: TestClient, params: dict, detail: str) -> None:
    response = client.get("/api/lm/predictions", params=params)
    assert response.status_code == 422
    assert response.json() == {"detail": detail}


def test_predictions_refuse_a_sentence_past_the_character_limit(client: TestClient) -> None:
    response = client.get("/api/lm/predictions", params={"sentence": "the " * 60})
    assert response.status_code == 422


def test_predictions_are_in_the_openapi_document(client: TestClient) -> None:
    spec = client.get("/openapi.json").json()
    operation = spec["paths"]["/api/lm/predictions"]["get"]
    assert "422" in operation["responses"]
    (parameter,) = [p for p in operation["parameters"] if p["name"] == "sentence"]
    assert parameter["schema"]["maxLength"] == 200
    fields = spec["components"]["schemas"]["LanguageModelPredictions"]["properties"]
    assert {"teacher_forced", "free_running", "final_validation", "validation_gap"} <= fields.keys()
