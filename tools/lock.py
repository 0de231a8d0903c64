"""Write the lock files, requirements/serve.lock and requirements/test.lock: every package the explorable
installs, pinned to one version, so that CI, the Dockerfile and the README's two commands install the same
releases the tests last ran with. Run from the repository root in an environment where the tests pass:

    pip install pip-tools==7.6.2 && python -m tools.lock

pip-compile resolves pyproject.toml's dependencies (serve: the `real` extra; test: `test` and `real`),
preferring the versions installed here, which it is given as constraints. The server's uvicorn is pinned
with the rest: app/web/server.py reads uvicorn's internals, and the lock is what the tests checked them
against.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
LOCKS = {"serve": ("real",), "test": ("test", "real")}  # lock name -> pyproject extras it installs


def lock_path(name: str) -> Path:
    return REPO / "requirements" / f"{name}.lock"


def main() -> None:
    pip_freeze = [sys.executable, "-m", "pip", "freeze", "--exclude-editable"]
    freeze = subprocess.run(pip_freeze, capture_output=True, text=True, check=True).stdout
    installed = "".join(line + "\n" for line in freeze.splitlines() if "==" in line)
    with tempfile.TemporaryDirectory() as tmp:
        constraints = Path(tmp) / "installed.txt"
        constraints.write_text(installed, encoding="utf-8")
        for name, extras in LOCKS.items():
            out = lock_path(name)
            out.parent.mkdir(exist_ok=True)
            subprocess.run(
                [sys.executable, "-m", "piptools", "compile", "--quiet", "--no-header", "--no-strip-extras"]
                + ["--no-emit-index-url", "--no-emit-find-links", "--no-annotate"]
                + [f"--constraint={constraints}"]
                + [f"--extra={extra}" for extra in extras]
                + [f"--output-file={out}", str(REPO / "pyproject.toml")],
                check=True,
                cwd=REPO,
            )
            pins = out.read_text(encoding="utf-8")
            header = f"# {name}: pyproject.toml + extras {', '.join(extras)}, by `python -m tools.lock`\n"
            out.write_text(header + pins, encoding="utf-8")
            print(f"wrote {out.relative_to(REPO)}: {pins.count('==')} packages", flush=True)


if __name__ == "__main__":
    main()
