"""POST /api/diagnose: each file type and shape, the exact body of every 4xx, and a bounded answer whatever
the file holds (test_diagnose_limits.py has the size cap and the disk)."""

from __future__ import annotations

import functools
import json

import numpy as np
import pytest
from fastapi.testclient import TestClient

from app.core.diagnosis_limits import MAX_HEADS
from app.core.diagnostics import LISTED_HEADS
from app.core.masks import apply_mask, softmax
from tools.inprocess import npy

LIMIT = 2 * 1024 * 1024
MISSING = {"detail": 'no file: send the attention weights as multipart/form-data in a field named "file"'}
SCORES = np.random.default_rng(7).normal(size=(2, 3, 6, 6))


def row_3_of_head_0_1_sums_to_1_2() -> np.ndarray:
    w = np.stack([np.eye(5), np.eye(5)])  # (2, 5, 5): heads (0, 0) and (0, 1)
    w[1, 3, 0] = 0.2
    return w


def upload(client: TestClient, name: str, data: bytes) -> tuple[int, dict]:
    response = client.post("/api/diagnose", files={"file": (name, data, "application/octet-stream")})
    assert response.headers["content-type"] == "application/json"
    return response.status_code, response.json()


def diagnosed(client: TestClient, name: str, data: bytes) -> dict:
    status, body = upload(client, name, data)
    assert status == 200, body
    return body


def test_a_csv_matrix_gets_the_whole_answer(client: TestClient) -> None:
    body = diagnosed(client, "weights.csv", b"1,0,0\n0.5,0.5,0\n0.2,0.3,0.5\n")
    rows = [[0.5, 0.5], [0.2, 0.3, 0.5]]  # row 1 has entropy 0
    entropy = -sum(w * np.log(w) for row in rows for w in row) / 3
    assert body == {
        "shape": [3, 3],
        "heads": [
            {
                "layer": 0,
                "head": 0,
                "max_future": 0.0,
                "future_mass": 0.0,
                "verdict": "causal",
                "signature": "causal",
                "nan_rows": 0,
                "empty_rows": 0,
                "row_sum_min": 1.0,
                "row_sum_max": 1.0,
                "entropy": pytest.approx(entropy),
            }
        ],
        "heads_total": 1,
        "heads_listed": 1,
        "layers": [
            {
                "layer": 0,
                "heads": 1,
                "leaking": 0,
                "zero_fill": 0,
                "unmasked": 0,
                "broken": 0,
                "max_future": 0.0,
            }
        ],
        "signatures": {"causal": 1},
        "grid": {
            "future_mass": [[0.0]],
            "max_future": [[0.0]],
            "entropy": [[pytest.approx(entropy)]],
            "signature": [["causal"]],
            "verdict": [["causal"]],
            "nan_rows": [[0]],
        },
        "verdict": "causal",
        "summary": "causal: the head puts exactly zero weight on future positions (j > i).",
        "tokens": None,
        "weights": None,  # the upload is not sent back: the page reads it from its own copy
        "layout": None,
    }


def test_a_json_stack_of_heads_with_the_times_zero_bug(client: TestClient) -> None:
    weights = softmax(apply_mask(SCORES[0], "zero"))  # (3, 6, 6)
    body = diagnosed(client, "heads.json", json.dumps(weights.tolist()).encode())
    assert body["shape"] == [3, 6, 6] and body["verdict"] == "leaks"
    assert [(h["layer"], h["head"], h["signature"]) for h in body["heads"]] == [
        (0, 0, "zero_fill"),
        (0, 1, "zero_fill"),
        (0, 2, "zero_fill"),
    ]
    future = np.triu(np.ones((6, 6), dtype=bool), k=1)
    for head, w in zip(body["heads"], weights, strict=True):
        assert head["max_future"] == pytest.approx(w[future].max())
        assert head["future_mass"] == pytest.approx(w[future].sum() / 6)
    assert body["weights"] is None  # the upload is not sent back
    assert "×0 signature" in body["summary"]


