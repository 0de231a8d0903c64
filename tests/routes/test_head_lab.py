"""POST /api/attention/custom (figure 4, the head lab): the worked example against a computation written out
here in plain Python, tied heads, masks, every 422 with its exact detail, the body limit, and never a 5xx."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.reference import softmax_row

URL = "/api/attention/custom"

# The worked example is the page's own "journey" preset; what it should give is computed here, independently.
PRESETS = Path(__file__).parents[2] / "static/js/figures/head-lab/presets.json"
JOURNEY = json.loads(PRESETS.read_text(encoding="utf-8"))["journey"]
TOKENS = JOURNEY["tokens"]
X = JOURNEY["embeddings"]
HEAD_1, HEAD_2 = ({name: head[name] for name in ("w_q", "w_k", "w_v")} for head in JOURNEY["heads"])
W_O = JOURNEY["w_o"]


def journey(**extra: object) -> dict:
    return {"embeddings": X, "heads": [HEAD_1, HEAD_2], "tokens": TOKENS, **extra}


def post(client: TestClient, body: dict) -> dict:
    response = client.post(URL, json=body)
    assert response.status_code == 200, response.text
    return response.json()


# ---- an independent computation, one loop at a time --------------------------------------------------------


def matmul(a: list[list[float]], b: list[list[float]]) -> list[list[float]]:
    return [[sum(a[i][t] * b[t][j] for t in range(len(b))) for j in range(len(b[0]))] for i in range(len(a))]


def reference_head(x, w_q, w_k, w_v, mask="none", scale=True):
    """softmax(Q Kᵀ / √d_k) V, written out with loops and math.exp."""
    q, k, v = matmul(x, w_q), matmul(x, w_k), matmul(x, w_v)
    n, d_k = len(x), len(w_q[0])
    divisor = math.sqrt(d_k) if scale else 1.0
    weights = []
    for i in range(n):
        scores = [sum(q[i][t] * k[j][t] for t in range(d_k)) / divisor for j in range(n)]
        weights.append(softmax_row(scores, i, mask))
    context = matmul(weights, v)
    return weights, context


def close(a, b, tol: float = 1e-12) -> bool:
    if isinstance(a, list):
        return len(a) == len(b) and all(close(x, y, tol) for x, y in zip(a, b, strict=True))
    return abs(a - b) <= tol


# ---- the worked example ------------------------------------------------------------------------------------


def test_the_worked_example_matches_a_plain_loop_computation(client: TestClient) -> None:
    body = post(client, journey(w_o=W_O))
    assert body["tokens"] == TOKENS
    for k, head in enumerate((HEAD_1, HEAD_2)):
        weights, context = reference_head(X, head["w_q"], head["w_k"], head["w_v"])
        assert close(body["weights"][k], weights), k
        assert close(body["context"][k], context), k
    concat = [body["context"][0][i] + body["context"][1][i] for i in range(6)]
    assert close(body["concat"], concat)
    assert close(body["output"], matmul(concat, W_O))
    assert body["parameters"] == {"per_head": [18, 12], "w_o": 8, "total": 38}


def test_the_two_heads_read_the_row_of_journey_differently(client: TestClient) -> None:
    body = post(client, journey())
    head_1, head_2 = body["weights"][0][1], body["weights"][1][1]
    # Head 1 spreads its attention; head 2 looks at the word with the largest third coordinate, "Your".
    assert max(head_1) < 0.25
    assert head_2.index(max(head_2)) == 0 and head_2[0] > 0.6
    # Rounded as the page shows them.
    assert [round(w, 2) for w in head_1] == [0.15, 0.23, 0.22, 0.13, 0.09, 0.18]
    assert [round(w, 2) for w in head_2] == [0.6, 0.15, 0.14, 0.02, 0.01, 0.08]


def test_every_stage_is_returned(client: TestClient) -> None:
    body = post(client, journey())
    for k, head in enumerate((HEAD_1, HEAD_2)):
        q, keys = matmul(X, head["w_q"]), matmul(X, head["w_k"])
        d_k = len(head["w_q"][0])
        assert close(body["q"][k], q) and close(body["k"][k], keys)
        assert close(body["v"][k], matmul(X, head["w_v"]))
        scores = [[sum(a * b for a, b in zip(qi, kj, strict=True)) for kj in keys] for qi in q]
        assert close(body["scores"][k], scores)
        assert close(body["scaled"][k], [[s / math.sqrt(d_k) for s in row] for row in scores])
        assert body["masked"][k] == body["scaled"][k]
    assert body["output"] is None
    assert body["parameters"] == {"per_head": [18, 12], "w_o": 0, "total": 30}


def test_the_head_difference_is_the_largest_gap_between_head_1_and_head_2(client: TestClient) -> None:
    body = post(client, journey())
    _, context_1 = reference_head(X, **HEAD_1)
    _, context_2 = reference_head(X, **HEAD_2)
    pairs = zip(context_1, context_2, strict=True)
    gap = max(abs(a - b) for row_1, row_2 in pairs for a, b in zip(row_1, row_2, strict=True))
    assert body["head_difference"] == pytest.approx(gap, rel=1e-12)
    assert body["sqrt_d_k"] == [math.sqrt(2), 1.0]
    # Tied: exactly 0. One head, or two heads whose values differ in width: nothing to compare.
    assert post(client, journey(heads=[HEAD_1, HEAD_1]))["head_difference"] == 0.0
    assert post(client, journey(heads=[HEAD_1]))["head_difference"] is None
    wide = {**HEAD_2, "w_v": [[1, 0, 0]] * 3}
    assert post(client, journey(heads=[HEAD_1, wide]))["head_difference"] is None


def test_tied_heads_give_identical_outputs(client: TestClient) -> None:
    body = post(client, journey(heads=[HEAD_1, HEAD_1], w_o=W_O))
    for stage in ("q", "k", "v", "scores", "weights", "context"):
        assert body[stage][0] == body[stage][1], stage
    for row in body["concat"]:
        assert row[:2] == row[2:]
    # W_O averages the two heads, so the output is head 1's context itself.
    assert close(body["output"], body["context"][0])


@pytest.mark.parametrize("mask", ["neg_inf", "zero"])
def test_masks_match_the_reference_and_travel_as_json(client: TestClient, mask: str) -> None:
    body = post(client, journey(mask=mask))
    assert body["mask"] == mask
    for k, head in enumerate((HEAD_1, HEAD_2)):
        weights, context = reference_head(X, head["w_q"], head["w_k"], head["w_v"], mask=mask)
        assert close(body["weights"][k], weights) and close(body["context"][k], context)
        for i in range(6):
            for j in range(i + 1, 6):
                if mask == "neg_inf":
                    assert body["masked"][k][i][j] is None  # −∞: JSON has none, so null
                    assert body["weights"][k][i][j] == 0.0
                else:
                    assert body["masked"][k][i][j] == 0.0
                    assert body["weights"][k][i][j] > 0.0  # the ×0 bug still leaks


def test_scale_false_leaves_the_scores_alone(client: TestClient) -> None:
    body = post(client, journey(scale=False))
    assert body["scale"] is False
    assert body["scaled"] == body["scores"]
    weights, _ = reference_head(X, HEAD_1["w_q"], HEAD_1["w_k"], HEAD_1["w_v"], scale=False)
    assert close(body["weights"][0], weights)


def test_heads_may_differ_in_width_and_tokens_are_optional(client: TestClient) -> None:
    wide = {"w_q": [[1, 0, 0]] * 3, "w_k": [[0, 1, 0]] * 3, "w_v": [[1, 2, 3, 4]] * 3}
    body = post(client, {"embeddings": X, "heads": [HEAD_2, wide], "w_o": [[1]] * 6})
    assert body["tokens"] is None
    assert [len(c[0]) for c in body["context"]] == [2, 4]
    assert len(body["concat"][0]) == 6 and len(body["output"][0]) == 1
    assert body["parameters"] == {"per_head": [12, 30], "w_o": 6, "total": 48}


def test_the_largest_request_is_answered(client: TestClient) -> None:
    n, d, h = 64, 64, 1
    x = [[(i * 7 + j) % 11 / 10 - 0.5 for j in range(d)] for i in range(n)]
    w = [[1e6 if i == j else 0.0 for j in range(d)] for i in range(d)]
    body = post(client, {"embeddings": x, "heads": [{"w_q": w, "w_k": w, "w_v": w}] * h})
    assert len(body["weights"][0]) == 64
    for row in body["weights"][0]:
        assert abs(sum(row) - 1) < 1e-9


# ---- bad input ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("change", "detail"),
    [
        (
            {"heads": [HEAD_1, {**HEAD_2, "w_k": [[0], [0], [3], [1]]}]},
            "heads[1].w_k has 4 rows but embeddings have 3 columns",
        ),
        (
            {"heads": [{**HEAD_1, "w_k": [[1], [2], [3]]}]},
            "heads[0].w_q has 2 columns but heads[0].w_k has 1; queries and keys must have the same width",
        ),
        (
            {"embeddings": [*X[:5], [0.05, 0.80]]},
            "embeddings[5] has 2 numbers but embeddings[0] has 3 numbers: every row needs the same length",
        ),
        (
            {"heads": [{**HEAD_1, "w_v": [[1.0], [2.0, 3.0], [4.0]]}]},
            "heads[0].w_v[1] has 2 numbers but heads[0].w_v[0] has 1 number: every row needs the same length",
        ),
        ({"w_o": [[1, 0], [0, 1], [1, 1]]}, "w_o has 3 rows but the concatenated heads have 4 columns"),
        (
            {"w_o": [[1, 0], [0, 1], [1, 1], [2]]},
            "w_o[3] has 1 number but w_o[0] has 2 numbers: every row needs the same length",
        ),
        ({"tokens": TOKENS[:5]}, "tokens has 5 entries but embeddings have 6 rows"),
    ],
)
def test_mismatched_shapes_get_a_422_naming_the_field_and_both_shapes(
    client: TestClient, change: dict, detail: str
) -> None:
    response = client.post(URL, json=journey(**change))
    assert response.status_code == 422
    assert response.json() == {"detail": detail}


def raw(client: TestClient, text: str):
    return client.post(URL, content=text, headers={"content-type": "application/json"})


HEAD = '{"w_q": [[1]], "w_k": [[1]], "w_v": [[1]]}'


def refused_in_the_second_row(response, **error: object) -> None:
    """A 422 whose one error is `error`, at the first number of the second embedding."""
    assert response.status_code == 422
    assert response.json() == {"detail": [{"loc": ["body", "embeddings", 1, 0], **error}]}


@pytest.mark.parametrize(
    ("number", "shown"),
    [("NaN", "NaN"), ("Infinity", "Infinity"), ("-Infinity", "-Infinity"), ("1e999", "Infinity")],
)
def test_non_finite_numbers_get_a_422_naming_the_cell(client: TestClient, number: str, shown: str) -> None:
    response = raw(client, f'{{"embeddings": [[1], [{number}]], "heads": [{HEAD}]}}')
    msg = "Input should be a finite number"
    refused_in_the_second_row(response, type="finite_number", msg=msg, input=shown)


def test_a_non_finite_weight_is_named_too(client: TestClient) -> None:
    response = raw(
        client, '{"embeddings": [[1]], "heads": [' + HEAD + ', {"w_q": [[1]], "w_k": [[NaN]], "w_v": [[1]]}]}'
    )
    assert response.status_code == 422
    assert response.json()["detail"][0]["loc"] == ["body", "heads", 1, "w_k", 0, 0]


def test_numbers_past_a_million_get_a_422(client: TestClient) -> None:
    response = client.post(URL, json={"embeddings": [[1], [-2e6]], "heads": [json.loads(HEAD)]})
    refused_in_the_second_row(
        response,
        type="greater_than_equal",
        msg="Input should be greater than or equal to -1000000",
        input=-2e6,
        ctx={"ge": -1e6},
    )


@pytest.mark.parametrize(
    ("body", "loc", "kind"),
    [
        ({"embeddings": [[0.0]] * 65, "heads": [json.loads(HEAD)]}, ["body", "embeddings"], "too_long"),
        ({"embeddings": [[0.0] * 65], "heads": [json.loads(HEAD)]}, ["body", "embeddings", 0], "too_long"),
        ({"embeddings": [[1.0]], "heads": [json.loads(HEAD)] * 17}, ["body", "heads"], "too_long"),
        ({"embeddings": [[1.0]], "heads": []}, ["body", "heads"], "too_short"),
        ({"embeddings": [], "heads": [json.loads(HEAD)]}, ["body", "embeddings"], "too_short"),
        ({"embeddings": [[]], "heads": [json.loads(HEAD)]}, ["body", "embeddings", 0], "too_short"),
        (
            {"embeddings": [[1.0]], "heads": [{"w_q": [[1]], "w_k": [[1]]}]},
            ["body", "heads", 0, "w_v"],
            "missing",
        ),
        (
            {"embeddings": [[1.0]], "heads": [json.loads(HEAD)], "mask": "-inf"},
            ["body", "mask"],
            "literal_error",
        ),
        (
            {"embeddings": [[1.0]], "heads": [json.loads(HEAD)], "wo": [[1]]},
            ["body"],  # the body holds the unknown field; the message names it (tests/routes/test_limits.py)
            "extra_forbidden",
        ),
        (
            {"embeddings": [["one"]], "heads": [json.loads(HEAD)]},
            ["body", "embeddings", 0, 0],
            "float_type",
        ),
        (
            {"embeddings": [[1.0]], "heads": [json.loads(HEAD)], "tokens": ["x" * 41]},
            ["body", "tokens", 0],
            "string_too_long",
        ),
    ],
)
def test_malformed_bodies_get_a_422_naming_the_field(
    client: TestClient, body: dict, loc: list, kind: str
) -> None:
    response = client.post(URL, json=body)
    assert response.status_code == 422
    (error,) = response.json()["detail"]
    assert (error["loc"], error["type"]) == (loc, kind)


def test_a_body_that_is_not_json_gets_a_422(client: TestClient) -> None:
    response = raw(client, "embeddings: [[1]]")
    assert response.status_code == 422
    assert response.json()["detail"][0]["type"] == "json_invalid"


def test_a_body_over_256_kb_gets_a_413_before_it_is_parsed(client: TestClient) -> None:
    padding = " " * (256 * 1024)
    response = raw(client, '{"embeddings": [[1]],' + padding + '"heads": [' + HEAD + "]}")
    assert response.status_code == 413
    assert response.json() == {"detail": "the request body is larger than 262144 bytes (256 KB)"}

    def chunks():  # no Content-Length: counted as it arrives
        yield b'{"embeddings": [[1]],'
        for _ in range(30):
            yield b" " * 10_000
        yield ('"heads": [' + HEAD + "]}").encode()

    response = client.post(URL, content=chunks(), headers={"content-type": "application/json"})
    assert response.status_code == 413


def test_a_body_just_under_the_limit_is_read(client: TestClient) -> None:
    body = json.dumps(journey())
    response = raw(client, body + " " * (256 * 1024 - len(body)))
    assert response.status_code == 200
    assert response.json() == raw(client, body).json()  # the padding changes nothing


# ---- never a 5xx -------------------------------------------------------------------------------------------

NUMBERS = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True), st.integers(-(10**400), 10**400), st.text(max_size=3)
)
MATRICES = st.lists(st.lists(NUMBERS, max_size=4), max_size=4)
BODIES = st.fixed_dictionaries(
    {
        "embeddings": MATRICES,
        "heads": st.lists(
            st.fixed_dictionaries({"w_q": MATRICES, "w_k": MATRICES, "w_v": MATRICES}), max_size=3
        ),
    },
    optional={
        "w_o": st.one_of(st.none(), MATRICES),
        "mask": st.sampled_from(["none", "neg_inf", "zero", "nope"]),
        "scale": st.one_of(st.booleans(), st.integers(), st.text(max_size=2)),
        "tokens": st.one_of(st.none(), st.lists(st.text(max_size=5), max_size=5)),
    },
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(body=BODIES)
def test_no_body_gets_a_server_error(client: TestClient, body: dict) -> None:
    response = client.post(URL, content=json.dumps(body), headers={"content-type": "application/json"})
    assert response.status_code in (200, 422), response.text
    answer = response.json()  # always JSON: a refusal says why, an answer holds the weights
    assert answer["detail"] if response.status_code == 422 else "heads" in answer


def test_the_endpoint_is_in_the_openapi_document(client: TestClient) -> None:
    paths = client.get("/openapi.json").json()["paths"]
    operation = paths[URL]["post"]
    assert operation["requestBody"]["content"]["application/json"]["schema"]["$ref"].endswith(
        "CustomAttentionRequest"
    )
    assert {"200", "413", "422"} <= set(operation["responses"])


# ---- the article -------------------------------------------------------------------------------------------


def test_the_article_carries_the_accounting_and_head_lab_with_typeset_formulas(client: TestClient) -> None:
    from app.core.mathml import FORMULAS

    page = client.get("/").text
    for name in ("multihead", "head_i", "attention", "parameters"):
        assert FORMULAS[name] in page, name
    assert 'data-widget="accounting"' in page and 'data-widget="head-lab"' in page
    # The heads dial comes first, then the accounting, then (after sharing) the head lab.
    assert page.index('id="heads-dial"') < page.index('id="accounting"') < page.index('id="head-lab"')
    # The table's first numbers come from app.core.accounting: 8 heads of width 64 in a 512-wide layer.
    assert 'data-cell="split.weights.total">1,048,576<' in page
