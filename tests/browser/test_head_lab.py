"""Figures 2 and 4, the accounting and the head lab, driven in Chromium through their accessible names."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Locator, Page, expect

from app.core.accounting import head_accounting
from tests.browser.pages import open_figure, query_params, sideways_scroll
from tests.routes.test_head_lab import HEAD_1, HEAD_2, W_O, X

TOKENS = ["Your", "journey", "starts", "with", "one", "step"]


def open_lab(page: Page, query: str = "") -> Locator:
    """Open figure 4 (its own page, with `query`) and wait for its first answer (each head's stages are drawn
    into a closed fold; the concatenation shows)."""
    figure = open_figure(page, "head-lab", query)
    expect(figure.locator("[data-matrix='h0.weights'] tbody tr").first).to_be_attached()
    expect(figure.locator("[data-matrix='concat'] tbody tr").first).to_be_visible()
    return figure


def open_accounting(page: Page, query: str = "") -> Locator:
    """Open figure 2 (its own page, with `query`) and wait for its table's sums."""
    figure = open_figure(page, "accounting", query)
    expect(figure.locator(".acct-how").first).not_to_be_empty()
    return figure


def expect_controls(figure: Locator, preset: str, token: str, mask: str, tie: str) -> None:
    """The lab's controls show `preset`, the `token` and the `mask` chosen, and a `tie` button ("Tie heads" or
    "Untie heads")."""
    expect(figure.get_by_role("combobox", name="Preset")).to_have_value(preset)
    expect(figure.get_by_role("radio", name=token)).to_be_checked()
    expect(figure.get_by_role("radio", name=mask)).to_be_checked()
    expect(figure.get_by_role("button", name=tie)).to_be_visible()


def row_of(figure: Locator, matrix: str, i: int) -> list[str]:
    """The numbers shown in row i of a drawn matrix ("h0.weights", "concat", ...)."""
    return figure.locator(f"[data-matrix='{matrix}'] tbody tr").nth(i).locator("td").all_text_contents()


def table(figure: Locator, matrix: str) -> list[list[str]]:
    rows = figure.locator(f"[data-matrix='{matrix}'] tbody tr")
    return [rows.nth(i).locator("td").all_text_contents() for i in range(rows.count())]


def cell(figure: Locator, name: str) -> Locator:
    return figure.get_by_role("textbox", name=name, exact=True)


# ---- figure 4: the head lab --------------------------------------------------------------------------------


def test_the_journey_preset_shows_both_heads_reading_journey(watched_page) -> None:
    page, _ = watched_page
    figure = open_lab(page)
    expect(figure.get_by_role("combobox", name="Preset")).to_have_value("journey")
    expect(figure.get_by_role("radio", name="journey")).to_be_checked()
    expect(cell(figure, "Token 2")).to_have_value("journey")
    expect(cell(figure, "X, journey, dimension 1")).to_have_value("0.55")
    expect(cell(figure, "Head 1 W_Q row 1, column 1")).to_have_value("0.2961")
    expect(cell(figure, "Head 2 W_Q row 3, column 1")).to_have_value("3")
    # Shapes are written beside every matrix.
    expect(figure.locator("[data-matrix='x'] .mx__shape")).to_have_text("6 × 3")
    expect(figure.locator("[data-matrix='h0.wq'] .mx__shape")).to_have_text("3 × 2")
    expect(figure.locator("[data-matrix='h1.wq'] .mx__shape")).to_have_text("3 × 1")
    expect(figure.locator("[data-matrix='h0.weights'] .mx__shape")).to_have_text("6 × 6")
    expect(figure.locator("[data-matrix='concat'] .mx__shape")).to_have_text("6 × 4")
    expect(figure.locator("[data-matrix='output'] .mx__shape")).to_have_text("6 × 2")
    # Every stage of every head is drawn, in order.
    names = figure.locator(".lab-head").first.locator(".lab-stages .mx__name").all_text_contents()
    assert names == ["Q = XWQ1", "K = XWK1", "V = XWV1", "QKT", "÷ √dk", "mask", "softmax", "· V"]
    # The row of "journey", as numbers (highlighted) and as arcs.
    assert row_of(figure, "h0.weights", 1) == ["0.15", "0.23", "0.22", "0.13", "0.09", "0.18"]
    assert row_of(figure, "h1.weights", 1) == ["0.60", "0.15", "0.14", "0.02", "0.01", "0.08"]
    expect(figure.locator("[data-matrix='h0.weights'] tbody tr.is-chosen")).to_have_attribute("data-row", "1")
    # The weights are written once, under the arcs; the summary names the word.
    expect(figure.locator(".lab-compare__summary").nth(1)).to_have_text("“journey” looks most at “Your”")
    expect(
        figure.get_by_role("img", name=re.compile(r"^Head 2, the row of journey: Your 0\.60"))
    ).to_be_visible()
    expect(figure.locator("[data-part=parameters]")).to_have_text(
        "Weights: head 1: 18, head 2: 12, W_O: 8; 38 in all."
    )
    assert query_params(page) == {}


