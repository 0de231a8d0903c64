"""Figure 5, the generator, driven in real Chromium through its accessible names."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import Locator, Page, expect

from app.models.translator.words import TRAINED_MAX_WORDS
from tests.browser.conftest import watched
from tests.browser.generator_arcs import assert_cross_arcs, assert_self_arcs, drawing
from tests.browser.pages import STALE, open_figure, query_params, sideways_scroll, texts_of, too_small
from tests.browser.test_readable_text import WIDTHS

DEFAULT_SOURCE = ["the", "river", "bank", "was", "steep"]
DEFAULT_TARGET = ["la", "rive", "était", "escarpée"]
DEFAULT_TRANSLATION = re.compile(r"^la rive était escarpée$", re.IGNORECASE)
# One French word every STEP_MS, as the page's playback writes them (static/js/figures/generator/playback.js).
PLAYBACK = Path(__file__).resolve().parents[2] / "static/js/figures/generator/playback.js"
STEP_MS = int(re.search(r"export const STEP_MS = (\d+);", PLAYBACK.read_text(encoding="utf-8")).group(1))
HEAD_2_LIGHT = "#E69F00"  # Okabe–Ito orange: the colour lib/colours.js gives head 2 on a light page


def open_generator(page: Page, query: str = "") -> Locator:
    """Open figure 5 (its own page, with `query`) and wait for its drawing. The page's clock is Playwright's:
    it runs as the real one does, and `write_to_the_end` can run it ahead (one word every STEP_MS)."""
    page.clock.install()
    figure = open_figure(page, "generator", query)
    expect(figure.locator("[data-part=drawing] svg.gen-svg")).to_be_visible()
    expect(progress(figure)).not_to_have_attribute("aria-valuemax", "0")
    return figure


def progress(figure: Locator) -> Locator:
    return figure.get_by_role("progressbar", name="Words written")


def button(figure: Locator, name: str) -> Locator:
    return figure.get_by_role("button", name=name, exact=True)


def mode_radio(figure: Locator, name: str) -> Locator:
    return figure.get_by_role("radiogroup", name="Attention").get_by_role("radio", name=name, exact=True)


def layer_radio(figure: Locator, layer: int) -> Locator:
    return figure.get_by_role("radiogroup", name="Layer").get_by_role("radio", name=f"layer {layer}")


def expect_chosen(figure: Locator, layer: int, head: str) -> None:
    """The figure draws `layer` and `head` ("Average" or "Head k"): its radio is checked, its chip pressed."""
    expect(layer_radio(figure, layer)).to_be_checked()
    expect(button(figure, head)).to_have_attribute("aria-pressed", "true")


def french_word(figure: Locator, slot: int) -> Locator:
    """The French word at decoder position `slot` (1 is the first word written; 0 is the start token)."""
    return figure.locator(f".gen-token--target[data-index='{slot}']")


def written_words(figure: Locator) -> Locator:
    return figure.locator(".gen-token--target[data-written=true] .token__text")


def translate(page: Page, sentence: str = "the river bank was steep") -> dict:
    answer = page.request.post("/api/translate", data={"sentence": sentence})
    assert answer.ok, answer.text()
    return answer.json()


def mean_row(heads: list[list[float]]) -> list[float]:
    return [sum(column) / len(heads) for column in zip(*heads, strict=True)]


def shown_numbers(figure: Locator, part: str) -> list[tuple[str, float]]:
    """The (word, weight) cells of the readout row `part` ("cross-row" or "self-row") that are shown."""
    cells = figure.locator(f"[data-part={part}] .gen-cell:not([hidden])")
    words = cells.locator(".gen-cell__word").all_text_contents()
    values = cells.locator(".gen-cell__value").all_text_contents()
    return [(w, 0.0 if v == "<0.01" else float(v)) for w, v in zip(words, values, strict=True)]


def assert_numbers(figure: Locator, part: str, words: list[str], expected: list[float]) -> None:
    shown = shown_numbers(figure, part)
    assert [w for w, _ in shown] == words
    for (word, value), want in zip(shown, expected, strict=True):
        assert abs(value - want) <= 0.006, (word, value, want)


def test_generate_writes_the_translation_one_word_at_a_time(watched_page):
    page, watch = watched_page
    figure = open_generator(page)
    expect(figure.get_by_role("textbox", name="Sentence")).to_have_value("the river bank was steep")
    expect(mode_radio(figure, "cross")).to_be_checked()
    expect(progress(figure)).to_have_attribute("aria-valuetext", "step 0 of 4")
    expect(figure.locator(".gen-token--source .token__text")).to_have_text(DEFAULT_SOURCE)
    expect(figure.locator(".gen-token--target[data-written=true]")).to_have_count(0)
    expect(button(figure, "Pause")).to_have_attribute("aria-disabled", "true")
    # Record every text the French line shows, with its time.
    figure.evaluate(
        """(f) => { window.__lines = [];
          new MutationObserver(() => {
            const out = f.querySelector('[data-part=translation]');
            window.__lines.push({ text: out.textContent, t: performance.now() });
          }).observe(f.querySelector('[data-part=translation]'),
                     { childList: true, characterData: true, subtree: true }); }"""
    )

    button(figure, "Generate").click()
    expect(figure.locator("[data-part=translation]")).to_have_text(DEFAULT_TRANSLATION)
    expect(progress(figure)).to_have_attribute("aria-valuenow", "4")
    expect(progress(figure)).to_have_attribute("aria-valuetext", "step 4 of 4")
    expect(written_words(figure)).to_have_text(DEFAULT_TARGET)
    lines = page.evaluate("window.__lines")
    texts: list[str] = []  # each text the line showed, once (a redraw may write the same text again)
    for line in lines:
        if line["text"] and (not texts or texts[-1] != line["text"]):
            texts.append(line["text"])
    assert texts == ["La …", "La rive …", "La rive était …", "La rive était escarpée"]
    elapsed = lines[-1]["t"] - next(line["t"] for line in lines if line["text"] == "La …")
    # three more words at 0.4 s each (1.2 s); the observer stamps a word when the task that drew it ends, and
    # the first word's drawing can take a few hundred milliseconds on a loaded machine (975 ms was seen)
    assert 800 <= elapsed <= 3000, elapsed
    assert query_params(page).get("gen_step") == "4"
    assert_cross_arcs(figure, 4)
    # One POST for the whole translation: the steps are animated from it, never fetched one by one.
    assert sum("/api/translate" in u and "/about" not in u for u in watch.api_requests) == 1
    assert page.evaluate("window.__busySeen")
    expect(button(figure, "Pause")).to_have_attribute("aria-disabled", "true")
    expect(button(figure, "Step")).to_have_attribute("aria-disabled", "true")


def test_cross_arcs_end_on_the_english_and_self_arcs_only_look_back(watched_page):
    page, _ = watched_page
    figure = open_generator(page, "?gen_step=4")
    answer = translate(page)
    best = answer["layers"] - 1  # the default view: the last layer, averaged over its heads
    for slot in range(1, 5):
        french_word(figure, slot).focus()
        assert_cross_arcs(figure, slot)
        # Every English word that gets a visible share of the attention has its arc.
        row = mean_row(answer["steps"][slot - 1]["cross"][best])
        keys = sorted(a["key"] for a in drawing(figure)["arcs"])
        assert keys == [j for j, w in enumerate(row) if w >= 0.02]

    mode_radio(figure, "self").check()
    expect(page).to_have_url(re.compile(r"[?&]gen_mode=self\b"))
    for slot in range(1, 5):
        french_word(figure, slot).focus()
        keys = assert_self_arcs(figure, slot)
        row = mean_row(answer["steps"][slot - 1]["self"][best])
        assert len(row) == slot  # the server's row covers the start token and the words before
        assert keys == [p for p, w in enumerate(row) if w >= 0.02]

    # The English row steps back in self mode; the first word can only look at the start token.
    french_word(figure, 1).focus()
    assert assert_self_arcs(figure, 1) == [0]
    mode_radio(figure, "cross").check()
    assert "gen_mode" not in query_params(page)
    assert_cross_arcs(figure, 4)  # the radio took the focus: the last word written is shown again


def test_self_arcs_never_reach_forward_on_a_longer_sentence(watched_page):
    page, _ = watched_page
    sentence = "a farmer sold the bat near the cave"
    answer = translate(page, sentence)
    n = len(answer["target"])
    figure = open_generator(page, f"?gen_sentence={sentence.replace(' ', '+')}&gen_mode=self&gen_step={n}")
    expect(figure.locator("[data-part=translation]")).to_have_text(answer["translation"])
    for slot in range(1, n + 1):
        french_word(figure, slot).focus()
        assert_self_arcs(figure, slot)


def test_pause_becomes_resume_and_the_steps_work_from_the_keyboard(watched_page):
    page, _ = watched_page
    figure = open_generator(page)
    sentence = figure.get_by_role("textbox", name="Sentence")
    sentence.focus()
    page.keyboard.press("Enter")  # Enter in the sentence generates
    page.keyboard.press("Tab")  # Generate
    page.keyboard.press("Tab")  # Pause
    pause = button(figure, "Pause")
    expect(pause).to_be_focused()
    page.keyboard.press("Space")
    # Paused, the button says what it does next: its text and its accessible name become Resume.
    resume = button(figure, "Resume")
    expect(resume).to_be_focused()
    expect(resume).to_have_text("▶ Resume")
    expect(resume).to_have_attribute("aria-disabled", "false")
    expect(pause).to_have_count(0)
    paused_at = int(progress(figure).get_attribute("aria-valuenow"))
    assert 1 <= paused_at < 4
    expect(figure.locator("[data-part=progress-text]")).to_contain_text("paused")
    # Paused, no word is written in the time playing would write two: the figure's own step, read from it, run
    # on the page's clock (every timer due in that time fires).
    step_ms = page.evaluate("async () => (await import('/static/js/figures/generator/playback.js')).STEP_MS")
    page.clock.run_for(2.5 * step_ms)
    expect(progress(figure)).to_have_attribute("aria-valuenow", str(paused_at))

    page.keyboard.press("Tab")  # Step back
    expect(button(figure, "Step back")).to_be_focused()
    page.keyboard.press("Enter")
    expect(progress(figure)).to_have_attribute("aria-valuenow", str(paused_at - 1))
    assert query_params(page).get("gen_step", "0") == str(paused_at - 1)
    page.keyboard.press("Tab")  # Step
    expect(button(figure, "Step")).to_be_focused()
    page.keyboard.press("Enter")
    expect(progress(figure)).to_have_attribute("aria-valuenow", str(paused_at))
    assert query_params(page)["gen_step"] == str(paused_at)
    expect(resume).to_be_visible()  # still paused, words still to write

    resume.focus()
    page.keyboard.press("Space")  # writes on from the word shown
    write_to_the_end(figure)
    expect(figure.locator("[data-part=translation]")).to_have_text(DEFAULT_TRANSLATION)
    expect(pause).to_have_attribute("aria-disabled", "true")  # nothing left to write
    expect(button(figure, "Step")).to_have_attribute("aria-disabled", "true")
    expect(button(figure, "Step back")).to_have_attribute("aria-disabled", "false")

    # Generate again starts over from the first word.
    button(figure, "Generate").click()
    expect(pause).to_have_attribute("aria-disabled", "false")
    write_to_the_end(figure)
    expect(progress(figure)).to_have_attribute("aria-valuenow", "4")
    assert_cross_arcs(figure, 4)


def at_the_last_word(page: Page) -> tuple[Locator, dict, int, Locator]:
    """The generator opened with every word written: the figure, the translation's answer, the index of its
    last layer, and the readout's title, which names the word just written."""
    figure = open_generator(page, "?gen_step=4")
    answer = translate(page)
    title = figure.locator("[data-part=readout-title]")
    expect(title).to_contain_text("“escarpée” (the word just written, 4 of 4)")
    return figure, answer, answer["layers"] - 1, title


