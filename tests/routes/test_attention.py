"""/api/attention: the contract of PRODUCT.md, checked on content, and every 422."""

import json

import numpy as np
import orjson
import pytest
from fastapi.testclient import TestClient

from app.core.attention import valid_head_counts
from app.models.relations import D_MODEL
from app.models.verdicts import head_verdicts, own_heads
from app.web.answers import json_bytes

DEFAULT = "the river bank was steep"


def word_scores(weights: np.ndarray, targets: list) -> np.ndarray:
    """Per head, each word's weight on all of its partners together, averaged over the words with partners:
    the score /api/attention documents, recomputed from the answer."""
    queries = sorted({i for i, _ in targets})
    wanted = np.zeros((len(queries), weights.shape[-1]))
    for i, j in targets:
        wanted[queries.index(i), j] = 1.0
    return (weights[:, queries, :] * wanted).sum(-1).mean(-1)


def get(client: TestClient, **params: object) -> dict:
    response = client.get("/api/attention", params=params)
    assert response.status_code == 200, response.text
    return response.json()


def test_default_answer_follows_the_contract(client: TestClient) -> None:
    body = get(client)
    assert body["tokens"] == DEFAULT.split()
    assert body["known"] == [True] * 5
    assert (body["d_model"], body["heads"], body["mask"], body["trained"]) == (D_MODEL, 3, "none", True)
    assert body["valid_heads"] == valid_head_counts(D_MODEL) and 3 in body["valid_heads"]
    weights = np.array(body["weights"])
    assert weights.shape == (3, 5, 5)
    np.testing.assert_allclose(weights.sum(-1), 1.0, atol=1e-9)
    relations = {r["name"]: r for r in body["relations"]}
    assert set(relations) == {"meaning", "grammar", "position"}
    assert [2, 1] in relations["meaning"]["targets"]  # bank -> river
    assert [2, 3] in relations["grammar"]["targets"] and [3, 2] in relations["grammar"]["targets"]
    assert relations["position"]["targets"] == [[1, 0], [2, 1], [3, 2], [4, 3]]


def test_relation_scores_are_each_words_weight_on_all_its_partners(client: TestClient) -> None:
    body = get(client, sentence="my brother and my sister live by the river bank", heads=4)
    weights = np.array(body["weights"])
    for relation in body["relations"]:
        per_head = word_scores(weights, relation["targets"])
        assert relation["best_head"] == int(per_head.argmax())
        assert relation["score"] == pytest.approx(per_head.max())
        assert relation["head_scores"] == pytest.approx(per_head.tolist())


@pytest.mark.parametrize("heads", [1, 3, 48])
def test_every_heads_verdict_is_judged_from_its_scores(client: TestClient, heads: int) -> None:
    body = get(client, sentence="the bat flew out of the cave at night", heads=heads)
    scores = {r["name"]: r["head_scores"] for r in body["relations"] if r["head_scores"] is not None}
    expected = [{"kind": v.kind, "relations": list(v.relations)} for v in head_verdicts(scores)]
    assert body["verdicts"] == expected and len(expected) == heads
    assert body["own_heads"] == own_heads(head_verdicts(scores), list(scores))


@pytest.mark.parametrize("heads", [1, 3, 24])
@pytest.mark.parametrize(
    "sentence", [DEFAULT, "the bat flew out of the cave and the dog barked at the river bank"]
)
def test_shared_pairs_and_own_scores_match_a_recomputation(
    client: TestClient, heads: int, sentence: str
) -> None:
    """Each relation's shared pairs, own-pairs score and borrowed flag, recomputed from the answer's targets
    and weights: a pair is shared when another relation also claims it (named by the first that does)."""
    body = get(client, sentence=sentence, heads=heads)
    weights = np.array(body["weights"])
    for relation in body["relations"]:
        others = {}
        for other in body["relations"]:
            if other["name"] != relation["name"]:
                for pair in other["targets"]:
                    others.setdefault(tuple(pair), other["name"])
        shared = [p for p in relation["targets"] if tuple(p) in others]
        own = [p for p in relation["targets"] if tuple(p) not in others]
        assert relation["shared_pairs"] == [{"pair": p, "also": others[tuple(p)]} for p in shared]
        if not shared or not own:
            assert (relation["own_score"], relation["borrowed"]) == (None, False)
            continue
        own_score = float(word_scores(weights[relation["best_head"]][None], own)[0])
        assert relation["own_score"] == pytest.approx(own_score)
        assert relation["borrowed"] is (relation["score"] - own_score >= 0.15)


