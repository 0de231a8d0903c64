"""Figure 6, the mask lab, driven in real Chromium through its accessible names: a real decoder (figure 7's
language model trained with −∞) under each of the three masks and the mask bug zoo's five bugs, and the zoo's
padding and low-precision panels."""

from __future__ import annotations

import math
import re
from urllib.parse import parse_qs, urlsplit

import numpy as np
import pytest
from playwright.sync_api import Locator, Page, expect

from app.figures import number
from app.models.tiny_lm import DEFAULT_SENTENCE, MAX_WORDS, get_tiny_lms
from tests.browser.pages import STALE, open_figure, query_params, refused_then_recovered, sideways_scroll


def pieces(sentence: str) -> list[str]:
    """The tokens figure 6's decoder reads: the start token, then the sentence's word pieces."""
    return ["<s>", *get_tiny_lms().models["neg_inf"].pieces(sentence.split())[0]]


DEFAULT_TOKENS = pieces(DEFAULT_SENTENCE)
N = len(DEFAULT_TOKENS)
MAPS = 4  # 2 layers × 2 heads
MAP = "[data-part=drawing] svg.heatmap"  # the decoder's maps (the padding panel draws two more)
MODES = {"no mask": "none", "−∞": "neg_inf", "×0": "zero"}
ZOO = {
    "off by one: hides itself": "hides_self",
    "off by one: next word": "next_word",
    "transposed": "transposed",
    "after softmax": "after_softmax",
    "+1 added": "additive",
}


def open_mask_lab(page: Page, query: str = "", path: str | None = None) -> Locator:
    """Open figure 6 (its own page unless `path`, with `query`) and wait for its meter."""
    figure = open_figure(page, "mask-lab", query, path)
    expect(figure.locator(MAP).first).to_be_visible()
    expect(meter(figure)).to_have_attribute("aria-valuenow", re.compile(r"^\d"))
    return figure


def meter(figure: Locator) -> Locator:
    return figure.get_by_role("meter", name="Future leak")


def radio(figure: Locator, name: str) -> Locator:
    return figure.get_by_role("radiogroup", name="Mask").get_by_role("radio", name=name, exact=True)


def cells(figure: Locator, future: bool) -> list[dict]:
    """Every drawn cell above (future=True) or on and below the diagonal: its map, row, weight, opacity."""
    return figure.evaluate(
        "(f, future) => [...f.querySelectorAll(`.mask-drawing .heatmap__cell[data-future='${future}']`)]"
        ".map(c => ({"
        " map: c.closest('svg').dataset.layer + '/' + c.closest('svg').dataset.head,"
        " i: Number(c.dataset.query), weight: Number(c.dataset.weight),"
        " opacity: Number(getComputedStyle(c).fillOpacity) }))",
        str(future).lower(),
    )


def row_shares(figure: Locator) -> list[float]:
    return [
        float(s)
        for s in figure.locator(".row-leak__item").evaluate_all("els => els.map(e => e.dataset.share)")
    ]


def decoder(page: Page, mask: str, sentence: str = DEFAULT_SENTENCE) -> dict:
    """The server's answer for the figure's decoder (the −∞ model) under `mask`."""
    answer = page.request.get(
        "/api/lm/attention", params={"model": "neg_inf", "mask": mask, "sentence": sentence}
    )
    assert answer.ok, answer.text()
    return answer.json()


def mean_future_share(answer: dict) -> float:
    """The leak recomputed here from the weights: the mean over layers, heads and rows of Σ_{j>i} w_ij."""
    weights = np.array(answer["weights"])  # (layers, heads, T, T)
    return float(np.triu(weights, k=1).sum(-1).mean())


def num(x: float) -> str:
    """A number as the explanation writes it (three significant digits), mirroring mask-lab/numbers.js."""
    if x != 0 and abs(x) < 0.001:
        mantissa, exponent = f"{x:.2e}".split("e")
        return f"{mantissa}e{int(exponent):+d}"
    return f"{float(f'{x:.3g}'):.10g}"


