"""schemathesis.toml has one source, the OpenAPI document: it is what `python -m tools.fuzz_config` writes,
and it lets positive_data_acceptance accept, per operation, exactly the 4xx answers the operation lists."""

from __future__ import annotations

import tomllib
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tools.fuzz_config import CONFIG, render


@pytest.fixture(scope="module")
def document(client: TestClient) -> dict[str, Any]:
    return client.get("/openapi.json").json()


def test_the_committed_file_is_what_the_tool_writes(document: dict[str, Any]) -> None:
    assert CONFIG.read_text(encoding="utf-8") == render(document), "run `python -m tools.fuzz_config`"


def test_every_operation_may_answer_its_documented_4xx_and_no_other(document: dict[str, Any]) -> None:
    allowed = {
        name: table["checks"]["positive_data_acceptance"]["expected-statuses"]
        for table in tomllib.loads(CONFIG.read_text(encoding="utf-8"))["operations"]
        for name in table["include-name"]
    }
    for path, item in document["paths"].items():
        for method, operation in item.items():
            refusals = sorted(s for s in operation["responses"] if s.startswith("4"))
            name = f"{method.upper()} {path}"
            if "pages" in operation["tags"] or not refusals:
                assert name not in allowed, name
            else:
                assert allowed.pop(name) == ["2xx", *refusals], name
    assert allowed == {}, "operations the document does not have"
