"""Figure 9, the blueprint (and figure 8's table), driven in real Chromium through their accessible names."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Locator, Page, expect

from app.figures import number
from tests.browser.pages import open_figure, query_params

LIT = ["Multi-Head Attention (encoder)", "Masked Multi-Head Attention", "Multi-Head Attention (cross)"]
REQUIRED = [*LIT, "Positional Encoding"]


def open_blueprint(page: Page, query: str = "") -> Locator:
    """Open the article (its blocks jump to the other figures in it) and wait for the blueprint to start."""
    figure = open_figure(page, "blueprint", query, path="/")
    expect(figure).to_have_attribute("data-ready", "true")
    return figure


def block(figure: Locator, name: str) -> Locator:
    return figure.get_by_role("button", name=name, exact=True)


def activate_by_keyboard(page: Page, figure: Locator, name: str, key: str, target: str) -> None:
    """Focus block `name`, press `key` on it, and wait for the page to jump to `figure#target`."""
    block(figure, name).focus()
    page.keyboard.press(key)
    page.wait_for_url(lambda url: f"#{target}" in url)


def test_the_four_named_blocks_are_focusable_buttons_and_only_attention_is_lit(watched_page):
    page, _ = watched_page
    figure = open_blueprint(page)
    for name in REQUIRED:
        b = block(figure, name)
        expect(b).to_have_count(1)
        expect(b).to_have_attribute("tabindex", "0")
    lit = figure.locator(".blueprint__block--lit").evaluate_all(
        "els => els.map(e => e.getAttribute('aria-label'))"
    )
    assert lit == [
        "Multi-Head Attention (encoder)",
        "Masked Multi-Head Attention",
        "Multi-Head Attention (cross)",
    ]
    assert "blueprint__block--dashed" in (block(figure, "Positional Encoding").get_attribute("class") or "")
    # The rest of the architecture is there too, muted.
    labels = " ".join(figure.locator("svg text").all_text_contents())
    for word in [
        "Input Embedding",
        "Output Embedding",
        "Add & Norm",
        "Feed Forward",
        "Linear",
        "Softmax",
        "Outputs (shifted right)",
        "Output Probabilities",
        "N×",
    ]:
        assert word in labels
    # The three lit blocks share one accent colour, different from the muted blocks' stroke.
    strokes = {
        name: block(figure, name).locator("rect").evaluate("r => getComputedStyle(r).stroke") for name in LIT
    }
    assert len(set(strokes.values())) == 1
    muted = block(figure, "Linear").locator("rect").evaluate("r => getComputedStyle(r).stroke")
    assert muted not in strokes.values()


def test_focus_shows_each_blocks_card_and_positional_encoding_points_to_order(watched_page):
    page, _ = watched_page
    figure = open_blueprint(page)
    card = figure.locator('[data-part="card"]')
    expect(card).to_be_hidden()
    block(figure, "Masked Multi-Head Attention").focus()
    expect(card).to_be_visible()
    expect(card).to_contain_text("Masked Multi-Head Attention")
    expect(card).to_contain_text("−∞")
    block(figure, "Positional Encoding").focus()
    expect(card).to_contain_text(f"figure {number('order')}")
    # Every block has a card when focused, Tab moves between them, and each is described for screen readers.
    blocks = figure.locator('[data-part="block"]')
    for k in range(blocks.count()):
        b = blocks.nth(k)
        b.focus()
        expect(card).to_be_visible()
        expect(card.locator('[data-part="card-job"]')).not_to_be_empty()
        described = b.get_attribute("aria-describedby")
        assert described and page.locator(f"#{described}").text_content()
    page.keyboard.press("Escape")
    expect(card).to_be_hidden()
    # Hovering shows the card too.
    block(figure, "Feed Forward (encoder)").hover()
    expect(card).to_contain_text("Feed Forward")


@pytest.mark.parametrize(
    "name, target", [("Multi-Head Attention (encoder)", "heads-dial"), ("Positional Encoding", "order")]
)
def test_the_encoder_and_positional_encoding_blocks_jump_to_their_figures(watched_page, name, target):
    """The encoder's attention block jumps to figure 1, the heads dial; Positional Encoding to figure 10."""
    page, _ = watched_page
    figure = open_blueprint(page)
    block(figure, name).click()
    expect(page).to_have_url(re.compile(rf"#{target}$"))
    expect(page.locator(f"figure#{target}")).to_be_in_viewport()


def test_the_masked_block_opens_the_mask_lab_on_minus_infinity(watched_page):
    page, _ = watched_page
    figure = open_blueprint(page, "?sentence=the+cat+sat")
    activate_by_keyboard(page, figure, "Masked Multi-Head Attention", "Enter", "mask-lab")
    assert query_params(page) == {"sentence": "the cat sat", "mask": "neg_inf"}  # other state is kept
    mask_lab = page.locator("figure#mask-lab")
    mask_lab.scroll_into_view_if_needed()
    radio = mask_lab.get_by_role("radiogroup", name="Mask").get_by_role("radio", name="−∞", exact=True)
    expect(radio).to_be_checked()
    expect(mask_lab.get_by_role("meter", name="Future leak")).to_have_attribute("aria-valuenow", "0")