def test_default_view_draws_a_heatmap_per_layer_and_head_and_the_meter(watched_page):
    page, _ = watched_page
    figure = open_mask_lab(page)
    expect(figure.get_by_role("textbox", name="Sentence")).to_have_value(DEFAULT_SENTENCE)
    group = figure.get_by_role("radiogroup", name="Mask")
    expect(group.get_by_role("radio")).to_have_count(len(MODES) + len(ZOO))
    expect(radio(figure, "no mask")).to_be_checked()
    # The decoder has its own two layers of two heads, trained: no Heads slider, no Trained switch.
    expect(figure.get_by_role("slider", name="Heads")).to_have_count(0)
    expect(figure.get_by_role("switch", name="Trained")).to_have_count(0)
    maps = figure.locator(MAP)
    expect(maps).to_have_count(MAPS)
    expect(maps.locator(".heatmap__title")).to_have_text(
        ["Layer 1, head 1", "Layer 1, head 2", "Layer 2, head 1", "Layer 2, head 2"]
    )
    first = maps.first
    expect(first.locator(".heatmap__cell")).to_have_count(N * N)
    # Both axes are labelled with the tokens, the start token first; every row sums to 1, so no row's sum is
    # written (only a mask that breaks the sums writes them: "after softmax", below).
    expect(first.locator(".heatmap__label")).to_have_count(2 * N)
    assert first.locator(".heatmap__label").all_text_contents()[::2] == DEFAULT_TOKENS
    expect(first.locator(".heatmap__sum")).to_have_count(0)
    expect(first.locator(".heatmap__future")).to_have_count(1)
    expect(figure.locator(".heatmap-axes")).to_contain_text("<s> is the start token")

    # The caption says what is drawn; the note, folded, names the model, from its training record.
    caption = figure.locator("figcaption")
    expect(caption).to_contain_text(
        "the self-attention of a small decoder trained with −∞ "
        f"(figure {number('interview')}'s language model) over your sentence"
    )
    record = page.request.get("/api/lm").json()
    honest = next(m for m in record["models"] if m["mask"] == "neg_inf")
    about = figure.locator(".mask-decoder__about")
    expect(about).to_be_hidden()
    figure.get_by_text("How this was measured").click()
    expect(about).to_be_visible()
    expect(about).to_contain_text(f"{record['layers']} layers × {record['heads']} heads")
    expect(about).to_contain_text(f"validation loss {honest['final_validation']:.2f} in its training record")
    expect(about).to_contain_text(f"It reads {record['vocab_size']:,} word pieces")

    m = meter(figure)
    expect(m).to_have_attribute("aria-valuemin", "0")
    expect(m).to_have_attribute("aria-valuemax", "100")
    assert abs(float(m.get_attribute("aria-valuenow")) - decoder(page, "none")["future_leak"] * 100) < 0.01
    expect(m).to_have_attribute("aria-valuetext", re.compile(r"^\d+% of attention goes to the future$"))
    expect(figure.locator("[data-part=yardstick]")).to_contain_text(f"even attention over n = {N} positions")
    expect(figure.locator("[data-part=yardstick]")).to_contain_text("(n−1)/(2n) = 6/14 = 43%")
    # Each row's share is folded under the meter.
    foot = figure.locator("[data-part=rows-foot]")
    expect(foot).to_be_hidden()
    figure.get_by_text("Each row's share; every mask's leak").click()
    expect(foot).to_contain_text("Mean over the 2 layers × 2 heads (4 maps)")
    expect(figure.locator(".row-leak__item")).to_have_count(N)
    assert row_shares(figure)[-1] == 0  # the last position has nothing after it
    assert query_params(page) == {}