def test_editing_a_cell_recomputes_the_weights(watched_page) -> None:
    page, _ = watched_page
    figure = open_lab(page)
    before = row_of(figure, "h0.weights", 1)
    w_q = cell(figure, "Head 1 W_Q row 3, column 2")
    w_q.fill("5")
    expect(figure.locator("[data-matrix='h0.weights'] tbody tr").nth(1).locator("td")).not_to_have_text(
        before
    )
    expect(figure.get_by_role("combobox", name="Preset")).to_have_value("custom")
    # What the page shows is the server's answer for the edited numbers.
    w_q = [row[:] for row in HEAD_1["w_q"]]
    w_q[2][1] = 5
    body = {"embeddings": X, "heads": [{**HEAD_1, "w_q": w_q}, HEAD_2], "w_o": W_O}
    answer = page.request.post("/api/attention/custom", data=body).json()
    assert row_of(figure, "h0.weights", 1) == [f"{w:.2f}" for w in answer["weights"][0][1]]
    # Head 2 did not change.
    assert row_of(figure, "h1.weights", 1) == ["0.60", "0.15", "0.14", "0.02", "0.01", "0.08"]


def test_tie_heads_makes_the_outputs_identical_and_untie_restores(watched_page) -> None:
    page, _ = watched_page
    figure = open_lab(page)
    tie = figure.get_by_role("button", name="Tie heads")
    tie.click()
    expect(figure.get_by_role("button", name="Untie heads")).to_be_visible()
    expect(page).to_have_url(re.compile(r"[?&]lab_tied=1\b"))
    expect(cell(figure, "Head 2 W_Q row 1, column 2")).to_have_value("0.5166")
    expect(cell(figure, "Head 2 W_Q row 1, column 1")).to_have_attribute("readonly", "")
    expect(figure.locator("[data-matrix='h1.wq'] .mx__shape")).to_have_text("3 × 2")
    expect(figure.locator("[data-part=tie-note]")).to_have_attribute("data-diff", "0")
    expect(figure.locator("[data-part=tie-note]")).to_contain_text("identical")
    assert table(figure, "h1.weights") == table(figure, "h0.weights")
    assert table(figure, "h1.context") == table(figure, "h0.context")
    for row in table(figure, "concat"):
        assert row[:2] == row[2:]

    # Editing head 1 while tied carries head 2 along.
    cell(figure, "Head 1 W_K row 2, column 1").fill("1.5")
    expect(cell(figure, "Head 2 W_K row 2, column 1")).to_have_value("1.5")
    expect(figure.locator("[data-part=tie-note]")).to_have_attribute("data-diff", "0")

    figure.get_by_role("button", name="Untie heads").click()
    expect(figure.get_by_role("button", name="Tie heads")).to_be_visible()
    expect(cell(figure, "Head 2 W_Q row 3, column 1")).to_have_value("3")
    expect(figure.locator("[data-matrix='h1.wq'] .mx__shape")).to_have_text("3 × 1")
    expect(cell(figure, "Head 2 W_Q row 1, column 1")).not_to_have_attribute("readonly", "")
    assert "lab_tied" not in query_params(page)
    expect(figure.locator("[data-part=tie-note]")).to_contain_text("differ by up to")
    # The note's number is the server's, not recomputed on the page (head 1 keeps the edit made while tied).
    w_k = [row[:] for row in HEAD_1["w_k"]]
    w_k[1][0] = 1.5
    body = {"embeddings": X, "heads": [{**HEAD_1, "w_k": w_k}, HEAD_2]}
    difference = page.request.post("/api/attention/custom", data=body).json()["head_difference"]
    expect(figure.locator("[data-part=tie-note]")).to_have_attribute("data-diff", str(difference))
    expect(figure.locator("[data-part=tie-note]")).to_contain_text(f"differ by up to {difference:.2f}.")
    assert row_of(figure, "h1.weights", 1) == ["0.60", "0.15", "0.14", "0.02", "0.01", "0.08"]


def test_choosing_a_token_moves_the_highlight_and_the_arcs(watched_page) -> None:
    page, watch = watched_page
    figure = open_lab(page)
    requests = len(watch.api_requests)
    figure.get_by_role("radio", name="Your").check()
    expect(figure.locator("[data-matrix='h1.weights'] tbody tr.is-chosen")).to_have_attribute("data-row", "0")
    expect(figure.locator("[data-matrix='x'] tbody tr.is-chosen")).to_have_attribute("data-row", "0")
    expect(figure.get_by_role("img", name=re.compile(r"^Head 1, the row of Your:"))).to_be_visible()
    expect(page).to_have_url(re.compile(r"[?&]lab_token=1\b"))
    page.keyboard.press("ArrowRight")  # radios move with the arrow keys
    expect(figure.get_by_role("radio", name="journey")).to_be_checked()
    assert "lab_token" not in query_params(page)
    assert len(watch.api_requests) == requests  # a highlight needs no new answer


