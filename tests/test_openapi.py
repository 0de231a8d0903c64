"""The OpenAPI document says what each endpoint accepts: every value its enums and patterns allow is answered,
and the values the endpoints refused while the document allowed them (heads=0, an empty layer, a figure name
that does not exist) are outside it now. tests/test_fuzz.py checks the same at random; these pin the cases."""

from __future__ import annotations

import re

import pytest
from fastapi.testclient import TestClient

from app.config import get_settings
from app.models.heads import VALID_HEADS
from app.models.real_bert.answer import LAYER_CHOICES
from app.routes.pages import figure_names
from tests.optional import require_real_model


def parameter(client: TestClient, path: str, name: str) -> dict:
    operation = client.get("/openapi.json").json()["paths"][path]["get"]
    (found,) = [p for p in operation["parameters"] if p["name"] == name]
    return found["schema"]


def test_heads_are_the_divisors_of_d_model(client: TestClient) -> None:
    schema = parameter(client, "/api/attention", "heads")
    assert schema["enum"] == VALID_HEADS
    for heads in VALID_HEADS:
        assert client.get(f"/api/attention?heads={heads}").status_code == 200
    for heads in (0, -3, 5, 2 * max(VALID_HEADS)):
        assert client.get(f"/api/attention?heads={heads}").status_code == 422


def test_layers_are_0_to_5_or_all_exactly(client: TestClient) -> None:
    schema = parameter(client, "/api/real-attention", "layer")
    assert schema["enum"] == list(LAYER_CHOICES) == ["0", "1", "2", "3", "4", "5", "all"]
    for layer in ("", " 1", "ALL", "6"):
        assert client.get("/api/real-attention", params={"layer": layer}).status_code == 422, layer


def test_every_layer_in_the_enum_is_answered(client: TestClient) -> None:
    require_real_model()
    for layer in LAYER_CHOICES:
        response = client.get("/api/real-attention", params={"layer": layer, "sentence": "a dog"})
        assert response.status_code == 200, layer
        assert response.json()["tokens"] == ["[CLS]", "a", "dog", "[SEP]"], layer


@pytest.mark.parametrize(
    ("text", "documented"),
    [("", True), ("2,0,1", True), (" 2,0,1\n", True), ("2, 0, 1", False), ("+2,0,1", False), ("2_0", False)],
)
def test_a_permutation_is_refused_exactly_when_the_pattern_says(
    client: TestClient, text: str, documented: bool
) -> None:
    pattern = parameter(client, "/api/order", "permutation")["pattern"]
    assert bool(re.search(pattern, text)) is documented
    response = client.get("/api/order", params={"sentence": "dog bites man", "permutation": text})
    assert response.status_code == (200 if documented else 422), response.text


def test_figure_names_are_the_figures(client: TestClient) -> None:
    operation = client.get("/openapi.json").json()["paths"]["/figure/{name}"]["get"]
    (name,) = [p for p in operation["parameters"] if p["name"] == "name"]
    assert name["schema"]["enum"] == figure_names(get_settings().templates_dir)
    for figure in name["schema"]["enum"]:
        assert client.get(f"/figure/{figure}").status_code == 200
