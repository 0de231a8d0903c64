"""Figure 5, the mask lab, driven in real Chromium through its accessible names."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlsplit

import pytest
from playwright.sync_api import Locator, Page, expect

from tests.browser.pages import open_figure, query_params, refused_then_recovered, sideways_scroll

DEFAULT_TOKENS = ["the", "river", "bank", "was", "steep"]
MODES = {"no mask": "none", "−∞": "neg_inf", "×0": "zero"}


def open_mask_lab(page: Page, query: str = "", path: str | None = None) -> Locator:
    """Open figure 5 (its own page unless `path`, with `query`) and wait for its meter."""
    figure = open_figure(page, "mask-lab", query, path)
    expect(figure.locator("svg.heatmap").first).to_be_visible()
    expect(meter(figure)).to_have_attribute("aria-valuenow", re.compile(r"^\d"))
    return figure


def meter(figure: Locator) -> Locator:
    return figure.get_by_role("meter", name="Future leak")


def radio(figure: Locator, name: str) -> Locator:
    return figure.get_by_role("radiogroup", name="Mask").get_by_role("radio", name=name, exact=True)


def cells(figure: Locator, future: bool) -> list[dict]:
    """Every drawn cell above (future=True) or on and below the diagonal: its weight and its drawn opacity."""
    return figure.evaluate(
        "(f, future) => [...f.querySelectorAll(`.heatmap__cell[data-future='${future}']`)].map(c => ({"
        " weight: Number(c.dataset.weight), opacity: Number(getComputedStyle(c).fillOpacity) }))",
        str(future).lower(),
    )


def row_shares(figure: Locator) -> list[float]:
    return [
        float(s)
        for s in figure.locator(".row-leak__item").evaluate_all("els => els.map(e => e.dataset.share)")
    ]


def api_leak(page: Page, mode: str, sentence: str = "the river bank was steep", heads: int = 3) -> float:
    answer = page.request.get(
        "/api/attention", params={"sentence": sentence, "heads": heads, "mask": mode, "trained": "true"}
    )
    assert answer.ok
    return float(answer.json()["future_leak"])


def test_default_view_draws_a_heatmap_per_head_and_the_meter(watched_page):
    page, _ = watched_page
    figure = open_mask_lab(page)
    expect(figure.get_by_role("textbox", name="Sentence")).to_have_value("the river bank was steep")
    group = figure.get_by_role("radiogroup", name="Mask")
    expect(group.get_by_role("radio")).to_have_count(3)
    expect(radio(figure, "no mask")).to_be_checked()
    expect(figure.locator("svg.heatmap")).to_have_count(3)
    first = figure.locator("svg.heatmap").first
    expect(first.locator(".heatmap__cell")).to_have_count(25)
    # Both axes are labelled with the tokens; every row's sum is shown and is 1.
    expect(first.locator(".heatmap__label")).to_have_count(10)
    assert first.locator(".heatmap__label").all_text_contents()[::2] == DEFAULT_TOKENS
    expect(first.locator(".heatmap__sum")).to_have_text(["1.00"] * 5)
    expect(first.locator(".heatmap__future")).to_have_count(1)
    expect(figure.locator(".heatmap-axes")).to_contain_text("Each row sums to 1")

    m = meter(figure)
    expect(m).to_have_attribute("aria-valuemin", "0")
    expect(m).to_have_attribute("aria-valuemax", "100")
    assert abs(float(m.get_attribute("aria-valuenow")) - api_leak(page, "none") * 100) < 0.01
    expect(m).to_have_attribute("aria-valuetext", re.compile(r"^\d+% of attention goes to the future$"))
    expect(figure.locator("[data-part=yardstick]")).to_contain_text("(n−1)/(2n) = 4/10 = 40%")
    expect(figure.locator(".row-leak__item")).to_have_count(5)
    assert row_shares(figure)[-1] == 0  # the last word has no later words
    assert query_params(page) == {}


def test_the_three_modes_move_the_meter_and_the_cells_without_a_reload(watched_page):
    page, _ = watched_page
    figure = open_mask_lab(page)
    figure.evaluate("f => { f.querySelector('svg.heatmap').__marker = 1; }")  # survives unless rebuilt
    page.evaluate("window.__sameDocument = true")
    m = meter(figure)
    unmasked = row_shares(figure)
    assert unmasked[0] > 0.5

    radio(figure, "−∞").check()
    expect(figure.locator("[data-part=drawing]")).to_have_attribute("data-mask", "neg_inf")
    expect(m).to_have_attribute("aria-valuenow", "0")
    expect(m).to_have_attribute("aria-valuetext", "0% of attention goes to the future")
    expect(figure.locator("[data-part=meter-value]")).to_have_text("0%")
    expect(page).to_have_url(re.compile(r"[?&]mask=neg_inf\b"))
    future = cells(figure, True)
    assert len(future) == 3 * 10
    assert all(c["weight"] == 0 and c["opacity"] == 0 for c in future), future
    assert all(c["weight"] > 0 for c in cells(figure, False) if c["opacity"] > 0.5)
    assert row_shares(figure) == [0.0] * 5
    expect(figure.locator(".row-leak__value")).to_have_text(["0%"] * 5)
    expect(figure.locator("[data-part=explain]")).to_contain_text("−∞ = 0")

    radio(figure, "×0").check()
    expect(figure.locator("[data-part=drawing]")).to_have_attribute("data-mask", "zero")
    expect(m).not_to_have_attribute("aria-valuenow", "0")
    assert float(m.get_attribute("aria-valuenow")) > 0
    assert abs(float(m.get_attribute("aria-valuenow")) - api_leak(page, "zero") * 100) < 0.01
    expect(page).to_have_url(re.compile(r"[?&]mask=zero\b"))
    assert any(c["weight"] > 0 and c["opacity"] > 0 for c in cells(figure, True))
    zero = row_shares(figure)
    assert zero[0] > 0 and zero != unmasked
    explain = figure.locator("[data-part=explain]")
    expect(explain).to_contain_text("0 = 1")
    expect(explain).to_contain_text("the same share")
    expect(figure.locator("td.is-current")).to_have_text(["0", "e0 = 1", "1 / Σ, never 0"])

    radio(figure, "no mask").check()
    expect(figure.locator("[data-part=drawing]")).to_have_attribute("data-mask", "none")
    expect(m).not_to_have_attribute("aria-valuenow", "0")
    assert float(m.get_attribute("aria-valuenow")) > float(api_leak(page, "zero") * 100)
    assert "mask" not in query_params(page)
    assert row_shares(figure) == unmasked
    # The same drawing, restyled: no reload and no rebuild.
    assert page.evaluate("window.__sameDocument") is True
    assert figure.evaluate("f => f.querySelector('svg.heatmap').__marker") == 1
    # A change of mask is animated by CSS (the test page asks for reduced motion, which turns it off).
    assert "fill-opacity" in figure.locator(".heatmap__cell").first.evaluate(
        "c => getComputedStyle(c).transitionProperty"
    )
    expect(figure.locator("[data-part=compare]")).to_contain_text("−∞ 0%")


def test_the_row_shares_and_the_explanation_are_the_servers_numbers(watched_page):
    """The per-row bars show /api/attention's row_future_shares as they are, and the ×0 explanation names the
    row and head with the largest of its future_shares: the page adds up no weights itself."""
    page, _ = watched_page
    figure = open_mask_lab(page, "?mask=zero")
    expect(figure.locator("[data-part=drawing]")).to_have_attribute("data-mask", "zero")
    answer = page.request.get(
        "/api/attention",
        params={"sentence": "the river bank was steep", "heads": 3, "mask": "zero", "trained": "true"},
    ).json()
    assert row_shares(figure) == answer["row_future_shares"]
    shares = answer["future_shares"]
    k, i = max(((k, i) for k in range(3) for i in range(4)), key=lambda ki: shares[ki[0]][ki[1]])
    token = answer["tokens"][i]
    expect(figure.locator("[data-part=explain]")).to_contain_text(f"in the row of “{token}” in head {k + 1}")


def test_modes_work_from_the_keyboard(watched_page):
    page, _ = watched_page
    figure = open_mask_lab(page)
    radio(figure, "no mask").focus()
    page.keyboard.press("ArrowRight")
    expect(radio(figure, "−∞")).to_be_checked()
    expect(meter(figure)).to_have_attribute("aria-valuenow", "0")
    page.keyboard.press("ArrowRight")
    expect(radio(figure, "×0")).to_be_checked()
    expect(meter(figure)).not_to_have_attribute("aria-valuenow", "0")
    expect(page).to_have_url(re.compile(r"[?&]mask=zero\b"))


def test_url_state_is_restored_and_kept_apart_from_figure_1(watched_page):
    page, watch = watched_page
    figure = open_mask_lab(
        page, "?mask=zero&mask_sentence=the+dog+ate+the+bone&mask_heads=2&mask_trained=0", path="/"
    )
    expect(radio(figure, "×0")).to_be_checked()
    expect(figure.get_by_role("textbox", name="Sentence")).to_have_value("the dog ate the bone")
    expect(figure.get_by_role("slider", name="Heads")).to_have_attribute("aria-valuetext", "2 heads")
    expect(figure.get_by_role("switch", name="Trained")).not_to_be_checked()
    expect(figure.locator("svg.heatmap")).to_have_count(2)
    first = figure.locator("svg.heatmap").first
    assert first.locator(".heatmap__label").all_text_contents()[::2] == ["the", "dog", "ate", "the", "bone"]
    asked = [parse_qs(urlsplit(u).query) for u in watch.api_requests if "/api/attention" in u]
    assert any(
        q.get("mask") == ["zero"] and q.get("heads") == ["2"] and q.get("trained") == ["false"] for q in asked
    )
    # Untrained scores are near 0, so ×0 leaks about as much as uniform attention would.
    assert float(meter(figure).get_attribute("aria-valuenow")) > 30
    # Figure 1 reads its own keys and keeps its default sentence.
    expect(page.locator("#heads-dial").get_by_role("textbox", name="Sentence")).to_have_value(
        "the river bank was steep"
    )


def test_invalid_url_values_fall_back_to_defaults(watched_page):
    page, _ = watched_page
    figure = open_mask_lab(page, "?mask=maybe&mask_heads=5&mask_trained=perhaps")
    expect(radio(figure, "no mask")).to_be_checked()
    expect(figure.locator("svg.heatmap")).to_have_count(3)
    expect(figure.get_by_role("switch", name="Trained")).to_be_checked()


def test_typing_a_sentence_redraws_the_heatmaps_and_the_yardstick(watched_page):
    page, _ = watched_page
    figure = open_mask_lab(page)
    radio(figure, "−∞").check()
    expect(meter(figure)).to_have_attribute("aria-valuenow", "0")
    figure.get_by_role("textbox", name="Sentence").fill("the farmer saw the boat near the house")
    expect(figure.locator(".row-leak__item")).to_have_count(8)
    expect(figure.locator("svg.heatmap").first.locator(".heatmap__cell")).to_have_count(64)
    expect(figure.locator("[data-part=yardstick]")).to_contain_text("= 7/16 = 44%")
    expect(meter(figure)).to_have_attribute("aria-valuenow", "0")
    expect(page).to_have_url(re.compile(r"[?&]mask_sentence=the\+farmer\+saw"))
    heads = figure.get_by_role("slider", name="Heads")  # the same slider as figures 1 and 2
    heads.focus()
    page.keyboard.press("ArrowRight")  # 3 -> 4
    page.keyboard.press("ArrowRight")  # 4 -> 6
    expect(heads).to_have_attribute("aria-valuetext", "6 heads")
    expect(figure.locator("output[for=mask-lab-heads]")).to_have_text("6 heads × 4 wide")
    expect(figure.locator("svg.heatmap")).to_have_count(6)
    expect(page).to_have_url(re.compile(r"[?&]mask_heads=6\b"))


def test_a_bad_sentence_shows_the_server_error_inside_the_figure(watched_page):
    page, watch = watched_page
    watch.expected_console.append("status of 422")
    figure = open_mask_lab(page)
    long_sentence = " ".join(["bank"] * 65)
    detail = page.request.get("/api/attention", params={"sentence": long_sentence, "mask": "none"}).json()[
        "detail"
    ]
    drawing = figure.locator("[data-part=drawing]")
    refused_then_recovered(figure, drawing, long_sentence, detail, "the river bank was wide")


def leak_by_zero_fill(figure: Locator) -> None:
    """Choose the ×0 mask and wait for the meter to show its leak."""
    expect(radio(figure, "×0")).to_be_visible()
    radio(figure, "×0").check()
    expect(meter(figure)).not_to_have_attribute("aria-valuenow", "0")


def type_twenty_words(figure: Locator) -> None:
    figure.get_by_role("textbox", name="Sentence").fill(" ".join(["the river bank was steep"] * 4))
    expect(figure.locator(".row-leak__item")).to_have_count(20)


def test_phone_width_has_no_horizontal_scroll(phone_page):
    page, _ = phone_page
    figure = open_mask_lab(page)
    assert sideways_scroll(page) <= 0
    leak_by_zero_fill(figure)
    type_twenty_words(figure)
    assert sideways_scroll(page) <= 0


def test_on_a_phone_each_heatmap_takes_the_full_width_and_writes_its_weights(phone_page):
    page, _ = phone_page
    figure = open_mask_lab(page)
    drawing = figure.locator("[data-part=drawing]").evaluate("d => d.clientWidth")
    maps = figure.locator("svg.heatmap")
    expect(maps).to_have_count(3)
    boxes = [maps.nth(k).bounding_box() for k in range(3)]
    assert all(b and b["width"] >= 0.75 * drawing for b in boxes)  # not two at half the width
    assert len({round(b["x"]) for b in boxes if b}) == 1  # one under the other
    values = maps.first.locator(".heatmap__value").all_text_contents()
    assert len(values) == len(DEFAULT_TOKENS) ** 2 and all(values)


@pytest.mark.screenshots
def test_desktop_and_phone_screenshots(shots):
    figure = open_mask_lab(shots.desktop)
    for label, mode in MODES.items():
        radio(figure, label).check()
        expect(figure.locator("[data-part=drawing]")).to_have_attribute("data-mask", mode)
        shots.take(figure, f"mask-lab-desktop-{mode}")

    figure = open_mask_lab(shots.phone)
    leak_by_zero_fill(figure)
    shots.take(figure, "mask-lab-phone")
    type_twenty_words(figure)
    shots.take(figure, "mask-lab-phone-long")
