"""The teaching tools: figure pages and embeds, copy link, SVG/PNG/JSON/CSV export, the numbers as tables,
the contents, the theme switch, predict-then-reveal, print and reduced-motion styles."""

from __future__ import annotations

import csv
import io
import json
import re
import struct
import xml.etree.ElementTree as ET
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

from playwright.sync_api import Locator, Page, expect

from tests.browser.conftest import PHONE, REPO

SVG = "{http://www.w3.org/2000/svg}"


def open_heads_dial(page: Page, path: str = "/") -> Locator:
    page.goto(path)
    figure = page.locator("figure#heads-dial")
    expect(figure.locator('[data-part="drawing"] svg').first).to_be_visible()
    expect(figure).not_to_have_attribute("aria-busy", "true")
    return figure


def api(page: Page, path: str) -> dict:
    response = page.request.get(path)
    assert response.ok, path
    return response.json()


def download(page: Page, button: Locator) -> Path:
    with page.expect_download() as info:
        button.click()
    return Path(info.value.path())


# ---- one figure alone, and its embed ---------------------------------------------------------------------


def test_the_embed_renders_the_figure_alone_and_it_works(watched_page, artifacts) -> None:
    page, _ = watched_page
    page.set_viewport_size({"width": 900, "height": 700})
    page.goto("/figure/mask-lab?embed=1&mask=zero")
    figure = page.locator("figure#mask-lab")
    expect(figure.locator("svg.heatmap").first).to_be_visible()
    expect(page.locator("figure")).to_have_count(1)
    for chrome in (".masthead", "[data-toc]", ".figure-tools", ".predict", "h2"):
        expect(page.locator(chrome)).to_have_count(0)
    # The figure's state comes from the same query keys as on the article.
    expect(figure.get_by_role("radio", name="×0")).to_be_checked()
    # Sized to its frame: the figure fills the width, with no page margin around it.
    box = figure.bounding_box()
    assert box["x"] == 0 and abs(box["width"] - 900) < 1
    page.screenshot(path=artifacts / "embed-mask-lab.png")


def test_the_figure_page_shows_the_intro_the_figure_and_its_toolbar(watched_page) -> None:
    page, _ = watched_page
    figure = open_heads_dial(page, "/figure/heads-dial?heads=2")
    expect(page.get_by_role("heading", level=2)).to_contain_text("One head is not enough")
    expect(page.locator("figure")).to_have_count(1)
    expect(figure.get_by_role("slider", name="Heads")).to_have_attribute("aria-valuetext", "2 heads")
    tools = figure.get_by_role("group", name="Figure 1: link and export")
    for name in (
        "Copy link to this view",
        "Export SVG",
        "Export PNG",
        "Export data as JSON",
        "Export data as CSV",
    ):
        expect(tools.get_by_role("button", name=name)).to_be_visible()
    expect(tools.get_by_role("link", name="Open alone: Figure 1")).to_have_count(0)  # already alone
    expect(page.get_by_role("link", name="Read this figure in the article")).to_have_attribute(
        "href", "/#heads-dial"
    )


