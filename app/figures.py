"""The article's figures in reading order: the one place their numbers come from.

A figure's number is its place in FIGURES, counted from 1. Every caption and every cross-reference reads it
from here: the templates through the Jinja global ``fig("mask-lab")`` (app/routes/pages.py), the browser code
through the page data's ``figures`` ({slug: number}), and the page's Python data through ``number``.
Inserting, moving or removing a figure is one line below.

An entry keeps its number even while its partial (templates/figures/<slug with underscores>.html) does not
exist yet: the article and the figure pages then leave it out, and the numbers after it do not move.

The rest of a figure is found from its slug, so that adding one is its line below, its partial (included in
templates/index.html where the article's text reaches it) and its static files: its stylesheet
static/css/figures/<slug>.css, which templates/macros.html links, and, for a figure that draws (its partial's
``data-widget``), its module static/js/figures/<slug>/index.js or else static/js/figures/<slug>.js, whose
versioned address the page data's ``widgets`` hands static/js/main.js (``Figure.module``).
"""

from collections.abc import Container
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Figure:
    slug: str  # its id in the article (<figure id>, the #anchor) and its own page, /figure/<slug>
    name: str  # how prose names it after its number: "figure 6, the mask lab"

    @property
    def template(self) -> str:
        """Its partial, relative to the templates directory: heads-dial is figures/heads_dial.html."""
        return f"figures/{self.slug.replace('-', '_')}.html"

    def module(self, files: Container[str]) -> str | None:
        """Its widget's module among ``files`` (paths relative to the static directory): the entry of a folder
        of modules, js/figures/<slug>/index.js, or else one module, js/figures/<slug>.js; None for a figure
        that draws nothing (a plain table)."""
        candidates = (f"js/figures/{self.slug}/index.js", f"js/figures/{self.slug}.js")
        return next((path for path in candidates if path in files), None)


FIGURES: tuple[Figure, ...] = (
    Figure("heads-dial", "the heads dial"),
    Figure("accounting", "the accounting"),
    Figure("sharing", "sharing keys and values"),
    Figure("head-lab", "the head lab"),
    Figure("generator", "the generator"),
    Figure("mask-lab", "the mask lab"),
    Figure("interview", "the interview question"),
    Figure("placements", "three placements"),
    Figure("blueprint", "the blueprint"),
    Figure("order", "order"),
    Figure("real-heads", "a real transformer"),
)

NUMBERS: dict[str, int] = {figure.slug: n for n, figure in enumerate(FIGURES, start=1)}
BY_SLUG: dict[str, Figure] = {figure.slug: figure for figure in FIGURES}


def number(slug: str) -> int:
    """Figure `slug`'s number. A slug the registry does not know is a KeyError, so that a misspelt reference
    fails the page's render (and its tests) instead of printing a wrong number."""
    return NUMBERS[slug]


def present(templates_dir: Path) -> list[Figure]:
    """The figures whose partial exists, in reading order: those the article and /figure/<slug> can show."""
    return [figure for figure in FIGURES if (templates_dir / figure.template).is_file()]
