"""Nothing a reader sends is unpickled, evaluated or written to disk.

tests/core/test_matrix_files.py checks the reader refuses a pickled .npy before unpickling it, and
tests/routes/test_diagnose.py that a large upload is never spooled to a temporary file. These add the attack
itself, end to end (a pickle whose payload would leave a mark, through the HTTP endpoint and the CLI), the
same no-disk promise for every other endpoint that takes a body, and a scan of app/ for the calls that would
break the promise.
"""

from __future__ import annotations

import io
import json
import os
import pickle
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pytest
import starlette.formparsers
from fastapi.testclient import TestClient

ROOT = Path(__file__).resolve().parent.parent
APP = ROOT / "app"


class Payload:
    """Unpickling this makes a directory: the mark a pickle's payload leaves if it ever runs."""

    def __init__(self, mark: Path) -> None:
        self.mark = mark

    def __reduce__(self):
        return (os.mkdir, (str(self.mark),))


def hostile_files(mark: Path) -> dict[str, bytes]:
    """The same payload in every form an upload might carry it."""
    array = np.array([Payload(mark), np.eye(2)], dtype=object)
    buffer = io.BytesIO()
    np.save(buffer, array, allow_pickle=True)
    raw = pickle.dumps(Payload(mark))
    return {
        "w.npy": buffer.getvalue(),  # a real .npy whose data is a pickle
        "raw.npy": raw,  # a bare pickle named .npy
        "w.pkl": raw,
        "w.json": raw,
        "w.csv": raw,
        "w.npz": raw,
    }


def test_the_payload_really_leaves_a_mark_when_unpickled(tmp_path: Path) -> None:
    """The test below would prove nothing if the payload did nothing."""
    mark = tmp_path / "ran"
    pickle.loads(hostile_files(mark)["raw.npy"])
    assert mark.is_dir()


def test_a_pickle_upload_is_refused_and_its_payload_never_runs(client: TestClient, tmp_path: Path) -> None:
    mark = tmp_path / "ran"
    for name, data in hostile_files(mark).items():
        response = client.post("/api/diagnose", files={"file": (name, data, "application/octet-stream")})
        assert 400 <= response.status_code < 500, (name, response.status_code)
        assert response.json()["detail"], name
        assert not mark.exists(), f"{name}: the pickle's payload ran"
    npy = client.post("/api/diagnose", files={"file": ("w.npy", hostile_files(mark)["w.npy"])})
    assert npy.json() == {"detail": "pickled .npy files are refused: save with allow_pickle=False"}


def test_the_cli_refuses_it_too(tmp_path: Path) -> None:
    mark = tmp_path / "ran"
    path = tmp_path / "w.npy"
    path.write_bytes(hostile_files(mark)["w.npy"])
    result = subprocess.run(
        [sys.executable, "-m", "app", "check-causal", str(path)], cwd=ROOT, capture_output=True, timeout=60
    )
    assert result.returncode == 2
    assert not mark.exists()


@pytest.fixture
def no_disk(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """A private temporary directory, and every way to make a temporary file made to fail loudly."""
    private = tmp_path / "tmp"
    private.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(private))

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("a request body was about to be written to a temporary file")

    for name in ("TemporaryFile", "NamedTemporaryFile", "SpooledTemporaryFile", "mkstemp", "mkdtemp"):
        monkeypatch.setattr(tempfile, name, refuse)
    monkeypatch.setattr(starlette.formparsers, "SpooledTemporaryFile", refuse)
    return private


BODIES = {
    "/api/translate": {"sentence": "the cat sleeps"},
    "/api/lm/generate": {"model": "neg_inf", "prompt": "the"},
    "/api/attention/custom": {
        "embeddings": [[1.0]],
        "heads": [{"w_q": [[1.0]], "w_k": [[1.0]], "w_v": [[1.0]]}],
    },
}


@pytest.mark.parametrize("path", list(BODIES))
def test_no_json_endpoint_writes_a_body_to_disk(client: TestClient, no_disk: Path, path: str) -> None:
    body = json.dumps(BODIES[path]).encode()
    near_the_limit = body + b" " * (250 * 1024 - len(body))
    assert (
        client.post(path, content=near_the_limit, headers={"content-type": "application/json"}).status_code
        == 200
    )
    # A 1.5 MB multipart file sent where JSON belongs: refused, and not spooled on the way.
    files = {"file": ("w.bin", b"\0" * (1536 * 1024), "application/octet-stream")}
    assert client.post(path, files=files).status_code == 413
    small_files = {"file": ("w.bin", b"\0" * (200 * 1024), "application/octet-stream")}
    assert client.post(path, files=small_files).status_code == 422
    assert os.listdir(no_disk) == []


# ---- a scan of the server's code ---------------------------------------------------------------------------

FORBIDDEN = {
    r"\bpickle\.loads?\(": "unpickles",
    r"\ballow_pickle\s*=\s*True": "lets numpy unpickle",
    r"(?<![\w.])eval\(": "evaluates text as Python",
    r"(?<![\w.])exec\(": "runs text as Python",
    r"(?<![\w.])compile\(": "compiles text as Python",
    r"\b__import__\(": "imports a module by name",
    r"\bmarshal\.loads?\(|\bshelve\.|\byaml\.load\(|\bjoblib\.load\(|\btorch\.load\(": "deserialises code",
    r"\bos\.system\(|\bsubprocess\.": "runs a command",
    r"\bnp\.save|\.write_(?:text|bytes)\(|\btempfile\.(?!TemporaryFile\b)": "writes a file",
    r"""\bopen\([^)]*["'][wax+]""": "opens a file for writing",
}


# The one file the server writes: an upload's .npy part, into an anonymous temporary file (unlinked as it is
# made: nothing is left on disk whatever happens), in this one module.
TEMPORARY_FILE = re.compile(r"\btempfile\.TemporaryFile\(")


def test_the_server_code_has_no_call_that_unpickles_evaluates_or_writes() -> None:
    found = [
        f"{path.relative_to(ROOT)}:{number} makes a temporary file outside app/web/multipart.py"
        for path in sorted(APP.rglob("*.py"))
        if path != APP / "web" / "multipart.py"
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        if TEMPORARY_FILE.search(line.split("#", 1)[0])
    ]
    for path in sorted(APP.rglob("*.py")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            code = line.split("#", 1)[0]
            for pattern, why in FORBIDDEN.items():
                if re.search(pattern, code):
                    found.append(f"{path.relative_to(ROOT)}:{number} {why}: {line.strip()}")
    assert found == []


def test_every_np_load_in_the_server_refuses_pickles() -> None:
    """Each call on one line, so the line must say allow_pickle=False (numpy's default is not relied on)."""
    calls = [
        f"{path.name}: {line.strip()}"
        for path in sorted(APP.rglob("*.py"))
        for line in path.read_text(encoding="utf-8").splitlines()
        if re.search(r"\bnp\.load\(", line)
    ]
    assert calls, "no np.load found: the scan is looking in the wrong place"
    assert [call for call in calls if "allow_pickle=False" not in call] == []