def test_copy_link_gives_a_url_that_reopens_the_same_view(watched_page) -> None:
    page, _ = watched_page
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    figure = open_heads_dial(page)
    figure.get_by_role("textbox", name="Sentence").fill("the dog chased the cat")
    figure.get_by_role("textbox", name="Sentence").press("Enter")
    slider = figure.get_by_role("slider", name="Heads")
    slider.focus()
    slider.press("ArrowLeft")  # 3 -> 2 heads
    expect(slider).to_have_attribute("aria-valuetext", "2 heads")
    figure.get_by_role("button", name="Head 2", exact=True).click()
    expect(figure.locator('[data-part="drawing"]')).to_contain_text("chased")

    figure.get_by_role("button", name="Copy link to this view").click()
    link_box = figure.get_by_role("textbox", name="Link to this view of Figure 1")
    expect(link_box).to_be_visible()
    link = link_box.input_value()
    assert urlsplit(link).path == "/figure/heads-dial"
    assert parse_qs(urlsplit(link).query) == {
        "sentence": ["the dog chased the cat"],
        "heads": ["2"],
        "head": ["2"],
    }
    expect(figure.locator(".figure-tools__status")).to_have_text(re.compile("copied|Copy this link"))
    assert page.evaluate("navigator.clipboard.readText()") == link

    page.goto(link)
    again = page.locator("figure#heads-dial")
    expect(again.locator('[data-part="drawing"]')).to_contain_text("chased")
    expect(again.get_by_role("textbox", name="Sentence")).to_have_value("the dog chased the cat")
    expect(again.get_by_role("slider", name="Heads")).to_have_attribute("aria-valuetext", "2 heads")
    expect(again.get_by_role("button", name="Head 2", exact=True)).to_have_attribute("aria-pressed", "true")


def test_open_alone_links_to_the_figure_page_in_the_current_state(watched_page) -> None:
    page, _ = watched_page
    page.goto("/?mask=neg_inf")
    open_alone = page.get_by_role("link", name="Open alone: Figure 5")
    open_alone.focus()
    expect(open_alone).to_have_attribute("href", re.compile(r"/figure/mask-lab\?mask=neg_inf$"))


# ---- exports -----------------------------------------------------------------------------------------------


def test_the_exported_svg_is_valid_xml_with_the_drawing(watched_page) -> None:
    page, _ = watched_page
    figure = open_heads_dial(page)
    path = download(page, figure.get_by_role("button", name="Export SVG"))
    root = ET.parse(path).getroot()
    assert root.tag == f"{SVG}svg"
    assert int(root.get("width")) > 300 and int(root.get("height")) > 100
    texts = {t.text for t in root.iter(f"{SVG}text")}
    assert {"river", "bank", "steep"} <= texts
    assert root.find(f"{SVG}title").text.startswith("Figure 1.")
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
    figure = open_heads_dial(page)
    svg_root = ET.parse(download(page, figure.get_by_role("button", name="Export SVG"))).getroot()
    data = download(page, figure.get_by_role("button", name="Export PNG")).read_bytes()
    width, height = png_size(data)
    assert (width, height) == (2 * int(svg_root.get("width")), 2 * int(svg_root.get("height")))
    # And the browser can decode it back (not only its header is right).
    decoded = page.evaluate(
        """async (bytes) => {
          const blob = new Blob([new Uint8Array(bytes)], { type: "image/png" });
          const bitmap = await createImageBitmap(blob);
          return [bitmap.width, bitmap.height];
        }""",
        list(data),
    )
    assert decoded == [width, height]


def test_the_exported_data_is_the_live_matrices_as_json_and_csv(watched_page) -> None:
    page, _ = watched_page
    figure = open_heads_dial(page)
    data = json.loads(download(page, figure.get_by_role("button", name="Export data as JSON")).read_text())
    answer = api(page, "/api/attention?sentence=the+river+bank+was+steep&heads=3&mask=none&trained=true")
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


def test_every_figure_with_a_widget_exports_svg_that_parses(watched_page) -> None:
    """Each figure's drawing (wherever it has one) exports as well-formed XML."""
    page, _ = watched_page
    page.goto("/")
    for name in ("heads-dial", "mask-lab", "interview", "head-lab"):
        figure = page.locator(f"figure#{name}")
        figure.scroll_into_view_if_needed()
        expect(figure.locator("svg").first).to_be_attached(timeout=15_000)
        expect(figure).not_to_have_attribute("aria-busy", "true", timeout=15_000)
        page.wait_for_timeout(200)
        path = download(page, figure.get_by_role("button", name="Export SVG"))
        assert ET.parse(path).getroot().tag == f"{SVG}svg", name


# ---- the numbers as tables ---------------------------------------------------------------------------------


