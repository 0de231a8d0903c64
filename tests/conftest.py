"""Shared fixtures: one application per test session, started and stopped through TestClient.

Also which tests a run selects, and in what order. Tests marked `screenshots` only write pictures to
tests/browser/artifacts for a person to look at (every assertion they make is made again by an unmarked
test), and tests marked `sweep` are further cases of a sweep whose other cases run in every run (a text-size
check at the desktop width beside the phone's, the article's accessibility scan in the dark theme beside the
light, the article measured with long sentences beside as it opens): the default `python -m pytest`
deselects both, to keep a plain run short. Under CI=true, the variable .ci/run runs with, they
run with the rest; any run that chooses with `-m` (such as `-m screenshots` or `-m sweep`) gets exactly what
it chose.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from fastapi.testclient import TestClient

# Files whose cost the count of their tests misjudges (schemathesis, nginx, slow clients, subprocesses, a
# server killed under load, the translator's held-out set, the curve measured again, landing and scrolling the
# whole article, one measure of every text), in seconds as measured here; any other file costs about two
# seconds a browser test (a page load and what the test does) and next to nothing a test
# otherwise.
LONG_FILES = {
    "tests/browser/test_landing.py": 36.0,
    "tests/test_fuzz.py": 360.0 if os.environ.get("CI") == "true" else 22.0,  # CI fuzzes 3,000 requests
    "tests/browser/test_predict_reveal.py": 13.0,
    "tests/test_server_limits.py": 15.0,
    "tests/models/test_translator.py": 12.0,
    "tests/training/test_parallel_corpus.py": 11.0,
    "tests/test_proxy.py": 11.0,
    "tests/test_hostile_text.py": 11.0,
    "tests/test_cli.py": 10.0,
    "tests/test_failover.py": 10.0,
    "tests/browser/test_readable_text.py": 10.0,
    "tests/models/test_heads.py": 10.0,
    "tests/test_serve.py": 7.0,
    "tests/test_project.py": 5.0,
}

# One BLAS thread for each test process, as `python -m app` gives its own: the two workers, their servers and
# Chromium already share two cores, and OpenBLAS's threads spin while they wait on each other over the small
# matrices the tests multiply (one plain run each: 5:44 with them, 5:19 without). Set here, before xdist
# starts the workers, so that their numpy reads it when it loads.
for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")

LEFT_OUT = ("screenshots", "sweep")  # the markers a plain local run deselects (see above)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if not (os.environ.get("CI") == "true" or config.getoption("markexpr")):
        left_out = [item for item in items if any(item.get_closest_marker(name) for name in LEFT_OUT)]
        if left_out:
            config.hook.pytest_deselected(items=left_out)
            items[:] = [item for item in items if not any(item.get_closest_marker(name) for name in LEFT_OUT)]
    # The two workers take whole files in this order (pyproject turns off xdist's own, by number of tests):
    # the longest first, so that both end together rather than one idling while the other runs a long file
    # it was handed last. Within a file the order stays as written.
    files: dict[str, list[pytest.Item]] = {}
    for item in items:
        files.setdefault(item.nodeid.split("::")[0], []).append(item)

    def cost(name: str) -> float:
        return LONG_FILES.get(name) or sum(2.0 if "browser" in i.fixturenames else 0.02 for i in files[name])

    items[:] = [item for name in sorted(files, key=cost, reverse=True) for item in files[name]]


@pytest.fixture(scope="session")
def client() -> Iterator[TestClient]:
    # Imported here, not above: the process that only hands out the files (xdist's) never needs the app, and
    # importing it cost that process over a second before the workers started.
    from fastapi.testclient import TestClient

    from app.main import create_app

    with TestClient(create_app()) as test_client:
        yield test_client
