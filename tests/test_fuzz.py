"""Property-based fuzzing of every endpoint in the app's own OpenAPI document, in process (no network).

schemathesis reads /openapi.json, generates requests from it, valid and invalid alike, sends them through
the ASGI app and checks every answer: never a 5xx, a status code the document lists for the operation, the
documented content type, and a body that fits the documented schema. Derandomised (a fixed seed), so a run
is the same every time. The operations that cost the most per request get fewer examples.
"""

from __future__ import annotations

from collections import Counter

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    negative_data_rejection,
    response_schema_conformance,
    status_code_conformance,
)

from app.main import create_app

CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
    negative_data_rejection,
]
SLOW = ["POST /api/attention/custom", "POST /api/diagnose", "POST /api/translate", "GET /api/real-attention"]
MIN_REQUESTS = 1000

schema = schemathesis.openapi.from_asgi("/openapi.json", create_app())
schema.config.generation.update(deterministic=True)
sent: Counter[str] = Counter()


def fuzz_settings(examples: int) -> settings:
    return settings(
        max_examples=examples,
        derandomize=True,
        database=None,
        deadline=None,
        suppress_health_check=list(HealthCheck),
    )


def send_and_check(case: schemathesis.Case) -> None:
    sent[case.operation.label] += 1
    case.call_and_validate(checks=CHECKS)


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
