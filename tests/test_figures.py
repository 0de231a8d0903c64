"""app/figures.py, the one place the figures' numbers come from, and checks that nothing else writes one."""

import json
import re
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app.figures import FIGURES, NUMBERS, number, present
from app.routes.pages import RECORDS

ROOT = Path(__file__).resolve().parent.parent

# Files whose owners switch them to the registry as they land (issue #18): their figure numbers are right
# today, but written by hand. Empty this once they read fig("accounting") and fig("sharing").
NOT_YET: set[str] = set()

# "Figure 3", "figures 1 and 11", "figure 7's": a figure named by a number written down.
HAND_NUMBER = re.compile(r"\b[Ff]igures? \d")


def test_the_numbers_are_the_reading_order() -> None:
    assert [number(f.slug) for f in FIGURES] == list(range(1, len(FIGURES) + 1))
    assert len(NUMBERS) == len(FIGURES)  # no slug twice
    assert number("heads-dial") == 1 and number("accounting") == 2 and number("sharing") == 3
    with pytest.raises(KeyError):
        number("no-such-figure")


def test_present_lists_the_registered_partials_in_reading_order(tmp_path: Path) -> None:
    (tmp_path / "figures").mkdir()
    for slug in ("order", "heads-dial", "mask-lab"):
        (tmp_path / "figures" / f"{slug.replace('-', '_')}.html").write_text("", encoding="utf-8")
    (tmp_path / "figures" / "unregistered.html").write_text("", encoding="utf-8")
    assert [f.slug for f in present(tmp_path)] == ["heads-dial", "mask-lab", "order"]  # reading order


def test_the_page_data_carries_every_number(client: TestClient) -> None:
    html = client.get("/figure/mask-lab").text
    data = json.loads(re.search(r'<script[^>]* id="page-data">(.*?)</script>', html).group(1))
    assert data["figures"] == NUMBERS


def test_the_records_table_names_its_figures_by_their_numbers() -> None:
    shown = {r["file"]: r["shown_in"] for r in RECORDS}
    assert shown["translator_record.json"] == f"Figure {number('generator')}"
    assert shown["tiny_lm_curves.json"] == f"Figures {number('mask-lab')} and {number('interview')}"


def _without_comments(text: str, suffix: str) -> str:
    """What a template or a script shows a reader: Jinja comments and JavaScript comments dropped."""
    if suffix == ".html":
        return re.sub(r"\{#.*?#\}", "", text, flags=re.DOTALL)
    lines = (line for line in text.splitlines() if not line.lstrip().startswith(("//", "*", "/*")))
    return "\n".join(re.sub(r"\s// .*$", "", line) for line in lines)


@pytest.mark.parametrize("folder", ["templates", "static/js"])
def test_no_template_or_script_writes_a_figure_number_by_hand(folder: str) -> None:
    """Captions and cross-references read the registry ({{ fig("order") }} in a template, the page data's
    `figures` in a script), so that renumbering the figures is one line of app/figures.py."""
    found = []
    for path in sorted((ROOT / folder).rglob("*.*")):
        name = path.relative_to(ROOT).as_posix()
        if path.suffix in (".html", ".js") and name not in NOT_YET:
            shown = _without_comments(path.read_text(encoding="utf-8"), path.suffix)
            found += [f"{name}: {m.group()}" for m in HAND_NUMBER.finditer(shown)]
    assert not found
    assert all((ROOT / name).is_file() for name in NOT_YET)  # an exception for a file that is gone is stale
