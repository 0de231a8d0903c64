"""schemathesis, every check, against the real server: `python -m app` on loopback, as a reader reaches it.

schemathesis reads /openapi.json and runs its three phases on every operation: the document's examples, its
coverage phase (the boundary values of every constraint, and the methods a path does not take, whose 405
must carry a true Allow header) and random fuzzing, valid and invalid data alike. Every one of its checks
runs on every answer: never a 5xx, a status code, content type and body the document lists, invalid data
refused, valid data accepted (schemathesis.toml lists per operation the refusals no schema can express).

It runs schemathesis' own command line, the one a reviewer would, rather than its pytest plugin: the plugin's
items share one node id under pytest 9.2, which pytest-xdist cannot tell apart. A fixed seed makes a run the
same every time. Under CI=true the run is larger: at least 3,000 requests.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from tools.serving import app_server

ROOT = Path(__file__).resolve().parent.parent
CI = os.environ.get("CI") == "true"
EXAMPLES, WORKERS, MIN_REQUESTS = (300, 2, 3000) if CI else (15, 2, 300)


def test_schemathesis_with_every_check_finds_nothing(tmp_path: Path) -> None:
    # The command installed beside this interpreter (a virtual environment need not be on PATH).
    beside = Path(sys.executable).parent / "schemathesis"
    command = str(beside) if beside.exists() else shutil.which("schemathesis") or "schemathesis"
    with app_server() as url:
        result = subprocess.run(
            [
                command,
                "--config-file",
                str(ROOT / "schemathesis.toml"),
                "--no-color",
                "run",
                "--checks",
                "all",
                "--max-examples",
                str(EXAMPLES),
                "--workers",
                str(WORKERS),
                "--seed",
                "1",
                f"{url}/openapi.json",
            ],
            capture_output=True,
            text=True,
            timeout=1500,
            cwd=tmp_path,  # where schemathesis keeps its cache (.schemathesis/)
        )
    report = result.stdout + result.stderr
    assert result.returncode == 0, report[-6000:]
    counts = re.search(r"(\d+) generated, (\d+) passed", report)
    assert counts is not None, report[-3000:]
    generated, passed = int(counts[1]), int(counts[2])
    assert generated == passed >= MIN_REQUESTS, report[-3000:]
    tested = re.search(r"Tested: (\d+)", report)
    selected = re.search(r"Selected: (\d+)/(\d+)", report)
    assert tested and selected and tested[1] == selected[1] == selected[2], report[-3000:]  # every operation
