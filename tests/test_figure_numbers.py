"""Every figure number the HTTP API's documentation prints comes from app/figures.py, the numbers' one home.

A number typed by hand into a description reads right until a figure is inserted or moved, then names the
wrong figure, and no page test notices: the OpenAPI document is read by people and fuzzers, not drawn. So the
document is built a second time with every registry number moved by SHIFT: a number that moves with it was
read from the registry (``number(slug)``), one that stays put was typed.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from app.figures import FIGURES

ROOT = Path(__file__).resolve().parent.parent
SHIFT = 1000
# "figure 4", "Figure 10's", "figures 6 and 7", "fig. 3": every number that follows, listed or ranged.
MENTION = re.compile(r"\bfig(?:ure)?s?\.?\s+(\d+(?:(?:,\s*|\s+and\s+|\s+or\s+|\s*[-–]\s*)\d+)*)", re.I)


def openapi_document(shift: int) -> dict[str, Any]:
    """The app's OpenAPI document, built in a fresh interpreter with every figure's number plus `shift`."""
    script = (
        "import json, app.figures as figures\n"
        f"figures.NUMBERS.update({{slug: n + {shift} for slug, n in figures.NUMBERS.items()}})\n"
        "from app.main import create_app\n"
        "print(json.dumps(create_app().openapi()))\n"
    )
    built = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, check=True, timeout=120
    )
    return json.loads(built.stdout)


def strings(node: Any) -> Iterator[str]:
    """Every string in a JSON value: descriptions, summaries, titles, examples."""
    if isinstance(node, str):
        yield node
    elif isinstance(node, dict):
        for value in node.values():
            yield from strings(value)
    elif isinstance(node, list):
        for value in node:
            yield from strings(value)


def figure_numbers(document: dict[str, Any]) -> list[tuple[int, str]]:
    """(number, the text around it) for every figure number the document's text names."""
    found = []
    for text in strings(document):
        for mention in MENTION.finditer(text):
            around = text[max(0, mention.start() - 40) : mention.end() + 40]
            found += [(int(n), around) for n in re.findall(r"\d+", mention[1])]
    return found


@pytest.fixture(scope="module")
def shifted() -> dict[str, Any]:
    return openapi_document(SHIFT)


def test_the_document_names_figures(client: Any) -> None:
    """The check below has something to check: the descriptions do name figures by number."""
    assert len(figure_numbers(client.get("/openapi.json").json())) >= 5


def test_every_figure_number_comes_from_the_registry(shifted: dict[str, Any]) -> None:
    typed = [around for n, around in figure_numbers(shifted) if not SHIFT < n <= SHIFT + len(FIGURES)]
    assert typed == [], "typed by hand, not read with app.figures.number:\n" + "\n".join(typed)
