"""The Dockerfile, checked without a Docker engine: a slim base, what it copies exists and is what the wheel
needs, the README's serve command installed (not editable) and run, no test or training extras, a user that
is not root, and a health check that works on slim (which has no curl)."""

from __future__ import annotations

import json
import re
import shlex
import tomllib
from pathlib import Path

import pytest

from app.__main__ import build_parser

ROOT = Path(__file__).resolve().parent.parent


def instructions() -> list[tuple[str, str]]:
    """The Dockerfile as (INSTRUCTION, arguments), continuation lines joined and comments dropped."""
    text = (ROOT / "Dockerfile").read_text()
    lines = [line for line in text.splitlines() if not line.lstrip().startswith("#")]
    joined = re.sub(r"\\\n\s*", " ", "\n".join(lines))
    found = []
    for line in joined.splitlines():
        if line.strip():
            keyword, _, rest = line.strip().partition(" ")
            found.append((keyword.upper(), rest.strip()))
    return found


def only(keyword: str) -> list[str]:
    return [rest for k, rest in instructions() if k == keyword]


def exec_form(arguments: str) -> list[str]:
    words = json.loads(arguments)
    assert isinstance(words, list) and all(isinstance(w, str) for w in words), arguments
    return words


def readme_serve_command() -> list[list[str]]:
    """The README's first command, split at && into argument lists."""
    block = re.search(r"```sh\n(.*?)```", (ROOT / "README.md").read_text(), flags=re.S)
    assert block is not None
    serve = block.group(1).strip().splitlines()[0]
    return [shlex.split(part) for part in serve.split("&&")]


def pip_installs(commands: list[list[str]]) -> list[list[str]]:
    """The arguments of every `pip install` (`python -m pip install` too), without -e: an image installs."""
    found = []
    for words in commands:
        if "pip" in words and words[words.index("pip") + 1 : words.index("pip") + 2] == ["install"]:
            found.append([w for w in words[words.index("pip") + 2 :] if w not in ("-e", "--editable")])
    return found


def run_commands() -> list[list[str]]:
    return [shlex.split(part) for run in only("RUN") for part in run.split("&&")]


def test_the_base_is_one_slim_python_image_matching_the_projects_python() -> None:
    (base,) = only("FROM")
    image, _, tag = base.partition(":")
    assert image == "python" and tag.endswith("-slim"), base
    requires = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["requires-python"]
    assert requires == f">={tag.removesuffix('-slim')}", (requires, tag)


def test_every_copied_path_exists_and_the_wheel_has_what_it_needs() -> None:
    copied = set()
    for arguments in only("COPY"):
        *sources, _destination = arguments.split()
        for source in sources:
            assert (ROOT / source).exists(), source
            copied.add(source)
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    wheel = project["tool"]["hatch"]["build"]["targets"]["wheel"]
    needed = {"pyproject.toml", project["project"]["readme"], *wheel["packages"], *wheel["force-include"]}
    assert needed <= copied, needed - copied


def test_the_build_context_leaves_tests_training_and_history_out() -> None:
    ignored = (ROOT / ".dockerignore").read_text().split()
    assert {".git", "tests", "training", "bench"} <= set(ignored)


def test_the_image_installs_the_readmes_serve_command_without_extras_for_tests_or_training() -> None:
    wanted = pip_installs(readme_serve_command())
    assert wanted, "the README's serve command installs nothing"
    assert pip_installs(run_commands()) == wanted
    extras = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"])
    for run in only("RUN"):
        for extra in extras & {"test", "train"}:
            assert f"[{extra}]" not in run and f",{extra}]" not in run, run
        assert not re.search(r"\b(pytest|playwright|torch|schemathesis|hypothesis)\b", run), run


def test_the_command_is_the_readmes_serve_command_listening_on_every_interface() -> None:
    (cmd,) = only("CMD")
    words = exec_form(cmd)
    serve = readme_serve_command()[-1]
    assert words[: len(serve)] == serve, (words, serve)
    (exposed,) = only("EXPOSE")
    assert words[len(serve) :] == ["--host", "0.0.0.0", "--port", exposed]
    args = build_parser().parse_args(words[len(serve) :])
    assert (args.host, args.port, args.command) == ("0.0.0.0", int(exposed), None)


def test_it_serves_as_a_user_that_is_not_root() -> None:
    keywords = [k for k, _ in instructions()]
    users = only("USER")
    assert users, "no USER: the server would run as root"
    assert users[-1].split(":")[0] not in ("root", "0")
    assert keywords.index("USER") < keywords.index("CMD")
    assert "USER" not in keywords[keywords.index("USER") + 1 :] or users[-1] == users[0]
    name = users[-1].split(":")[0]
    assert any(run.startswith("useradd") and run.split()[-1] == name for run in only("RUN")), name


def test_the_health_check_asks_healthz_with_python_not_curl() -> None:
    (check,) = only("HEALTHCHECK")
    options, _, command = check.partition("CMD ")
    assert "--interval=" in options and "--timeout=" in options
    words = exec_form(command)
    assert words[:2] == ["python", "-c"]
    (exposed,) = only("EXPOSE")
    assert "urllib.request.urlopen" in words[2] and f"http://127.0.0.1:{exposed}/healthz" in words[2]
    assert "curl" not in check and "wget" not in check
    compile(words[2], "<healthcheck>", "exec")  # the probe is valid Python


@pytest.mark.parametrize("variable", ["PYTHONDONTWRITEBYTECODE=1", "PIP_NO_CACHE_DIR=1"])
def test_the_image_keeps_no_bytecode_or_pip_cache(variable: str) -> None:
    assert any(variable in env.split() for env in only("ENV")), variable