def test_the_numbers_table_holds_every_weight(watched_page) -> None:
    page, _ = watched_page
    figure = open_heads_dial(page)
    summary = figure.get_by_text("Show the numbers as a table")
    summary.focus()
    page.keyboard.press("Enter")
    tables = figure.locator("table.figure-numbers__table")
    expect(tables).to_have_count(3)
    answer = api(page, "/api/attention?sentence=the+river+bank+was+steep&heads=3&mask=none&trained=true")
    first = tables.first
    expect(first.locator("caption")).to_have_text("Head 1 of 3")
    expect(first.get_by_role("columnheader")).to_have_text(answer["tokens"])
    expect(first.get_by_role("rowheader")).to_have_text(answer["tokens"])
    cells = first.locator("tbody td").all_text_contents()
    expected = [f"{w:.3f}" for row in answer["weights"][0] for w in row]
    assert cells == expected

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
    expect(table.locator("caption")).to_have_text("Head 1, mask neg_inf")
    # −∞: the strict upper triangle is exactly zero.
    first_row = table.locator("tbody tr").first.locator("td").all_text_contents()
    assert first_row[1:] == ["0.000"] * 4


# ---- contents, anchors, theme, print, motion ---------------------------------------------------------------


def test_the_contents_link_every_section_and_jump_to_it(watched_page) -> None:
    page, _ = watched_page
    page.goto("/")
    toc = page.get_by_role("navigation", name="Contents")
    links = toc.get_by_role("link")
    sections = page.locator(".article > section[id]")
    expect(links).to_have_count(sections.count())
    ids = sections.evaluate_all("(els) => els.map((s) => s.id)")
    assert [link.get_attribute("href") for link in links.all()] == [f"#{i}" for i in ids]

    toc.get_by_role("link", name=re.compile("The mask")).click()
    page.wait_for_url(re.compile(r"#mask$"))
    top = page.locator("#mask h2").evaluate("(h) => h.getBoundingClientRect().top")
    assert 0 <= top < 120

    # Every section heading carries a visible anchor to itself.
    anchor = page.get_by_role("link", name=re.compile("Link to this section: 6 The interview question"))
    expect(anchor).to_be_visible()
    expect(anchor).to_have_attribute("href", "#interview-question")


def test_the_theme_switch_turns_the_page_dark_and_is_remembered(watched_page, artifacts) -> None:
    page, _ = watched_page
    figure = open_heads_dial(page)
    toggle = page.get_by_role("button", name="Dark theme")
    expect(toggle).to_have_attribute("aria-pressed", "false")
    background = "getComputedStyle(document.body).backgroundColor"
    assert page.evaluate(background) == "rgb(253, 252, 249)"
    strokes = "(svg) => [...svg.querySelectorAll('g.arcs__head')].map((g) => g.getAttribute('stroke'))"
    assert "#0072B2" in figure.locator('[data-part="drawing"] svg').first.evaluate(strokes)

    toggle.click()
    expect(toggle).to_have_attribute("aria-pressed", "true")
    assert page.evaluate("document.documentElement.dataset.theme") == "dark"
    assert page.evaluate(background) == "rgb(21, 23, 27)"
    # The figures redraw in the dark palette.
    page.wait_for_function(
        "() => [...document.querySelectorAll('#heads-dial g.arcs__head')]"
        ".some((g) => g.getAttribute('stroke') === '#3AA0E0')"
    )
    page.screenshot(path=artifacts / "article-dark-desktop.png")
    figure.screenshot(path=artifacts / "heads-dial-dark.png")

    page.reload()
    expect(page.get_by_role("button", name="Dark theme")).to_have_attribute("aria-pressed", "true")
    assert page.evaluate(background) == "rgb(21, 23, 27)"
    mask = page.locator("figure#mask-lab")
    mask.scroll_into_view_if_needed()
    expect(mask.locator("svg.heatmap").first).to_be_visible()
    mask.screenshot(path=artifacts / "mask-lab-dark.png")

    page.get_by_role("button", name="Dark theme").click()
    assert page.evaluate("localStorage.getItem('theme')") == "light"
    assert page.evaluate(background) == "rgb(253, 252, 249)"