def test_trained_heads_specialise_on_the_default_sentence(client: TestClient) -> None:
    for heads in (3, 4, 6):
        relations = get(client, heads=heads)["relations"]
        best = [r["best_head"] for r in relations]
        assert len(set(best)) == 3, (heads, best)
        assert min(r["score"] for r in relations) >= 0.8, (heads, relations)


def test_one_head_cannot_serve_all_three_relations_on_the_default_sentence(client: TestClient) -> None:
    """The lone head's verdict leaves at least one relation unserved, and its weakest relation gets less
    than two thirds of its words' weight."""
    body = get(client, heads=1)
    present = {r["name"] for r in body["relations"] if r["targets"]}
    [verdict] = body["verdicts"]
    assert not present <= set(verdict["relations"]) or verdict["kind"] in ("torn", "leans", "none")
    assert min(r["score"] for r in body["relations"]) < 2 / 3


def test_untrained_heads_are_the_initial_weights(client: TestClient) -> None:
    trained = np.array(get(client, heads=3)["weights"])
    untrained = get(client, heads=3, trained="false")
    assert untrained["trained"] is False
    assert not np.allclose(trained, untrained["weights"])
    # Freshly initialised heads barely look anywhere in particular: every row is close to uniform.
    assert np.abs(np.array(untrained["weights"]) - 1 / 5).max() < 0.1


@pytest.mark.parametrize("mask", ["none", "neg_inf", "zero"])
def test_masks_change_the_future(client: TestClient, mask: str) -> None:
    body = get(client, heads=3, mask=mask)
    weights = np.array(body["weights"])
    future = np.triu(np.ones((5, 5), dtype=bool), k=1)
    share = (weights * future).sum(-1).mean()
    assert body["future_leak"] == pytest.approx(share)
    if mask == "neg_inf":
        assert (weights[:, future] == 0.0).all()
        assert body["future_leak"] == 0.0
    else:
        assert body["future_leak"] > 0.0
    if mask == "zero":  # the masked_fill(mask, 0) bug: every future key of a row gets the same weight
        for h in range(3):
            for i in range(3):
                assert np.ptp(weights[h, i, i + 1 :]) < 1e-12


@pytest.mark.parametrize("mask", ["none", "neg_inf", "zero"])
@pytest.mark.parametrize("heads", [1, 4])
def test_future_shares_are_each_rows_weight_on_later_keys(client: TestClient, mask: str, heads: int) -> None:
    """future_shares[k][i] = Σ_{j>i} w_kij and row_future_shares[i] = its mean over the heads, checked against
    a plain loop over the answer's own weights (the mask lab shows these numbers and computes none)."""
    body = get(client, sentence="the farmer saw the boat near the house", heads=heads, mask=mask)
    weights = body["weights"]
    n = len(body["tokens"])
    per_head = [[sum(w[i][j] for j in range(i + 1, n)) for i in range(n)] for w in weights]
    np.testing.assert_allclose(body["future_shares"], per_head, rtol=0, atol=1e-12)
    mean = [sum(head[i] for head in per_head) / heads for i in range(n)]
    assert body["row_future_shares"] == pytest.approx(mean, abs=1e-12)
    assert body["row_future_shares"][-1] == 0.0  # the last word has no later words
    assert body["future_leak"] == pytest.approx(sum(mean) / n)
    if mask == "neg_inf":
        assert body["row_future_shares"] == [0.0] * n


def test_unknown_words_are_kept_and_marked(client: TestClient) -> None:
    body = get(client, sentence="the zorblax bank was steep")
    assert body["tokens"][1] == "zorblax"
    assert body["known"] == [True, False, True, True, True]
    np.testing.assert_allclose(np.array(body["weights"]).sum(-1), 1.0, atol=1e-9)


def test_sixty_four_tokens_is_the_limit(client: TestClient) -> None:
    body = get(client, sentence=" ".join(["bank"] * 64), heads=24)
    assert np.array(body["weights"]).shape == (24, 64, 64)


@pytest.mark.parametrize(
    ("params", "detail"),
    [
        ({"sentence": "!!! ...", "heads": 3}, "sentence has no words: type at least one word"),
        ({"sentence": " ".join(["a"] * 65)}, "sentence has 65 words; at most 64 are allowed"),
        ({"heads": 5}, "heads must divide d_model = 48: one of 1, 2, 3, 4, 6, 8, 12, 16, 24, 48 (got 5)"),
        ({"heads": 0}, "heads must divide d_model = 48: one of 1, 2, 3, 4, 6, 8, 12, 16, 24, 48 (got 0)"),
        ({"heads": -48}, "heads must divide d_model = 48: one of 1, 2, 3, 4, 6, 8, 12, 16, 24, 48 (got -48)"),
    ],
)
def test_bad_requests_get_a_clear_422(client: TestClient, params: dict, detail: str) -> None:
    response = client.get("/api/attention", params=params)
    assert response.status_code == 422
    assert response.json() == {"detail": detail}


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"sentence": ""}, "sentence"),
        ({"sentence": "a" * 501}, "sentence"),
        ({"heads": "three"}, "heads"),
        ({"heads": "1e400"}, "heads"),
        ({"mask": "minus_infinity"}, "mask"),
        ({"trained": "maybe"}, "trained"),
    ],
)
def test_malformed_parameters_get_a_422_naming_the_field(
    client: TestClient, params: dict, field: str
) -> None:
    response = client.get("/api/attention", params=params)
    assert response.status_code == 422
    assert response.json()["detail"][0]["loc"] == ["query", field]


