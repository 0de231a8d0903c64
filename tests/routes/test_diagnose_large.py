"""POST /api/diagnose on a BERT-base-sized export (12 × 12 × 512 × 512 float16, 75 MB), streamed in 64 KiB
chunks as a server receives it, and the refusals of the streaming reader: a truncated .npy, tokens of the
wrong length."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator

import numpy as np
import pytest
from fastapi.testclient import TestClient

from app.core.head_blocks import npy_blocks, npy_layout
from app.main import create_app
from tests.routes.test_diagnose import diagnosed, npy, upload
from tools.inprocess import call, traced_peak, upload_scope

BOUNDARY = "zooboundary19"
LAYERS, HEADS, N = 12, 12, 512
LEAKING = (3, 7)  # layer 4, head 8 to a reader


def causal_head() -> bytes:
    """One head's bytes: a causal softmax of seeded scores, in float16."""
    scores = np.random.default_rng(0).normal(size=(N, N))
    scores[np.triu(np.ones((N, N), dtype=bool), k=1)] = -np.inf
    w = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return (w / w.sum(axis=-1, keepdims=True)).astype(np.float16).tobytes()


def export_chunks() -> Iterator[bytes]:
    """The multipart body of the export, made as it is sent: the causal head tiled, one head ×0-uniform."""
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(
        header, {"descr": "<f2", "fortran_order": False, "shape": (LAYERS, HEADS, N, N)}
    )
    yield (
        f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="bert.npy"\r\n\r\n'.encode()
        + header.getvalue()
    )
    causal = causal_head()
    uniform = np.full((N, N), 1 / N, dtype=np.float16).tobytes()
    for k in range(LAYERS * HEADS):
        head = uniform if divmod(k, HEADS) == LEAKING else causal
        yield from (head[i : i + 65536] for i in range(0, len(head), 65536))
    yield f"\r\n--{BOUNDARY}--\r\n".encode()


def test_a_bert_base_export_is_diagnosed_head_by_head_in_bounded_memory() -> None:
    length = sum(len(chunk) for chunk in export_chunks())
    assert length > 75 * 10**6
    app = create_app()
    answers = []

    def post() -> None:
        chunks = export_chunks()

        async def receive() -> dict:
            chunk = next(chunks, None)
            return {"type": "http.request", "body": chunk or b"", "more_body": chunk is not None}

        answers.append(call(app, upload_scope(BOUNDARY, length), receive))

    peak = traced_peak(post)
    assert peak < 32 * 2**20, peak  # the whole request: multipart, temporary file, diagnosis, answer
    sent = answers[0]
    assert sent[0]["status"] == 200
    body = json.loads(b"".join(m.get("body", b"") for m in sent[1:]))
    assert body["shape"] == [LAYERS, HEADS, N, N] and body["verdict"] == "leaks"
    grid = np.array(body["grid"]["signature"])
    assert grid.shape == (LAYERS, HEADS)
    assert [tuple(int(i) for i in k) for k in np.argwhere(grid != "causal")] == [LEAKING]
    assert grid[LEAKING] == "zero_fill" and body["signatures"] == {"zero_fill": 1, "causal": 143}
    assert body["grid"]["max_future"][3][7] == pytest.approx(1 / N, rel=1e-3)
    assert "Worst: layer 4, head 8" in body["summary"]
    assert body["layout"] == {"offset": 128, "dtype": "<f2", "shape": [LAYERS, HEADS, N, N]}
    assert len(body["heads"]) == 144 and body["weights"] is None


def test_the_npy_reader_holds_one_block_whatever_the_file(tmp_path) -> None:
    """16 MB of float64 heads read block by block: the reader's own allocations stay at one block."""
    path = tmp_path / "w.npy"
    np.save(path, np.broadcast_to(np.eye(256), (32, 256, 256)))
    with path.open("rb") as file:
        layout = npy_layout(file)
        peak = traced_peak(lambda: sum(block.shape[0] for block in npy_blocks(file, layout)))
    assert layout.data_bytes == 16 * 2**20
    assert peak < 5 * 2**20, peak  # one block: 2**19 float64 numbers, 4 MiB