def test_mask_and_scale_controls(watched_page) -> None:
    page, _ = watched_page
    figure = open_lab(page)
    figure.get_by_role("radio", name="−∞").check()
    expect(figure.locator("[data-matrix='h0.masked'] tbody tr").first.locator("td").nth(1)).to_have_text("−∞")
    expect(figure.locator("[data-matrix='h0.weights'] tbody tr").first.locator("td").nth(1)).to_have_text(
        "0.00"
    )
    expect(page).to_have_url(re.compile(r"[?&]lab_mask=neg_inf\b"))
    figure.get_by_role("checkbox", name="Divide by √dk").uncheck()
    expect(figure.locator("[data-matrix='h0.scaled'] .mx__note")).to_have_text("scaling off: unchanged")
    assert table(figure, "h0.scaled") == table(figure, "h0.scores")
    expect(page).to_have_url(re.compile(r"[?&]lab_scale=0\b"))


def test_pasting_a_block_from_a_spreadsheet_fills_and_grows_the_grid(watched_page) -> None:
    page, _ = watched_page
    figure = open_lab(page)
    target = cell(figure, "Head 2 W_V row 1, column 1")
    target.focus()
    target.evaluate(
        """el => {
          const data = new DataTransfer();
          data.setData('text/plain', '1\\t0\\t0.5\\n0\\t1\\t0.5\\n0\\t0\\t1\\n');
          const init = {clipboardData: data, bubbles: true, cancelable: true};
          el.dispatchEvent(new ClipboardEvent('paste', init));
        }"""
    )
    expect(figure.locator("[data-matrix='h1.wv'] .mx__shape")).to_have_text("3 × 3")
    expect(cell(figure, "Head 2 W_V row 2, column 3")).to_have_value("0.5")
    expect(figure.locator("[data-matrix='h1.context'] .mx__shape")).to_have_text("6 × 3")
    expect(figure.locator("[data-matrix='concat'] .mx__shape")).to_have_text("6 × 5")
    expect(figure.locator("[data-matrix='wo'] .mx__shape")).to_have_text("5 × 2")
    expect(cell(figure, "Head 2 W_V row 1, column 1")).to_be_focused()


def test_keyboard_moves_between_cells(watched_page) -> None:
    """Inside a grid the arrow keys, Home, End and Enter move like a spreadsheet; typing replaces the cell."""
    page, _ = watched_page
    figure = open_lab(page)
    first = cell(figure, "X, Your, dimension 1")
    first.focus()
    page.keyboard.press("ArrowRight")
    expect(cell(figure, "X, Your, dimension 2")).to_be_focused()
    page.keyboard.press("Enter")
    expect(cell(figure, "X, journey, dimension 2")).to_be_focused()
    page.keyboard.press("ArrowDown")
    expect(cell(figure, "X, starts, dimension 2")).to_be_focused()
    page.keyboard.press("ArrowUp")
    expect(cell(figure, "X, journey, dimension 2")).to_be_focused()
    page.keyboard.press("End")
    expect(cell(figure, "X, journey, dimension 3")).to_be_focused()
    page.keyboard.press("ArrowRight")  # the row's end: it stays
    expect(cell(figure, "X, journey, dimension 3")).to_be_focused()
    page.keyboard.press("Home")  # the row's start is the token's editable name
    expect(cell(figure, "Token 2")).to_be_focused()
    page.keyboard.press("ArrowRight")
    expect(cell(figure, "X, journey, dimension 1")).to_be_focused()
    page.keyboard.type("9")  # replaces the cell's number (it arrives selected), and recomputes
    expect(cell(figure, "X, journey, dimension 1")).to_have_value("9")
    expect(figure.locator("[data-matrix='h0.q'] tbody tr").nth(1).locator("td").first).not_to_have_text(
        "0.43"
    )
    # Once typed in, ← moves the caret inside the number; at its start, ← moves to the cell before.
    page.keyboard.type(".5")
    page.keyboard.press("ArrowLeft")
    expect(cell(figure, "X, journey, dimension 1")).to_be_focused()
    page.keyboard.press("Home")
    expect(cell(figure, "Token 2")).to_be_focused()


def tab_stops(page: Page, figure: Locator, start: Locator) -> list[str]:
    """Press Tab from `start` until the focus leaves `figure`: what each press lands on, as
    "role:name" (a matrix cell as "grid:" and its grid's key)."""
    start.focus()
    stops = [describe_focus(page)]
    for _ in range(200):
        page.keyboard.press("Tab")
        if not figure.evaluate("(f) => f.contains(document.activeElement)"):
            return stops
        stops.append(describe_focus(page))
    raise AssertionError(f"the focus never left the figure: {stops[-5:]}")


