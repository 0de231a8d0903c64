"""The article page, rendered with Jinja; the data a figure needs at first paint travels as JSON."""

import json
import re
from functools import lru_cache
from pathlib import Path
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request
from fastapi import Path as PathParameter
from fastapi.responses import HTMLResponse
from fastapi.templating import Jinja2Templates
from markupsafe import Markup

from app.config import Settings, get_settings
from app.core.accounting import head_accounting
from app.core.mathml import formula
from app.deps import DEFAULT_SENTENCE, SettingsDep
from app.errors import json_refusal_doc
from app.models.heads import VALID_HEADS
from app.models.lexicon import AMBIGUOUS, words
from app.models.lm_grammar import CLASSES as LM_WORD_CLASSES
from app.models.tiny_lm import CURVES_FILE as LM_CURVES_FILE
from app.models.tiny_lm import DEFAULT_SENTENCE as LM_DEFAULT_SENTENCE
from app.models.tiny_lm import MAX_POSITIONS as LM_MAX_POSITIONS
from app.models.tiny_lm import MAX_SENTENCE_CHARS as LM_MAX_CHARS

router = APIRouter(tags=["pages"])


def _formula(name: str) -> Markup:
    """One of app.core.mathml's constant formulas, marked safe: our own markup, never a reader's text."""
    return Markup(formula(name))


@lru_cache
def get_templates() -> Jinja2Templates:
    templates = Jinja2Templates(directory=get_settings().templates_dir)
    templates.env.globals.update(formula=_formula, head_accounting=head_accounting, records=RECORDS)
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


@lru_cache(maxsize=1)
def ambiguous_words() -> list[dict[str, Any]]:
    """The words with two senses that figure 1's meaning relation knows (lexicon.toml [ambiguous.*]), each
    sense with a short unambiguous noun of its field that settles it: [{word, senses: [{field, cue}]}]."""

    def cue(field: str) -> str | None:
        nouns = words("noun", field=field, number="sg", ambiguous=False)
        return min(nouns, key=lambda w: (len(w), w)) if nouns else None

    return [
        {"word": word.lstrip("+"), "senses": [{"field": f, "cue": cue(f)} for f in senses]}
        for table in AMBIGUOUS.values()
        for word, senses in table.items()
    ]


# The stored records of training runs the page shows, for its section "Where the numbers come from": where
# each is shown, what it holds, its file in app/weights and the training module that rewrites it with the
# weights.
RECORDS: tuple[dict[str, str], ...] = (
    {
        "shown_in": "Section 1 and figure 1",
        "holds": "held-out relation scores per head count, the training loss per head count (the capacity "
        "curve), how differently the heads look before and after training",
        "file": "relations_curve.json",
        "command": "training.train_relations",
    },
    {
        "shown_in": "Figure 4",
        "holds": "held-out exact match, cross-attention alignment per layer, the mistakes in "
        "About this model",
        "file": "translator_record.json",
        "command": "training.train_translator",
    },
    {
        "shown_in": "Figures 5 and 6",
        "holds": "loss curves, validation losses, the share of each model's own sentences that are "
        "grammatical",
        "file": "tiny_lm_curves.json",
        "command": "training.train_lm",
    },
)


# The language models' word classes (app/models/lm_grammar.py) as figure 5 lists the words its decoder knows.
LM_CLASS_NAMES = {
    "DET": "determiners",
    "ADJ": "adjectives",
    "NOUN": "nouns",
    "COPULA": "the copula",
    "INTRANSITIVE": "verbs without an object",
    "TRANSITIVE": "verbs with an object",
    "PREP": "prepositions",
}


