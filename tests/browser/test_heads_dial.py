"""Figure 1, the heads dial, driven in real Chromium through its accessible names."""

from __future__ import annotations

import json
import math
import re
from urllib.parse import parse_qs, urlsplit

import pytest
from playwright.sync_api import Locator, Page, expect

from tests.browser.pages import query_params, refused_then_recovered, sideways_scroll, texts_of, too_small

DEFAULT_TOKENS = ["the", "river", "bank", "was", "steep"]
# lanes-view.js: an arc under WEAK is faint in wide lanes (WEAK_OPACITY) and absent from small ones
WEAK, WEAK_OPACITY = 0.1, 0.12


def open_dial(page: Page, query: str = "") -> Locator:
    """Open figure 1's own page (with `query`) and wait for its first drawing; the figure's locator."""
    page.goto(f"/figure/heads-dial{query}")
    figure = page.locator("figure#heads-dial")
    expect(figure.locator("[data-part=drawing] svg").first).to_be_visible()
    return figure


def drawn_tokens(figure: Locator) -> Locator:
    """The words of the first lane (every lane shows the sentence; the first lane's are keyboard stops)."""
    return figure.locator(".lane[data-head='0'] .token__text")


def lanes(figure: Locator) -> Locator:
    """The lanes, one per head, by their accessible names ("Head 2 serves meaning (scores: …)")."""
    return figure.get_by_role("group", name=re.compile(r"^Head \d+ "))


def lane_opacities(figure: Locator) -> list[float]:
    return figure.evaluate("f => [...f.querySelectorAll('.lane')].map(g => +g.getAttribute('opacity'))")


def arc_opacities(figure: Locator) -> list[dict]:
    return figure.evaluate(
        "f => [...f.querySelectorAll('.arc')].map(a => ({head: +a.dataset.head, query: +a.dataset.query,"
        " weight: +a.dataset.weight, opacity: +a.getAttribute('opacity')}))"
    )


def attention(page: Page, heads: int, trained: bool = True, sentence: str = " ".join(DEFAULT_TOKENS)) -> dict:
    params = {"sentence": sentence, "heads": heads, "mask": "none", "trained": str(trained).lower()}
    answer = page.request.get("/api/attention", params=params)
    assert answer.ok
    return answer.json()


def page_data(page: Page) -> dict:
    """The page data the server rendered into the page (app/routes/pages.py article_data)."""
    return json.loads(page.locator("#page-data").text_content())


def valid_heads(page: Page) -> list[int]:
    """The served layer's head counts, as its answer states them (never a copied list)."""
    return attention(page, 1)["valid_heads"]


def chips(figure: Locator) -> Locator:
    return figure.get_by_role("button", name=re.compile(r"^Head \d+$"))


def chip(figure: Locator, k: int) -> Locator:
    return figure.get_by_role("button", name=f"Head {k}", exact=True)


def test_default_view_draws_five_tokens_and_three_heads(watched_page):
    page, _ = watched_page
    figure = open_dial(page)
    d_model = attention(page, 3)["d_model"]
    expect(figure.get_by_role("textbox", name="Sentence")).to_have_value("the river bank was steep")
    slider = figure.get_by_role("slider", name="Heads")
    expect(slider).to_have_attribute("aria-valuetext", "3 heads")
    expect(figure.locator("output")).to_have_text(f"3 heads × {d_model // 3} wide")
    expect(figure.locator("figcaption")).to_contain_text(f"one layer of width {d_model},")
    expect(figure.get_by_role("switch", name="Trained")).to_be_checked()
    expect(drawn_tokens(figure)).to_have_text(DEFAULT_TOKENS)
    expect(chips(figure)).to_have_count(3)
    expect(lanes(figure)).to_have_count(3)
    expect(figure.locator("[data-part=drawing]")).to_have_attribute("data-mode", "lanes")
    for k in (1, 2, 3):
        expect(chip(figure, k)).to_have_attribute("aria-pressed", "false")
    # The relation scores: each relation names a head and a score, and meaning pairs bank with river.
    expect(figure.locator(".relation")).to_have_count(3)
    meaning = figure.locator(".relation[data-relation=meaning]")
    expect(meaning.locator(".relation__targets")).to_contain_text("bank → river")
    expect(figure.locator(".relation__score").first).to_have_text(re.compile(r"^\d\.\d\d$"))
    # The capacity curve is drawn with the current head count marked.
    expect(figure.locator(".capacity .chart__dot")).to_have_count(len(page_data(page)["capacity"]["heads"]))
    expect(figure.locator(".capacity .chart__label")).to_contain_text("3 heads")
    assert page.evaluate("performance.getEntriesByName('heads-dial:redraw').length") >= 1
    assert query_params(page) == {}