def describe_focus(page: Page) -> str:
    return page.evaluate(
        """() => {
          const el = document.activeElement;
          const grid = el.closest('.mx--edit');
          if (grid) return `grid:${grid.dataset.matrix}`;
          const name = el.getAttribute('aria-label') || el.labels?.[0]?.textContent || el.textContent;
          return `${el.tagName.toLowerCase()}:${name.trim().replace(/\\s+/g, ' ')}`;
        }"""
    )


def test_each_matrix_is_one_tab_stop_with_the_arrow_keys_inside(watched_page) -> None:
    """84 tab stops once (one per cell, with no way past them); now each grid is one stop, the cell last
    visited, and the arrow keys move inside it."""
    page, _ = watched_page
    figure = open_lab(page)
    first = figure.locator("button, select, input, summary, [tabindex='0']").first
    stops = tab_stops(page, figure, first)
    grids = figure.locator(".mx--edit")
    keys = [grids.nth(i).get_attribute("data-matrix") for i in range(grids.count())]
    assert keys == ["x", "h0.wq", "h0.wk", "h0.wv", "h1.wq", "h1.wk", "h1.wv", "wo"]
    assert [s for s in stops if s.startswith("grid:")] == [f"grid:{key}" for key in keys]
    assert len(stops) == len(set(stops)), stops  # nothing is reached twice
    assert len(stops) <= 35, stops
    # Every cell keeps its own name, and exactly one cell a grid is in the tab order.
    for key in keys:
        grid = figure.locator(f".mx--edit[data-matrix='{key}']")
        expect(grid.locator("input[tabindex='0']")).to_have_count(1)
    expect(figure.locator("input.mx__cell[tabindex='0']:not([aria-label])")).to_have_count(0)

    # Into W_K of head 1 by Tab, along its row with the arrows, an edit, and out by Tab to the next grid.
    w_q = cell(figure, "Head 1 W_Q row 1, column 1")
    w_q.focus()
    page.keyboard.press("Tab")
    expect(cell(figure, "Head 1 W_K row 1, column 1")).to_be_focused()
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowRight")
    target = cell(figure, "Head 1 W_K row 2, column 2")
    expect(target).to_be_focused()
    before = row_of(figure, "h0.weights", 1)
    page.keyboard.type("2")
    expect(target).to_have_value("2")
    expect(figure.locator("[data-matrix='h0.weights'] tbody tr").nth(1).locator("td")).not_to_have_text(
        before
    )
    page.keyboard.press("Tab")
    expect(cell(figure, "Head 1 W_V row 1, column 1")).to_be_focused()
    # Back into W_K: the cell last visited is its tab stop.
    page.keyboard.press("Shift+Tab")
    expect(target).to_be_focused()
    expect(figure.locator(".mx--edit[data-matrix='h0.wk'] input[tabindex='0']")).to_have_attribute(
        "aria-label", "Head 1 W_K row 2, column 2"
    )


def test_errors_are_shown_inside_the_figure_then_clear(watched_page) -> None:
    page, watch = watched_page
    watch.expected_console.append("status of 422")
    figure = open_lab(page)
    error = figure.get_by_role("alert")
    w_q = cell(figure, "Head 1 W_Q row 1, column 1")
    w_q.fill("abc")
    expect(error).to_have_text("Head 1 W_Q row 1, column 1: “abc” is not a number.")
    expect(w_q).to_have_attribute("aria-invalid", "true")
    expect(figure).to_have_class(re.compile(r"\bis-stale\b"))
    w_q.fill("")
    expect(error).to_have_text("Head 1 W_Q row 1, column 1 is empty: type a number.")
    w_q.fill("0.3")
    expect(error).to_be_hidden()
    expect(w_q).not_to_have_attribute("aria-invalid", "true")

    # The server's own 422, shown as text.
    x = cell(figure, "X, journey, dimension 1")
    x.fill("2e6")
    expect(error).to_have_text("embeddings.1.0: Input should be less than or equal to 1000000")
    x.fill("-0.55")
    expect(error).to_be_hidden()
    expect(figure).not_to_have_class(re.compile(r"\bis-stale\b"))


