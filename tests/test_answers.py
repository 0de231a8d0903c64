"""How answers are written (app/web/answers.py): JSON straight from numpy, and the packed form of attention
weights, checked against the promises the API documentation makes for it."""

from __future__ import annotations

import json
import struct

import numpy as np
import pytest
from fastapi.testclient import TestClient

from app.core.diagnostics import diagnose
from app.web.answers import PACKED_RELATIVE_ERROR, PACKED_SMALLEST, float24, json_bytes, packed

WORDS = "the river bank was steep and a bat flew near the old mill by the lake at dusk".split()
LONG = " ".join(WORDS[(i * 7) % len(WORDS)] for i in range(64))  # 64 words


def unfloat24(data: bytes) -> np.ndarray:
    """What a reader of the packed form does: a zero byte below each three, read as float32."""
    three = np.frombuffer(data, dtype=np.uint8).reshape(-1, 3)
    four = np.zeros((len(three), 4), dtype=np.uint8)
    four[:, 1:] = three
    return four.view("<f4").ravel().astype(np.float64)


def unpack(body: bytes) -> dict:
    """The packed answer read back as the JSON answer (the page's lib/packed.js, in Python)."""
    (n,) = struct.unpack("<I", body[:4])
    assert (4 + n) % 4 == 0, "the numbers start at a multiple of 4 bytes"
    head = json.loads(body[4 : 4 + n])
    shape = head.pop("weights_shape")
    numbers = unfloat24(body[4 + n :])
    assert numbers.size == int(np.prod(shape))
    return {**head, "weights": numbers.reshape(shape)}


def test_json_bytes_writes_numpy_arrays_of_any_layout_and_non_finite_numbers_as_null() -> None:
    a = np.arange(6.0).reshape(2, 3)
    value = {"t": a.T, "every_other": a[:, ::2], "pair": (1, 2), "n": np.int64(3), "x": np.float64(0.1)}
    assert json.loads(json_bytes(value)) == {
        "t": a.T.tolist(),
        "every_other": a[:, ::2].tolist(),
        "pair": [1, 2],
        "n": 3,
        "x": 0.1,
    }
    assert json_bytes([np.array([np.nan, -np.inf, 1.0]), float("inf")]) == b"[[null,null,1.0],null]"
    with pytest.raises(TypeError):
        json_bytes({"set": {1, 2}})


def test_json_floats_read_back_as_the_same_float64() -> None:
    x = np.random.default_rng(0).random(1000) ** 9  # down to 1e-30 and below
    assert np.array_equal(np.array(json.loads(json_bytes(x))), x)


def test_float24_keeps_zeros_equalities_and_positives_and_stays_within_its_stated_error() -> None:
    rng = np.random.default_rng(1)
    x = np.concatenate([rng.random(20_000) ** 12, [0.0, 1.0, 0.5, 1e-40, 1e-300, 5e-324], np.full(7, 0.123)])
    back = unfloat24(float24(x))
    assert np.array_equal(back == 0, x == 0), "exact zeros stay 0 and nothing else becomes 0"
    assert np.all(back[x > 0] > 0)
    assert len(set(back[-7:])) == 1, "equal numbers stay equal"
    normal = x >= np.finfo(np.float32).tiny
    assert np.max(np.abs(back - x)[normal] / x[normal]) <= PACKED_RELATIVE_ERROR
    assert np.max(np.abs(back - x)[~normal]) <= PACKED_SMALLEST
    assert back[x == 1e-300][0] == PACKED_SMALLEST  # below the form's range: its smallest positive number


def test_float24_rounds_to_nearest_not_down() -> None:
    x = np.array([0.7, 0.1, 1 / 3])
    cut = unfloat24(np.frombuffer(float24(x), np.uint8).tobytes())
    truncated = (x.astype("<f4").view("<u4") >> 8 << 8).view("<f4").astype(np.float64)
    assert np.all(np.abs(cut - x) <= np.abs(truncated - x))
    assert np.max(np.abs(cut - x) / x) < 2**-16 + 2**-24


def test_packed_lays_out_the_head_then_the_numbers() -> None:
    weights = np.array([[[0.25, 0.75], [1.0, 0.0]]])
    body = packed({"tokens": ["a", "b"]}, "weights", weights)
    answer = unpack(body)
    assert answer["tokens"] == ["a", "b"] and answer["weights"].shape == (1, 2, 2)
    assert np.array_equal(answer["weights"], weights)  # these four are exact in float24
    assert len(body) == 4 + struct.unpack("<I", body[:4])[0] + 3 * 4


@pytest.mark.parametrize("mask", ["none", "neg_inf", "zero"])
def test_the_packed_attention_answer_is_the_json_answer_within_the_stated_tolerance(
    client: TestClient, mask: str
) -> None:
    params = {"sentence": LONG, "heads": 12, "mask": mask}
    full = client.get("/api/attention", params=params).json()
    response = client.get("/api/attention", params={**params, "format": "packed"})
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/octet-stream"
    answer = unpack(response.content)
    exact = np.array(full.pop("weights"))
    weights = answer.pop("weights")
    assert answer == full, "every other field as exact as in JSON"
    assert np.array_equal(weights == 0, exact == 0)
    positive = exact > 0
    error = np.abs(weights - exact)[positive]
    assert np.all(error <= PACKED_RELATIVE_ERROR * exact[positive] + PACKED_SMALLEST)
    assert np.max(np.abs(weights.sum(axis=-1) - 1)) <= PACKED_RELATIVE_ERROR
    if mask == "zero":  # the ×0 fingerprint survives: a row's future weights are still equal to each other
        for head in weights:
            for i, row in enumerate(head[:-1]):
                assert len(set(row[i + 1 :])) == 1


@pytest.mark.parametrize(("mask", "signature"), [("zero", "zero_fill"), ("neg_inf", "causal")])
def test_the_diagnosis_of_the_packed_weights_is_the_diagnosis_of_the_json_ones(
    client: TestClient, mask: str, signature: str
) -> None:
    params = {"sentence": LONG, "heads": 4, "mask": mask}
    full = diagnose(np.array(client.get("/api/attention", params=params).json()["weights"]))
    body = client.get("/api/attention", params={**params, "format": "packed"}).content
    sent = diagnose(unpack(body)["weights"])
    assert [h.signature for h in sent.each_head()] == [h.signature for h in full.each_head()]
    assert {h.signature for h in sent.each_head()} == {signature}
    assert sent.verdict == full.verdict


def test_the_64_word_12_head_answer_the_page_asks_for_is_at_most_200_kb(client: TestClient) -> None:
    params = {"sentence": LONG, "heads": 12, "format": "packed"}
    packed_size = len(client.get("/api/attention", params=params).content)
    json_size = len(client.get("/api/attention", params={**params, "format": "json"}).content)
    assert packed_size <= 200_000, packed_size
    assert json_size > 5 * packed_size


def test_a_bad_format_is_refused(client: TestClient) -> None:
    response = client.get("/api/attention", params={"format": "xml"})
    assert response.status_code == 422
    assert "format" in response.text
