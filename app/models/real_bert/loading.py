"""all-MiniLM-L6-v2 loaded once per process: the first request reads it (90 MB), later ones share it, and
a model that is missing or unreadable is a ModelUnavailable saying how to install it."""

from __future__ import annotations

import threading
from functools import lru_cache
from pathlib import Path

from app.models.real_bert.encoder import RealBert
from app.models.real_bert.installed import (
    INSTALL,
    MODEL_NAME,
    ModelUnavailable,
    missing_reason,
    packaged_model_dir,
)

_LOADING = threading.Lock()


@lru_cache(maxsize=2)
def _load(directory: Path) -> RealBert:
    return RealBert(directory)


def load_real_bert(directory: Path | None) -> RealBert:
    """The model from ``directory`` (None: the installed package's), read once per process and shared.

    A lock makes concurrent first requests wait for one load instead of each reading 90 MB. Raises
    ModelUnavailable, saying how to install the model, when it is missing or unreadable.
    """
    directory = directory if directory is not None else packaged_model_dir()
    reason = missing_reason(directory)
    if reason is not None:
        raise ModelUnavailable(reason)
    assert directory is not None
    with _LOADING:
        try:
            return _load(directory.resolve())
        except ModelUnavailable:
            raise
        except Exception as error:  # a damaged file: say so, and how to reinstall
            raise ModelUnavailable(
                f"the real model ({MODEL_NAME}) in {directory} could not be read ({type(error).__name__}): "
                f"reinstall it: {INSTALL}"
            ) from error