def test_step_back_shows_the_previous_steps_state(watched_page):
    page, watch = watched_page
    figure, answer, last, title = at_the_last_word(page)
    back = button(figure, "Step back")
    back.click()
    expect(progress(figure)).to_have_attribute("aria-valuetext", "step 3 of 4")
    assert query_params(page)["gen_step"] == "3"
    expect(figure.locator("[data-part=translation]")).to_have_text("La rive était …")
    expect(written_words(figure)).to_have_text(DEFAULT_TARGET[:3])
    expect(french_word(figure, 4)).to_have_attribute("visibility", "hidden")
    expect(title).to_contain_text("“était” (the word just written, 3 of 4)")
    assert_cross_arcs(figure, 3)  # the arcs follow: the third word's
    assert_numbers(figure, "cross-row", DEFAULT_SOURCE, mean_row(answer["steps"][2]["cross"][last]))
    # In self mode too, and down to nothing written, where Step back stops.
    mode_radio(figure, "self").check()
    back.focus()
    page.keyboard.press("Enter")
    expect(progress(figure)).to_have_attribute("aria-valuenow", "2")
    assert assert_self_arcs(figure, 2)
    assert_numbers(figure, "self-row", ["⟨s⟩", "la"], mean_row(answer["steps"][1]["self"][last]))
    page.keyboard.press("Enter")
    page.keyboard.press("Enter")
    expect(progress(figure)).to_have_attribute("aria-valuenow", "0")
    expect(written_words(figure)).to_have_count(0)
    expect(back).to_have_attribute("aria-disabled", "true")
    page.keyboard.press("Enter")  # a disabled step does nothing
    expect(progress(figure)).to_have_attribute("aria-valuenow", "0")
    # From nothing written, Generate starts; a word in, Resume writes on from there.
    expect(button(figure, "Pause")).to_have_attribute("aria-disabled", "true")
    button(figure, "Step").click()
    button(figure, "Resume").click()
    expect(progress(figure)).to_have_attribute("aria-valuenow", "4")
    expect(figure.locator("[data-part=translation]")).to_have_text(DEFAULT_TRANSLATION)
    assert sum("/api/translate" in u and "/about" not in u for u in watch.api_requests) == 1


