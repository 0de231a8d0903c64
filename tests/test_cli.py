"""``python -m app check-causal FILE``: the table, the verdict and the exit status 0 / 1 / 2."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from app.__main__ import build_parser
from app.core.attention import apply_mask, softmax

ROOT = Path(__file__).resolve().parent.parent
SCORES = np.random.default_rng(3).normal(size=(2, 2, 5, 5))
HEADER = "layer  head  max_future  future_mass  verdict  signature"


def check(
    *args: str, command: tuple[str, ...] = (sys.executable, "-m", "app")
) -> subprocess.CompletedProcess:
    return subprocess.run(
        [*command, "check-causal", *args], cwd=ROOT, capture_output=True, text=True, timeout=60
    )


def test_causal_weights_exit_0(tmp_path: Path) -> None:
    path = tmp_path / "causal.npy"
    np.save(path, softmax(apply_mask(SCORES, "neg_inf")).astype(np.float32))
    result = check(str(path))
    assert (result.returncode, result.stderr) == (0, "")
    lines = result.stdout.splitlines()
    assert lines[0] == HEADER
    assert lines[1] == "    0     0    0.000000     0.000000  causal   causal"
    assert len(lines) == 1 + 4 + 2
    assert lines[-1] == "causal: all 4 heads put exactly zero weight on future positions (j > i)."


def test_leaky_weights_exit_1_and_name_the_times_zero_bug(tmp_path: Path) -> None:
    weights = softmax(apply_mask(SCORES[0], "zero"))  # (2, 5, 5)
    path = tmp_path / "leaky.json"
    path.write_text(json.dumps({"weights": weights.tolist()}))
    result = check(str(path))
    assert (result.returncode, result.stderr) == (1, "")
    rows = [line.split() for line in result.stdout.splitlines()[1:3]]
    assert [(r[0], r[1], r[4], r[5]) for r in rows] == [
        ("0", "0", "leaks", "zero_fill"),
        ("0", "1", "leaks", "zero_fill"),
    ]
    future = np.triu(np.ones((5, 5), dtype=bool), k=1)
    assert float(rows[0][2]) == pytest.approx(weights[0][future].max(), abs=1e-6)
    assert result.stdout.splitlines()[-1].startswith("leaks: 2 of 2 heads put weight on future positions")


def test_an_unmasked_csv_exits_1(tmp_path: Path) -> None:
    path = tmp_path / "unmasked.csv"
    path.write_text("0.5,0.5\n0.5,0.5\n")
    result = check(str(path))
    assert result.returncode == 1
    assert "    0     0    0.500000     0.250000  leaks    unmasked" in result.stdout


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("pickled.npy", None, "pickled .npy files are refused: save with allow_pickle=False"),
        (
            "rows.csv",
            b"1,0\n0.5,0.6\n",
            "row 1 of head (0, 0) sums to 1.1, not 1: attention rows are distributions",
        ),
        ("words.csv", b"not,a matrix\n", 'line 1 of the .csv file, value 1: "not" is not a number'),
        ("weights.txt", b"1,0\n0,1\n", "unsupported file type '.txt': send .npy, .json or .csv"),
    ],
)
def test_unreadable_or_invalid_files_exit_2_with_the_reason_on_stderr(
    tmp_path: Path, name: str, content: bytes | None, message: str
) -> None:
    path = tmp_path / name
    if content is None:
        np.save(path, np.array([np.eye(2), None], dtype=object), allow_pickle=True)
    else:
        path.write_bytes(content)
    result = check(str(path))
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == f"check-causal: {path}: {message}\n"


def test_a_missing_file_exits_2(tmp_path: Path) -> None:
    result = check(str(tmp_path / "nowhere.npy"))
    assert (result.returncode, result.stdout) == (2, "")
    assert (
        result.stderr == f"check-causal: cannot read {tmp_path / 'nowhere.npy'}: No such file or directory\n"
    )


def test_a_missing_argument_is_a_usage_error() -> None:
    result = check()
    assert result.returncode == 2
    assert "the following arguments are required: FILE" in result.stderr


@pytest.mark.skipif(shutil.which("attention-explorable") is None, reason="the package is not installed")
def test_the_console_script_checks_too(tmp_path: Path) -> None:
    path = tmp_path / "w.csv"
    path.write_text("1,0\n0,1\n")
    assert check(str(path), command=("attention-explorable",)).returncode == 0


def test_the_parser_keeps_serving_without_a_subcommand() -> None:
    args = build_parser().parse_args(["--port", "9000"])
    assert (args.command, args.host, args.port) == (None, "127.0.0.1", 9000)
    args = build_parser().parse_args(["check-causal", "w.npy"])
    assert (args.command, args.file) == ("check-causal", Path("w.npy"))
