"""Figure 10, order: shuffling without positions permutes the attention and changes nothing else."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from playwright.sync_api import Locator, Page, expect

from tests.browser.pages import open_figure, query_params, sideways_scroll


def open_order(page: Page, query: str = "") -> Locator:
    figure = open_figure(page, "order", query)
    expect(figure.locator("svg.heatmap")).to_have_count(3)
    expect(difference(figure)).not_to_have_text("…")
    return figure


def difference(figure: Locator) -> Locator:
    return figure.locator('[data-part="difference"]')


def panel(figure: Locator, title: str) -> list[list[float]]:
    """The weights drawn in one heatmap, row by row."""
    cells = figure.locator(f'svg.heatmap[data-panel="{title}"] .heatmap__cell')
    weights = [float(w) for w in cells.evaluate_all("els => els.map(e => e.dataset.weight)")]
    n = int(len(weights) ** 0.5)
    return [weights[i * n : (i + 1) * n] for i in range(n)]


def test_default_view_reverses_dog_bites_man_and_finds_no_difference(watched_page):
    page, _ = watched_page
    figure = open_order(page)
    expect(difference(figure)).to_have_text("0.0")
    expect(figure.get_by_role("status")).to_contain_text(
        "Largest difference, head by head, after un-permuting: 0.0"
    )
    expect(figure.get_by_role("status")).to_contain_text("“man bites dog”")
    written, back = panel(figure, "as written"), panel(figure, "shuffled, put back")
    assert (
        max(abs(a - b) for r, s in zip(written, back, strict=True) for a, b in zip(r, s, strict=True))
        <= 1e-12
    )


def test_shuffle_shows_the_same_pattern_permuted(watched_page):
    page, _ = watched_page
    figure = open_order(page, "?order_sentence=the+river+bank+was+steep")
    before = panel(figure, "as written")
    shuffle = figure.get_by_role("button", name="Shuffle", exact=True)
    seen = set()
    for _ in range(3):
        old = query_params(page).get("order_perm")
        shuffle.click()
        if old:
            expect(page).not_to_have_url(re.compile(rf"order_perm={old}(&|$)"))
        else:
            expect(page).to_have_url(re.compile(r"order_perm="))
        expect(figure).not_to_have_attribute("aria-busy", "true")
        perm = [int(p) for p in query_params(page)["order_perm"].split(",")]
        seen.add(tuple(perm))
        assert sorted(perm) == [0, 1, 2, 3, 4]
        expect(difference(figure)).to_have_text("0.0")
        words = "the river bank was steep".split()
        expect(figure.get_by_role("status")).to_contain_text(f"“{' '.join(words[p] for p in perm)}”")
        shuffled = panel(figure, "shuffled")
        # Un-permuting by hand gives the written sentence's weights back, to rounding.
        where = {original: k for k, original in enumerate(perm)}
        for i in range(5):
            for j in range(5):
                assert abs(shuffled[where[i]][where[j]] - before[i][j]) <= 1e-12
        assert panel(figure, "as written") == before
    assert len(seen) >= 2


def test_restore_order_brings_the_written_order_back(watched_page):
    """Shuffle can always come back: Restore order (by keyboard) puts every word where it was written."""
    page, _ = watched_page
    figure = open_order(page, "?order_sentence=the+river+bank+was+steep")
    shuffle = figure.get_by_role("button", name="Shuffle", exact=True)
    restore = figure.get_by_role("button", name="Restore order")
    expect(restore).to_have_attribute("aria-disabled", "false")  # it opens reversed
    shuffle.focus()
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(r"order_perm="))
    restore.focus()
    page.keyboard.press("Enter")
    expect(restore).to_have_attribute("aria-disabled", "true")
    assert query_params(page)["order_perm"] == "0,1,2,3,4"
    expect(restore).to_be_focused()
    status = figure.get_by_role("status")
    expect(status).to_contain_text(
        "“the river bank was steep” is in its written order, so the three panels are the same. Press Shuffle."
    )
    shuffled = "Attention of the shuffled sentence “the river bank was steep”"
    expect(figure.get_by_role("img", name=shuffled)).to_be_visible()
    title = figure.locator('svg.heatmap[data-panel="shuffled"] .heatmap__title')
    expect(title).to_have_text("shuffled (back as written)")
    assert panel(figure, "shuffled") == panel(figure, "as written")
    # Pressing it again changes nothing; Shuffle moves the words away again.
    restore.press("Space")
    expect(restore).to_have_attribute("aria-disabled", "true")
    assert query_params(page)["order_perm"] == "0,1,2,3,4"
    shuffle.press("Enter")
    expect(restore).to_have_attribute("aria-disabled", "false")
    assert query_params(page)["order_perm"] != "0,1,2,3,4"
    expect(status).to_contain_text("just permuted")
    # With positions on, the written order is still the written order: no difference.
    figure.get_by_role("switch", name="Positional encoding").check()
    expect(difference(figure)).not_to_have_text("0.0")
    restore.click()
    expect(difference(figure)).to_have_text("0.0")
    expect(status).to_contain_text("is in its written order")


def test_the_positional_switch_makes_dog_bites_man_and_man_bites_dog_differ(watched_page):
    page, _ = watched_page
    figure = open_order(page)
    switch = figure.get_by_role("switch", name="Positional encoding")
    expect(switch).not_to_be_checked()
    switch.check()
    expect(difference(figure)).not_to_have_text("0.0")
    assert float(difference(figure).text_content() or "0") > 0.1
    assert query_params(page)["order_positional"] == "1"
    dog = figure.locator('.order-rows__item[data-token="dog"]')
    assert float(dog.get_attribute("data-difference") or "0") > 0.1
    written, back = panel(figure, "as written"), panel(figure, "shuffled, put back")
    # the drawn rows (heads averaged) differ where a reader can see it: some row by more than 0.1
    cells = [(a, b) for r, s in zip(written, back, strict=True) for a, b in zip(r, s, strict=True)]
    assert max(abs(a - b) for a, b in cells) > 0.1
    expect(figure.get_by_role("status")).to_contain_text("attend differently")
    switch.press("Space")
    expect(difference(figure)).to_have_text("0.0")


def test_state_comes_back_from_the_url_and_bad_input_shows_the_servers_message(watched_page):
    page, watch = watched_page
    figure = open_order(page, "?order_sentence=a+b+c&order_perm=1,2,0&order_positional=1")
    expect(figure.get_by_role("textbox", name="Sentence")).to_have_value("a b c")
    expect(figure.get_by_role("switch", name="Positional encoding")).to_be_checked()
    expect(figure.get_by_role("status")).to_contain_text("“b c a”")
    watch.expected_console.append("422")
    box = figure.get_by_role("textbox", name="Sentence")
    box.fill(" ".join(["word"] * 65))
    box.press("Enter")
    expect(figure.get_by_role("alert")).to_contain_text("at most 64")


def test_the_figure_fits_a_phone(phone_page):
    page, _ = phone_page
    open_order(page)
    assert sideways_scroll(page) <= 0


@pytest.mark.screenshots
def test_phone_and_dark_screenshots(shots):
    shots.take(open_order(shots.phone), "order-phone")
    page = shots.desktop
    figure = open_order(page, "?order_positional=1")
    shots.take(figure, "order-desktop-positional")
    page.emulate_media(color_scheme="dark")
    figure = open_order(page)
    shots.take(figure, "order-dark")


def test_the_numbers_behind_the_figure_export_and_read_as_tables(watched_page):
    page, _ = watched_page
    figure = open_order(page)
    with page.expect_download() as info:
        figure.get_by_role("button", name="Export data as JSON").click()
    data = json.loads(Path(info.value.path()).read_text())
    assert [m["name"] for m in data["matrices"]][:1] == ["Head 1, as written"]
    assert len(data["matrices"]) == 6 and data["max_difference"] <= 1e-12
    figure.get_by_text("Show the numbers as a table").click()
    tables = figure.locator("table.figure-numbers__table")
    expect(tables).to_have_count(6)
    first = data["matrices"][0]
    cells = tables.first.locator("tbody td").all_text_contents()
    assert cells == [f"{w:.3f}" for row in first["values"] for w in row]