def test_a_link_opens_at_step_3_in_self_mode(watched_page):
    page, watch = watched_page
    figure = open_generator(page, "?gen_mode=self&gen_step=3")
    expect(mode_radio(figure, "self")).to_be_checked()
    expect(progress(figure)).to_have_attribute("aria-valuetext", "step 3 of 4")
    expect(figure.locator("[data-part=progress-text]")).to_have_text("step 3 of 4")
    expect(figure.locator("[data-part=translation]")).to_have_text("La rive était …")
    expect(written_words(figure)).to_have_text(DEFAULT_TARGET[:3])
    expect(french_word(figure, 4)).to_have_attribute("visibility", "hidden")
    assert assert_self_arcs(figure, 3)
    assert query_params(page) == {"gen_mode": "self", "gen_step": "3"}
    # Stepping on from the link writes the fourth word, and the URL follows.
    button(figure, "Step").click()
    expect(progress(figure)).to_have_attribute("aria-valuenow", "4")
    assert query_params(page)["gen_step"] == "4"
    assert_self_arcs(figure, 4)
    assert sum("/api/translate" in u and "/about" not in u for u in watch.api_requests) == 1


def test_layer_and_head_chips_choose_what_is_drawn(watched_page):
    page, _ = watched_page
    figure = open_generator(page, "?gen_step=4")
    answer = translate(page)
    expect_chosen(figure, 2, "Average")
    expect(figure.get_by_role("button", name=re.compile(r"^Head \d$"))).to_have_count(answer["heads"])
    figure.evaluate("f => { f.querySelector('.gen-arc').__marker = 1; }")  # survives unless rebuilt

    french_word(figure, 2).focus()
    button(figure, "Head 2").click()
    expect(button(figure, "Head 2")).to_have_attribute("aria-pressed", "true")
    expect(button(figure, "Average")).to_have_attribute("aria-pressed", "false")
    assert query_params(page)["gen_head"] == "2"
    group = figure.locator(".gen-arcs__group.is-current")
    expect(group).to_have_attribute("stroke", HEAD_2_LIGHT)
    assert group.evaluate("g => getComputedStyle(g).stroke") == "rgb(230, 159, 0)"  # drawn in it, too
    french_word(figure, 2).focus()
    assert_numbers(figure, "cross-row", DEFAULT_SOURCE, answer["steps"][1]["cross"][1][1])

    layer_radio(figure, 1).check()
    assert query_params(page)["gen_layer"] == "1"
    french_word(figure, 2).focus()
    assert_numbers(figure, "cross-row", DEFAULT_SOURCE, answer["steps"][1]["cross"][0][1])
    assert_numbers(figure, "self-row", ["⟨s⟩", "la"], answer["steps"][1]["self"][0][1])
    expect(figure.locator("[data-part=readout-title]")).to_contain_text("layer 1, head 2")

    button(figure, "Head 2").click()  # pressed again: back to the average
    expect(button(figure, "Average")).to_have_attribute("aria-pressed", "true")
    layer_radio(figure, 2).check()
    assert "gen_head" not in query_params(page) and "gen_layer" not in query_params(page)
    expect(group).not_to_have_attribute("stroke", HEAD_2_LIGHT)
    assert figure.evaluate("f => f.querySelector('.gen-arc').__marker") == 1


