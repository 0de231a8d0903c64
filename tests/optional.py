"""What the suite needs but a developer's machine may lack: Chromium, axe-core, the pretrained model.

Locally a missing part skips the tests that need it; under CI=true, where .ci/run installs everything, it
fails them instead, so a broken install can never pass as a run of skips.
"""

from __future__ import annotations

import os
from typing import NoReturn

import pytest

from app.config import get_settings
from app.models.real_bert.installed import missing_reason, packaged_model_dir


def missing(message: str) -> NoReturn:
    """Skip the test for want of `message`'s part, or fail it under CI=true."""
    if os.environ.get("CI") == "true":
        pytest.fail(message)
    pytest.skip(message)


def require_real_model() -> None:
    """Go on only if the optional all-MiniLM-L6-v2 files are installed (the reason says how to get them)."""
    reason = missing_reason(get_settings().real_model_dir or packaged_model_dir())
    if reason is not None:
        missing(reason)