def test_a_json_object_with_weights_is_accepted(client: TestClient) -> None:
    data = json.dumps({"weights": [[1, 0], [0, 1]], "note": "identity"}).encode()
    assert diagnosed(client, "w.json", data)["verdict"] == "causal"


def test_an_npy_of_layers_and_heads_mixing_all_three_kinds(client: TestClient) -> None:
    weights = np.stack(
        [softmax(apply_mask(SCORES[0], "neg_inf")), softmax(apply_mask(SCORES[1], "none"))]
    )  # (2, 3, 6, 6)
    weights[1, 2] = softmax(apply_mask(SCORES[1, 2], "zero"))
    body = diagnosed(client, "attn.npy", npy(weights.astype(np.float32)))
    assert body["shape"] == [2, 3, 6, 6] and body["verdict"] == "leaks"
    assert [h["signature"] for h in body["heads"]] == ["causal"] * 3 + ["unmasked"] * 2 + ["zero_fill"]
    assert [h["verdict"] for h in body["heads"]] == ["causal"] * 3 + ["leaks"] * 3
    assert body["weights"] is None  # the page reads a .npy's heads from its own copy, where layout says
    assert body["layout"] == {"offset": 128, "dtype": "<f4", "shape": [2, 3, 6, 6]}
    assert body["signatures"] == {"zero_fill": 1, "unmasked": 2, "causal": 3}
    assert body["grid"]["signature"] == [["causal"] * 3, ["unmasked", "unmasked", "zero_fill"]]
    # every cell carries the server's verdict, the one its head has in heads
    assert [v for layer in body["grid"]["verdict"] for v in layer] == [h["verdict"] for h in body["heads"]]


@pytest.mark.parametrize("shape", [(65, 2, 2), (3, 2, 3, 3), (33, 33)])
def test_no_upload_is_sent_back_and_a_npy_gets_its_layout(client: TestClient, shape: tuple[int, ...]) -> None:
    weights = np.ascontiguousarray(np.broadcast_to(np.eye(shape[-1]), shape))
    body = diagnosed(client, "w.json", json.dumps(weights.tolist()).encode())
    assert body["layout"] is None and body["weights"] is None
    body = diagnosed(client, "w.csv", "\n".join(",".join(map(str, row)) for row in np.eye(4)).encode())
    assert body["layout"] is None and body["weights"] is None
    body = diagnosed(client, "w.npy", npy(weights))
    assert body["weights"] is None
    assert body["layout"] == {"offset": 128, "dtype": "<f8", "shape": list(shape)}
    assert len(body["heads"]) == int(np.prod(shape[:-2]))


@functools.cache
def hostile_files() -> dict[str, tuple[str, bytes, str]]:
    """Files under 2 MB whose work grows with their heads or lines, not their bytes; and the 422 each gets."""
    eye = np.eye(2, dtype=np.uint8)
    heads = "the array holds {} heads (shape {}): at most 8,192 heads are diagnosed (layers × heads)"
    return {
        "half a million heads in 2 MB of .npy": (
            "w.npy",
            npy(np.ascontiguousarray(np.broadcast_to(eye, (500_000, 2, 2)))),
            heads.format("500,000", "[500000, 2, 2]"),
        ),
        "149,000 tiny heads of .json": (
            "w.json",
            ("[" + ",".join(["[[1,0],[0,1]]"] * 149_000) + "]").encode(),
            "the .json file holds 447,001 lists, about 149,000 heads of 2 positions: at most 8,192 heads are "
            "diagnosed (layers × heads)",
        ),
        "a million .csv rows": (
            "w.csv",
            b"1\n" * 1_000_000,
            "the .csv file has more than 512 lines: it holds one [n, n] matrix, and n is at most 512 "
            "positions",
        ),
        "one .csv row of 600,000 values": (
            "w.csv",
            b"0," * 599_999 + b"1\n",
            "line 1 of the .csv file has 600,000 values: a .csv file holds one [n, n] matrix, and n is at "
            "most 512 positions",
        ),
        "257 layers": (
            "w.npy",
            npy(np.ascontiguousarray(np.broadcast_to(eye, (257, 1, 2, 2)))),
            "the array holds 257 layers (shape [257, 1, 2, 2]): at most 256 layers are diagnosed",
        ),
        "257 heads in a layer": (
            "w.npy",
            npy(np.ascontiguousarray(np.broadcast_to(eye, (1, 257, 2, 2)))),
            "the array holds 257 heads per layer (shape [1, 257, 2, 2]): at most 256 heads per layer are "
            "diagnosed",
        ),
        "8,448 heads": (
            "w.npy",
            npy(np.ascontiguousarray(np.broadcast_to(eye, (33, 256, 2, 2)))),
            heads.format("8,448", "[33, 256, 2, 2]"),
        ),
    }