def test_the_average_is_the_servers_mean_over_the_heads(watched_page):
    """With Average chosen, the arcs and the numbers show each step's cross_mean and self_mean from
    /api/translate as they are: the page averages no heads itself."""
    page, _ = watched_page
    figure = open_generator(page, "?gen_step=4")
    answer = translate(page)
    last = answer["layers"] - 1
    for slot in (2, 4):
        french_word(figure, slot).focus()
        step = answer["steps"][slot - 1]
        for part, mean in (("cross-row", step["cross_mean"][last]), ("self-row", step["self_mean"][last])):
            cells = figure.locator(f"[data-part={part}] .gen-cell:not([hidden])")
            assert cells.evaluate_all("els => els.map(e => e.dataset.weight)") == [f"{w:.4f}" for w in mean]
        arcs = [a for a in drawing(figure)["arcs"] if a["current"]]
        assert arcs and all(a["weight"] == round(step["cross_mean"][last][a["key"]], 4) for a in arcs)


def test_layer_and_head_are_restored_from_the_url(watched_page):
    page, _ = watched_page
    figure = open_generator(page, "?gen_step=2&gen_layer=1&gen_head=3")
    answer = translate(page)
    expect_chosen(figure, 1, "Head 3")
    assert_numbers(figure, "cross-row", DEFAULT_SOURCE, answer["steps"][1]["cross"][0][2])


