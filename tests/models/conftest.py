"""The trained model each test module of tests/models/ is about: a module names it in ``MODEL``, and the
``model`` fixture hands it to its tests, loaded by the app's own loader (one per worker process)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from app.config import get_settings
from app.models.heads import get_relation_heads
from app.models.real_bert.loading import load_real_bert
from app.models.translator.committed import get_translator
from tests.optional import require_real_model


def installed_real_bert() -> Any:
    """Figure 11's all-MiniLM-L6-v2, or a skip (a failure under CI=true) when it is not installed."""
    require_real_model()
    return load_real_bert(get_settings().real_model_dir)


MODELS: dict[str, Callable[[], Any]] = {
    "relation heads": get_relation_heads,  # figure 1's layer, at every head count
    "translator": get_translator,  # figure 5's encoder-decoder
    "real model": installed_real_bert,  # figure 11's pretrained model
}


@pytest.fixture(scope="module")
def model(request: pytest.FixtureRequest) -> Any:
    return MODELS[request.module.MODEL]()