def mask_lab_decoder() -> dict[str, Any] | None:
    """Figure 5's decoder: figure 6's language model trained with −∞, as its stored training record describes
    it, with the words it knows by class; None while the record does not exist."""
    path = get_settings().weights_dir / LM_CURVES_FILE
    try:
        mtime_ns = path.stat().st_mtime_ns
    except FileNotFoundError:
        return None
    record = _read_curve(path, mtime_ns)
    trained = next(m for m in record["models"] if m["mask"] == "neg_inf")
    return {
        "defaultSentence": LM_DEFAULT_SENTENCE,
        "maxWords": LM_MAX_POSITIONS - 2,  # the start token, the words, and room for one written after them
        "layers": record["layers"],
        "heads": record["heads"],
        "dModel": record["d_model"],
        "validationLoss": trained["final_validation"],
        "wordClasses": [
            {"name": LM_CLASS_NAMES[c], "words": list(words)} for c, words in LM_WORD_CLASSES.items()
        ],
    }


@router.get("/", response_class=HTMLResponse)
def article(
    request: Request,
    templates: Annotated[Jinja2Templates, Depends(get_templates)],
    settings: SettingsDep,
) -> HTMLResponse:
    """The explorable, as one article."""
    return templates.TemplateResponse(request, "index.html", {"page_data": article_data(settings)})


def article_data(settings: Settings) -> dict[str, Any]:
    """The JSON every figure may read at first paint (the article's and each figure page's)."""
    return {
        "defaultSentence": DEFAULT_SENTENCE,
        "validHeads": VALID_HEADS,
        "maxTokens": settings.max_sentence_tokens,
        "maxChars": settings.max_sentence_chars,
        "lmMaxChars": LM_MAX_CHARS,
        "maskLab": mask_lab_decoder(),
        "capacity": capacity_curve(),
        "ambiguousWords": ambiguous_words(),
    }


# ---- one figure alone: /figure/<name>, and ?embed=1 for slides ----------------------------------------


def figure_names(templates_dir: Path) -> list[str]:
    """Every figure that has a partial in templates/figures: heads_dial.html is the figure `heads-dial`."""
    return sorted(p.stem.replace("_", "-") for p in (templates_dir / "figures").glob("*.html"))


_SECTION = re.compile(r'<section id="[^"]+"[^>]*>')
_HEADING = re.compile(r"<h2\b[^>]*>(.*?)</h2>", re.DOTALL)


def section_intro(article_html: str, name: str) -> Markup | None:
    """The heading and paragraphs that lead into figure `name` in the rendered article (our own markup).

    That is the text from the start of the figure's section up to the figure, or, when an earlier figure
    shares the section, from the end of that figure.
    """
    at = article_html.find(f'<figure id="{name}"')
    starts = [m.end() for m in _SECTION.finditer(article_html, 0, max(at, 0))]
    if at < 0 or not starts:
        return None
    lead = article_html[starts[-1] : at]
    return Markup(lead.rsplit("</figure>", 1)[-1])


@router.get(
    "/figure/{name}",
    response_class=HTMLResponse,
    responses={
        404: {"description": "no such figure: a page listing those that exist", "content": {"text/html": {}}},
        422: json_refusal_doc("`embed` is not a boolean"),
    },
)
def figure_page(
    request: Request,
    # The document lists the figures there are; any other name gets the 404 page that lists them too.
    name: Annotated[
        str, PathParameter(json_schema_extra={"enum": figure_names(get_settings().templates_dir)})
    ],
    templates: Annotated[Jinja2Templates, Depends(get_templates)],
    settings: SettingsDep,
    embed: bool = False,
) -> HTMLResponse:
    """One figure alone, with its section's introduction; `?embed=1` drops everything but the figure."""
    names = figure_names(settings.templates_dir)
    page_data = article_data(settings)
    if name not in names:
        missing = {"names": names, "name": name, "page_data": page_data}
        return templates.TemplateResponse(request, "figure_missing.html", missing, status_code=404)
    article_html = templates.get_template("index.html").render({"request": request, "page_data": page_data})
    intro = section_intro(article_html, name)
    heading = _HEADING.search(intro or "")
    title = Markup(heading.group(1)).striptags() if heading else name
    context: dict[str, Any] = {
        "page_data": page_data,
        "name": name,
        "title": title,
        "partial": f"figures/{name.replace('-', '_')}.html",
        "intro": None if embed else intro,
        "embed": embed,
    }
    return templates.TemplateResponse(request, "figure.html", context)