def test_dial_moves_with_the_keyboard(watched_page):
    page, _ = watched_page
    figure = open_dial(page)
    answer = attention(page, 1)
    d_model, most = answer["d_model"], max(answer["valid_heads"])
    assert most == d_model  # the narrowest heads are one number wide
    slider = figure.get_by_role("slider", name="Heads")
    slider.focus()
    page.keyboard.press("ArrowRight")
    expect(slider).to_have_attribute("aria-valuetext", "4 heads")
    expect(figure.locator("output")).to_have_text(f"4 heads × {d_model // 4} wide")
    expect(chips(figure)).to_have_count(4)
    expect(page).to_have_url(re.compile(r"[?&]heads=4\b"))
    expect(lanes(figure)).to_have_count(4)

    page.keyboard.press("End")
    expect(slider).to_have_attribute("aria-valuetext", f"{most} heads")
    expect(chips(figure)).to_have_count(most)
    expect(page).to_have_url(re.compile(rf"[?&]heads={most}\b"))
    expect(lanes(figure)).to_have_count(most)

    page.keyboard.press("Home")
    expect(chips(figure)).to_have_count(1)
    expect(figure.locator("output")).to_have_text(f"1 head × {d_model} wide")
    expect(lanes(figure)).to_have_count(1)
    assert query_params(page)["heads"] == "1"


def test_every_head_count_is_prefetched_so_the_dial_never_waits(watched_page):
    page, watch = watched_page
    figure = open_dial(page)
    counts = page_data(page)["validHeads"]
    page.wait_for_function(
        "(n) => performance.getEntriesByType('resource')"
        ".filter(e => e.name.includes('/api/attention')).length >= n",
        arg=len(counts),
    )
    page.wait_for_load_state("networkidle")
    before = len(watch.api_requests)
    slider = figure.get_by_role("slider", name="Heads")
    slider.focus()
    for _ in counts:
        page.keyboard.press("ArrowRight")
    page.keyboard.press("Home")
    expect(chips(figure)).to_have_count(1)
    assert len(watch.api_requests) == before, watch.api_requests[before:]


def test_head_chip_isolates_a_lane_by_attributes_only(watched_page):
    page, _ = watched_page
    figure = open_dial(page)
    figure.evaluate("f => { f.querySelector('.arc').__marker = 1; }")  # survives unless the DOM is rebuilt
    head2 = chip(figure, 2)
    head2.click()
    expect(head2).to_have_attribute("aria-pressed", "true")
    for k in (1, 3):
        expect(chip(figure, k)).to_have_attribute("aria-pressed", "false")
    expect(page).to_have_url(re.compile(r"[?&]head=2\b"))
    # Head 2's lane stays, the other lanes fade; the arcs themselves keep their weights' opacities.
    assert lane_opacities(figure) == [0.2, 1.0, 0.2]
    assert all(a["opacity"] >= WEAK_OPACITY for a in arc_opacities(figure))
    assert figure.evaluate("f => f.querySelector('.arc').__marker") == 1

    head2.click()
    expect(head2).to_have_attribute("aria-pressed", "false")
    assert lane_opacities(figure) == [1.0, 1.0, 1.0]
    assert "head" not in query_params(page)
    assert figure.evaluate("f => f.querySelector('.arc').__marker") == 1


def test_focusing_a_token_shows_its_arcs_alone(watched_page):
    page, _ = watched_page
    figure = open_dial(page)
    bank = figure.locator(".lane[data-head='0'] .token[data-index='2']")
    expect(bank).to_have_attribute("tabindex", "0")
    expect(bank).to_have_attribute("aria-label", re.compile(r"^bank, word 3 of 5"))
    bank.focus()
    arcs = arc_opacities(figure)
    assert any(a["query"] == 2 and a["opacity"] > 0 for a in arcs)
    assert all(a["opacity"] == 0 for a in arcs if a["query"] != 2)
    page.keyboard.press("Tab")  # on to the next word: its arcs now
    arcs = arc_opacities(figure)
    assert all(a["opacity"] == 0 for a in arcs if a["query"] != 3)
    figure.get_by_role("textbox", name="Sentence").focus()
    assert all(a["opacity"] > 0 for a in arc_opacities(figure))


def test_typing_a_sentence_redraws_and_updates_the_url(watched_page):
    page, _ = watched_page
    figure = open_dial(page)
    sentence = figure.get_by_role("textbox", name="Sentence")
    sentence.fill("the farmer sold the horse")
    expect(drawn_tokens(figure)).to_have_text(["the", "farmer", "sold", "the", "horse"])
    expect(page).to_have_url(re.compile(r"[?&]sentence=the\+farmer\+sold\+the\+horse\b"))
    assert page.evaluate("window.__busySeen")  # the figure said it was computing