def test_a_dark_system_is_followed_until_the_reader_chooses(browser, server, artifacts) -> None:
    context = browser.new_context(
        viewport=PHONE, base_url=server, color_scheme="dark", reduced_motion="reduce"
    )
    try:
        page = context.new_page()
        page.goto("/")
        toggle = page.get_by_role("button", name="Dark theme")
        expect(toggle).to_have_attribute("aria-pressed", "true")
        assert page.evaluate("getComputedStyle(document.body).backgroundColor") == "rgb(21, 23, 27)"
        expect(page.locator('#heads-dial [data-part="drawing"] svg').first).to_be_visible()
        page.screenshot(path=artifacts / "article-dark-phone.png")
        toggle.click()  # light, although the system is dark
        assert page.evaluate("getComputedStyle(document.body).backgroundColor") == "rgb(253, 252, 249)"
    finally:
        context.close()


def test_the_theme_blocks_copy_every_colour_the_system_schemes_set() -> None:
    """A variable given a dark value for prefers-color-scheme must have the same light and dark values in the
    reader's-choice blocks ([data-theme]), or the switch would leave it behind."""
    css = (REPO / "static/css/main.css").read_text(encoding="utf-8")
    declarations = re.compile(r"(--[\w-]+)\s*:\s*([^;]+);")
    dark = {}
    for block in re.findall(
        r"@media \(prefers-color-scheme: dark\) \{\s*:root \{(.*?)\}\s*\}", css, re.DOTALL
    ):
        dark.update(declarations.findall(block))
    light = {}
    for block in re.findall(r"(?m)^:root \{(.*?)\}", css, re.DOTALL):
        light.update(declarations.findall(block))
    chosen_dark = dict(
        declarations.findall(re.search(r':root\[data-theme="dark"\] \{(.*?)\}', css, re.DOTALL)[1])
    )
    chosen_light = dict(
        declarations.findall(re.search(r':root\[data-theme="light"\] \{(.*?)\}', css, re.DOTALL)[1])
    )
    assert dark, "no prefers-color-scheme blocks found"
    assert chosen_dark == dark
    assert chosen_light == {name: light[name] for name in dark}


def test_print_hides_the_controls_and_keeps_figures_whole(watched_page) -> None:
    page, _ = watched_page
    open_heads_dial(page)
    page.emulate_media(media="print")
    display = "(el) => getComputedStyle(el).display"
    for selector in (
        ".figure-tools",
        "#heads-dial .dial-controls",
        ".toc",
        ".theme-toggle",
        ".predict__form",
    ):
        assert page.locator(selector).first.evaluate(display) == "none", selector
    assert page.locator("#heads-dial").evaluate("(el) => getComputedStyle(el).breakInside") == "avoid"
    link_after = "(a) => getComputedStyle(a, '::after').content"
    page.goto("/figure/heads-dial")
    assert "/#heads-dial" in page.get_by_role("link", name="Read this figure in the article").evaluate(
        link_after
    )


def test_reduced_motion_turns_off_smooth_scrolling_and_transitions(watched_page, browser, server) -> None:
    page, _ = watched_page  # the fixture's context asks for reduced motion
    page.goto("/")
    assert page.evaluate("getComputedStyle(document.documentElement).scrollBehavior") == "auto"
    duration = page.locator(".segmented__option span").first.evaluate(
        "(el) => getComputedStyle(el).transitionDuration"
    )
    assert set(duration.split(", ")) == {"0s"}
    context = browser.new_context(base_url=server, reduced_motion="no-preference")
    try:
        moving = context.new_page()
        moving.goto("/")
        assert moving.evaluate("getComputedStyle(document.documentElement).scrollBehavior") == "smooth"
    finally:
        context.close()