def test_the_three_modes_move_the_meter_and_the_cells_without_a_reload(watched_page):
    page, _ = watched_page
    figure = open_mask_lab(page)
    figure.evaluate("f => { f.querySelector('svg.heatmap').__marker = 1; }")  # survives unless rebuilt
    page.evaluate("window.__sameDocument = true")
    m = meter(figure)
    unmasked = row_shares(figure)
    assert unmasked[0] > 0.1  # trained with −∞, unmasked it still looks ahead

    radio(figure, "−∞").check()
    expect(figure.locator("[data-part=drawing]")).to_have_attribute("data-mask", "neg_inf")
    expect(m).to_have_attribute("aria-valuenow", "0")
    expect(m).to_have_attribute("aria-valuetext", "0% of attention goes to the future")
    expect(figure.locator("[data-part=meter-value]")).to_have_text("0%")
    expect(page).to_have_url(re.compile(r"[?&]mask=neg_inf\b"))
    future = cells(figure, True)
    assert len(future) == MAPS * N * (N - 1) // 2
    assert all(c["weight"] == 0 and c["opacity"] == 0 for c in future), future
    assert all(c["weight"] > 0 and c["opacity"] > 0 for c in cells(figure, False))
    assert row_shares(figure) == [0.0] * N
    expect(figure.locator(".row-leak__value")).to_have_text(["0%"] * N)
    explain = figure.locator("[data-part=explain]")
    expect(explain).to_contain_text("−∞ = 0")
    expect(explain).to_contain_text("exactly 0 in all 4 maps")

    radio(figure, "×0").check()
    expect(figure.locator("[data-part=drawing]")).to_have_attribute("data-mask", "zero")
    expect(m).not_to_have_attribute("aria-valuenow", "0")
    zero = decoder(page, "zero")
    assert float(m.get_attribute("aria-valuenow")) == pytest.approx(mean_future_share(zero) * 100, abs=0.01)
    expect(page).to_have_url(re.compile(r"[?&]mask=zero\b"))
    # Every later position of a row gets the same weight in a map, and it is never 0.
    future = cells(figure, True)
    assert all(c["weight"] > 0 and c["opacity"] > 0 for c in future)
    for key in {(c["map"], c["i"]) for c in future}:
        assert len({c["weight"] for c in future if (c["map"], c["i"]) == key}) == 1, key
    leaky = row_shares(figure)
    assert leaky[0] > 0 and leaky != unmasked
    expect(explain).to_contain_text("0 = 1")
    expect(explain).to_contain_text("the same share")
    expect(figure.locator("td.is-current")).to_have_text(["0", "e0 = 1", "1 / Σ, never 0"])

    radio(figure, "no mask").check()
    expect(figure.locator("[data-part=drawing]")).to_have_attribute("data-mask", "none")
    expect(m).not_to_have_attribute("aria-valuenow", "0")
    assert float(m.get_attribute("aria-valuenow")) > zero["future_leak"] * 100
    assert "mask" not in query_params(page)
    assert row_shares(figure) == unmasked
    expect(explain).to_contain_text("in training, −∞ hid later words, so their scores never counted")
    # The same drawing, restyled: no reload and no rebuild.
    assert page.evaluate("window.__sameDocument") is True
    assert figure.evaluate("f => f.querySelector('svg.heatmap').__marker") == 1
    # A change of mask is animated by CSS (the test page asks for reduced motion, which turns it off).
    assert "fill-opacity" in figure.locator(".heatmap__cell").first.evaluate(
        "c => getComputedStyle(c).transitionProperty"
    )
    expect(figure.locator("[data-part=compare]")).to_contain_text("−∞ 0%")


