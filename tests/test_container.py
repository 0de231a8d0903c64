"""The Dockerfile, checked without a Docker engine. Its app image (the last stage, what `docker build .` and
compose.yaml's app service build): a slim base, what it copies exists and is what the wheel needs, the
README's serve command installed (not editable) and run, no test or training extras, a user that is not
root, and a health check that works on slim (which has no curl). Its proxy image: nginx with the static
files that tools/static.py writes from the app's installed package, and the templates that tools/nginx.py
writes with its limits."""

from __future__ import annotations

import json
import re
import shlex
import tomllib
from dataclasses import dataclass
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


@dataclass(frozen=True)
class Stage:
    """One FROM of the Dockerfile: its name (AS ...), what it starts from, and its instructions after FROM."""

    name: str
    base: str
    instructions: list[tuple[str, str]]


def dockerfile_stages() -> dict[str, Stage]:
    """The Dockerfile's stages by name, in order."""
    stages: dict[str, Stage] = {}
    for keyword, rest in instructions():
        if keyword == "FROM":
            base, _, name = rest.partition(" AS ")
            assert name and name not in stages, rest  # every stage is named, once
            stages[name] = Stage(name, base, [])
        else:
            assert stages, "an instruction before the first FROM"
            list(stages.values())[-1].instructions.append((keyword, rest))
    return stages


def chain(target: str) -> list[Stage]:
    """The stages an image is built from, the first one's base an image of Docker Hub's, ``target`` last."""
    stages = dockerfile_stages()
    found = [stages[target]]
    while found[0].base in stages:
        found.insert(0, stages[found[0].base])
    return found


def image_instructions(target: str = "app") -> list[tuple[str, str]]:
    """Every instruction that builds the image of stage ``target``, its parent stages' first."""
    return [instruction for stage in chain(target) for instruction in stage.instructions]


def only(keyword: str, target: str = "app") -> list[str]:
    """The arguments of ``keyword`` in the image of ``target`` (by default the app's)."""
    return [rest for k, rest in image_instructions(target) if k == keyword]


def copies(stage: Stage) -> list[tuple[str | None, list[str], str]]:
    """A stage's COPY instructions: the stage copied from (None: the build context), sources, destination."""
    found = []
    for keyword, rest in stage.instructions:
        if keyword == "COPY":
            words = rest.split()
            source = next((w.removeprefix("--from=") for w in words if w.startswith("--from=")), None)
            *sources, destination = [w for w in words if not w.startswith("--")]
            found.append((source, sources, destination))
    return found


def written(tool: str) -> str:
    """The folder into which the `proxy-files` stage runs `python -m tools.TOOL`."""
    (run,) = [rest for k, rest in dockerfile_stages()["proxy-files"].instructions if k == "RUN"]
    (words,) = [words for words in map(shlex.split, run.split("&&")) if words[:3] == ["python", "-m", tool]]
    assert len(words) == 4, run
    return words[3]


def proxy_copies() -> dict[str, str]:
    """What the proxy image copies from the `proxy-files` stage, and where to."""
    found = {}
    for source, sources, destination in copies(dockerfile_stages()["proxy"]):
        assert source == "proxy-files" and len(sources) == 1, (source, sources)
        found[sources[0]] = destination
    return found


def proxy_static_folder() -> str:
    """Where the proxy image holds the static files (compose.yaml's EXPLORABLE_STATIC)."""
    return proxy_copies()[written("tools.static")]


def proxy_templates() -> dict[str, str]:
    """Each template that tools/nginx.py writes (by name) and where the proxy image puts it."""
    folder = written("tools.nginx")
    return {
        Path(path).name: (destination + Path(path).name if destination.endswith("/") else destination)
        for path, destination in proxy_copies().items()
        if Path(path).parent == Path(folder)
    }


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


def run_commands(target: str = "app") -> list[list[str]]:
    return [shlex.split(part) for run in only("RUN", target) for part in run.split("&&")]


def test_the_app_is_the_last_stage_so_a_plain_build_gives_it() -> None:
    """The README's `docker build .` builds the last stage; compose.yaml asks for the app by name."""
    assert list(dockerfile_stages())[-1] == "app"


def test_the_app_image_is_a_slim_python_image_matching_the_projects_python() -> None:
    base = chain("app")[0].base
    image, _, tag = base.partition(":")
    assert image == "python" and tag.endswith("-slim"), base
    requires = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["requires-python"]
    assert requires == f">={tag.removesuffix('-slim')}", (requires, tag)


def test_every_copied_path_exists_and_the_wheel_has_what_it_needs() -> None:
    stages = dockerfile_stages()
    for stage in stages.values():
        for source, sources, _destination in copies(stage):
            assert source is None or source in list(stages)[: list(stages).index(stage.name)], source
            for path in sources if source is None else []:
                assert (ROOT / path).exists(), path
    copied = {
        path
        for stage in chain("app")
        for source, paths, _ in copies(stage)
        if source is None
        for path in paths
    }
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    wheel = project["tool"]["hatch"]["build"]["targets"]["wheel"]
    needed = {"pyproject.toml", project["project"]["readme"], *wheel["packages"], *wheel["force-include"]}
    assert needed <= copied, needed - copied
    assert "tools" not in copied and "nginx" not in copied  # for the proxy-files stage only


def test_the_proxys_files_are_written_by_the_apps_installed_package() -> None:
    """The proxy-files stage starts from the stage that installs the package the app runs, so the static
    files it writes carry the versions the app's pages name, and the templates the limits the app enforces;
    it adds tools/ and nginx/ and nothing of the app's own."""
    files, app = chain("proxy-files"), chain("app")
    assert [stage.name for stage in files[:-1]] == [stage.name for stage in app[:-1]]
    assert pip_installs(run_commands("proxy-files")) == pip_installs(run_commands("app"))
    assert [(source, paths) for source, paths, _ in copies(files[-1])] == [
        (None, ["tools"]),
        (None, ["nginx"]),
    ]
    assert written("tools.static").startswith("/") and written("tools.nginx").startswith("/")


def test_the_proxy_image_is_nginx_with_the_static_files_and_the_templates_and_nothing_else() -> None:
    (proxy,) = chain("proxy")  # no stage of ours beneath it: the nginx image as compose runs it
    image, _, tag = proxy.base.partition(":")
    assert image == "nginx" and re.fullmatch(r"\d+\.\d+(\.\d+)?", tag), proxy.base
    assert {keyword for keyword, _ in proxy.instructions} == {"COPY"}
    assert proxy_static_folder().startswith("/")
    assert len(proxy_copies()) == 1 + len(proxy_templates())


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
    keywords = [k for k, _ in image_instructions()]
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