def test_hover_or_focus_shows_a_words_cross_attention_as_numbers(watched_page):
    page, _ = watched_page
    figure, answer, last, title = at_the_last_word(page)

    french_word(figure, 2).hover()
    expect(title).to_contain_text("“rive”")
    row = mean_row(answer["steps"][1]["cross"][last])
    assert_numbers(figure, "cross-row", DEFAULT_SOURCE, row)
    # The same numbers sit beside the English words in the drawing.
    labels = figure.locator(".gen-weights text").all_text_contents()[: len(DEFAULT_SOURCE)]
    for text, want in zip(labels, row, strict=True):
        assert abs((0.0 if text == "<0.01" else float(text)) - want) <= 0.006
    assert row.index(max(row)) in (1, 2)  # "rive" reads "river" and "bank"

    page.mouse.move(0, 0)
    expect(title).to_contain_text("“escarpée”")
    french_word(figure, 3).focus()
    expect(title).to_contain_text("“était” (the word under focus, 3 of 4)")
    was_row = mean_row(answer["steps"][2]["cross"][last])
    assert_numbers(figure, "cross-row", DEFAULT_SOURCE, was_row)
    label = french_word(figure, 3).get_attribute("aria-label")
    assert label.startswith("était, French word 3 of 4.")
    assert max(was_row) == was_row[3]  # "était" reads "was" most, and the label says how much
    assert f"Into the English: was {max(was_row):.2f}" in label
    page.keyboard.press("Tab")  # on to the next French word
    expect(title).to_contain_text("“escarpée” (the word under focus, 4 of 4)")


def stale_note(figure: Locator) -> Locator:
    return figure.get_by_role("status").filter(has_text="Dimmed below")


def test_typing_without_enter_marks_the_french_stale_and_says_what_to_do(watched_page):
    page, _ = watched_page
    figure = open_generator(page)
    generate(figure)
    sentence = figure.get_by_role("textbox", name="Sentence")
    sentence.press_sequentially(" and")  # typed, no Enter
    translation = figure.locator("[data-part=translation]")
    expect(translation).to_have_text("")  # the old French is no longer the current one
    expect(stale_note(figure)).to_have_text(
        "Not yet translated: press ▶ Generate or Enter. "
        "Dimmed below: the French for “the river bank was steep”."
    )
    for part in ("drawing", "readout", "translation-line"):
        expect(figure.locator(f"[data-part={part}]")).to_have_class(STALE)
    for name in ("Step back", "Step", "Pause"):  # nothing steps through a translation of another sentence
        expect(button(figure, name)).to_have_attribute("aria-disabled", "true")
    assert query_params(page).get("gen_sentence") is None  # the URL still holds what is shown

    sentence.fill("  the river  bank was steep ")  # back to the sentence shown: fresh again
    expect(translation).to_have_text(DEFAULT_TRANSLATION)
    expect(stale_note(figure)).to_have_count(0)
    expect(figure.locator("[data-part=drawing]")).not_to_have_class(STALE)

    sentence.fill("the farmer sold the horse")
    expect(figure.locator("[data-part=drawing]")).to_have_class(STALE)
    button(figure, "Generate").click()
    write_to_the_end(figure)
    expected = translate(page, "the farmer sold the horse")
    expect(translation).to_have_text(expected["translation"])
    expect(figure.locator(".gen-token--source .token__text")).to_have_text(expected["source"])
    expect(figure.locator("[data-part=drawing]")).not_to_have_class(STALE)
    expect(stale_note(figure)).to_have_count(0)


