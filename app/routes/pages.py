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
from app.core.head_signatures import SIGNATURE_MARKS, SIGNATURE_RULES
from app.core.masks import ATTENTION_MODES, MASK_MODES, ZOO_MODES, AttentionMode
from app.core.mathml import formula
from app.deps import DEFAULT_SENTENCE, SettingsDep
from app.figures import BY_SLUG, FIGURES, NUMBERS, number, present
from app.models.heads import VALID_HEADS
from app.models.lexicon import AMBIGUOUS, words
from app.models.tiny_lm import CURVES_FILE as LM_CURVES_FILE
from app.models.tiny_lm import DEFAULT_SENTENCE as LM_DEFAULT_SENTENCE
from app.models.tiny_lm import MAX_SENTENCE_CHARS as LM_MAX_CHARS
from app.models.tiny_lm import MAX_WORDS as LM_MAX_WORDS
from app.models.tiny_lm import MODEL_ORDER as LM_MODEL_ORDER
from app.models.tiny_lm import READING_SENTENCE as LM_READING_SENTENCE
from app.models.verdicts import THRESHOLDS as VERDICT_THRESHOLDS
from app.web.errors import json_refusal_doc
from app.web.static_files import get_static_site
from app.web.stored_answers import answers_version, revalidated

router = APIRouter(tags=["pages"])
SHARING_RECORD = "relations_shared_curve.json"  # training/train_sharing.py writes it
# Every attention mode's name, the one table of them: the mask lab's sentences say it, and a radio (the head
# lab's three masks, the mask lab's masks and bugs) shows it, after "off by one: " for the two bugs that are.
MODE_NAMES: dict[AttentionMode, str] = {
    "none": "no mask",
    "neg_inf": "−∞",
    "zero": "×0",
    "hides_self": "hides itself",
    "next_word": "next word",
    "transposed": "transposed",
    "after_softmax": "after softmax",
    "additive": "+1 added",
}
OFF_BY_ONE: tuple[AttentionMode, ...] = ("hides_self", "next_word")


def mode_label(mode: AttentionMode) -> str:
    """The label of ``mode``'s radio."""
    return f"off by one: {MODE_NAMES[mode]}" if mode in OFF_BY_ONE else MODE_NAMES[mode]


def mode_options(modes: tuple[AttentionMode, ...]) -> list[tuple[str, str]]:
    """(value sent to the server, the radio's label) of each of ``modes``, for a template's radios."""
    return [(mode, mode_label(mode)) for mode in modes]


def model_name(mode: AttentionMode) -> str:
    """The name figure 7 gives the language model trained with ``mode``: its mode's name, but "off-by-one" for
    the model trained off by one (the bug it was trained with, short enough for a chart's legend)."""
    return "off-by-one" if mode in OFF_BY_ONE else MODE_NAMES[mode]


# Figure 7's language models, by the mask each was trained with, in the order they are compared, with their
# names: the example select and the "lowest loss" question list them, and the page data carries them.
MODEL_OPTIONS: list[tuple[str, str]] = [(mode, model_name(mode)) for mode in LM_MODEL_ORDER]


def _formula(name: str) -> Markup:
    """One of app.core.mathml's constant formulas, marked safe: our own markup, never a reader's text."""
    return Markup(formula(name))


@lru_cache
def get_templates() -> Jinja2Templates:
    templates = Jinja2Templates(directory=get_settings().templates_dir)
    templates.env.globals.update(
        formula=_formula,
        head_accounting=head_accounting,
        records=RECORDS,
        fig=number,
        shown_figures=lambda: figure_names(get_settings().templates_dir),
        static_url=lambda path: get_static_site().url(path),
        module_preloads=lambda path: get_static_site().preloads(path),
        answers_version=answers_version,
        mask_options=mode_options(MASK_MODES),  # the three masks
        bug_options=mode_options(ZOO_MODES),  # the mask bug zoo's per-row bugs
        model_options=MODEL_OPTIONS,  # figure 7's language models
        model_name=model_name,
    )
    return templates


@lru_cache(maxsize=4)
def _read_curve(path: Path, mtime_ns: int) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def stored_record(name: str) -> dict[str, Any] | None:
    """The training record app/weights/``name``, or None while the file does not exist (the page then leaves
    out what it would show); re-read when it changes."""
    path = get_settings().weights_dir / name
    try:
        mtime_ns = path.stat().st_mtime_ns
    except FileNotFoundError:
        return None
    return _read_curve(path, mtime_ns)


def capacity_curve() -> dict[str, Any] | None:
    """Training loss and held-out relation scores per head count, written by the training command."""
    return stored_record("relations_curve.json")


def sharing_record() -> dict[str, Any] | None:
    """What the sharing figure draws from the record of ``python -m training.train_sharing``: per h query
    heads, per g key/value heads (g = h included, from figure 1's own record), the final training loss, each
    relation's best held-out score and the projections' sizes. None without the record."""
    record = stored_record(SHARING_RECORD)
    if record is None:
        return None
    by_heads: dict[int, list[dict[str, Any]]] = {}
    for layer in record["layers"]:
        by_heads.setdefault(layer["heads"], []).append(
            {
                "kv_heads": layer["kv_heads"],
                "final_loss": layer["final_loss"],
                "relations": layer["heldout"]["best_score"],
                "parameters": layer["parameters"],
            }
        )
    return {
        "d_model": record["d_model"],
        "command": "python -m training.train_sharing",
        "heads": [
            {"heads": h, "groups": sorted(groups, key=lambda g: g["kv_heads"])}
            for h, groups in sorted(by_heads.items())
            if len(groups) > 1
        ],
    }


