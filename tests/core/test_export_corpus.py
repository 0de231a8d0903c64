"""The diagnosis on real exports (tests/core/exports, made by ``python -m tests.core.exports.make``): figure
7's language models through PyTorch in float32, float16 and bfloat16, alone and padded on either side, and
figure 11's bidirectional encoder. Every file gets the verdict its model's training says, in memory and
uploaded; no correct causal head is called broken or leaking in any dtype. And a bfloat16 export of a correct
model of 12 layers over 512 tokens, the largest the upload takes, is causal."""

from __future__ import annotations

import json

import numpy as np
import pytest
from fastapi.testclient import TestClient

from app.core.diagnosis_limits import MAX_POSITIONS
from app.core.diagnostics import diagnose
from app.core.mask_zoo import to_bfloat16
from app.models.tiny_lm import MODEL_ORDER
from tests.core.exports.make import DTYPES, HERE, MANIFEST, PADDING

ENTRIES = json.loads(MANIFEST.read_text())


def test_the_corpus_holds_every_model_in_every_dtype_and_padding() -> None:
    made = {(e["model"], e["dtype"], e["padding"]) for e in ENTRIES}
    models = [f"tiny LM ({mask})" for mask in MODEL_ORDER]
    assert {(m, d, p) for m in models for d in DTYPES for p in PADDING} <= made
    assert {("all-MiniLM-L6-v2", d, "none") for d in DTYPES} <= made
    assert sorted(p.name for p in HERE.glob("*.npy")) == sorted(e["file"] for e in ENTRIES)
    # bfloat16 exports arrive as float32 on bfloat16's grid, float16 ones as float16
    for entry in ENTRIES:
        weights = np.load(HERE / entry["file"], allow_pickle=False)
        if entry["dtype"] == "bfloat16":
            assert weights.dtype == np.float32 and not (weights.view(np.uint32) & 0xFFFF).any()
        else:
            assert weights.dtype == np.dtype(entry["dtype"])


@pytest.mark.parametrize("entry", ENTRIES, ids=[e["file"] for e in ENTRIES])
def test_each_export_gets_the_verdict_its_training_says(entry: dict, client: TestClient) -> None:
    weights = np.load(HERE / entry["file"], allow_pickle=False)
    judged = diagnose(weights)
    assert judged.verdict == entry["verdict"], (judged.verdict, judged.signature_counts())
    assert set(judged.signature_counts()) <= set(entry["signatures"]), judged.signature_counts()
    uploaded = client.post(
        "/api/diagnose", files={"file": (entry["file"], (HERE / entry["file"]).read_bytes())}
    ).json()
    assert uploaded["verdict"] == entry["verdict"], uploaded
    assert set(uploaded["signatures"]) <= set(entry["signatures"])


def test_a_bfloat16_export_of_a_correct_12_layer_model_of_512_tokens_is_causal() -> None:
    n = MAX_POSITIONS
    rng = np.random.default_rng(12)
    future = np.triu(np.ones((n, n), dtype=bool), k=1)
    heads = []
    for _ in range(12 * 2):
        scores = (3 * rng.standard_normal((n, n))).astype(np.float32)
        scores[future] = -np.inf
        scores -= scores.max(axis=-1, keepdims=True)
        e = np.exp(scores)
        heads.append(e / e.sum(axis=-1, keepdims=True))
    weights = to_bfloat16(np.stack(heads).reshape(12, 2, n, n))
    judged = diagnose(weights)
    assert (judged.verdict, judged.signature_counts()) == ("causal", {"causal": 24})