# ---- kv_heads: query heads sharing key/value heads ------------------------------------------------------


def test_without_kv_heads_the_answer_is_unchanged(client: TestClient) -> None:
    """No `kv_heads`: the fields the answer always had, in their order, and nothing else. With kv_heads = h
    the same answer, byte for byte once its two added fields are taken out, in both forms."""
    fields = ["tokens", "known", "d_model", "heads", "valid_heads", "mask", "trained", "weights"]
    fields += ["future_leak", "future_shares", "row_future_shares", "relations", "verdicts", "own_heads"]
    for heads in (3, 12):
        plain = client.get("/api/attention", params={"heads": heads})
        named = client.get("/api/attention", params={"heads": heads, "kv_heads": heads})
        body = named.json()
        assert list(plain.json()) == fields
        assert (body["kv_heads"], body["kv_head_of"]) == (heads, list(range(heads)))
        assert list(body) == fields[:5] + ["kv_heads", "kv_head_of"] + fields[5:]
        without = {
            k: v for k, v in orjson.loads(named.content).items() if k not in ("kv_heads", "kv_head_of")
        }
        assert json_bytes(without) == plain.content
        packed_plain = client.get("/api/attention", params={"heads": heads, "format": "packed"}).content
        packed_named = client.get(
            "/api/attention", params={"heads": heads, "kv_heads": heads, "format": "packed"}
        )
        assert packed_named.content.endswith(packed_plain[-heads * 25 * 3 :])  # the same weights, packed


@pytest.mark.parametrize(("heads", "kv_heads"), [(3, 1), (12, 4), (12, 1), (6, 2)])
def test_shared_key_value_heads_are_served_and_named(client: TestClient, heads: int, kv_heads: int) -> None:
    body = get(client, sentence="the bat flew out of the cave", heads=heads, kv_heads=kv_heads)
    assert (body["heads"], body["kv_heads"]) == (heads, kv_heads)
    assert body["kv_head_of"] == [i // (heads // kv_heads) for i in range(heads)]
    weights = np.array(body["weights"])
    assert weights.shape == (heads, 7, 7)
    np.testing.assert_allclose(weights.sum(-1), 1.0, atol=1e-9)
    unshared = np.array(get(client, sentence="the bat flew out of the cave", heads=heads)["weights"])
    assert not np.allclose(weights, unshared)  # another layer, and not a cached answer for another g
    for relation in body["relations"]:
        assert relation["head_scores"] == pytest.approx(word_scores(weights, relation["targets"]).tolist())
    raw = client.get(
        "/api/attention", params={"heads": heads, "kv_heads": kv_heads, "format": "packed"}
    ).content
    head = json.loads(raw[4 : 4 + int.from_bytes(raw[:4], "little")])
    assert (head["kv_heads"], head["kv_head_of"]) == (kv_heads, body["kv_head_of"])


@pytest.mark.parametrize(
    ("params", "detail"),
    [
        ({"heads": 12, "kv_heads": 5}, "kv_heads must divide heads = 12: one of 1, 2, 3, 4, 6, 12 (got 5)"),
        ({"kv_heads": 0}, "kv_heads must divide heads = 3: one of 1, 3 (got 0)"),
        ({"heads": 4, "kv_heads": 8}, "kv_heads must divide heads = 4: one of 1, 2, 4 (got 8)"),
        ({"heads": 24, "kv_heads": 6}, "kv_heads = 6 was not trained for heads = 24: one of 24"),
    ],
)
def test_a_kv_heads_that_does_not_divide_heads_gets_a_422(
    client: TestClient, params: dict, detail: str
) -> None:
    response = client.get("/api/attention", params=params)
    assert response.status_code == 422
    assert response.json() == {"detail": detail}


def test_a_malformed_kv_heads_gets_a_422_naming_the_field(client: TestClient) -> None:
    response = client.get("/api/attention", params={"kv_heads": "two"})
    assert response.status_code == 422
    assert response.json()["detail"][0]["loc"] == ["query", "kv_heads"]