@pytest.mark.parametrize("case", list(hostile_files()))
def test_a_file_past_a_limit_on_the_work_gets_a_422_naming_it(client: TestClient, case: str) -> None:
    name, data, detail = hostile_files()[case]
    assert len(data) <= LIMIT
    assert upload(client, name, data) == (422, {"detail": detail})


def mixed_model(layers: int, h: int, n: int, dtype: type = np.float64) -> tuple[np.ndarray, np.ndarray]:
    """(layers, h, n, n) weights where heads 0, 3, 6, ... in (layer, head) order leak, alternately with the
    ×0 signature (uniform rows) and unmasked (each row on the key two after it); the rest attend to
    themselves. Also the (layers, h) mask of the leaking heads."""
    k = np.arange(layers * h).reshape(layers, h)
    w = np.broadcast_to(np.eye(n, dtype=dtype), (layers, h, n, n)).copy()
    w[k % 6 == 0] = 1 / n
    w[k % 6 == 3] = np.roll(np.eye(n), 2, axis=1)
    return w, k % 3 == 0


def test_the_largest_upload_allowed_gets_a_small_answer(client: TestClient) -> None:
    """8,192 heads of 11 positions in float16, 1.9 MB: every head diagnosed, the leaking ones listed up to
    1,024, the layers counting all of them, and an answer of about a tenth of a megabyte."""
    weights, leaks = mixed_model(32, 256, 11, np.float16)
    data = npy(weights)
    assert len(data) <= LIMIT
    response = client.post("/api/diagnose", files={"file": ("w.npy", data)})
    assert response.status_code == 200
    assert len(response.content) < 2**20
    body = response.json()
    assert (body["heads_total"], body["heads_listed"], len(body["heads"])) == (
        MAX_HEADS,
        LISTED_HEADS,
        LISTED_HEADS,
    )
    expected = [tuple(int(i) for i in divmod(k, 256)) for k in np.flatnonzero(leaks)[:LISTED_HEADS]]
    assert [(h["layer"], h["head"]) for h in body["heads"]] == expected
    assert {h["verdict"] for h in body["heads"]} == {"leaks"}
    layers = body["layers"]
    assert [layer["layer"] for layer in layers] == list(range(32))
    assert sum(layer["heads"] for layer in layers) == MAX_HEADS
    assert sum(layer["leaking"] for layer in layers) == int(leaks.sum()) == 2731
    assert all(layer["leaking"] == layer["zero_fill"] + layer["unmasked"] for layer in layers)
    assert body["summary"].startswith("leaks: 2,731 of 8,192 heads put weight on future positions (j > i)")
    assert body["weights"] is None


