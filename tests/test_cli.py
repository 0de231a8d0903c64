"""``python -m app check-causal FILE``: the table, the verdict and the exit status 0 / 1 / 2, and the
API's limits: a bounded read, and the same refusals."""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import app.__main__ as cli
from app.__main__ import build_parser, check_causal
from app.core.masks import apply_mask, softmax

ROOT = Path(__file__).resolve().parent.parent
SCORES = np.random.default_rng(3).normal(size=(2, 2, 5, 5))
HEADER = "layer  head  max_future  future_mass  verdict  signature      nan_rows  row_sum_min  row_sum_max"


def check(
    *args: str,
    command: tuple[str, ...] = (sys.executable, "-m", "app"),
    env: dict[str, str] | None = None,
    timeout: float = 60,
) -> subprocess.CompletedProcess:
    return subprocess.run(
        [*command, "check-causal", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
        env=None if env is None else {**os.environ, **env},
    )


def test_causal_weights_exit_0(tmp_path: Path) -> None:
    path = tmp_path / "causal.npy"
    np.save(path, softmax(apply_mask(SCORES, "neg_inf")).astype(np.float32))
    result = check(str(path))
    assert (result.returncode, result.stderr) == (0, "")
    lines = result.stdout.splitlines()
    assert lines[0] == HEADER
    assert lines[1] == (  # counted from 1
        "    1     1    0.000000     0.000000  causal   causal                0     1.000000     1.000000"
    )
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
        ("1", "1", "leaks", "zero_fill"),  # layers and heads counted from 1
        ("1", "2", "leaks", "zero_fill"),
    ]
    future = np.triu(np.ones((5, 5), dtype=bool), k=1)
    assert float(rows[0][2]) == pytest.approx(weights[0][future].max(), abs=1e-6)
    assert result.stdout.splitlines()[-1].startswith("leaks: 2 of 2 heads put weight on future positions")


