"""app/figures.py, the one place the figures' numbers come from, and checks that nothing else writes one."""

import json
import re
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app.config import get_settings
from app.figures import FIGURES, NUMBERS, number, present
from app.routes.pages import RECORDS
from app.web.static_files import get_static_site

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
    assert _page_data(client.get("/figure/mask-lab").text)["figures"] == NUMBERS


def _page_data(html: str) -> dict:
    return json.loads(re.search(r'<script[^>]* id="page-data">(.*?)</script>', html).group(1))


def test_every_figure_that_draws_has_its_module() -> None:
    """A partial's figure with data-widget="<slug>" has js/figures/<slug>/index.js or js/figures/<slug>.js,
    and a figure without one (a plain table) has none."""
    settings = get_settings()
    files = {p.relative_to(settings.static_dir).as_posix() for p in settings.static_dir.rglob("*.js")}
    shown = present(settings.templates_dir)
    assert shown
    for figure in shown:
        partial = (settings.templates_dir / figure.template).read_text(encoding="utf-8")
        draws = f'data-widget="{figure.slug}"' in partial
        assert (figure.module(files) is not None) == draws, figure.slug
    # and every module in js/figures is a registered figure's, so a misspelt name cannot go unstarted
    entries = {n.split("/")[2].removesuffix(".js") for n in files if n.startswith("js/figures/")}
    assert entries and entries - {f.slug for f in FIGURES} == set()


def test_the_module_is_a_folder_or_one_file() -> None:
    (figure,) = [f for f in FIGURES if f.slug == "order"]
    assert figure.module({"js/figures/order.js"}) == "js/figures/order.js"
    folder = {"js/figures/order/index.js", "js/figures/order/draw.js", "js/figures/order.js"}
    assert figure.module(folder) == "js/figures/order/index.js"
    assert figure.module({"js/figures/orders.js"}) is None


def test_the_page_data_gives_each_module_by_its_versioned_address(client: TestClient) -> None:
    widgets = _page_data(client.get("/").text)["widgets"]
    site = get_static_site()
    expected = {f.slug: site.url(f.module(site.assets)) for f in FIGURES if f.module(site.assets)}
    assert widgets == expected and "heads-dial" in widgets and "placements" not in widgets
    for address in widgets.values():
        response = client.get(address)
        assert response.status_code == 200 and "export function start" in response.text, address
    assert _page_data(client.get("/figure/order").text)["widgets"] == widgets


def test_main_js_names_no_figure() -> None:
    """static/js/main.js starts whatever the page data's `widgets` names: a list of figures or of their
    modules written into it again would be a second registry to keep in step with app/figures.py."""
    main = _without_comments((ROOT / "static/js/main.js").read_text(encoding="utf-8"), ".js")
    assert "figures/" not in main
    assert not [f.slug for f in FIGURES if re.search(rf"""["'`]{re.escape(f.slug)}["'`]""", main)]
    assert "import(address)" in main


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


def test_every_figure_named_with_its_number_in_the_code_has_the_registrys_number() -> None:
    """Comments, docstrings and docs still write "figure 5, the generator" by hand: wherever a number comes
    with a registered figure's name right after it, the two must agree, so a figure moved in the registry is
    caught where prose names it the old way."""
    names = {figure.name.removeprefix("the ").removeprefix("a "): figure.slug for figure in FIGURES}
    pattern = re.compile(
        r"\b[Ff]igure (\d+)(?:'s|,|:| \(| —)? (?:the |a )?(" + "|".join(map(re.escape, names)) + r")\b"
    )
    folders = ("app", "static", "templates", "tests", "training", "tools", "bench", "docs")
    wrong = [
        f"{path.relative_to(ROOT)}: figure {found[0]} is {number(names[found[1]])}, {found[1]}"
        for path in [ROOT / "README.md", *(p for folder in folders for p in (ROOT / folder).rglob("*"))]
        if path.suffix in {".py", ".js", ".css", ".html", ".md", ".txt", ".toml"} and path.is_file()
        for found in pattern.findall(path.read_text(encoding="utf-8", errors="replace"))
        if int(found[0]) != number(names[found[1]])
    ]
    assert wrong == []
