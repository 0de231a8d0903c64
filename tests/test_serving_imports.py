"""The layers import one way: serving carries no training code (the corpora, the grammars that write them and
the held-out measures live in training/, which the server never imports), and the numpy models and maths
know nothing of HTTP (they return dataclasses and arrays; the routes build the answers)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

import app.models.heads
import app.models.lm_grammar
import app.models.relations
import app.models.tiny_lm
import app.models.translator.network
import app.models.translator.omissions

ROOT = Path(__file__).resolve().parent.parent
TRAINING_ONLY = {
    app.models.heads: ("evaluate", "head_spread"),
    app.models.translator.network: ("measure", "alignment_hits"),
    app.models.translator.omissions: ("measure", "alignment_hits"),
    app.models.relations: ("spread_field_codes",),
    app.models.lm_grammar: ("write", "sentences", "split_corpus"),
    app.models.tiny_lm: ("learn_vocabulary",),
}


def test_building_the_app_imports_no_training_module() -> None:
    script = "import sys; from app.main import create_app; create_app(); print(*sorted(sys.modules))"
    loaded = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    assert "app.main" in loaded and "app.routes.attention" in loaded
    assert [m for m in loaded if m == "training" or m.startswith("training.")] == []
    assert {"app.models.corpus", "app.models.parallel_corpus", "torch"}.isdisjoint(loaded)


def test_the_serving_models_hold_no_training_function() -> None:
    for module, names in TRAINING_ONLY.items():
        assert [name for name in names if hasattr(module, name)] == [], module.__name__


@pytest.mark.parametrize("folder", ["app/core", "app/models"])
def test_the_models_and_the_maths_import_nothing_of_the_web(folder: str) -> None:
    web = ("fastapi", "starlette", "pydantic", "app.schemas", "app.routes", "app.deps", "app.web.errors")
    for path in sorted((ROOT / folder).rglob("*.py")):
        nodes = list(ast.walk(ast.parse(path.read_text(encoding="utf-8"))))
        imported = [alias.name for node in nodes if isinstance(node, ast.Import) for alias in node.names]
        imported += [node.module or "" for node in nodes if isinstance(node, ast.ImportFrom)]
        assert [m for m in imported if m.startswith(web)] == [], path.name