def test_shapes_heads_and_w_o_can_change(watched_page) -> None:
    page, _ = watched_page
    figure = open_lab(page)
    figure.get_by_role("spinbutton", name="Tokens n").fill("4")
    figure.get_by_role("spinbutton", name="Tokens n").press("Enter")
    expect(figure.locator("[data-matrix='h0.weights'] .mx__shape")).to_have_text("4 × 4")
    expect(figure.get_by_role("radio")).to_have_count(3 + 4)  # three mask radios, four tokens
    figure.get_by_role("button", name="Add head").click()
    expect(figure.locator(".lab-head")).to_have_count(3)
    expect(figure.locator("[data-matrix='wo'] .mx__shape")).to_have_text("6 × 2")
    # A new head starts neutral: zero queries and keys, so uniform attention.
    expect(figure.locator("[data-matrix='h2.weights'] tbody tr").first.locator("td")).to_have_text(
        ["0.25"] * 4
    )
    figure.get_by_role("spinbutton", name="Head 3 d_v").fill("1")
    figure.get_by_role("spinbutton", name="Head 3 d_v").press("Enter")
    expect(figure.locator("[data-matrix='wo'] .mx__shape")).to_have_text("5 × 2")
    figure.get_by_role("checkbox", name=re.compile(r"^Output projection W")).uncheck()
    expect(figure.locator("[data-matrix='output']")).to_have_count(0)
    expect(figure.locator(".lab-none")).to_have_text("No W_O: the output is the concatenation itself.")
    figure.get_by_role("button", name="Remove head").click()
    figure.get_by_role("button", name="Remove head").click()
    expect(figure.locator(".lab-head")).to_have_count(1)
    expect(figure.get_by_role("button", name="Tie heads")).to_be_disabled()
    expect(figure.locator("[data-part=tie-note]")).to_have_text("Add a second head to compare two heads.")


def test_url_state_is_restored(watched_page) -> None:
    page, watch = watched_page
    figure = open_lab(page, "?lab=previous&lab_token=3&lab_tied=1&lab_mask=neg_inf")
    expect_controls(figure, "previous", "sat", "−∞", "Untie heads")
    assert table(figure, "h1.weights") == table(figure, "h0.weights")
    # Untied, the preset's second head looks at the previous word: "sat" -> "cat".
    figure.get_by_role("button", name="Untie heads").click()
    expect(figure.locator(".lab-compare__summary").nth(1)).to_have_text("“sat” looks most at “cat”")
    expect(figure.locator(".lab-compare__summary").nth(0)).to_have_text("“sat” looks most at “sat”")
    expect(
        figure.get_by_role("img", name=re.compile(r"^Head 2, the row of sat: .*cat 0\.98"))
    ).to_be_visible()


def test_a_head_that_spreads_evenly_is_said_to_spread_evenly(watched_page) -> None:
    """With W_Q all zeros every score is 0, so head 1 weighs the four words alike: not "looks most at"."""
    page, _ = watched_page
    figure = open_lab(page, "?lab=previous&lab_token=3")
    target = cell(figure, "Head 1 W_Q row 1, column 1")
    target.focus()
    zeros = "\n".join(["\t".join(["0"] * 4)] * 4)
    target.evaluate(
        """(el, text) => {
          const data = new DataTransfer();
          data.setData('text/plain', text);
          const init = {clipboardData: data, bubbles: true, cancelable: true};
          el.dispatchEvent(new ClipboardEvent('paste', init));
        }""",
        zeros,
    )
    summaries = figure.locator(".lab-compare__summary")
    even = "“sat” spreads its attention evenly over {} tokens"
    expect(summaries.nth(0)).to_have_text(even.format(4))
    expect(summaries.nth(1)).to_have_text("“sat” looks most at “cat”")
    expect(
        figure.get_by_role("img", name=re.compile(r"^Head 2, the row of sat: .*cat 0\.9\d"))
    ).to_be_visible()
    assert row_of(figure, "h0.weights", 2) == ["0.25"] * 4
    # The even share is written under the arcs, once: 0.25 on each of the four words.
    arcs = figure.get_by_role("img", name=re.compile(r"^Head 1, the row of sat:"))
    expect(arcs.locator(".lab-arcs__weight")).to_have_text(["0.25"] * 4)
    # Under the −∞ mask "sat" sees three words, evenly.
    figure.get_by_role("radio", name="−∞").check()
    expect(summaries.nth(0)).to_have_text(even.format(3))
    expect(arcs.locator(".lab-arcs__weight")).to_have_text(["0.33", "0.33", "0.33", "0.00"])


def test_invalid_url_values_fall_back_to_defaults(watched_page) -> None:
    page, _ = watched_page
    figure = open_lab(page, "?lab=toString&lab_token=99&lab_tied=maybe&lab_mask=-1")
    expect_controls(figure, "journey", "journey", "no mask", "Tie heads")


def test_head_lab_fits_a_phone(phone_page) -> None:
    page, _ = phone_page
    figure = open_lab(page)
    assert sideways_scroll(page) <= 0
    figure.get_by_role("button", name="Tie heads").click()
    expect(figure.locator("[data-part=tie-note]")).to_have_attribute("data-diff", "0")
    assert sideways_scroll(page) <= 0


# ---- figure 2: the accounting ------------------------------------------------------------------------------


def read_table(figure: Locator) -> dict[str, int]:
    cells = figure.locator("[data-cell]")
    keys = [cells.nth(i).get_attribute("data-cell") for i in range(cells.count())]
    return {
        key: int(text.replace(",", "")) for key, text in zip(keys, cells.all_text_contents(), strict=True)
    }


def expected_table(d_model: int, heads: int, n: int) -> dict[str, int]:
    acct = head_accounting(d_model, heads, n)
    out = {}
    for side in ("split", "single"):
        for group in ("weights", "multiply_adds"):
            for key, value in acct[side][group].items():
                out[f"{side}.{group}.{key}"] = value
        out[f"{side}.exps"] = acct[side]["exps"]
    return out