def test_unknown_word_is_drawn_as_unknown_and_named_in_the_key(watched_page):
    page, _ = watched_page
    figure = open_dial(page)
    key = figure.get_by_role("list", name="Key to the drawing")
    expect(key).not_to_contain_text("not in the lexicon")
    figure.get_by_role("textbox", name="Sentence").fill("the river bank was zorbly")
    expect(drawn_tokens(figure)).to_have_text(["the", "river", "bank", "was", "zorbly"])
    unknown = figure.locator(".lane[data-head='0'] .token[data-index='4']")
    expect(unknown).to_have_attribute("data-known", "false")
    expect(unknown).to_have_class(re.compile(r"\btoken--unknown\b"))
    expect(unknown.locator("title")).to_have_text("not in the lexicon")
    expect(unknown).to_have_attribute("aria-label", re.compile(r"not in the lexicon"))
    expect(figure.locator(".lane[data-head='0'] .token--unknown")).to_have_count(1)
    # The key says so in visible text, naming the word.
    expect(key.get_by_role("listitem").filter(has_text="not in the lexicon")).to_have_text(
        "not in the lexicon: zorbly"
    )


def test_url_state_is_restored(watched_page):
    page, watch = watched_page
    figure = open_dial(page, "?sentence=the+dog+ate+the+bone&heads=6&head=2&trained=0")
    expect(figure.get_by_role("textbox", name="Sentence")).to_have_value("the dog ate the bone")
    expect(figure.get_by_role("slider", name="Heads")).to_have_attribute("aria-valuetext", "6 heads")
    expect(figure.get_by_role("switch", name="Trained")).not_to_be_checked()
    expect(chips(figure)).to_have_count(6)
    expect(chip(figure, 2)).to_have_attribute("aria-pressed", "true")
    expect(drawn_tokens(figure)).to_have_text(["the", "dog", "ate", "the", "bone"])
    first = parse_qs(urlsplit(watch.api_requests[0]).query)
    assert first["heads"] == ["6"] and first["trained"] == ["false"]
    assert lane_opacities(figure) == [0.2, 1.0, 0.2, 0.2, 0.2, 0.2]


def test_invalid_url_values_fall_back_to_defaults(watched_page):
    page, _ = watched_page
    figure = open_dial(page, "?heads=5&head=9&trained=maybe&sentence=")
    expect(figure.get_by_role("slider", name="Heads")).to_have_attribute("aria-valuetext", "3 heads")
    expect(figure.get_by_role("switch", name="Trained")).to_be_checked()
    expect(drawn_tokens(figure)).to_have_text(DEFAULT_TOKENS)
    expect(figure.locator("button[aria-pressed=true]")).to_have_count(0)


def test_too_long_sentence_shows_the_server_error_then_recovers(watched_page):
    page, watch = watched_page
    watch.expected_console.append("status of 422")
    figure = open_dial(page)
    long_sentence = " ".join(["bank"] * 65)
    answer = page.request.get("/api/attention", params={"sentence": long_sentence, "heads": 3})
    assert answer.status == 422
    detail = answer.json()["detail"]
    assert "65" in detail
    drawing = figure.locator("[data-part=drawing]")
    refused_then_recovered(figure, drawing, long_sentence, detail, "the river bank was steep and wide")
    expect(drawn_tokens(figure)).to_have_count(7)


def test_thirty_tokens_draw_a_heatmap_per_head(watched_page):
    page, _ = watched_page
    figure = open_dial(page)
    words = ("the old farmer saw the river bank and the boat near the house " * 3).split()[:30]
    figure.get_by_role("textbox", name="Sentence").fill(" ".join(words))
    drawing = figure.locator("[data-part=drawing]")
    expect(drawing).to_have_attribute("data-mode", "heatmap")
    expect(figure.locator("svg.heatmap")).to_have_count(3)
    expect(figure.locator(".lanes")).to_have_count(0)
    hint = "Point at or tab to a word for its row alone, a relation for its pairs."
    expect(figure.get_by_text(hint)).to_be_visible()
    first = figure.locator("svg.heatmap").first
    expect(first.locator(".heatmap__title")).to_have_text("Head 1")
    # Each grid says what its head does, from the answer's scores.
    answer = attention(page, 3, sentence=" ".join(words))
    expect(first.locator(".lane__verdict")).to_have_text(re.compile(r"^(serves|torn|leans|no )"))
    # A relation's target cells are outlined in every grid only while the reader points at the relation.
    outlined_js = (
        "svg => [...svg.querySelectorAll('.heatmap__target')]"
        ".filter(r => r.getAttribute('visibility') !== 'hidden')"
        ".map(r => [r.dataset.relation, +r.dataset.query, +r.dataset.key])"
    )
    assert first.evaluate(outlined_js) == []
    key = figure.get_by_role("list", name="Key to the drawing")
    for relation in ("grammar", "position"):
        key.get_by_role("button", name=relation, exact=True).hover()
        pairs = next(r["targets"] for r in answer["relations"] if r["name"] == relation)
        targets = {(relation, i, j) for i, j in pairs}
        assert targets and {tuple(t) for t in first.evaluate(outlined_js)} == targets
    page.mouse.move(0, 0)
    assert first.evaluate(outlined_js) == []
    # Rows and columns are labelled at 11 px or more, every k-th when the cells are small, never overlapping.
    labels = first.evaluate(
        """svg => [...svg.querySelectorAll('.heatmap__label')].map(t => {
             const b = t.getBoundingClientRect();
             return {px: parseFloat(getComputedStyle(t).fontSize) * svg.getScreenCTM().a,
                     rotated: t.hasAttribute('transform'), x: +t.getAttribute('x') * svg.getScreenCTM().a,
                     top: b.top, bottom: b.bottom}; })"""
    )
    assert min(label["px"] for label in labels) >= 11 - 0.01
    rows = sorted((label for label in labels if not label["rotated"]), key=lambda label: label["top"])
    columns = sorted(label["x"] for label in labels if label["rotated"])
    assert len(rows) == len(columns) >= 10
    for a, b in zip(rows, rows[1:], strict=False):
        assert a["bottom"] <= b["top"] + 0.5  # no two row labels overlap
    for a, b in zip(columns, columns[1:], strict=False):
        assert (b - a) * math.sin(math.radians(50)) >= 11  # slanted at 50°: a label's height apart, at least
    expect(figure.locator(".token-strip .token")).to_have_count(30)
    chip(figure, 3).click()
    expect(figure.locator("svg.heatmap[data-head='0']")).to_have_attribute("opacity", "0.25")
    expect(figure.locator("svg.heatmap[data-head='2']")).to_have_attribute("opacity", "1")