def test_the_cross_block_opens_the_generator_in_cross_mode(watched_page):
    page, _ = watched_page
    figure = open_blueprint(page, "?gen_mode=self")
    activate_by_keyboard(page, figure, "Multi-Head Attention (cross)", " ", "generator")
    assert query_params(page).get("gen_mode") == "cross"
    generator = page.locator("figure#generator")
    if generator.count() == 0:
        pytest.skip("the generator is not on the page yet")
    generator.scroll_into_view_if_needed()
    radio = generator.get_by_role("radiogroup", name="Attention").get_by_role(
        "radio", name="cross", exact=True
    )
    expect(radio).to_be_checked()


def test_the_placements_table_links_each_row_to_its_figure(watched_page):
    page, _ = watched_page
    page.goto("/")
    table = page.locator("figure#placements table")
    rows = table.locator("tbody tr")
    expect(rows).to_have_count(3)
    hrefs = [rows.nth(k).locator("a").get_attribute("href") for k in range(3)]
    assert hrefs == ["/#heads-dial", "/?mask=neg_inf#mask-lab", "/?gen_mode=cross#generator"]
    expect(table.get_by_role("rowheader")).to_have_text(
        ["Encoder self-attention", "Decoder masked self-attention", "Encoder–decoder cross-attention"]
    )
    # The masked-attention formula is typeset as MathML next to the table.
    maths = page.locator("#three-placements math")
    expect(maths).to_have_count(2)


def test_on_a_phone_the_drawing_keeps_readable_labels_and_scrolls_sideways_in_its_box(phone_page):
    page, _ = phone_page
    figure = open_blueprint(page)
    assert page.evaluate("document.documentElement.scrollWidth") <= 375
    scroller = figure.locator('[data-part="scroll"]')
    box_width, drawn = scroller.evaluate("s => [s.clientWidth, s.scrollWidth]")
    assert box_width <= 375 < drawn  # the drawing is wider than the phone: its box scrolls, not the page
    scale = figure.locator("svg.blueprint__svg").evaluate("s => s.getScreenCTM().a")
    label = figure.get_by_text("Input Embedding", exact=True)
    assert float(label.evaluate("t => parseFloat(getComputedStyle(t).fontSize)")) * scale >= 11
    expect(figure.get_by_text("Scroll the drawing sideways")).to_be_visible()
    block(figure, "Feed Forward (decoder)").click()  # a muted block's tap shows its card
    card = figure.locator('[data-part="card"]')
    expect(card).to_be_visible()
    box = card.bounding_box()
    assert box and box["x"] >= 0 and box["x"] + box["width"] <= 375


def test_on_a_desktop_the_card_stands_beside_its_block(watched_page):
    page, _ = watched_page
    figure = open_blueprint(page)
    expect(figure.get_by_text("Scroll the drawing sideways")).to_be_hidden()  # it fits: nothing to scroll
    block(figure, "Multi-Head Attention (cross)").focus()
    card = figure.locator('[data-part="card"]').bounding_box()
    drawing = figure.locator("svg.blueprint__svg").bounding_box()
    assert card and drawing and card["x"] >= drawing["x"] + drawing["width"] * 0.8  # beside the decoder
    block(figure, "Multi-Head Attention (encoder)").focus()
    card = figure.locator('[data-part="card"]').bounding_box()
    assert card and card["x"] + card["width"] <= drawing["x"] + drawing["width"] * 0.2  # beside the encoder


@pytest.mark.screenshots
def test_phone_desktop_and_dark_screenshots(shots):
    phone = shots.phone
    figure = open_blueprint(phone)
    block(figure, "Feed Forward (decoder)").click()  # a muted block's tap shows its card
    expect(figure.locator('[data-part="card"]')).to_be_visible()
    shots.take(figure, "blueprint-phone")
    shots.take(phone.locator("figure#placements"), "placements-phone")

    page = shots.desktop
    figure = open_blueprint(page)
    block(figure, "Multi-Head Attention (cross)").focus()
    expect(figure.locator('[data-part="card"]')).to_be_visible()
    shots.take(figure, "blueprint-desktop")
    block(figure, "Multi-Head Attention (encoder)").focus()
    shots.take(figure, "blueprint-desktop-encoder")
    shots.take(page.locator("#three-placements"), "placements-desktop")
    page.emulate_media(color_scheme="dark")
    block(figure, "Positional Encoding").focus()
    shots.take(figure, "blueprint-dark")
    shots.take(page.locator("figure#placements"), "placements-dark")