def test_an_unknown_word_shows_suggestions_and_no_old_french_as_current(watched_page):
    page, watch = watched_page
    watch.expected_console.append("status of 422")
    figure = open_generator(page)
    generate(figure)
    answer = page.request.post("/api/translate", data={"sentence": "the apel was red"})
    assert answer.status == 422
    refusal = answer.json()
    assert refusal["suggestions"] == {"apel": ["apple", "april", "paper"]}
    sentence = figure.get_by_role("textbox", name="Sentence")
    sentence.fill("the apel was red")
    sentence.press("Enter")
    error = figure.get_by_role("alert")
    expect(error).to_have_text(refusal["detail"])
    expect(error).to_contain_text("apel (did you mean apple, april or paper?)")
    translation = figure.locator("[data-part=translation]")
    expect(translation).to_have_text("")  # "La rive était escarpée" is not shown as this sentence's French
    expect(stale_note(figure)).to_have_text(
        "Not translated. Dimmed below: the French for “the river bank was steep”."
    )
    expect(figure.locator("[data-part=drawing]")).to_have_class(STALE)
    expect(figure).not_to_have_attribute("aria-busy", "true")
    assert query_params(page)["gen_sentence"] == "the apel was red"

    # The suggestion is a button that puts the word in the sentence and translates it.
    apple = figure.get_by_role("group", name="Close words the translator knows").get_by_role(
        "button", name="Replace apel with apple"
    )
    expect(apple).to_have_text("apple")
    apple.click()
    expect(sentence).to_have_value("the apple was red")
    expected = translate(page, "the apple was red")
    expect(translation).to_have_text(expected["translation"])
    expect(error).to_be_hidden()
    expect(apple).to_have_count(0)
    expect(figure.locator("[data-part=drawing]")).not_to_have_class(STALE)
    expect(figure.locator(".gen-token--source .token__text")).to_have_text(expected["source"])


def test_an_unknown_word_on_a_fresh_page_shows_only_the_refusal(watched_page):
    page, watch = watched_page
    watch.expected_console.append("status of 422")
    figure = open_figure(page, "generator", "?gen_sentence=The+Apel+was+red")
    error = figure.get_by_role("alert")
    expect(error).to_contain_text("apel (did you mean apple, april or paper?)")
    expect(figure.locator("svg.gen-svg")).to_have_count(0)  # nothing drawn, so nothing old to mistake
    figure.get_by_role("button", name="Replace apel with apple").click()
    expect(figure.get_by_role("textbox", name="Sentence")).to_have_value("The Apple was red")
    expect(figure.locator("[data-part=translation]")).to_have_text(re.compile(r"^La pomme"))


def test_a_sentence_longer_than_the_training_is_named_with_the_trained_length(watched_page):
    page, watch = watched_page
    watch.expected_console.append("status of 422")
    figure = open_generator(page)
    count = TRAINED_MAX_WORDS + 4
    words = ("the dog of the farmer was happy and " * 5).split()[:count]
    sentence = figure.get_by_role("textbox", name="Sentence")
    sentence.fill(" ".join(words))
    sentence.press("Enter")
    error = figure.get_by_role("alert")
    expect(error).to_have_text(
        f"The translator was trained on sentences of at most {TRAINED_MAX_WORDS} words; this one has {count}."
    )
    expect(figure.locator("[data-part=translation]")).to_have_text("")
    expect(figure.get_by_role("group", name="Close words the translator knows")).to_be_hidden()
    expect(figure.locator("[data-part=drawing]")).to_have_class(STALE)
    # Cut to the trained length, it is translated.
    sentence.fill(" ".join(words[:TRAINED_MAX_WORDS]))
    sentence.press("Enter")
    expect(error).to_be_hidden()
    expect(figure.locator(".gen-token--source .token__text")).to_have_count(TRAINED_MAX_WORDS)


@pytest.mark.parametrize("width", [pytest.param("1280", marks=pytest.mark.sweep), "390"])
def test_the_generators_text_is_11_px_or_more_mid_generation_and_when_refused(browser, server, width):
    """Every visible text of figure 5 while it writes, paused mid-way, and with a refusal and its
    suggestions shown, measured as tests/browser/test_readable_text.py measures the article."""
    with watched(browser, server, WIDTHS[width]) as (page, watch):
        watch.expected_console.append("status of 422")
        figure = open_generator(page)
        button(figure, "Generate").click()
        expect(progress(figure)).not_to_have_attribute("aria-valuenow", "0")
        button(figure, "Pause").click()
        texts = texts_of(page, "generator")
        sentence = figure.get_by_role("textbox", name="Sentence")
        sentence.fill("the apel was red")
        sentence.press("Enter")
        expect(figure.get_by_role("button", name="Replace apel with apple")).to_be_visible()
        texts += texts_of(page, "generator")
        assert any("Dimmed below" in t["text"] for t in texts) and any(t["text"] == "apple" for t in texts)
        small = sorted({(t["text"], round(t["px"], 1)) for t in too_small(texts)})
        assert not small, small