def test_trained_switch_fetches_the_untrained_heads(watched_page):
    page, _ = watched_page
    figure = open_dial(page)

    def signature() -> list[str]:
        return figure.evaluate(
            "f => [...f.querySelectorAll('.arc')].map(a => a.getAttribute('d') + a.dataset.weight)"
        )

    trained_arcs = signature()
    switch = figure.get_by_role("switch", name="Trained")
    switch.click()
    expect(switch).not_to_be_checked()
    expect(page).to_have_url(re.compile(r"[?&]trained=0\b"))
    page.wait_for_function(
        "(before) => { const a = document.querySelector('#heads-dial .arc');"
        " return !a || a.getAttribute('d') + a.dataset.weight !== before; }",
        arg=trained_arcs[0],
    )
    assert signature() != trained_arcs
    switch.press("Space")
    expect(switch).to_be_checked()
    assert "trained" not in query_params(page)
    page.wait_for_function(
        "(n) => document.querySelectorAll('#heads-dial .arc').length === n", arg=len(trained_arcs)
    )
    assert signature() == trained_arcs


def test_no_console_errors_csp_violations_or_foreign_requests(watched_page):
    page, watch = watched_page
    figure = open_dial(page)
    figure.get_by_role("slider", name="Heads").focus()
    page.keyboard.press("ArrowLeft")
    chip(figure, 2).click()
    figure.get_by_role("switch", name="Trained").click()
    figure.get_by_role("textbox", name="Sentence").fill("a bat flew over the cave")
    expect(drawn_tokens(figure)).to_have_count(6)
    page.wait_for_load_state("networkidle")
    assert watch.console_errors == []
    assert watch.page_errors == []
    assert page.evaluate("window.__csp") == []
    assert watch.foreign_requests == []
    hosts = {urlsplit(u).hostname for u in watch.api_requests}
    assert hosts == {"127.0.0.1"}


def dial_to_the_end(page: Page, figure: Locator, key: str, chip_count: int) -> None:
    """Press Home or End on the Heads dial and wait for the head chips of its fewest or most heads."""
    figure.get_by_role("slider", name="Heads").focus()
    page.keyboard.press(key)
    expect(chips(figure)).to_have_count(chip_count)


def draw_heatmaps(figure: Locator) -> None:
    """Type a 20-word sentence, long enough for heatmaps instead of arcs."""
    figure.get_by_role("textbox", name="Sentence").fill(" ".join(["the river bank was steep"] * 4))
    expect(figure.locator("[data-part=drawing]")).to_have_attribute("data-mode", "heatmap")


@pytest.mark.screenshots
def test_phone_and_desktop_screenshots(shots):
    phone = shots.phone
    figure = open_dial(phone)
    figure.scroll_into_view_if_needed()
    shots.take(figure, "heads-dial-phone")
    shots.take(phone, "article-phone", full_page=True)
    dial_to_the_end(phone, figure, "End", max(valid_heads(phone)))
    draw_heatmaps(figure)
    shots.take(figure, "heads-dial-phone-heatmap")

    page = shots.desktop
    figure = open_dial(page)
    page.wait_for_load_state("networkidle")
    shots.take(figure, "heads-dial-desktop")
    shots.take(page, "article-desktop", full_page=True)
    dial_to_the_end(page, figure, "Home", 1)
    shots.take(figure, "heads-dial-desktop-1-head")