def test_an_unmasked_csv_exits_1(tmp_path: Path) -> None:
    path = tmp_path / "unmasked.csv"
    path.write_text("0.5,0.5\n0.5,0.5\n")
    result = check(str(path))
    assert result.returncode == 1
    assert (
        "    1     1    0.500000     0.250000  leaks    unmasked              0     1.000000     1.000000"
        in (result.stdout)
    )


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("pickled.npy", None, "pickled .npy files are refused: save with allow_pickle=False"),
        (
            "rows.csv",
            b"1,0\n0.5,0.6\n",
            "row 2 of layer 1, head 1 sums to 1.1, not 1: attention rows are distributions",
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


def test_an_endless_file_is_refused_at_the_upload_limit_with_the_apis_words(tmp_path: Path) -> None:
    """/dev/zero never ends: as .json the check reads the limit and one byte more, then stops with status
    2; as .npy its first bytes are not NumPy's magic."""
    endless = tmp_path / "w.json"
    endless.symlink_to("/dev/zero")
    result = check(str(endless), timeout=20)  # a safety net: the answer comes in well under a second
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == (
        f"check-causal: {endless}: file too large: the limit for .json files is 2 MB (2,097,152 bytes)\n"
    )
    npy = tmp_path / "w.npy"
    npy.symlink_to("/dev/zero")
    result = check(str(npy), timeout=20)
    assert (result.returncode, result.stdout) == (2, "")
    assert "does not start with the NumPy magic bytes" in result.stderr


def test_a_file_of_exactly_the_limit_is_read_and_one_byte_more_is_refused(tmp_path: Path) -> None:
    at_limit = tmp_path / "w.csv"
    at_limit.write_bytes(b"1,0\n0,1\n" + b"\n" * 992)  # trailing blank lines are allowed
    assert at_limit.stat().st_size == 1000
    result = check(str(at_limit), env={"ATTENTION_MAX_UPLOAD_BYTES": "1000"})
    assert (result.returncode, result.stderr) == (0, "")
    over = tmp_path / "over.csv"
    over.write_bytes(at_limit.read_bytes() + b"\n")
    result = check(str(over), env={"ATTENTION_MAX_UPLOAD_BYTES": "1000"})
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == f"check-causal: {over}: file too large: the limit is 1,000 bytes\n"


def test_the_limits_on_heads_are_the_apis(tmp_path: Path) -> None:
    path = tmp_path / "heads.npy"
    np.save(path, np.ascontiguousarray(np.broadcast_to(np.eye(2, dtype=np.uint8), (500_000, 2, 2))))
    result = check(str(path))
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == (
        f"check-causal: {path}: the array holds 500,000 heads (shape [500000, 2, 2]): at most 8,192 heads "
        "are diagnosed (layers × heads)\n"
    )


def test_the_table_lists_every_head_even_past_the_apis_listing(tmp_path: Path) -> None:
    weights = np.broadcast_to(np.eye(3), (8, 256, 3, 3)).copy()
    weights[7, 255] = 1 / 3  # one leak, in the last head: uniform rows, the ×0 signature
    path = tmp_path / "big.npy"
    np.save(path, weights)
    result = check(str(path))
    assert (result.returncode, result.stderr) == (1, "")
    lines = result.stdout.splitlines()
    assert len(lines) == 1 + 2048 + 2
    assert lines[2048] == (
        "    8   256    0.333333     0.333333  leaks    zero_fill             0     1.000000     1.000000"
    )
    assert lines[-1].startswith(
        "leaks: 1 of 2,048 heads puts weight on future positions (j > i): 1 with the ×0"
    )


def test_a_directory_exits_2(tmp_path: Path) -> None:
    out, err = io.StringIO(), io.StringIO()
    assert check_causal(tmp_path, out, err) == 2
    assert (out.getvalue(), err.getvalue()) == ("", f"check-causal: cannot read {tmp_path}: Is a directory\n")


def test_running_out_of_memory_exits_2_not_1(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Exit status 1 says a head leaks; a check that could not finish must not say it."""
    path = tmp_path / "w.csv"
    path.write_text("1,0\n0,1\n")

    def exhausted(*args: object) -> None:
        raise MemoryError

    monkeypatch.setattr(cli, "diagnose", exhausted)
    monkeypatch.setattr(cli, "diagnose_blocks", exhausted)
    out, err = io.StringIO(), io.StringIO()
    assert check_causal(path, out, err) == 2
    assert (out.getvalue(), err.getvalue()) == (
        "",
        f"check-causal: {path}: not enough memory to check this file\n",
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


def test_the_zoo_is_named_with_nan_rows_and_row_sums_and_broken_exits_1(tmp_path: Path) -> None:
    """A float16 [2, 5, 5] export: a head under -inf with a fully masked padding row, and a head masked
    after the softmax; neither leaks, both are broken."""
    future = np.triu(np.ones((5, 5), dtype=bool), k=1)
    with np.errstate(invalid="ignore"):
        padded = softmax(np.where(future | (np.arange(5) < 1), -np.inf, SCORES[0, 0]))  # row 1: NaN
    after = softmax(SCORES[0, 1]) * ~future
    path = tmp_path / "zoo.npy"
    np.save(path, np.stack([padded, after]).astype(np.float16))
    result = check(str(path))
    assert (result.returncode, result.stderr) == (1, "")
    first, second = (line.split() for line in result.stdout.splitlines()[1:3])
    assert first[4:7] == ["broken", "nan_rows", "1"]
    assert second[4:7] == ["broken", "after_softmax", "0"]
    assert float(second[7]) == pytest.approx(after.sum(axis=-1).min(), abs=1e-3)
    assert result.stdout.splitlines()[-1].startswith("broken: no head puts weight on future positions")


def test_a_large_npy_is_read_head_by_head_past_the_upload_limit(tmp_path: Path) -> None:
    """With ATTENTION_MAX_UPLOAD_BYTES at 1,000, a 2 MB .npy is still checked: the CLI streams it."""
    path = tmp_path / "w.npy"
    np.save(path, np.broadcast_to(np.eye(128, dtype=np.float32), (32, 128, 128)))
    result = check(str(path), env={"ATTENTION_MAX_UPLOAD_BYTES": "1000"})
    assert (result.returncode, result.stderr) == (0, "")
    assert result.stdout.splitlines()[-1] == (
        "causal: all 32 heads put exactly zero weight on future positions (j > i)."
    )