@lru_cache(maxsize=1)
def ambiguous_words() -> list[dict[str, Any]]:
    """The words with two senses that figure 1's meaning relation knows (lexicon.toml [ambiguous.*]), each
    sense with a short unambiguous noun of its field that settles it: [{word, senses: [{field, cue}]}]. A verb
    is named by its plain form ("+draw:drew" is "draw")."""

    def cue(field: str) -> str | None:
        nouns = words("noun", field=field, number="sg", ambiguous=False)
        return min(nouns, key=lambda w: (len(w), w)) if nouns else None

    return [
        {"word": word.lstrip("+").partition(":")[0], "senses": [{"field": f, "cue": cue(f)} for f in senses]}
        for table in AMBIGUOUS.values()
        for word, senses in table.items()
    ]


# The stored records of training runs the page shows, for its section "Where the numbers come from": where
# each is shown, what it holds, its file in app/weights and the training module that rewrites it with the
# weights.
RECORDS: tuple[dict[str, str], ...] = (
    {
        "shown_in": f"Section 1 and figure {number('heads-dial')}",
        "holds": "relation scores per head count on held-out sentences and on sentences made of words "
        "training never saw, the training loss per head count (the capacity curve), how differently the "
        "heads look before and after training, and how often the story holds on each test set",
        "file": "relations_curve.json",
        "command": "training.train_relations",
    },
    {
        "shown_in": f"Figure {number('sharing')}",
        "holds": "per number of query heads and of key/value heads they share: the training loss and each "
        "relation's best held-out score",
        "file": SHARING_RECORD,
        "command": "training.train_sharing",
    },
    {
        "shown_in": f"Figure {number('generator')}",
        "holds": "held-out exact match, cross-attention alignment per layer, the mistakes in "
        "About this model",
        "file": "translator_record.json",
        "command": "training.train_translator",
    },
    {
        "shown_in": f"Figures {number('mask-lab')} and {number('interview')}",
        "holds": "loss curves, validation losses, the share of each model's own sentences that are "
        "grammatical",
        "file": "tiny_lm_curves.json",
        "command": "training.train_lm",
    },
)


def mask_lab_decoder() -> dict[str, Any] | None:
    """Figure 6's decoder: figure 7's language model trained with −∞, as its stored training record describes
    it; None while the record does not exist."""
    path = get_settings().weights_dir / LM_CURVES_FILE
    try:
        mtime_ns = path.stat().st_mtime_ns
    except FileNotFoundError:
        return None
    record = _read_curve(path, mtime_ns)
    trained = next(m for m in record["models"] if m["mask"] == "neg_inf")
    return {
        "defaultSentence": LM_DEFAULT_SENTENCE,
        "maxWords": LM_MAX_WORDS,
        "vocabSize": record["vocab_size"],
        "layers": record["layers"],
        "heads": record["heads"],
        "dModel": record["d_model"],
        "validationLoss": trained["final_validation"],
        "trainedWith": [m["mask"] for m in record["models"]],  # a model was trained with each of these masks
    }


@router.get("/", response_class=HTMLResponse)
@revalidated
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
        "lmReadingSentence": LM_READING_SENTENCE,
        "maskLab": mask_lab_decoder(),
        # every mode the decoders run under (app/core/masks.py), in order, with its name
        "maskModes": [{"mode": mode, "name": MODE_NAMES[mode]} for mode in ATTENTION_MODES],
        # figure 7's language models, by mask, in the order they are compared, with their names
        "lmModels": [{"mask": mode, "name": name} for mode, name in MODEL_OPTIONS],
        "capacity": capacity_curve(),
        "sharing": sharing_record(),
        "ambiguousWords": ambiguous_words(),
        "verdictThresholds": VERDICT_THRESHOLDS,  # how figure 1's heads are judged, for its score note
        # how figure 7's diagnosis names each signature (the one table, app/core/head_signatures.py)
        "signatureTexts": {name: page for name, (_, _, page) in SIGNATURE_RULES.items()},
        "signatureMarks": SIGNATURE_MARKS,
        "figures": NUMBERS,  # every figure's number, for browser code that names another figure
        "widgets": widget_modules(),
    }


def widget_modules() -> dict[str, str]:
    """The versioned address of each figure's module ({slug: url}), which static/js/main.js imports to start
    the figure: every figure of app/figures.py that has one, found where its slug says."""
    site = get_static_site()
    return {f.slug: site.url(path) for f in FIGURES if (path := f.module(site.assets)) is not None}


# ---- one figure alone: /figure/<name>, and ?embed=1 for slides ----------------------------------------


def figure_names(templates_dir: Path) -> list[str]:
    """The figures of app/figures.py whose partial exists (heads_dial.html is the figure `heads-dial`), in
    reading order: the names /figure/<name> serves."""
    return [figure.slug for figure in present(templates_dir)]


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
@revalidated
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
        "partial": BY_SLUG[name].template,
        "intro": None if embed else intro,
        "embed": embed,
    }
    return templates.TemplateResponse(request, "figure.html", context)