def test_a_borrowed_score_is_explained(watched_page):
    """At one head, position's pairs bank → river and was → bank are also meaning and grammar pairs, so its
    score borrows from them; when the server finds a score borrowed, the figure names the shared pairs and
    gives the best head's score on the relation's own pairs (the server's number, not the page's)."""
    page, _ = watched_page
    for heads in (1, 3):
        figure = open_dial(page, f"?heads={heads}")
        answer = attention(page, heads)
        tokens = answer["tokens"]
        for relation in answer["relations"]:
            item = figure.locator(f".relation[data-relation={relation['name']}]")
            note = item.locator(".relation__shared")
            if not relation["borrowed"]:
                expect(note).to_have_count(0)
                continue
            for shared in relation["shared_pairs"]:
                i, j = shared["pair"]
                expect(note).to_contain_text(f"{tokens[i]} → {tokens[j]} (also {shared['also']})")
            own = len(relation["targets"]) - len(relation["shared_pairs"])
            expect(note).to_contain_text(f"On its {own} own pair{'s' if own != 1 else ''} alone")
            said = float(re.search(r"alone, Head \d+ scores (\d\.\d\d)", note.text_content()).group(1))
            assert said == round(relation["own_score"], 2)
            expect(item.locator(".relation__score")).to_have_text(f"{relation['score']:.2f}")
    position = next(r for r in attention(page, 1)["relations"] if r["name"] == "position")
    shared = {tuple(s["pair"]) for s in position["shared_pairs"]}
    assert shared >= {(2, 1), (3, 2)}  # bank → river, was → bank


# ---- the lanes: the story at a glance -----------------------------------------------------------------


def lane_verdicts(figure: Locator) -> list[str]:
    return figure.locator(".lane .lane__verdict").all_text_contents()


def head_scores(answer: dict, k: int) -> dict[str, float]:
    """Head k's score on each relation that has pairs in the sentence (the answer's own numbers)."""
    return {r["name"]: r["head_scores"][k] for r in answer["relations"] if r["head_scores"] is not None}


def and_list(words: list[str]) -> str:
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} and {words[-1]}"


def verdict_line(answer: dict, k: int) -> str:
    """How a wide lane words head k's verdict (the answer's `verdicts[k]`) with the scores it rests on."""
    verdict, scores = answer["verdicts"][k], head_scores(answer, k)
    names = verdict["relations"]
    numbers = ", ".join(f"{scores[r]:.2f}" for r in names)
    if verdict["kind"] in ("serves", "shares"):
        return f"serves {and_list(names)} · {numbers}"
    if verdict["kind"] == "torn":
        return f"torn between {and_list(names)} · {numbers}"
    if verdict["kind"] == "leans":
        return f"leans to {names[0]} · {numbers}"
    return f"no clear job · at most {max(scores.values()):.2f}"


def test_each_lane_shows_the_servers_verdict(watched_page):
    """The page judges nothing: each lane's verdict is the answer's `verdicts[k]`, worded, with its scores."""
    page, _ = watched_page
    most = max(valid_heads(page))
    for heads in (1, 3, most):
        figure = open_dial(page, f"?heads={heads}")
        expect(lanes(figure)).to_have_count(heads)
        answer = attention(page, heads)
        assert len(answer["verdicts"]) == heads
        shown = figure.evaluate(
            "f => [...f.querySelectorAll('.lane')].map(g => [g.dataset.verdict, g.dataset.relations,"
            " g.querySelector('.lane__verdict').textContent])"
        )
        for k, (kind, relations, text) in enumerate(shown):
            verdict = answer["verdicts"][k]
            assert (kind, relations) == (verdict["kind"], " ".join(verdict["relations"])), k
            if heads <= 3:  # wide lanes have room for the whole line
                assert text == verdict_line(answer, k), k
            else:  # small lanes may shorten the words, never drop the kind or the top number
                assert text.split(" ")[0] == verdict_line(answer, k).split(" ")[0], (k, text)
                assert re.search(r"\d\.\d\d", text), (k, text)


@pytest.mark.parametrize("heads", [1, 3, "most"])
def test_one_lane_per_head_and_the_story_of_them_all(watched_page, heads):
    page, _ = watched_page
    heads = max(valid_heads(page)) if heads == "most" else heads
    figure = open_dial(page, f"?heads={heads}")
    expect(lanes(figure)).to_have_count(heads)
    answer = attention(page, heads)
    verdicts = lane_verdicts(figure)
    assert len(verdicts) == heads
    expect(figure.locator(".lane__bar")).to_have_count(0)  # no bar glyph: the verdict line carries the scores
    for k in range(heads):
        expect(lanes(figure).nth(k)).to_have_accessible_name(re.compile(rf"^Head {k + 1} "))
    story = figure.locator("[data-part=story]")
    if heads == 1:
        words = verdict_line(answer, 0).split(" · ")[0]
        expect(story).to_have_text(re.compile(rf"^The one head (is |only )?{re.escape(words)}\."))
    if heads == 3:
        present = sorted(head_scores(answer, 0))
        assert sorted(answer["own_heads"]) == present  # the server names each relation's own head, or null
        if all(answer["own_heads"][r] is not None for r in present):
            expect(story).to_contain_text("Each relation has a head of its own: ")
            for relation, k in answer["own_heads"].items():
                expect(story).to_contain_text(re.compile(rf"Head {k + 1} (serves )?{relation}"))
        else:
            expect(story).not_to_contain_text("has a head of its own")
    if heads > 3:
        expect(story).to_contain_text(f"Of the {heads} heads")