def test_the_row_shares_and_the_explanation_are_the_decoders_numbers(watched_page):
    """The per-row bars show /api/lm/attention's row_future_shares as they are, and the ×0 explanation takes
    the leakiest row (of a word, not the start token) with its own scores: the largest visible score, the
    row's softmax sum Σ, and 1/Σ, the weight of each later position."""
    page, _ = watched_page
    figure = open_mask_lab(page, "?mask=zero")
    expect(figure.locator("[data-part=drawing]")).to_have_attribute("data-mask", "zero")
    answer = decoder(page, "zero")
    assert row_shares(figure) == answer["row_future_shares"]
    shares = np.array(answer["future_shares"])  # (layers, heads, T)
    rows = [(layer, h, i) for layer in range(2) for h in range(2) for i in range(1, N - 1)]
    layer, h, i = max(rows, key=lambda lhi: shares[lhi])
    token = answer["tokens"][i]
    explain = figure.locator("[data-part=explain]")
    expect(explain).to_contain_text(f"In the row of “{token}” in layer {layer + 1}, head {h + 1}")
    seen = answer["scaled"][layer][h][i][: i + 1]
    later = N - 1 - i
    total = sum(math.exp(s) for s in seen) + later
    each = answer["weights"][layer][h][i][i + 1]
    assert each == pytest.approx(1 / total, rel=1e-12)  # the softmax of the masked row, by hand
    top = max(seen)
    expect(explain).to_contain_text(f"its {i + 1} visible keys score up to {top:.2f}, and e{top:.2f} = ")
    expect(explain).to_contain_text(f" = {num(math.exp(top))}; each of its {later} later positions")
    expect(explain).to_contain_text(f"the row's sum Σ = {num(total)} and gets 1/Σ = {num(each)}")
    expect(explain).to_contain_text(f"would get {later}/{N} = ")


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
    figure = open_mask_lab(page, "?mask=zero&mask_sentence=her+cat+slept+near+the+river", path="/")
    expect(radio(figure, "×0")).to_be_checked()
    expect(figure.get_by_role("textbox", name="Sentence")).to_have_value("her cat slept near the river")
    expect(figure.locator(MAP)).to_have_count(MAPS)
    first = figure.locator(MAP).first
    labels = pieces("her cat slept near the river")  # slept is read in pieces
    assert first.locator(".heatmap__label").all_text_contents()[::2] == labels
    asked = [parse_qs(urlsplit(u).query) for u in watch.api_requests if "/api/lm/attention/masks?" in u]
    assert {"model": ["neg_inf"], "sentence": ["her cat slept near the river"]} in [
        {k: v for k, v in q.items() if k != "v"} for q in asked
    ]
    assert not [u for u in watch.api_requests if "/api/attention?" in u and "mask=zero" in u]
    leak = decoder(page, "zero", "her cat slept near the river")["future_leak"]
    assert float(meter(figure).get_attribute("aria-valuenow")) == pytest.approx(leak * 100, abs=0.01)
    # Figure 1 reads its own keys and keeps its default sentence.
    expect(page.locator("#heads-dial").get_by_role("textbox", name="Sentence")).to_have_value(
        "the river bank was steep"
    )


def test_invalid_url_values_fall_back_to_defaults(watched_page):
    page, _ = watched_page
    figure = open_mask_lab(page, "?mask=maybe")
    expect(radio(figure, "no mask")).to_be_checked()
    expect(figure.locator(MAP)).to_have_count(MAPS)
    expect(figure.get_by_role("textbox", name="Sentence")).to_have_value(DEFAULT_SENTENCE)


def test_typing_a_sentence_redraws_the_heatmaps_and_the_yardstick(watched_page):
    page, _ = watched_page
    figure = open_mask_lab(page)
    radio(figure, "−∞").check()
    expect(meter(figure)).to_have_attribute("aria-valuenow", "0")
    sentence = "the hungry dog followed the horse across the field"
    assert len(pieces(sentence)) == 10  # every word whole
    figure.get_by_role("textbox", name="Sentence").fill(sentence)
    expect(figure.locator(".row-leak__item")).to_have_count(10)
    expect(figure.locator(MAP).first.locator(".heatmap__cell")).to_have_count(100)
    expect(figure.locator("[data-part=yardstick]")).to_contain_text("= 9/20 = 45%")
    expect(meter(figure)).to_have_attribute("aria-valuenow", "0")
    expect(page).to_have_url(re.compile(r"[?&]mask_sentence=the\+hungry\+dog"))


