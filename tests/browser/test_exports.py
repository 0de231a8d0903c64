"""The teaching tools' exports: a figure's drawing as SVG and PNG, its live numbers as JSON and CSV, and the
numbers as tables beside the drawing."""

from __future__ import annotations

import base64
import csv
import io
import json
import struct
import xml.etree.ElementTree as ET
from pathlib import Path
from urllib.parse import urlsplit

from playwright.sync_api import Locator, Page, expect

from app.figures import number
from app.web.answers import PACKED_RELATIVE_ERROR
from tests.browser.pages import get_json, open_heads_dial
from tools.drawn import next_frames

SVG = "{http://www.w3.org/2000/svg}"
# Figure 1 on its own page: the same drawing, tools and numbers as in the article, without the figures after
# it starting beside it (pages.open_figure says why).
FIGURE_1 = "/figure/heads-dial"


def download(page: Page, button: Locator) -> Path:
    with page.expect_download() as info:
        button.click()
    return Path(info.value.path())


# ---- exports -----------------------------------------------------------------------------------------------


def test_the_exported_svg_is_valid_xml_with_the_drawing(watched_page) -> None:
    page, _ = watched_page
    figure = open_heads_dial(page, FIGURE_1)
    path = download(page, figure.get_by_role("button", name="Export SVG"))
    root = ET.parse(path).getroot()
    assert root.tag == f"{SVG}svg"
    assert int(root.get("width")) > 300 and int(root.get("height")) > 100
    texts = {t.text for t in root.iter(f"{SVG}text")}
    assert {"river", "bank", "steep"} <= texts
    assert root.find(f"{SVG}title").text.startswith(f"Figure {number('heads-dial')}.")
    # Styles are inlined as attributes: the arcs keep their colour without the page's stylesheet.
    strokes = {el.get("stroke") for el in root.iter(f"{SVG}path")}
    assert "rgb(0, 114, 178)" in strokes  # head 1, Okabe-Ito blue
    assert not [el for el in root.iter() if el.get("class")]
    expect(figure.locator(".figure-tools__status")).to_have_text("Saved heads-dial.svg.")


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    length, kind = struct.unpack(">I4s", data[8:16])
    assert kind == b"IHDR" and length == 13
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def test_the_exported_png_decodes_at_twice_the_drawing_size(watched_page) -> None:
    page, _ = watched_page
    figure = open_heads_dial(page, FIGURE_1)
    svg_root = ET.parse(download(page, figure.get_by_role("button", name="Export SVG"))).getroot()
    data = download(page, figure.get_by_role("button", name="Export PNG")).read_bytes()
    width, height = png_size(data)
    assert (width, height) == (2 * int(svg_root.get("width")), 2 * int(svg_root.get("height")))
    # And the browser can decode it back (not only its header is right). The bytes travel as base64: as a list
    # of numbers, each a JSON value of its own, they took longer to hand over than all the rest of the test.
    decoded = page.evaluate(
        """async (b64) => {
          const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
          const bitmap = await createImageBitmap(new Blob([bytes], { type: "image/png" }));
          return [bitmap.width, bitmap.height];
        }""",
        base64.b64encode(data).decode("ascii"),
    )
    assert decoded == [width, height]


def test_the_exported_data_is_the_live_matrices_as_json_and_csv(watched_page) -> None:
    page, _ = watched_page
    figure = open_heads_dial(page, FIGURE_1)
    data = json.loads(download(page, figure.get_by_role("button", name="Export data as JSON")).read_text())
    answer = get_json(page, "/api/attention?sentence=the+river+bank+was+steep&heads=3&mask=none&trained=true")
    assert data["figure"] == "heads-dial"
    assert urlsplit(data["link"]).path == "/figure/heads-dial"
    assert [m["name"] for m in data["matrices"]] == ["Head 1 of 3", "Head 2 of 3", "Head 3 of 3"]
    assert [m["values"] for m in data["matrices"]] == answer["weights"]
    assert data["matrices"][0]["rows"] == answer["tokens"]

    text = download(page, figure.get_by_role("button", name="Export data as CSV")).read_text()
    rows = list(csv.DictReader(io.StringIO(text)))
    assert len(rows) == 3 * 5 * 5
    assert rows[0].keys() == {"matrix", "row", "column", "value"}
    bank_river = next(
        r for r in rows if r["matrix"] == "Head 1 of 3" and r["row"] == "bank" and r["column"] == "river"
    )
    assert float(bank_river["value"]) == answer["weights"][0][2][1]


def test_an_exported_drawing_does_not_clip_its_labels(watched_page) -> None:
    """Each drawing in the export is a nested SVG, which clips to its box unless told not to: a label that
    ran past the box on the page ("row sum" in figure 2) lost its foot in the PNG."""
    page, _ = watched_page
    figure = open_heads_dial(page, FIGURE_1)
    root = ET.parse(download(page, figure.get_by_role("button", name="Export SVG"))).getroot()
    nested = root.findall(f"{SVG}svg")
    assert nested and all(el.get("overflow") == "visible" for el in nested)