def test_untrained_heads_spread_evenly(watched_page):
    page, _ = watched_page
    figure = open_dial(page, "?trained=0")
    answer = attention(page, 3, trained=False)
    assert [line.split(" · ")[0] for line in lane_verdicts(figure)] == [
        verdict_line(answer, k).split(" · ")[0] for k in range(3)
    ]
    # A word whose row is nearly uniform is not said to look "most" at anything.
    bank = figure.locator(".lane[data-head='0'] .token[data-index='2']")
    n = len(answer["tokens"])
    for k in range(3):
        assert max(answer["weights"][k][2]) - 1 / n < 0.05
    expect(bank).to_have_attribute("aria-label", re.compile(r"head 1 spreads its weight evenly"))
    expect(bank).not_to_have_attribute("aria-label", re.compile(r"looks most at"))
    try_line = figure.locator("[data-part=try]")
    expect(try_line).to_have_text("Try: switch Trained back on and compare the lanes.")


def visible_ghosts(figure: Locator) -> set[tuple[int, str, int, int]]:
    """The wanted pairs drawn now: (head, relation, i, j)."""
    return {
        tuple(g)
        for g in figure.evaluate(
            "f => [...f.querySelectorAll('.lane__ghost')]"
            ".filter(g => g.getAttribute('visibility') !== 'hidden' && g.checkVisibility())"
            ".map(g => [+g.closest('.lane').dataset.head, g.dataset.relation,"
            " +g.dataset.query, +g.dataset.key])"
        )
    }


def wanted(answer: dict, relation: str) -> set[tuple[int, str, int, int]]:
    """Relation `relation`'s pairs, in every lane."""
    pairs = next(r["targets"] for r in answer["relations"] if r["name"] == relation)
    return {(k, relation, i, j) for k in range(answer["heads"]) for i, j in pairs}


def test_no_ghost_until_a_relation_is_pointed_at_or_focused(watched_page):
    page, _ = watched_page
    figure = open_dial(page)
    answer = attention(page, 3)
    assert figure.locator(".lane__ghost").count() > 0
    assert visible_ghosts(figure) == set()
    key = figure.get_by_role("list", name="Key to the drawing")
    # Pointing at a relation's entry in the key draws its pairs (only its) in every lane; leaving hides them.
    for relation in ("meaning", "grammar", "position"):
        key.get_by_role("button", name=relation, exact=True).hover()
        assert visible_ghosts(figure) == wanted(answer, relation)
        page.mouse.move(0, 0)
        assert visible_ghosts(figure) == set()
    # The keyboard: focus shows, Escape hides, focus moving on to the next entry shows that one, blur hides.
    grammar = key.get_by_role("button", name="grammar", exact=True)
    grammar.focus()
    expect(grammar).to_be_focused()
    assert visible_ghosts(figure) == wanted(answer, "grammar")
    page.keyboard.press("Escape")
    assert visible_ghosts(figure) == set()
    page.keyboard.press("Tab")
    expect(key.get_by_role("button", name="position", exact=True)).to_be_focused()
    assert visible_ghosts(figure) == wanted(answer, "position")
    figure.get_by_role("textbox", name="Sentence").focus()
    assert visible_ghosts(figure) == set()
    # The relation's item in the list under the drawing does the same.
    item = figure.locator(".relation[data-relation=meaning]")
    item.hover()
    assert visible_ghosts(figure) == wanted(answer, "meaning")
    expect(item).to_have_class(re.compile(r"\bis-showing\b"))
    page.mouse.move(0, 0)
    assert visible_ghosts(figure) == set()
    item.get_by_role("button", name="Meaning").focus()
    assert visible_ghosts(figure) == wanted(answer, "meaning")