def test_any_word_is_read_in_pieces_and_only_characters_no_piece_spells_are_refused(watched_page):
    page, watch = watched_page
    watch.expected_console.append("status of 422")
    figure = open_mask_lab(page)
    drawing = figure.locator("[data-part=drawing]")
    typed = "my neighbour plays jazz on a zorbophone"
    answer = page.request.get("/api/lm/attention", params={"sentence": typed}).json()
    figure.get_by_role("textbox", name="Sentence").fill(typed)
    first = figure.locator(MAP).first
    expect(first.locator(".heatmap__label")).to_have_count(2 * len(answer["tokens"]))
    split = [w for k, w in enumerate(answer["words"]) if answer["word_index"].count(k) > 1]
    assert "zorbophone" in split
    note = figure.locator("[data-part=pieces]")
    expect(note).to_contain_text("Read in pieces")
    for word in split:
        cut = [
            t
            for t, k in zip(answer["tokens"], answer["word_index"], strict=True)
            if k == answer["words"].index(word)
        ]
        expect(note).to_contain_text(f"“{word}” as {' · '.join(cut)}")

    refused = "the 猫 sat on the mat"
    detail = page.request.get("/api/lm/attention", params={"sentence": refused}).json()["detail"]
    assert detail.endswith("this sentence also has '猫'")
    refused_then_recovered(figure, drawing, refused, detail, "her dog ran near the river")
    # the meter and the panels' numbers belong to the last answer too: they dim with the maps, and come back
    meter_box, panels = figure.locator("[data-part=leak]"), figure.locator("[data-part=panels]")
    figure.get_by_role("textbox", name="Sentence").fill(refused)
    for part in (meter_box, panels):
        expect(part).to_have_class(STALE)
        expect(part).to_have_css("opacity", "0.35")
    figure.get_by_role("textbox", name="Sentence").fill("her dog ran near the river")
    for part in (meter_box, panels):
        expect(part).not_to_have_class(STALE)
    expect(figure.locator(MAP).first.locator(".heatmap__label")).to_have_count(2 * 7)
    expect(note).to_have_text(f"Up to {MAX_WORDS} words.")  # no word in pieces: nothing more to say

    too_long = " ".join(["the"] * (MAX_WORDS + 1))
    detail = page.request.get("/api/lm/attention", params={"sentence": too_long}).json()["detail"]
    assert detail == f"sentence has {MAX_WORDS + 1} words; at most {MAX_WORDS} are allowed"
    refused_then_recovered(figure, drawing, too_long, detail, "the dog slept")


def percent(p: float) -> str:
    """A percentage as the page writes it (mask-lab/numbers.js's formatPercent)."""
    if p == 0:
        return "0%"
    if p < 0.1:
        return "<0.1%"
    return f"{p:.1f}%" if p < 9.95 else f"{math.floor(p + 0.5)}%"


