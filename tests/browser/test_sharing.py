"""The sharing figure: h query heads reading g key/value heads, driven by its accessible names. Its record
panel reads the stored training record, its diagram and live heads the reader's choice."""

from __future__ import annotations

import json
import re

from playwright.sync_api import Locator, Page, expect

from app.config import get_settings
from app.routes.pages import SHARING_RECORD
from tests.browser.pages import open_figure


def record() -> dict:
    return json.loads((get_settings().weights_dir / SHARING_RECORD).read_text(encoding="utf-8"))


def open_sharing(page: Page, query: str = "") -> Locator:
    figure = open_figure(page, "sharing", query)
    expect(figure.locator(".sharing-group svg.heatmap").first).to_be_visible()
    expect(figure).not_to_have_attribute("aria-busy", "true")
    return figure


def drawn_weights(figure: Locator, head: int) -> list[float]:
    label = re.compile(rf"^Query head {head}'s attention")
    cells = figure.get_by_role("img", name=label).locator(".heatmap__cell")
    return [float(w) for w in cells.evaluate_all("els => els.map(e => e.dataset.weight)")]


def test_stepping_key_value_heads_down_groups_the_query_heads_and_says_what_it_saves(watched_page) -> None:
    page, _ = watched_page
    figure = open_sharing(page)
    heads = figure.get_by_role("radiogroup", name="Query heads")
    expect(heads.get_by_role("radio", name="12", exact=True)).to_be_checked()
    kv = figure.get_by_role("radiogroup", name="Key/value heads")
    expect(kv.get_by_role("radio")).to_have_count(6)  # 1, 2, 3, 4, 6, 12: the divisors of 12
    expect(kv.get_by_role("radio", name="12", exact=True)).to_be_checked()
    expect(figure.get_by_role("group", name=re.compile(r"^K\/V \d+: read by"))).to_have_count(12)

    kv.get_by_role("radio", name="4", exact=True).check()
    expect(page).to_have_url(re.compile(r"sharing_kv=4"))
    expect(figure.get_by_role("group", name=re.compile(r"^K\/V \d+: read by"))).to_have_count(4)
    expect(figure.get_by_role("group", name="K/V 1: read by heads 1–3")).to_be_visible()
    text = figure.locator('[data-part="diagram-text"]')
    expect(text).to_contain_text("Grouped-query attention, query heads of width 4.")
    expect(text).to_contain_text("48 × 16 (768 weights each, against 2,304 without sharing)")
    expect(text).to_contain_text("32 numbers per token per layer instead of 96 (3× less)")
    diagram = figure.get_by_role("img", name=re.compile(r"12 query heads reading 4 key\/value heads"))
    expect(diagram).to_be_visible()

    kv.get_by_role("radio", name="1", exact=True).check()
    expect(figure.get_by_role("group", name="K/V 1: read by heads 1–12")).to_be_visible()
    expect(text).to_contain_text("Multi-query attention")

    kv.get_by_role("radio", name="12", exact=True).check()  # no sharing: nothing to compare the cache with
    expect(text).to_contain_text("cache 96 numbers per token per layer, as every head keeps its own")
    expect(text).not_to_contain_text("instead of")
    expect(text).not_to_contain_text("without sharing")  # nothing shared: no "2,304 against 2,304"


def test_the_record_panel_states_the_stored_losses_and_scores_at_the_chosen_query_heads(watched_page) -> None:
    page, _ = watched_page
    figure = open_sharing(page, "?sharing_heads=6")
    stored = {layer["kv_heads"]: layer for layer in record()["layers"] if layer["heads"] == 6}
    assert sorted(stored) == [1, 2, 3, 6]
    title = re.compile(r"^Final training loss by key\/value heads at 6 query heads")
    loss = figure.get_by_role("img", name=title)
    label = loss.get_attribute("aria-label")
    for g, layer in stored.items():
        written = float(re.search(rf"(?<![\d.]){g}: ([\d.e-]+)", label).group(1))
        assert abs(written - layer["final_loss"]) <= 0.06 * layer["final_loss"]  # two significant digits
    scores = figure.get_by_role("img", name=re.compile("^Best held-out relation score")).get_attribute(
        "aria-label"
    )
    meaning_at_1 = stored[1]["heldout"]["best_score"]["meaning"]
    assert f"meaning 1: {meaning_at_1:.2f}" in scores
    words = figure.locator('[data-part="record-text"]')
    expect(words).to_contain_text("as the key/value heads go from 6 to 1")
    # How the record was made is folded away, closed, under the finding.
    method = figure.locator('[data-part="record-method"]')
    expect(method).to_be_hidden()
    figure.locator('details.fold:has([data-part="record-method"]) > summary').click()
    expect(method).to_contain_text("python -m training.train_sharing")
    expect(method).to_contain_text("not computed from your sentence")


def test_query_heads_that_share_keys_are_drawn_from_the_live_answer(watched_page, server) -> None:
    page, _ = watched_page
    figure = open_sharing(page, "?sharing_heads=6&sharing_kv=2&sharing_sentence=the+river+bank+was+steep")
    answer = page.request.get(
        f"{server}/api/attention?sentence=the+river+bank+was+steep&heads=6&kv_heads=2"
    ).json()
    assert answer["kv_head_of"] == [0, 0, 0, 1, 1, 1]
    for head in (1, 4):
        drawn = drawn_weights(figure, head)
        expected = [w for row in answer["weights"][head - 1] for w in row]
        assert len(drawn) == len(expected)
        assert (
            max(abs(a - b) for a, b in zip(drawn, expected, strict=True)) <= 2e-5
        )  # the packed form's rounding
    status = figure.locator('[data-part="live-text"]')
    expect(status).to_have_attribute("role", "status")
    expect(status).to_have_text(best_heads_said(answer))
    figure.get_by_role("textbox", name="Sentence").fill("dogs bark")
    figure.get_by_role("textbox", name="Sentence").press("Enter")
    other = page.request.get(f"{server}/api/attention?sentence=dogs+bark&heads=6&kv_heads=2").json()
    expect(status).to_have_text(best_heads_said(other))


def best_heads_said(answer: dict) -> str:
    """What the live status says of an answer: each relation's best head, its key/value head and its score."""
    of = answer["kv_head_of"]
    best = [
        f"{r['name']}: head {r['best_head'] + 1} (K/V {of[r['best_head']] + 1}), {r['score']:.2f}"
        for r in answer["relations"]
        if r["best_head"] is not None
    ]
    if not best:
        return "No relation has a pair of words to score in this sentence."
    return f"The best head per relation: {'; '.join(best)}."