def test_an_arc_has_one_colour_chosen_by_the_heads_verdict(watched_page):
    """One stroke per arc: a pair several relations claim takes the colour of the relation the head's verdict
    serves, when it is among them, else the first claimant's (meaning, grammar, position); grey for none."""
    page, _ = watched_page
    order = ["meaning", "grammar", "position"]
    for heads in (1, 3):
        figure = open_dial(page, f"?heads={heads}")
        answer = attention(page, heads)
        colour = figure.evaluate(
            "f => Object.fromEntries([...f.querySelectorAll('.dial-legend__relation')]"
            ".map(b => [b.dataset.relation, b.querySelector('path').getAttribute('stroke')]))"
        )
        assert len(set(colour.values())) == 3
        claims: dict[tuple[int, int], list[str]] = {}
        for r in answer["relations"]:
            for i, j in r["targets"]:
                claims.setdefault((i, j), []).append(r["name"])
        arcs = figure.locator(".lane .arc").evaluate_all(
            "els => els.map(a => [+a.dataset.head, +a.dataset.query, +a.dataset.key,"
            " a.getAttribute('stroke'), a.dataset.relation])"
        )
        assert arcs and len({(k, i, j) for k, i, j, _, _ in arcs}) == len(arcs)  # one stroke per arc
        assert figure.locator(".arc--second").count() == 0
        grey = set()
        for k, i, j, stroke, relation in arcs:
            names = sorted(claims.get((i, j), []), key=order.index)
            verdict = answer["verdicts"][k]
            serving = verdict["kind"] in ("serves", "shares")
            served = [r for r in verdict["relations"] if r in names] if serving else []
            expected = served[0] if served else names[0] if names else None
            assert relation == (expected or "none"), (k, i, j)
            if expected:
                assert stroke == colour[expected], (k, i, j)
            else:
                grey.add(stroke)
        assert len(grey) <= 1 and not grey & set(colour.values())


def test_weak_arcs_are_faint_in_wide_lanes_and_left_out_of_small_ones(watched_page):
    page, _ = watched_page
    figure = open_dial(page, "?heads=1")
    arcs = arc_opacities(figure)
    assert all(a["opacity"] == WEAK_OPACITY for a in arcs if a["weight"] < WEAK)
    assert all(a["opacity"] > 0.3 for a in arcs if a["weight"] >= WEAK)
    most = max(valid_heads(page))
    figure = open_dial(page, f"?heads={most}")
    expect(lanes(figure)).to_have_count(most)
    assert all(a["weight"] >= WEAK for a in arc_opacities(figure))


def test_hovering_a_word_shows_only_its_arcs_in_every_lane(watched_page):
    page, _ = watched_page
    figure = open_dial(page)
    hint = figure.locator("[data-part=hint]")
    expect(hint).to_have_text("Point at or tab to a word for its arcs alone, a relation for its pairs.")
    # Point at "bank" in the second lane: every lane shows bank's arcs alone.
    figure.locator(".lane[data-head='1'] .token[data-index='2']").hover()
    arcs = arc_opacities(figure)
    assert {a["head"] for a in arcs if a["query"] == 2 and a["opacity"] > 0} == {0, 1, 2}
    assert all(a["opacity"] == 0 for a in arcs if a["query"] != 2)
    assert visible_ghosts(figure) == set()
    expect(figure.locator(".lane .token.is-focus")).to_have_count(3)
    page.mouse.move(0, 0)
    assert all(a["opacity"] > 0 for a in arc_opacities(figure))


def meaning_pair(answer: dict) -> str | None:
    """The sentence's first meaning pair as the caption names it: "river ↔ bank" when the two point at each
    other, else "bat → cave"; None when it has none."""
    targets = next(r["targets"] for r in answer["relations"] if r["name"] == "meaning")
    if not targets:
        return None
    (i, j), tokens = targets[0], answer["tokens"]
    return f"{tokens[i]} {'↔' if [j, i] in targets else '→'} {tokens[j]}"


def test_the_caption_says_what_to_try_on_the_readers_sentence(watched_page):
    page, _ = watched_page
    figure = open_dial(page)
    line = figure.locator("figcaption [data-part=try]")
    expect(line).to_have_text(re.compile(r"^Try: drag Heads down to 1, where the one head "))
    one = attention(page, 1)
    # What the one head does to the sentence's meaning pair: serves it alone, or what it does instead.
    expect(line).to_contain_text(meaning_pair(one))
    if one["verdicts"][0] != {"kind": "serves", "relations": ["meaning"]}:
        expect(line).to_contain_text(verdict_line(one, 0).split(" · ")[0])
    figure.get_by_role("slider", name="Heads").focus()
    page.keyboard.press("Home")
    expect(line).to_have_text(re.compile(r"^Try: drag Heads from 1 up to 3"))
    expect(line).to_contain_text(meaning_pair(one))
    # The reader's own sentence: its meaning pair is named, or the line says it has none.
    sentence = figure.get_by_role("textbox", name="Sentence")
    for text in ("the bat flew out of the cave at night", "the dog ate the bone"):
        sentence.fill(text)
        expect(drawn_tokens(figure)).to_have_text(text.split())
        pair = meaning_pair(attention(page, 1, sentence=text))
        if pair:
            expect(line).to_contain_text(pair)
        else:
            expect(line).to_contain_text("This sentence has no meaning pair")
            expect(line).not_to_contain_text("→")
    # A word of two senses with nothing to settle it: the line names it, and does not ask for one.
    unsettled = "she could not find a parking spot near the bank"
    sentence.fill(unsettled)
    expect(drawn_tokens(figure)).to_have_text(unsettled.split())
    assert meaning_pair(attention(page, 1, sentence=unsettled)) is None
    expect(line).to_contain_text("no meaning pair: bank has two senses, but no word here settles which")
    expect(line).not_to_contain_text("such as")