def test_the_accounting_table_agrees_with_the_server_as_the_controls_move(watched_page) -> None:
    page, _ = watched_page
    figure = open_accounting(page)
    expect(figure.locator("math")).to_have_count(4)
    table_el = figure.get_by_role(
        "table", name="Weights and multiply-adds of one attention layer (biases left out)"
    )
    expect(table_el).to_be_visible()
    assert read_table(figure) == expected_table(512, 8, 10)
    expect(figure.locator("[data-how='split.weights.w_q']")).to_have_text("8 × 512 × 64")

    figure.get_by_role("combobox", name="Model width dmodel").select_option("24")
    heads = figure.get_by_role("slider", name="Heads")
    expect(heads).to_have_attribute("aria-valuetext", "8 heads")  # 8 still divides 24
    heads.focus()
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    expect(heads).to_have_attribute("aria-valuetext", "4 heads")
    expect(figure.locator("output")).to_have_text("4 heads × 6 wide")
    figure.get_by_role("spinbutton", name="Tokens n").fill("5")
    expect(figure.locator("[data-cell='split.exps']")).to_have_text("100")
    assert read_table(figure) == expected_table(24, 4, 5)
    expect(page).to_have_url(re.compile(r"acct_d=24"))
    assert query_params(page) == {"acct_d": "24", "acct_h": "4", "acct_n": "5"}
    expect(figure.get_by_role("columnheader", name="4 heads of width 6")).to_be_visible()
    # The table holds the counts; the verdict says what they come to for this h and n, repeating none.
    expect(figure.locator("[data-part=verdict]")).to_have_text(
        "Cutting the width into 4 heads adds no weights and no multiply-adds. Only the softmax grows: "
        "4 score matrices of 5 × 5 instead of one, 4 times the exponentials."
    )
    # The step-by-step multiply-adds fold under the table, their columns named for the same h.
    steps = figure.get_by_role("group").filter(has_text="The multiply-adds step by step")
    steps.locator("summary").click()
    expect(steps.get_by_role("columnheader", name="4 heads of width 6")).to_be_visible()
    expect(steps.get_by_role("table", name="Multiply-adds for n = 5 tokens, step by step")).to_be_visible()

    heads.press("End")
    expect(heads).to_have_attribute("aria-valuetext", "24 heads")
    assert read_table(figure) == expected_table(24, 24, 5)
    heads.press("Home")
    expect(figure.locator("[data-part=verdict]")).to_have_text(
        "One head of the full width is the column on the right: both columns are the same layer."
    )
    # The slider's ticks follow the width: a label per head count (every other past ten of them).
    ticks = figure.locator("[data-part=ticks] span")
    expect(ticks).to_have_text(["1", "2", "3", "4", "6", "8", "12", "24"])
    figure.get_by_role("combobox", name="Model width dmodel").select_option("768")
    expect(ticks).to_have_count(18)
    expect(ticks.nth(0)).to_have_text("1")
    expect(ticks.nth(1)).to_have_text("")
    expect(ticks.nth(17)).to_have_text("768")
    expect(ticks.nth(16)).to_have_text("")


def test_the_accounting_reads_its_state_from_the_url(watched_page) -> None:
    page, _ = watched_page
    figure = open_accounting(page, "?acct_d=768&acct_h=12&acct_n=3")
    expect(figure.get_by_role("slider", name="Heads")).to_have_attribute("aria-valuetext", "12 heads")
    assert read_table(figure) == expected_table(768, 12, 3)
    figure = open_figure(page, "accounting", "?acct_d=768&acct_h=5")  # 5 does not divide 768: back to 8
    expect(figure.get_by_role("slider", name="Heads")).to_have_attribute("aria-valuetext", "8 heads")


def kv_cells(figure: Locator, row: str) -> list[str]:
    """One row of the key/value cache table as shown: per token, at 4k, 32k and 128k tokens, the saving.
    `row` is a kind (MHA, GQA, MQA, MLA), or "model" for the row marked as the model's own."""
    which = "[data-kv-row].is-own" if row == "model" else f'[data-kv-row="{row}"]'
    tr = figure.locator(which)
    expect(tr).to_have_count(1)
    keys = ["perToken", "context.0", "context.1", "context.2", "saving"]
    return [tr.locator(f'[data-kv$=".{key}"]').inner_text() for key in keys]


def kv_names(figure: Locator) -> list[str]:
    """The cache table's row names, top to bottom."""
    table = figure.locator("[data-part=kv-cache-table]")
    return [" ".join(t.split()) for t in table.locator('tbody [data-kv$=".name"]').all_inner_texts()]