def test_a_truncated_npy_is_refused_before_its_data_are_read(client: TestClient) -> None:
    data = npy(np.broadcast_to(np.eye(4), (3, 4, 4)).astype(np.float32))[:-10]
    assert upload(client, "w.npy", data) == (
        422,
        {
            "detail": "the .npy file is cut short: its header promises shape [3, 4, 4] of float32 "
            "(192 bytes) but 182 bytes follow"
        },
    )


def test_a_small_fortran_order_npy_is_read_and_has_no_layout(client: TestClient) -> None:
    weights = np.asfortranarray(np.stack([np.eye(3), np.full((3, 3), 1 / 3)]))
    body = diagnosed(client, "w.npy", npy(weights))
    assert body["grid"]["signature"] == [["causal", "zero_fill"]] and body["layout"] is None


@pytest.mark.parametrize(
    ("tokens", "expected"),
    [
        ("the\ncat\nsat\n", ["the", "cat", "sat"]),
        ('["the", "cat", "' + "s" * 50 + '"]', ["the", "cat", "s" * 39 + "…"]),
    ],
)
def test_tokens_come_back_one_per_position_cut_to_40_characters(
    client: TestClient, tokens: str, expected: list[str]
) -> None:
    response = client.post(
        "/api/diagnose", files={"file": ("w.npy", npy(np.eye(3)))}, data={"tokens": tokens}
    )
    assert response.json()["tokens"] == expected


def test_tokens_in_a_json_object_and_the_wrong_number_of_tokens(client: TestClient) -> None:
    data = json.dumps({"weights": np.eye(3).tolist(), "tokens": ["a", "b", "c"]}).encode()
    assert diagnosed(client, "w.json", data)["tokens"] == ["a", "b", "c"]
    wrong = json.dumps({"weights": np.eye(3).tolist(), "tokens": ["a", "b"]}).encode()
    two = {"detail": "tokens: 2 given, the heads have 3 positions"}
    assert upload(client, "w.json", wrong) == (422, two)
    response = client.post(
        "/api/diagnose", files={"file": ("w.npy", npy(np.eye(3)))}, data={"tokens": "a\nb"}
    )
    assert (response.status_code, response.json()) == (422, two)
    response = client.post(
        "/api/diagnose", files={"file": ("w.csv", b"1,0\n0,1\n")}, data={"tokens": "[1, 2]"}
    )
    assert (response.status_code, response.json()) == (
        422,
        {"detail": "tokens: token 1 is a number, not a string"},
    )


def test_uploads_past_the_most_at_once_are_refused_before_their_body_is_read(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each upload in progress holds a temporary file: past UPLOADS_AT_ONCE a worker answers 503 at once, and
    every answer, refusals included, gives its place back."""
    from app.routes import diagnose as route

    async def receive() -> dict:
        raise AssertionError("the body was read")

    monkeypatch.setattr(route.UPLOADS, "now", route.UPLOADS_AT_ONCE)  # as if that many were in progress
    (start, body) = call(create_app(), upload_scope(BOUNDARY, 10**6), receive)[:2]
    assert start["status"] == 503
    assert json.loads(body["body"]) == {"detail": route.BUSY}
    monkeypatch.setattr(route.UPLOADS, "now", 0)

    causal = io.BytesIO()
    np.save(causal, np.tril(np.ones((4, 4))) / np.arange(1, 5)[:, None])
    for files, status in (
        ({"file": ("w.npy", causal.getvalue())}, 200),
        ({"file": ("w.npy", b"not a numpy file")}, 415),
        ({"file": ("w.csv", b"1,0\n0.5,0.6\n")}, 422),
        ({"file": ("w.txt", b"1,0\n0,1\n")}, 415),
    ):
        assert client.post("/api/diagnose", files=files).status_code == status
        assert route.UPLOADS.now == 0