def test_past_the_threshold_a_causal_model_lists_no_head_and_counts_every_layer(client: TestClient) -> None:
    weights = np.ascontiguousarray(np.broadcast_to(np.eye(4, dtype=np.uint8), (5, 256, 4, 4)))
    body = diagnosed(client, "w.npy", npy(weights))
    assert (body["verdict"], body["heads"], body["heads_total"], body["heads_listed"]) == (
        "causal",
        [],
        1280,
        0,
    )
    assert body["summary"] == "causal: all 1,280 heads put exactly zero weight on future positions (j > i)."
    assert [(layer["heads"], layer["leaking"]) for layer in body["layers"]] == [(256, 0)] * 5


def test_up_to_the_threshold_every_head_is_listed(client: TestClient) -> None:
    weights, leaks = mixed_model(4, 256, 3)
    body = diagnosed(client, "w.npy", npy(weights))
    assert body["heads_total"] == body["heads_listed"] == len(body["heads"]) == LISTED_HEADS
    assert [h["verdict"] == "leaks" for h in body["heads"]] == leaks.ravel().tolist()


@pytest.mark.parametrize(
    ("name", "data", "status", "detail"),
    [
        (
            "pickled.npy",
            npy(np.array([np.eye(2), "x"], dtype=object), allow_pickle=True),
            422,
            "pickled .npy files are refused: save with allow_pickle=False",
        ),
        (
            "vector.npy",
            npy(np.full(4, 0.25)),
            422,
            "expected shape [n, n], [h, n, n] or [layers, h, n, n], got shape [4] (1 dimension)",
        ),
        (
            "five.npy",
            npy(np.ones((1, 1, 1, 1, 1))),
            422,
            "expected shape [n, n], [h, n, n] or [layers, h, n, n], got shape [1, 1, 1, 1, 1] (5 dimensions)",
        ),
        (
            "wide.csv",
            b"1,0,0\n0.5,0.5,0\n",
            422,
            "the last two dimensions must be equal (queries × keys over the same positions), got 2 × 3",
        ),
        ("one.csv", b"1\n", 422, "n = 1 is too small: a causal check needs at least 2 positions"),
        ("big.npy", npy(np.eye(513, dtype=np.float32)), 422, "n = 513 is too large: at most 512 positions"),
        (
            "nan.npy",
            npy(np.array([[1.0, 0.0], [np.nan, 1.0]])),
            422,
            "row 2, column 1 of layer 1, head 1 is NaN: attention weights must be finite numbers (a row "
            "may be NaN only throughout: a fully masked row)",
        ),
        (
            "nan.json",
            b"[[1, 0], [null, 1]]",
            422,
            "row 2, column 1 of layer 1, head 1 is NaN: attention weights must be finite numbers (a row "
            "may be NaN only throughout: a fully masked row)",
        ),
        (
            "negative.json",
            b"[[1, 0], [1.5, -0.5]]",
            422,
            "row 2, column 2 of layer 1, head 1 is -0.5: attention weights cannot be negative",
        ),
        (
            "rows.npy",
            npy(row_3_of_head_0_1_sums_to_1_2()),
            422,
            "row 4 of layer 1, head 2 sums to 1.2, not 1: attention rows are distributions",
        ),
        (
            "text.csv",
            b"these are not weights\n",
            422,
            'line 1 of the .csv file, value 1: "these are not weights" is not a number',
        ),
        (
            "text.json",
            b"these are not weights",
            422,
            "the .json file is not valid JSON: Expecting value: line 1 column 1 (char 0)",
        ),
        (
            "strings.json",
            b'[["a", "b"], ["c", "d"]]',
            422,
            'the value at [0][0] is a string ("a"), not a number',
        ),
        ("empty.csv", b"", 422, "the .csv file is empty"),
        ("weights.txt", b"1,0\n0,1\n", 415, "unsupported file type '.txt': send .npy, .json or .csv"),
        ("weights", b"1,0\n0,1\n", 415, "unsupported file type (no extension): send .npy, .json or .csv"),
        ("weights.pkl", b"\x80\x04N.", 415, "unsupported file type '.pkl': send .npy, .json or .csv"),
        (
            "weights.npy",
            b"1,0\n0,1\n",
            415,
            "this .npy file does not start with the NumPy magic bytes (\\x93NUMPY): save it with numpy.save",
        ),
        (
            "weights.csv",
            npy(np.eye(2)),
            415,
            "this .csv file holds binary data, not text: send .npy, .json or .csv",
        ),
    ],
)
def test_every_refusal_has_a_json_detail(
    client: TestClient, name: str, data: bytes, status: int, detail: str
) -> None:
    assert upload(client, name, data) == (status, {"detail": detail})