def test_the_kv_cache_takes_a_preset_a_pasted_config_and_says_what_is_wrong(watched_page) -> None:
    page, watch = watched_page
    figure = open_accounting(page)
    model = figure.get_by_role("combobox", name="Model", exact=True)
    config = figure.get_by_role("textbox", name="config.json")
    expect(config).to_be_hidden()  # folded: most readers pick a model
    figure.get_by_text("Paste your own config.json").click()
    # What the box holds is said in the status it names as its description.
    status = figure.get_by_role("status").and_(figure.locator(f"#{config.get_attribute('aria-describedby')}"))
    expect(model).to_have_value("llama-3-8b")  # the default
    expect(
        figure.get_by_role(
            "table", name="The key/value cache of Llama 3 8B: all 32 layers, bfloat16, one sequence"
        )
    ).to_be_visible()
    expect(status).to_contain_text("32 query heads of width 128 share 8 key/value heads")
    # 2 · 8 · 128 elements · 32 layers · 2 bytes = 131,072 bytes a token; 512 MiB at 4,096 tokens.
    assert kv_cells(figure, "model") == ["128 KiB", "512 MiB", "4 GiB", "16 GiB", "4×"]
    assert kv_cells(figure, "GQA") == kv_cells(figure, "model")
    assert kv_cells(figure, "MHA") == ["512 KiB", "2 GiB", "16 GiB", "64 GiB", "1×"]
    # Every kind from the same shape: MQA 2 · 128 · 32 · 2 = 16 KiB; MLA (512 + 64) · 32 · 2 = 36 KiB.
    assert kv_cells(figure, "MQA") == ["16 KiB", "64 MiB", "512 MiB", "2 GiB", "32×"]
    assert kv_cells(figure, "MLA") == ["36 KiB", "144 MiB", "1.13 GiB", "4.5 GiB", "14.2×"]
    assert kv_names(figure) == [
        "MHA, 32 key/value heads",
        "GQA, g = 8, this model",
        "MQA, g = 1",
        "MLA, d_c = 512, rotary 64 (DeepSeek-V2's proportions)",
    ]
    expect(figure.locator('[data-kv="weights.model.w_k"]')).to_have_text("4,194,304")  # 4,096 × 8 · 128
    # The verdict names the model's row and why it caches less, leaving the bytes to the table.
    expect(figure.locator('[data-part="kv-verdict"]')).to_have_text(
        "Llama 3 8B is grouped-query attention (the marked row): each key/value head serves 4 query heads."
    )

    # From the keyboard: the next preset down the list is Mistral 7B, the same shape.
    model.focus()
    page.keyboard.press("ArrowDown")
    expect(model).to_have_value("mistral-7b")
    expect(figure.locator("[data-part=kv-source]")).to_contain_text("sliding_window is 4,096")
    model.select_option(label="DeepSeek-V2")
    expect(config).to_have_value(re.compile(r'"kv_lora_rank": 512'))
    figure.get_by_role("combobox", name="Cache dtype").select_option("float32")
    figure.get_by_role("spinbutton", name="Batch").fill("2")
    # (512 + 64) · 60 layers · 4 bytes = 138,240 bytes a token; × 4,096 tokens × 2 sequences = 1,080 MiB.
    expect(figure.locator('[data-kv="MLA.perTokenBytes"]')).to_have_text("138,240 bytes")
    assert kv_cells(figure, "model") == ["135 KiB", "1.05 GiB", "8.44 GiB", "33.8 GiB", "71.1×"]
    assert kv_names(figure)[3] == "MLA, d_c = 512, rotary 64, this model"
    expect(figure.locator('[data-part="kv-verdict"]')).to_contain_text("caches one latent and one rotary key")
    assert query_params(page) == {"kv_model": "deepseek-v2", "kv_dtype": "float32", "kv_batch": "2"}

    # A pasted config (Falcon's older spelling): the select says it is the reader's own.
    config.fill('{"hidden_size": 4544, "n_head": 71, "n_layer": 32, "multi_query": true}')
    expect(model).to_have_value("config")
    expect(status).to_contain_text(
        "multi-query attention (MQA): 71 query heads of width 64 share 1 key/value head"
    )
    assert kv_cells(figure, "model")[0] == "16 KiB"  # 2 · 64 · 32 layers · 4 bytes
    assert kv_cells(figure, "model")[4] == "71×"
    expect(figure.locator('[data-part="kv-verdict"]')).to_have_text(
        "Your model is multi-query attention (the marked row): "
        "all 71 of its query heads share one key/value head."
    )
    # 71 is prime: no g lies between MQA and MHA, and the GQA row says so.
    assert kv_names(figure)[1] == "GQA: no g between 1 and 71 divides 71"
    assert kv_cells(figure, "GQA") == ["—"] * 5
    assert "kv_model" not in query_params(page)

    # What is wrong is said under the box, naming the field, and the tables dim; the server is not asked.
    requests_before = len(watch.api_requests)
    config.fill(
        '{"hidden_size": 4096, "num_attention_heads": 32, "num_key_value_heads": 5, "num_hidden_layers": 2}'
    )
    expect(config).to_have_attribute("aria-invalid", "true")
    expect(status).to_have_text(
        re.compile(r"^num_attention_heads \(32\) is not a multiple of num_key_value_heads \(5\)")
    )
    expect(figure.locator("[data-part=kv-results]")).to_have_class(re.compile("is-stale"))
    assert kv_cells(figure, "model")[0] == "16 KiB"  # the last config read, dimmed
    config.fill('{"hidden_size": 4096,')
    expect(status).to_contain_text("config.json is not valid JSON")
    assert len(watch.api_requests) == requests_before
    model.select_option(label="Llama 2 7B")
    expect(config).to_have_attribute("aria-invalid", "false")
    expect(figure.locator("[data-part=kv-results]")).not_to_have_class(re.compile("is-stale"))
    assert kv_cells(figure, "model") == [
        "1 MiB",
        "8 GiB",
        "64 GiB",
        "256 GiB",
        "1×",
    ]  # MHA, float32, 2 sequences
    assert kv_names(figure)[:2] == ["MHA, 32 key/value heads, this model", "GQA, g = 8"]


