"""Property-based fuzzing of every endpoint in the app's own OpenAPI document, in process (no network).

schemathesis reads /openapi.json, generates requests from it, valid and invalid alike (and, in its coverage
phase, the boundary values of every constraint and the methods a path does not take), sends them through the
ASGI app and runs every one of its checks on each answer: never a 5xx, a status code and content type the
document lists, a body that fits the documented schema, invalid data refused, valid data accepted (see
schemathesis.toml for the refusals no schema can express), a 405 with a true Allow header. Derandomised (a
fixed seed), so a run is the same every time. The operations that cost the most per request get fewer
examples. Under CI=true the run is three times larger (at least 3,000 requests).
"""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.config import SchemathesisConfig

from app.main import create_app

ROOT = Path(__file__).resolve().parent.parent
SLOW = ["POST /api/attention/custom", "POST /api/diagnose", "POST /api/translate", "GET /api/real-attention"]
SCALE = 3 if os.environ.get("CI") == "true" else 1
MIN_REQUESTS = 1000 * SCALE

schema = schemathesis.openapi.from_asgi(
    "/openapi.json", create_app(), config=SchemathesisConfig.from_path(ROOT / "schemathesis.toml")
)
schema.config.generation.update(deterministic=True)
sent: Counter[str] = Counter()


def fuzz_settings(examples: int) -> settings:
    return settings(
        max_examples=examples * SCALE,
        derandomize=True,
        database=None,
        deadline=None,
        suppress_health_check=list(HealthCheck),
    )


def send_and_check(case: schemathesis.Case) -> None:
    sent[case.operation.label] += 1
    case.call_and_validate()  # every check schemathesis has, as configured in schemathesis.toml


@schema.exclude(name=SLOW).parametrize()
@fuzz_settings(100)
def test_every_answer_is_documented_and_never_a_server_error(case: schemathesis.Case) -> None:
    send_and_check(case)


@schema.include(name=SLOW).parametrize()
@fuzz_settings(40)
def test_the_slower_endpoints_too(case: schemathesis.Case) -> None:
    send_and_check(case)


def test_the_fuzzer_covered_every_endpoint_with_enough_requests() -> None:
    if not sent:
        pytest.skip("the fuzz tests did not run (deselected)")
    documented = {result.ok().label for result in schema.get_all_operations()}
    assert set(sent) == documented
    assert sum(sent.values()) >= MIN_REQUESTS, dict(sent)
