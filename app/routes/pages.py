"""The article page, rendered with Jinja; the data a figure needs at first paint travels as JSON."""

import json
from functools import lru_cache
from pathlib import Path
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import HTMLResponse
from fastapi.templating import Jinja2Templates
from markupsafe import Markup

from app.config import Settings, get_settings
from app.core.accounting import head_accounting
from app.core.mathml import formula
from app.models.heads import VALID_HEADS

router = APIRouter(tags=["pages"])

DEFAULT_SENTENCE = "the river bank was steep"


def _formula(name: str) -> Markup:
    """One of app.core.mathml's constant formulas, marked safe: our own markup, never a reader's text."""
    return Markup(formula(name))


@lru_cache
def get_templates() -> Jinja2Templates:
    templates = Jinja2Templates(directory=get_settings().templates_dir)
    templates.env.globals.update(formula=_formula, head_accounting=head_accounting)
    return templates


@lru_cache(maxsize=4)
def _read_curve(path: Path, mtime_ns: int) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def capacity_curve() -> dict[str, Any] | None:
    """Training loss and held-out relation scores per head count, written by the training command.

    None while the file does not exist (the page then leaves the capacity curve out); re-read when it changes.
    """
    path = get_settings().weights_dir / "relations_curve.json"
    try:
        mtime_ns = path.stat().st_mtime_ns
    except FileNotFoundError:
        return None
    return _read_curve(path, mtime_ns)


@router.get("/", response_class=HTMLResponse)
@router.head("/", include_in_schema=False)
def article(
    request: Request,
    templates: Annotated[Jinja2Templates, Depends(get_templates)],
    settings: Annotated[Settings, Depends(get_settings)],
) -> HTMLResponse:
    """The explorable, as one article."""
    page_data = {
        "defaultSentence": DEFAULT_SENTENCE,
        "validHeads": VALID_HEADS,
        "maxTokens": settings.max_sentence_tokens,
        "maxChars": settings.max_sentence_chars,
        "capacity": capacity_curve(),
    }
    return templates.TemplateResponse(request, "index.html", {"page_data": page_data})