def test_each_bug_of_the_zoo_moves_the_meter_to_its_leak_and_explains_itself(watched_page):
    """Every zoo radio shows /api/lm/attention's future_leak for its mode; next word names the share on the
    next word, hides itself draws its NaN rows, +1 added checks e with this sentence's numbers."""
    page, _ = watched_page
    figure = open_mask_lab(page)
    explain = figure.locator("[data-part=explain]")
    for label, mode in ZOO.items():
        radio(figure, label).check()
        expect(figure.locator("[data-part=drawing]")).to_have_attribute("data-mask", mode)
        expect(page).to_have_url(re.compile(rf"[?&]mask={mode}\b"))
        answer = decoder(page, mode)
        expected = answer["future_leak"] * 100
        value = meter(figure).get_attribute("aria-valuenow")
        assert float(value) == pytest.approx(expected, abs=0.01), (mode, value, expected)
        # The table of what a mask does to a future score gains the chosen bug's column, and only it.
        columns = figure.locator("[data-part=table] thead th:visible")
        expect(columns).to_have_text(["", "no mask", "−∞", "×0", label])
        if mode == "next_word":
            weights = answer["weights"]
            nexts = [m[i][i + 1] for heads in weights for m in heads for i in range(N - 1)]
            expect(explain).to_contain_text(
                f"row i puts {percent(100 * sum(nexts) / len(nexts))} on word i+1"
            )
            expect(explain).to_contain_text("exactly 0 on any word beyond it")
        elif mode == "hides_self":
            nan = sum(len(rows) for heads in answer["nan_rows"] for rows in heads)
            expect(figure.locator(f"{MAP} .heatmap__cell.is-nan")).to_have_count(nan * N)
            expect(explain).to_contain_text("its softmax divides 0 by 0: NaN")
        elif mode == "after_softmax":
            expect(explain).to_contain_text("not 1")
            # Only here are the rows' sums written: a row with later positions has lost their weight.
            sums = figure.locator(f"{MAP} .heatmap__sum")
            expect(sums).to_have_count(MAPS * N)
            first = [float(t) for t in figure.locator(MAP).first.locator(".heatmap__sum").all_text_contents()]
            assert all(t < 1 for t in first[:-1]) and first[-1] == 1, first
        elif mode == "additive":
            expect(explain).to_contain_text("2.718 times as much")
    expect(figure.locator("[data-part=code]")).to_have_text("scores + triu(ones, diagonal=1)")


def test_the_padding_panel_counts_nan_rows_and_the_table_shows_float16_overflow(watched_page):
    page, watch = watched_page
    figure = open_mask_lab(page)
    # The zoo's two panels are folded, and asked for only once the fold is opened.
    assert not [u for u in watch.api_requests if "/api/lm/mask-zoo" in u]
    expect(figure.locator("[data-part=pad-count]")).to_be_hidden()
    figure.get_by_text("Two more bugs: padding, and low precision").click()
    zoo = page.request.get("/api/lm/mask-zoo", params={"sentence": DEFAULT_SENTENCE}).json()
    count = figure.locator("[data-part=pad-count]")
    expect(count).to_have_text(
        f"NaN rows in the batch: {zoo['nan_rows']} of {2 * N} with the softmax · 0 with the safe softmax"
    )
    softmax, safe = figure.locator("[data-part=pad-maps] svg.heatmap").all()
    expect(softmax.locator(".heatmap__cell.is-nan")).to_have_count(zoo["nan_rows"] * N)
    expect(safe.locator(".heatmap__cell.is-nan")).to_have_count(0)
    table = figure.get_by_role("table", name="Finite mask values in low precision")
    cell = table.locator("tr[data-dtype=float16][data-sentinel='−1e9'] td[data-column=stored]")
    expect(cell).to_have_text("−∞")
    expect(
        table.locator("tr[data-dtype=bfloat16][data-sentinel='−1e9'] td[data-column=stored]")
    ).to_have_text("−998\u2009244\u2009352")
    expect(figure.locator("[data-part=precision-explain]")).to_contain_text(
        "−1e9 is already −∞ once float16 stores it"
    )


def leak_by_zero_fill(figure: Locator) -> None:
    """Choose the ×0 mask and wait for the meter to show its leak."""
    expect(radio(figure, "×0")).to_be_visible()
    radio(figure, "×0").check()
    expect(meter(figure)).not_to_have_attribute("aria-valuenow", "0")


LONGEST = (  # MAX_WORDS words, some in pieces
    "the hungry brown wolf followed the young goose across the sandy meadow near the barn because it "
    "wanted a snack before the long winter"
)


def type_the_longest_sentence(figure: Locator) -> None:
    figure.get_by_role("textbox", name="Sentence").fill(LONGEST)
    assert len(LONGEST.split()) == MAX_WORDS
    expect(figure.locator(".row-leak__item")).to_have_count(len(pieces(LONGEST)))