def test_the_about_note_gives_the_held_out_figures(watched_page):
    page, _ = watched_page
    figure = open_generator(page)
    about = page.request.get("/api/translate/about").json()
    note = figure.locator("[data-part=about]")
    # In sight: how often it translates an unseen sentence exactly.
    line = note.locator("[data-part=about-text] > p").first
    expect(line).to_be_visible()
    expect(line).to_contain_text(f"exactly {about['exact_match'] * 100:.1f}% of the time")
    # and on everyday sentences: the sets the grammar grew on, then the one scored once after training
    sets = about["everyday_sets"]
    (blind,) = [s for s in sets if s["blind"]]
    grown = " and ".join(f"{s['right']} of {s['sentences']}" for s in sets if not s["blind"])
    expect(line).to_contain_text(f"it writes {grown} right in the sets its grammar then grew on")
    expect(line).to_contain_text(
        f"of {blind['sentences']} written later and scored once after training, {blind['right']} right"
    )
    # Folded, closed: how it was built and how the layer's alignment is measured (its numbers are the hint's).
    how = note.locator("details.fold", has_text="How it was built and measured")
    expect(how).not_to_have_attribute("open", re.compile(".*"))
    how.locator("summary").click()
    expect(how).to_contain_text(f"decoder layer {about['best_layer'] + 1}")
    expect(how).to_contain_text("peaks on the right English word")
    expect(how).to_contain_text("trained here")
    expect(how).to_contain_text(f"{about['parameters']:,} parameters")
    aligned = how.locator("p", has_text="How well a layer is aligned")
    expect(aligned).not_to_contain_text(f"{about['alignment'] * 100:.1f}%")  # said once, in the Layer hint
    hint = figure.locator("[data-part=layer-hint]")
    expect(hint).to_contain_text(f"layer {about['best_layer'] + 1} {about['alignment'] * 100:.1f}%")


def test_a_translation_that_leaves_words_out_names_them(watched_page):
    """Once written, the French names the content words no step read (the answer's `unread`) and the
    drawing marks them; the about fold says how the check was measured, from the record."""
    page, _ = watched_page
    sentence = "the woman who works here is my aunt"  # from the sixth everyday set
    answer = translate(page, sentence)
    left_out = [answer["source"][i] for i in answer["unread"]]
    assert left_out == ["aunt"]  # the French says "la femme qui travaille ici"
    figure = open_generator(page, "?gen_sentence=" + sentence.replace(" ", "+") + "&gen_step=999")
    expect(figure.locator("[data-part=translation]")).to_have_text(re.compile(r"travaille ici$"))
    line = figure.locator("[data-part=unread]")
    expect(line).to_have_text(re.compile(r"^Not translated: “aunt”\. No step looked at"))
    marked = figure.locator(".gen-token--source.is-unread .token__text")
    expect(marked).to_have_text(left_out)
    # the default sentence leaves nothing out: no line, nothing marked
    box = figure.get_by_role("textbox", name="Sentence")
    box.fill("the river bank was steep")
    box.press("Enter")
    expect(figure.locator("[data-part=translation]")).to_have_text(DEFAULT_TRANSLATION)
    expect(line).to_have_text("")
    expect(figure.locator(".gen-token--source.is-unread")).to_have_count(0)
    about = page.request.get("/api/translate/about").json()["unread"]
    how = figure.locator("details.fold", has_text="How it was built and measured")
    how.locator("summary").click()
    expect(how).to_contain_text(
        f"left out {about['left_out']:,} such words and the check marked {about['caught']:,}"
    )


def test_the_word_list_is_there_before_a_refusal_and_narrows_as_you_type(watched_page):
    page, _ = watched_page
    figure = open_generator(page)
    about = page.request.get("/api/translate/about").json()
    words = figure.locator("details.gen-words")
    expect(words.locator("summary")).to_have_text(
        f"The {len(about['vocabulary']):,} English words it knows, by kind"
    )
    words.locator("summary").press("Enter")  # a keyboard opens it
    nouns = words.get_by_role("list", name="Nouns").get_by_role("listitem")
    expect(nouns).to_have_count(len(about["vocabulary_kinds"]["noun"]))
    find = words.get_by_role("searchbox", name="Find a word")
    find.fill("app")
    expected = sorted(w for w in about["vocabulary"] if "app" in w)
    shown = words.locator("li:not([hidden])")
    expect(shown).to_have_text(expected, use_inner_text=True)
    expect(words.locator("[data-part=find-count]")).to_have_text(
        f"{len(expected):,} of {len(about['vocabulary']):,} contain “app”."
    )
    find.fill("zzq")
    expect(shown).to_have_count(0)
    expect(words.locator("[data-part=find-count]")).to_have_text("None of its words contains “zzq”.")