# ---- predict, then reveal ----------------------------------------------------------------------------------


def test_predict_then_reveal_by_keyboard_one_head(watched_page) -> None:
    page, _ = watched_page
    page.goto("/")
    prompt = page.locator('[data-predict="one-head"]')
    answer = prompt.locator('[data-part="answer"]')
    expect(answer).to_be_hidden()
    prompt.get_by_role("radio", name=re.compile("^meaning")).focus()
    page.keyboard.press("Space")
    page.keyboard.press("ArrowRight")  # moves the choice to grammar
    expect(prompt.get_by_role("radio", name=re.compile("^grammar"))).to_be_checked()
    page.keyboard.press("Tab")
    expect(prompt.get_by_role("button", name="Reveal")).to_be_focused()
    page.keyboard.press("Enter")
    data = api(page, "/api/attention?sentence=the+river+bank+was+steep&heads=1&mask=none&trained=true")
    best = max(data["relations"], key=lambda r: r["score"])
    expect(answer).to_be_visible()
    expect(answer).to_contain_text(f"the relation served best is {best['name']}")
    expect(answer).to_contain_text(f"{best['name']} {best['score']:.2f}")
    expect(answer).to_contain_text("Right." if best["name"] == "grammar" else "you guessed grammar")


def test_predict_then_reveal_by_keyboard_leak(watched_page) -> None:
    page, _ = watched_page
    page.goto("/?mask_sentence=the+dog+ran+to+the+park")
    prompt = page.locator('[data-predict="leak"]')
    number = prompt.get_by_role("spinbutton", name="Leak")
    number.focus()
    page.keyboard.type("20")
    page.keyboard.press("Enter")
    data = api(page, "/api/attention?sentence=the+dog+ran+to+the+park&heads=3&mask=zero&trained=true")
    leak = round(data["future_leak"] * 100, 1)
    answer = prompt.locator('[data-part="answer"]')
    expect(answer).to_contain_text(f"Under ×0, {leak:.1f}% of the attention on “the dog ran to the park”")
    expect(answer).to_contain_text("Under −∞ it is exactly 0%")


def test_predict_then_reveal_needs_a_guess_and_answers_the_lowest_loss(watched_page) -> None:
    page, _ = watched_page
    page.goto("/")
    prompt = page.locator('[data-predict="lowest-loss"]')
    reveal = prompt.get_by_role("button", name="Reveal")
    reveal.focus()
    page.keyboard.press("Enter")
    answer = prompt.locator('[data-part="answer"]')
    expect(answer).to_be_hidden()  # no guess yet: the form asks for one
    prompt.get_by_role("radio", name="−∞").focus()
    page.keyboard.press("Space")
    reveal.focus()
    page.keyboard.press("Enter")
    models = api(page, "/api/lm")["models"]
    best = min(models, key=lambda m: m["final_validation"])
    label = {"neg_inf": "−∞", "zero": "×0", "none": "no mask"}[best["mask"]]
    expect(answer).to_contain_text(f"Lowest validation loss: {label} (")


def test_the_tools_fit_a_phone(phone_page, artifacts) -> None:
    page, _ = phone_page
    figure = open_heads_dial(page, "/figure/heads-dial")
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    figure.get_by_role("button", name="Copy link to this view").click()
    expect(figure.get_by_role("textbox", name="Link to this view of Figure 1")).to_be_visible()
    page.screenshot(path=artifacts / "figure-page-phone.png")
    page.goto("/")
    prompt = page.locator('[data-predict="leak"]')
    prompt.get_by_role("spinbutton", name="Leak").fill("30")
    prompt.get_by_role("button", name="Reveal").click()
    expect(prompt.locator('[data-part="answer"]')).to_contain_text("Under ×0")
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    prompt.screenshot(path=artifacts / "predict-phone.png")