def test_on_a_phone_each_heatmap_takes_the_full_width_writes_its_weights_and_nothing_scrolls(phone_page):
    page, _ = phone_page
    figure = open_mask_lab(page)
    drawing = figure.locator("[data-part=drawing]").evaluate("d => d.clientWidth")
    maps = figure.locator(MAP)
    expect(maps).to_have_count(MAPS)
    boxes = [maps.nth(k).bounding_box() for k in range(MAPS)]
    assert all(b and b["width"] >= 0.75 * drawing for b in boxes)  # not two at half the width
    assert len({round(b["x"]) for b in boxes if b}) == 1  # one under the other
    values = maps.first.locator(".heatmap__value").all_text_contents()
    assert len(values) == N**2 and all(values)
    assert sideways_scroll(page) <= 0
    leak_by_zero_fill(figure)
    type_the_longest_sentence(figure)
    assert sideways_scroll(page) <= 0


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
    type_the_longest_sentence(figure)
    shots.take(figure, "mask-lab-phone-long")


def test_beside_a_leaky_mask_the_meter_shows_what_a_decoder_trained_with_it_does(watched_page) -> None:
    """×0 on the −∞ decoder leaks a little; the interview's decoder trained with ×0 has learnt to read the
    leak: the line under the meter gives its future leak on the same sentence, at the dotted mark."""
    page, _ = watched_page
    figure = open_mask_lab(page)
    sentence = figure.get_by_role("textbox", name="Sentence").input_value()
    line, mark = figure.locator("[data-part=learned]"), figure.locator("[data-part=meter-learned]")
    for name, mask in (("×0", "zero"), ("no mask", "none")):
        radio(figure, name).check()
        learned = page.request.get("/api/lm/attention", params={"model": mask, "sentence": sentence}).json()
        on_this = page.request.get(
            "/api/lm/attention", params={"model": "neg_inf", "mask": mask, "sentence": sentence}
        ).json()
        if mask == "zero":  # ×0 gives the −∞ decoder a mild leak; the one trained with it uses far more
            assert learned["future_leak"] > on_this["future_leak"]
        expect(line).to_contain_text(f"trained with {name} (figure {number('interview')})")
        said = percent(learned["future_leak"] * 100)
        expect(line).to_contain_text(f"reads the leak: {said} of its attention")
        expect(mark).to_be_visible()
        share = float(mark.evaluate("(el) => getComputedStyle(el).getPropertyValue('--share')"))
        assert share == pytest.approx(learned["future_leak"], abs=1e-4)
    radio(figure, "−∞").check()
    expect(line).to_contain_text("trained with −∞")
    expect(mark).to_be_hidden()
    radio(figure, "transposed").check()
    expect(line).to_contain_text("No decoder was trained with this bug")
    expect(mark).to_be_hidden()


def test_on_a_phone_the_mask_radios_and_the_leak_stay_in_view_of_the_maps(phone_page):
    """Scrolled down to the last heatmap, the radios are still on screen with the leak they give; a change
    made there shows in the maps below it. On a wide screen the radios stay where they are."""
    page, _ = phone_page
    figure = open_mask_lab(page)
    leak_by_zero_fill(figure)
    figure.locator(MAP).last.scroll_into_view_if_needed()
    no_mask = radio(figure, "no mask")
    top = no_mask.bounding_box()
    assert top is not None and 0 <= top["y"] <= page.viewport_size["height"] / 4
    dock = figure.locator("[data-part=dock-leak]")
    expect(dock).to_be_visible()
    expect(dock).to_have_text(f"· future leak {figure.locator('[data-part=meter-value]').inner_text()}")
    last_map = figure.locator(MAP).last.bounding_box()
    assert last_map is not None and last_map["y"] < page.viewport_size["height"]  # both in view at once
    radio(figure, "−∞").check()
    expect(dock).to_have_text("· future leak 0%")
    page.set_viewport_size({"width": 1280, "height": 900})
    expect(dock).to_be_hidden()