def test_a_request_without_the_file_field_is_a_422(client: TestClient) -> None:
    for response in (
        client.post("/api/diagnose", files={"weights": ("w.csv", b"1,0\n0,1\n")}),
        client.post("/api/diagnose", data={"file": "w.csv"}),  # a form field, but not multipart
        client.post("/api/diagnose", json={"file": [[1, 0], [0, 1]]}),
        client.post("/api/diagnose"),
    ):
        assert (response.status_code, response.json()) == (422, MISSING)


def test_a_broken_multipart_body_is_a_422(client: TestClient) -> None:
    headers = {"content-type": "multipart/form-data; boundary=XYZ"}
    head = b'--XYZ\r\nContent-Disposition: form-data; name="file"; filename="w.csv"\r\n\r\n'
    cases = {
        b"not multipart at all": "the body is not valid multipart/form-data: send the attention weights in a "
        'field named "file"',
        head + b"1,0\n0,1\n": "the multipart body ends before the file does",
    }
    for body, detail in cases.items():
        response = client.post("/api/diagnose", content=body, headers=headers)
        assert (response.status_code, response.json()) == (422, {"detail": detail})
    complete = client.post("/api/diagnose", content=head + b"1,0\n0,1\r\n--XYZ--\r\n", headers=headers)
    assert complete.json()["verdict"] == "causal"


def test_openapi_documents_the_upload(client: TestClient) -> None:
    operation = client.get("/openapi.json").json()["paths"]["/api/diagnose"]["post"]
    form = operation["requestBody"]["content"]["multipart/form-data"]["schema"]
    assert form["required"] == ["file"] and form["properties"]["file"]["format"] == "binary"
    assert {"200", "413", "415", "422"} <= set(operation["responses"])
    assert operation["tags"] == ["diagnose"]
    for limit in ("2 MB", "2 ≤ n ≤ 512", "256 layers", "256 heads", "8,192 heads", f"up to {LISTED_HEADS:,}"):
        assert limit in form["properties"]["file"]["description"], limit


def test_openapi_describes_every_field_of_the_answer(client: TestClient) -> None:
    schemas = client.get("/openapi.json").json()["components"]["schemas"]
    for model in ("DiagnoseHead", "DiagnoseLayer", "DiagnoseResponse"):
        for name, field in schemas[model]["properties"].items():
            assert field.get("description"), f"{model}.{name}"
    heads = schemas["DiagnoseResponse"]["properties"]["heads"]["description"]
    assert f"at most {LISTED_HEADS:,}" in heads and f"the first {LISTED_HEADS:,}" in heads


def test_an_answer_to_an_upload_is_at_most_64_kb_besides_its_grid(client: TestClient) -> None:
    """A 1.7 MB .json of 4,096 heads had been answered with its weights again (162 KB for 185 KB); now the
    answer holds the heads' figures and the grid, never the weights."""
    rng = np.random.default_rng(4)
    weights = np.round(softmax(apply_mask(rng.normal(size=(64, 64, 8, 8)), "neg_inf")), 5)
    data = json.dumps(weights.tolist()).encode()
    assert len(data) > 1_500_000
    response = client.post("/api/diagnose", files={"file": ("w.json", data)})
    body = response.json()
    assert body["verdict"] == "causal" and body["weights"] is None
    grid = len(json.dumps(body["grid"], separators=(",", ":")))
    assert len(response.content) <= 64 * 1024 + grid, (len(response.content), grid)
