"""The committed translator: the weights and training record that training/train_translator.py wrote
(app/weights/README.md), loaded once per process."""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from app.config import get_settings
from app.models.translator.network import Translator
from app.models.translator.omissions import unread, word_kinds
from app.models.translator.steps import Translation

WEIGHTS_FILE = "translator.npz"
RECORD_FILE = "translator_record.json"


class TranslatorModel:
    """The committed translator and its training record."""

    def __init__(self, weights: Path, record: Path) -> None:
        with np.load(weights, allow_pickle=False) as data:
            self.translator = Translator(
                {k: data[k].astype(np.float64) for k in data.files if "vocabulary" not in k and k != "heads"},
                int(data["heads"]),
                [str(w) for w in data["source_vocabulary"]],
                [str(w) for w in data["target_vocabulary"]],
            )
        self.record: dict[str, Any] = json.loads(record.read_text(encoding="utf-8"))
        self.kinds = word_kinds(self.record.get("vocabulary_kinds", {}))  # each English word -> its kinds

    def unread(self, translation: Translation) -> list[int]:
        """The content words ``translation`` never read (``unread``, at the best layer)."""
        return unread(translation, self.best_layer, self.kinds)

    @property
    def best_layer(self) -> int:
        return int(self.record["best_layer"])


@lru_cache
def get_translator() -> TranslatorModel:
    weights_dir = get_settings().weights_dir
    return TranslatorModel(weights_dir / WEIGHTS_FILE, weights_dir / RECORD_FILE)