def test_the_thresholds_stated_are_the_page_datas(watched_page):
    page, _ = watched_page
    figure = open_dial(page)
    thresholds = page_data(page)["verdictThresholds"]
    note = figure.locator("[data-part=thresholds]")
    stated = [float(x) for x in re.findall(r"\d\.\d\d", note.text_content())]
    serves, lead, share = thresholds["serves"], thresholds["clear_lead"], thresholds["share"]
    assert stated == [round(x, 2) for x in (serves, serves, lead, serves, share)]
    score = figure.locator("[data-part=score-note]")
    expect(score).to_contain_text("the weight a head puts on all of that word's partners together")
    expect(score).not_to_contain_text("right partner")
    # How a score and a verdict are worked out is folded away, closed, and opens from its summary.
    expect(score).to_be_hidden()
    figure.locator("details.fold:has([data-part=score-note]) > summary").click()
    expect(score).to_be_visible()


def test_the_words_the_meaning_relation_knows_are_listed(watched_page):
    page, _ = watched_page
    figure = open_dial(page)
    listing = figure.locator("details.dial-ambiguous")
    summary = listing.locator("summary")
    heading = re.compile(r"^The \d+ words with two senses$")
    expect(summary).to_have_text(heading)
    summary.click()
    words = listing.get_by_role("listitem")
    assert words.count() == int(re.search(r"\d+", summary.text_content()).group())
    expect(words.filter(has_text=re.compile(r"^bat "))).to_have_count(1)
    # The example sentence-part it gives makes a meaning pair.
    cue = listing.locator("p q").nth(1).text_content()
    word = listing.locator("p q").first.text_content()
    figure.get_by_role("textbox", name="Sentence").fill(f"the {cue} near the {word}")
    meaning = figure.locator(".relation[data-relation=meaning] .relation__targets")
    expect(meaning).to_contain_text(f"{word} → {cue}")


def lane_motion(page: Page) -> list[dict]:
    return page.evaluate(
        "() => [...document.querySelectorAll('#heads-dial .lane')].map(g => ({"
        " duration: getComputedStyle(g).transitionDuration, transform: g.style.transform}))"
    )


def test_lanes_morph_between_head_counts_but_not_under_reduced_motion(browser, server):
    for motion in ("no-preference", "reduce"):
        context = browser.new_context(
            viewport={"width": 1280, "height": 900}, base_url=server, reduced_motion=motion
        )
        try:
            page = context.new_page()
            figure = open_dial(page, "?heads=1")
            # Record every transform a lane is given while the dial moves from 1 to 2 heads.
            page.evaluate(
                """() => { window.__transforms = [];
                   new MutationObserver((records) => { for (const r of records) {
                     if (r.target.classList?.contains('lane') && r.target.style.transform)
                       window.__transforms.push(r.target.style.transform); } })
                   .observe(document.querySelector('#heads-dial [data-part=drawing]'),
                            { subtree: true, childList: true, attributes: true,
                              attributeFilter: ['style'] }); }"""
            )
            slider = figure.get_by_role("slider", name="Heads")
            slider.focus()
            page.keyboard.press("ArrowRight")
            expect(lanes(figure)).to_have_count(2)
            page.wait_for_function(  # every lane has come to rest (none is still moving in)
                "() => [...document.querySelectorAll('#heads-dial .lane')].every((l) => !l.style.transform)"
            )
            moved = page.evaluate("window.__transforms")
            motion_now = lane_motion(page)
            assert all(m["transform"] == "" for m in motion_now)  # every lane has come to rest
            if motion == "reduce":
                assert moved == []
                assert {d for m in motion_now for d in m["duration"].split(", ")} == {"0s"}
            else:
                assert moved and all("scale" in t for t in moved)  # each lane came out of the one before
                assert {m["duration"] for m in motion_now} == {"0.3s, 0.3s"}
        finally:
            context.close()


@pytest.mark.parametrize("width", [pytest.param(1280, marks=pytest.mark.sweep), 390])
def test_every_text_in_figure_one_is_at_least_11_px(browser, server, width):
    """At every head count and as heatmaps, on a desktop and a phone: no text under 11 px, no sideways
    scroll, the controls in reach."""
    from tests.browser.conftest import watched

    with watched(browser, server, {"width": width, "height": 900}) as (page, _):
        for heads in (1, 3, 24, max(valid_heads(page))):
            figure = open_dial(page, f"?heads={heads}")
            expect(lanes(figure)).to_have_count(heads)
            texts = texts_of(page, "heads-dial")
            assert len(texts) > 40
            assert too_small(texts) == [], (heads, too_small(texts)[:10])
            assert sideways_scroll(page) <= 0
        draw_heatmaps(figure)
        assert too_small(texts_of(page, "heads-dial")) == [], "heatmaps"
        assert sideways_scroll(page) <= 0
        expect(figure.get_by_role("slider", name="Heads")).to_be_visible()
        expect(figure.get_by_role("switch", name="Trained")).to_be_visible()
