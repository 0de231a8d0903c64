"""Shared fixtures: one application per test session, started and stopped through TestClient.

Also which tests a run selects, and in what order. Tests marked `screenshots` only write pictures to
tests/browser/artifacts for a person to look at (every assertion they make is made again by an unmarked
test), so the default `python -m pytest` deselects them to stay quick. Under CI=true, the variable .ci/run
runs with, they run with the rest; any run that chooses with `-m` (such as `-m screenshots`) gets exactly
what it chose.
"""

import os
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from app.main import create_app

# Files whose cost the count of their tests misjudges (schemathesis, nginx, slow clients, subprocesses, the
# translator's held-out set, landing and scrolling the whole article, one measure of every text), in seconds
# as measured here; any other file costs about two seconds a browser test (a fresh page and a page load) and
# next to nothing a test otherwise.
LONG_FILES = {
    "tests/test_fuzz.py": 10.0,
    "tests/browser/test_landing.py": 41.0,
    "tests/browser/test_readable_text.py": 25.0,
    "tests/browser/test_predict_reveal.py": 15.0,
    "tests/test_proxy.py": 12.0,
    "tests/test_server_limits.py": 12.0,
    "tests/test_cli.py": 7.0,
    "tests/test_hostile_text.py": 7.0,
    "tests/test_serve.py": 6.0,
    "tests/models/test_translator.py": 12.0,
    "tests/training/test_parallel_corpus.py": 10.0,
    "tests/test_project.py": 5.0,
}


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if not (os.environ.get("CI") == "true" or config.getoption("markexpr")):
        shots = [item for item in items if item.get_closest_marker("screenshots")]
        if shots:
            config.hook.pytest_deselected(items=shots)
            items[:] = [item for item in items if not item.get_closest_marker("screenshots")]
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
    with TestClient(create_app()) as test_client:
        yield test_client