def test_every_figure_with_a_widget_exports_svg_that_parses(watched_page) -> None:
    """Each figure's drawing (wherever it has one) exports as well-formed XML."""
    page, _ = watched_page
    page.goto("/")
    for name in ("heads-dial", "mask-lab", "interview", "head-lab"):
        figure = page.locator(f"figure#{name}")
        figure.scroll_into_view_if_needed()
        expect(figure.locator("svg").first).to_be_attached(timeout=15_000)
        expect(figure).not_to_have_attribute("aria-busy", "true", timeout=15_000)
        next_frames(page)  # the answer drawn
        path = download(page, figure.get_by_role("button", name="Export SVG"))
        assert ET.parse(path).getroot().tag == f"{SVG}svg", name


# ---- the numbers as tables ---------------------------------------------------------------------------------


def test_the_numbers_table_holds_every_weight(watched_page) -> None:
    page, _ = watched_page
    figure = open_heads_dial(page, FIGURE_1)
    summary = figure.get_by_text("Show the numbers as a table")
    summary.focus()
    page.keyboard.press("Enter")
    tables = figure.locator("table.figure-numbers__table")
    expect(tables).to_have_count(3)
    answer = get_json(page, "/api/attention?sentence=the+river+bank+was+steep&heads=3&mask=none&trained=true")
    first = tables.first
    expect(first.locator("caption")).to_have_text("Head 1 of 3")
    expect(first.get_by_role("columnheader")).to_have_text(answer["tokens"])
    expect(first.get_by_role("rowheader")).to_have_text(answer["tokens"])
    cells = first.locator("tbody td").all_text_contents()
    weights = [w for row in answer["weights"][0] for w in row]
    assert len(cells) == len(weights) and all(len(cell.split(".")[-1]) == 3 for cell in cells)
    # three decimals of each weight as the page has it: the packed answer's number, within
    # PACKED_RELATIVE_ERROR of the JSON's, so a weight on a rounding edge (0.999501) may round either way
    far = [
        (cell, w)
        for cell, w in zip(cells, weights, strict=True)
        if abs(float(cell) - w) > 0.0005 + PACKED_RELATIVE_ERROR * abs(w)
    ]
    assert not far, far

    # The table follows the figure: two heads give two tables.
    slider = figure.get_by_role("slider", name="Heads")
    slider.focus()
    slider.press("ArrowLeft")
    expect(tables).to_have_count(2)
    expect(tables.first.locator("caption")).to_have_text("Head 1 of 2")


def test_the_mask_lab_table_shows_the_future_weights(watched_page) -> None:
    page, _ = watched_page
    page.goto("/figure/mask-lab?mask=neg_inf")
    figure = page.locator("figure#mask-lab")
    expect(figure.locator("svg.heatmap").first).to_be_visible()
    figure.get_by_text("Show the numbers as a table").click()
    table = figure.locator("table.figure-numbers__table").first
    expect(table.locator("caption")).to_have_text("Layer 1, head 1, mask neg_inf")
    expect(figure.locator("table.figure-numbers__table")).to_have_count(4)  # 2 layers × 2 heads
    # −∞: the strict upper triangle is exactly zero (the start token's row: all 6 words after it).
    first_row = table.locator("tbody tr").first.locator("td").all_text_contents()
    assert first_row[1:] == ["0.000"] * 6


def test_a_row_the_mask_leaves_empty_is_exported_as_nan_not_minus_infinity(watched_page) -> None:
    """Figure 6 under "hides itself": row 0 has nothing to attend to, NaN weights (null in the answer). The
    CSV once wrote them as -inf, which is what a masked score is, not a weight."""
    from tests.browser.test_mask_lab import open_mask_lab, radio

    page, _ = watched_page
    figure = open_mask_lab(page)
    radio(figure, "off by one: hides itself").check()
    expect(figure).not_to_have_attribute("aria-busy", "true", timeout=15_000)
    next_frames(page)  # the answer drawn
    text = download(page, figure.get_by_role("button", name="Export data as CSV")).read_text()
    rows = list(csv.DictReader(io.StringIO(text)))
    first = rows[0]["row"]
    values = {r["value"] for r in rows if r["row"] == first}
    assert values == {"NaN"}, values
    assert "-inf" not in text
    summary = figure.get_by_text("Show the numbers as a table")
    summary.focus()
    page.keyboard.press("Enter")
    first_row = figure.locator("table.figure-numbers__table").first.locator("tbody tr").first
    row_length = sum(r["row"] == first for r in rows) // 4  # the CSV holds the row once for each of 4 maps
    expect(first_row.locator("td")).to_have_text(["NaN"] * row_length)