def test_reduced_motion_writes_words_without_transitions(watched_page):
    page, _ = watched_page
    figure = open_generator(page)  # the fixture's page asks for reduced motion
    button(figure, "Generate").click()
    write_to_the_end(figure)
    expect(progress(figure)).to_have_attribute("aria-valuenow", "4")
    durations = figure.evaluate(
        "f => [f.querySelector('.gen-token.is-new'), f.querySelector('.gen-arcs__group.is-current')]"
        ".map(el => getComputedStyle(el).animationDuration)"
    )
    assert all(d in ("0s", "1e-05s") for d in durations), durations


def write_to_the_end(figure: Locator) -> None:
    """Once a word is written (the first, or the one a paused translation shows), run the page's clock through
    the rest of the words (STEP_MS each) rather than waiting for them: what is written is the same, only the
    waiting goes."""
    expect(figure.locator("[data-part=translation]")).to_have_text(re.compile(r"\S"))
    figure.page.clock.run_for(STEP_MS * (TRAINED_MAX_WORDS + 2))


def generate(figure: Locator) -> None:
    """Press Generate and wait until the default sentence is translated to the end."""
    button(figure, "Generate").click()
    write_to_the_end(figure)
    expect(figure.locator("[data-part=translation]")).to_have_text(DEFAULT_TRANSLATION)


def translate_the_longer_sentence(figure: Locator) -> None:
    """Translate an eight-word sentence, which turns the phone's two rows of words into two columns."""
    sentence = figure.get_by_role("textbox", name="Sentence")
    sentence.fill("a farmer sold the bat near the cave")
    sentence.press("Enter")
    expect(figure.locator("[data-part=translation]")).not_to_have_text(DEFAULT_TRANSLATION)
    write_to_the_end(figure)
    expect(figure.locator("[data-part=translation]")).to_have_text(re.compile(r"grotte$"))
    expect(figure.locator("svg.gen-svg")).to_have_class(re.compile(r"gen-svg--columns"))


def test_phone_width_has_no_horizontal_scroll(phone_page):
    page, _ = phone_page
    figure = open_generator(page)
    generate(figure)
    for name in ("Generate", "Pause", "Step"):
        expect(button(figure, name)).to_be_visible()
    expect(mode_radio(figure, "self")).to_be_attached()
    assert sideways_scroll(page) <= 0
    assert_cross_arcs(figure, 4)

    note = figure.locator("[data-part=note]")
    expect(note).to_contain_text("runs from the French word being written up to an English word")
    # A longer sentence turns the two rows into two columns; still no sideways scroll, and the note says the
    # arcs run across, as they are drawn (it once said "up" in both layouts).
    translate_the_longer_sentence(figure)
    assert sideways_scroll(page) <= 0
    expect(note).to_contain_text("runs from the French word being written across to an English word")
    mode_radio(figure, "self").check()
    french_word(figure, 6).focus()
    assert_self_arcs(figure, 6)


@pytest.mark.screenshots
def test_phone_and_desktop_screenshots(shots):
    figure = open_generator(shots.phone)
    generate(figure)
    shots.take(figure, "generator-phone")
    translate_the_longer_sentence(figure)
    shots.take(figure.locator("[data-part=drawing]"), "generator-phone-columns")
    mode_radio(figure, "self").check()
    french_word(figure, 6).focus()
    shots.take(figure.locator("[data-part=drawing]"), "generator-phone-columns-self")

    page = shots.desktop
    figure = open_generator(page)
    generate(figure)
    page.wait_for_load_state("networkidle")
    shots.take(figure, "generator-desktop-cross")
    mode_radio(figure, "self").check()
    shots.take(figure, "generator-desktop-self")
    button(figure, "Head 3").click()
    french_word(figure, 3).focus()
    shots.take(figure.locator("[data-part=drawing]"), "generator-desktop-self-head3")


def test_the_numbers_table_holds_the_drawn_attention(watched_page):
    page, _ = watched_page
    figure = open_generator(page, "?gen_step=3")
    answer = translate(page)
    figure.get_by_text("Show the numbers as a table").click()
    cross = figure.get_by_role("region", name="Cross-attention (layer 2, average of the 4 heads)")
    own = figure.get_by_role("region", name="Self-attention (layer 2, average of the 4 heads)")
    expect(cross.locator("tbody tr")).to_have_count(3)  # a row per French word written so far
    expect(own.locator("tbody tr")).to_have_count(3)
    first = own.locator("tbody tr").first.locator("td").all_text_contents()
    assert [float(v) for v in first] == [1.0, 0.0, 0.0]  # "la" could only read the start token
    row = mean_row(answer["steps"][1]["cross"][1])
    shown = [float(v) for v in cross.locator("tbody tr").nth(1).locator("td").all_text_contents()]
    assert all(abs(a - b) < 0.001 for a, b in zip(shown, row, strict=True))