def test_the_kv_cache_reads_its_state_from_the_url(watched_page) -> None:
    page, _ = watched_page
    figure = open_accounting(page, "?kv_model=falcon-7b&kv_dtype=fp8&kv_batch=4")
    expect(figure.get_by_role("combobox", name="Model", exact=True)).to_have_value("falcon-7b")
    expect(figure.get_by_role("combobox", name="Cache dtype")).to_have_value("fp8")
    expect(figure.get_by_role("spinbutton", name="Batch")).to_have_value("4")
    # 2 · 64 · 32 layers · 1 byte = 4 KiB a token; × 4,096 tokens × 4 sequences = 64 MiB.
    assert kv_cells(figure, "model") == ["4 KiB", "64 MiB", "512 MiB", "2 GiB", "71×"]
    figure = open_accounting(page, "?kv_model=gpt-5&kv_batch=0")  # neither is valid: the defaults
    expect(figure.get_by_role("combobox", name="Model", exact=True)).to_have_value("llama-3-8b")
    expect(figure.get_by_role("spinbutton", name="Batch")).to_have_value("1")


def test_accounting_fits_a_phone(phone_page) -> None:
    page, _ = phone_page
    open_accounting(page)
    assert sideways_scroll(page) <= 0


# ---- screenshots -------------------------------------------------------------------------------------------


@pytest.mark.screenshots
def test_phone_and_desktop_screenshots(shots) -> None:
    phone = shots.phone
    shots.take(open_lab(phone), "head-lab-phone")
    shots.take(open_accounting(phone), "accounting-phone")

    page = shots.desktop
    accounting = open_accounting(page)
    shots.take(accounting, "accounting-desktop")
    figure = open_lab(page)
    page.wait_for_load_state("networkidle")
    shots.take(figure, "head-lab-desktop")
    figure.get_by_role("button", name="Tie heads").click()
    expect(figure.locator("[data-part=tie-note]")).to_have_attribute("data-diff", "0")
    shots.take(figure.locator(".lab-compare"), "head-lab-desktop-tied")


def test_a_pasted_config_that_shares_nothing_opens_its_verdict_with_a_capital(watched_page) -> None:
    """A pasted multi-head config once read "… in bfloat16. your model is multi-head attention …"; the verdict
    now opens on the model's name, capitalised."""
    page, _ = watched_page
    figure = open_accounting(page)
    figure.get_by_role("combobox", name="Model", exact=True).select_option("config")  # opens the box
    config = figure.get_by_role("textbox", name="config.json")
    config.fill(
        '{"hidden_size": 1024, "num_attention_heads": 16, "num_key_value_heads": 16, "num_hidden_layers": 4}'
    )
    verdict = figure.locator('[data-part="kv-verdict"]')
    expect(verdict).to_have_text(re.compile(r"^Your model is multi-head attention \(the marked row\): "))
    expect(verdict).not_to_contain_text("your model is")


def test_a_formula_wider_than_a_phone_shows_that_it_scrolls(phone_page) -> None:
    """Figure 2's first formula is cut at "…, hea" on a phone; it scrolls, and now a shade on the edge it runs
    on past says so (covers that scroll with the formula hide the shade at an edge it ends at)."""
    page, _ = phone_page
    figure = open_accounting(page)
    wide = figure.locator('math[display="block"]').first
    sizes = wide.evaluate("(m) => [m.scrollWidth, m.clientWidth]")
    assert sizes[0] > sizes[1], sizes  # it does run past the column on a phone
    style = wide.evaluate(
        "(m) => { const s = getComputedStyle(m); return [s.backgroundImage, s.backgroundAttachment]; }"
    )
    assert style[0].count("radial-gradient") == 2 and style[0].count("linear-gradient") == 2, style
    assert style[1].replace(" ", "") == "local,local,scroll,scroll", style
