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
