"""GET /api/order: the permutation check over HTTP, and its 422s."""

from __future__ import annotations

import pytest


def test_default_is_dog_bites_man_reversed_without_positions(client) -> None:
    response = client.get("/api/order")
    assert response.status_code == 200
    body = response.json()
    assert body["tokens"] == ["dog", "bites", "man"]
    assert body["permuted_tokens"] == ["man", "bites", "dog"]
    assert body["permutation"] == [2, 1, 0]
    assert body["positional"] is False
    assert body["heads"] == 3
    assert body["equivariant"] is True
    assert body["max_difference"] <= body["tolerance"] == 1e-12
    assert len(body["weights"]) == 3 and len(body["weights"][0]) == 3
    for rows in body["weights"] + body["permuted_weights"]:
        for row in rows:
            assert sum(row) == pytest.approx(1.0)


def test_positions_make_the_two_orders_differ(client) -> None:
    body = client.get("/api/order", params={"sentence": "dog bites man", "positional": "true"}).json()
    assert body["equivariant"] is False
    assert body["row_differences"][0] > 0.1  # dog
    assert body["max_difference"] == max(body["row_differences"])


def test_an_explicit_permutation_is_used(client) -> None:
    params = {"sentence": "the river bank was steep", "permutation": "4,0,3,1,2"}
    body = client.get("/api/order", params=params).json()
    assert body["permuted_tokens"] == ["steep", "the", "was", "river", "bank"]
    assert body["equivariant"] is True


@pytest.mark.parametrize(
    ("params", "detail"),
    [
        (
            {"permutation": "0,0,1"},
            "permutation must list each position 0 to 2 exactly once (the sentence has 3 words; got 0,0,1)",
        ),
        (
            {"permutation": "two,one"},
            "permutation must be comma-separated word positions such as 2,0,1 (got 'two,one')",
        ),
        ({"sentence": "  "}, "sentence has no words: type at least one word"),
        ({"sentence": " ".join(["dog"] * 65)}, "sentence has 65 words; at most 64 are allowed"),
    ],
)
def test_bad_input_gets_a_422_with_a_clear_detail(client, params, detail) -> None:
    response = client.get("/api/order", params=params)
    assert response.status_code == 422
    assert response.json() == {"detail": detail}


@pytest.mark.parametrize(
    "params",
    [{"sentence": ""}, {"sentence": "x" * 501}, {"positional": "maybe"}, {"permutation": "1," * 300}],
)
def test_out_of_range_parameters_are_validation_errors(client, params) -> None:
    response = client.get("/api/order", params=params)
    assert response.status_code == 422
    assert response.json()["detail"]


def test_the_endpoint_is_in_the_openapi_document(client) -> None:
    paths = client.get("/openapi.json").json()["paths"]
    assert "/api/order" in paths
