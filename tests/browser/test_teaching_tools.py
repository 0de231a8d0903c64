"""The teaching tools: figure pages and embeds, copy link, the contents, the theme switch,
predict-then-reveal, print and reduced-motion styles (test_exports.py has the exports and the tables)."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlsplit

import pytest
from playwright.sync_api import Locator, Page, expect

from app.figures import number
from tests.browser.conftest import DESKTOP, PHONE
from tests.browser.pages import get_json, open_figure, open_heads_dial

# ---- one figure alone, and its embed ---------------------------------------------------------------------


def open_the_embed(page: Page) -> Locator:
    """Open figure 6's embed, in ×0, in a 900 × 700 frame; the figure, once drawn."""
    page.set_viewport_size({"width": 900, "height": 700})
    page.goto("/figure/mask-lab?embed=1&mask=zero")
    figure = page.locator("figure#mask-lab")
    expect(figure.locator("svg.heatmap").first).to_be_visible()
    return figure


def test_the_embed_renders_the_figure_alone_and_it_works(watched_page) -> None:
    page, _ = watched_page
    figure = open_the_embed(page)
    expect(page.locator("figure")).to_have_count(1)
    for chrome in (".masthead", "[data-toc]", ".figure-tools", ".predict", "h2"):
        expect(page.locator(chrome)).to_have_count(0)
    # The figure's state comes from the same query keys as on the article.
    expect(figure.get_by_role("radio", name="×0")).to_be_checked()
    # Sized to its frame: the figure fills the width, with no page margin around it.
    box = figure.bounding_box()
    assert box["x"] == 0 and abs(box["width"] - 900) < 1


def test_the_figure_page_shows_the_intro_the_figure_and_its_toolbar(watched_page) -> None:
    page, _ = watched_page
    figure = open_heads_dial(page, "/figure/heads-dial?heads=2")
    expect(page.get_by_role("heading", level=2)).to_contain_text("One head is not enough")
    expect(page.locator("figure")).to_have_count(1)
    expect(figure.get_by_role("slider", name="Heads")).to_have_attribute("aria-valuetext", "2 heads")
    tools = figure.get_by_role("group", name=f"Figure {number('heads-dial')}: link and export")
    for name in (
        "Copy link to this view",
        "Export SVG",
        "Export PNG",
        "Export data as JSON",
        "Export data as CSV",
    ):
        expect(tools.get_by_role("button", name=name)).to_be_visible()
    alone = tools.get_by_role("link", name=f"Open alone: Figure {number('heads-dial')}")
    expect(alone).to_have_count(0)  # already alone
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
    link_box = figure.get_by_role("textbox", name=f"Link to this view of Figure {number('heads-dial')}")
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
    open_alone = page.get_by_role("link", name=f"Open alone: Figure {number('mask-lab')}")
    open_alone.focus()
    expect(open_alone).to_have_attribute("href", re.compile(r"/figure/mask-lab\?mask=neg_inf$"))


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
    heading = f"{number('interview')} The interview question"
    anchor = page.get_by_role("link", name=re.compile(f"Link to this section: {heading}"))
    expect(anchor).to_be_visible()
    expect(anchor).to_have_attribute("href", "#interview-question")


def turn_dark(page: Page) -> None:
    """Press the theme switch on a light page and wait for figure 1 to redraw in the dark palette."""
    toggle = page.get_by_role("button", name="Dark theme")
    toggle.click()
    expect(toggle).to_have_attribute("aria-pressed", "true")
    page.wait_for_function(
        "() => [...document.querySelectorAll('#heads-dial g.arcs__head')]"
        ".some((g) => g.getAttribute('stroke') === '#3AA0E0')"
    )


def test_the_theme_switch_turns_the_page_dark_and_is_remembered(watched_page) -> None:
    page, _ = watched_page
    figure = open_heads_dial(page)
    toggle = page.get_by_role("button", name="Dark theme")
    expect(toggle).to_have_attribute("aria-pressed", "false")
    background = "getComputedStyle(document.body).backgroundColor"
    assert page.evaluate(background) == "rgb(253, 252, 249)"
    strokes = "(svg) => [...svg.querySelectorAll('g.arcs__head')].map((g) => g.getAttribute('stroke'))"
    assert "#0072B2" in figure.locator('[data-part="drawing"] svg').first.evaluate(strokes)

    turn_dark(page)  # and the figures redraw in the dark palette
    assert page.evaluate("document.documentElement.dataset.theme") == "dark"
    assert page.evaluate(background) == "rgb(21, 23, 27)"

    page.reload()
    expect(page.get_by_role("button", name="Dark theme")).to_have_attribute("aria-pressed", "true")
    assert page.evaluate(background) == "rgb(21, 23, 27)"
    mask = page.locator("figure#mask-lab")
    mask.scroll_into_view_if_needed()
    expect(mask.locator("svg.heatmap").first).to_be_visible()

    page.get_by_role("button", name="Dark theme").click()
    assert page.evaluate("localStorage.getItem('theme')") == "light"
    assert page.evaluate(background) == "rgb(253, 252, 249)"


def test_a_dark_system_is_followed_until_the_reader_chooses(phone_page) -> None:
    page, _ = phone_page
    page.emulate_media(color_scheme="dark")  # the system's
    page.goto("/")
    toggle = page.get_by_role("button", name="Dark theme")
    expect(toggle).to_have_attribute("aria-pressed", "true")
    assert page.evaluate("getComputedStyle(document.body).backgroundColor") == "rgb(21, 23, 27)"
    expect(page.locator('#heads-dial [data-part="drawing"] svg').first).to_be_visible()
    toggle.click()  # light, although the system is dark
    assert page.evaluate("getComputedStyle(document.body).backgroundColor") == "rgb(253, 252, 249)"


# Every colour of the palette (main.css: a custom property set once, as light-dark(light, dark)), resolved.
PALETTE = """() => {
  const root = getComputedStyle(document.documentElement);
  const probe = document.body.appendChild(document.createElement("span"));
  const colours = {};
  for (const name of [...root].filter((p) => p.startsWith("--"))) {
    if (!root.getPropertyValue(name).trim().startsWith("light-dark(")) continue;
    probe.style.color = `var(${name})`;
    colours[name] = getComputedStyle(probe).color;
  }
  probe.remove();
  return colours;
}"""
# Text colours and the backgrounds the page sets them on: each pair must reach WCAG's 4.5:1.
TEXT_ON = [
    ("--fg", "--bg"),
    ("--fg", "--token-bg"),
    ("--muted", "--bg"),
    ("--muted", "--panel"),
    ("--accent", "--bg"),
    ("--focus", "--bg"),
    ("--error-fg", "--error-bg"),
    ("--good", "--bg"),
    ("--bad", "--bg"),
    ("--unknown", "--bg"),
]


def contrast(a: str, b: str) -> float:
    """WCAG 2's contrast ratio of two computed colours, "rgb(r, g, b)"."""

    def luminance(colour: str) -> float:
        channels = [int(c) / 255 for c in re.findall(r"\d+", colour)[:3]]
        r, g, b = (c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels)
        return 0.2126 * r + 0.7152 * g + 0.0722 * b

    light, dark = sorted((luminance(a), luminance(b)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


@pytest.mark.parametrize("chosen", ["light", "dark"])
def test_the_readers_theme_sets_every_colour_against_the_system(watched_page, chosen: str) -> None:
    """The switch sets only `color-scheme`; every colour of the palette must follow it, though the system
    prefers the other scheme, and be the colour that scheme has without a choice. Text stays readable."""
    page, _ = watched_page
    other = "dark" if chosen == "light" else "light"
    page.emulate_media(color_scheme=chosen)  # the system's
    page.goto("/")
    native = page.evaluate(PALETTE)  # the chosen scheme as the system's, no choice made
    assert len(native) >= 15 and {name for pair in TEXT_ON for name in pair} <= set(native)
    page.emulate_media(color_scheme=other)
    assert set(page.evaluate(PALETTE).items()).isdisjoint(native.items())  # every colour has two sides

    toggle = page.get_by_role("button", name="Dark theme")
    toggle.click()  # the system's scheme is on screen, so the switch turns to the chosen one
    expect(toggle).to_have_attribute("aria-pressed", str(chosen == "dark").lower())
    assert page.evaluate("document.documentElement.dataset.theme") == chosen
    assert page.evaluate(PALETTE) == native
    body = "[getComputedStyle(document.body).backgroundColor, getComputedStyle(document.body).color]"
    assert page.evaluate(body) == [native["--bg"], native["--fg"]]
    for text, ground in TEXT_ON:
        assert contrast(native[text], native[ground]) >= 4.5, (chosen, text, ground)


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


def test_reduced_motion_turns_off_smooth_scrolling_and_transitions(watched_page) -> None:
    page, _ = watched_page  # the fixture's context asks for reduced motion
    page.goto("/")
    assert page.evaluate("getComputedStyle(document.documentElement).scrollBehavior") == "auto"
    duration = page.locator(".segmented__option span").first.evaluate(
        "(el) => getComputedStyle(el).transitionDuration"
    )
    assert set(duration.split(", ")) == {"0s"}
    page.emulate_media(reduced_motion="no-preference")
    page.goto("/")
    assert page.evaluate("getComputedStyle(document.documentElement).scrollBehavior") == "smooth"


# ---- predict, then reveal ----------------------------------------------------------------------------------


def open_prompt(page: Page, name: str, query: str = "") -> Locator:
    """Open the article (with `query`); its predict-then-reveal prompt `name`."""
    page.goto(f"/{query}")
    return page.locator(f'[data-predict="{name}"]')


def press_on(page: Page, control: Locator, *keys: str) -> None:
    """Focus `control`, then press `keys` one after another."""
    control.focus()
    for key in keys:
        page.keyboard.press(key)


def test_predict_then_reveal_by_keyboard_one_head(watched_page) -> None:
    page, _ = watched_page
    prompt = open_prompt(page, "one-head")
    answer = prompt.locator('[data-part="answer"]')
    expect(answer).to_be_hidden()
    # Space chooses meaning; ArrowRight moves the choice to grammar.
    press_on(page, prompt.get_by_role("radio", name=re.compile("^meaning")), "Space", "ArrowRight")
    expect(prompt.get_by_role("radio", name=re.compile("^grammar"))).to_be_checked()
    page.keyboard.press("Tab")
    expect(prompt.get_by_role("button", name="Reveal")).to_be_focused()
    page.keyboard.press("Enter")
    data = get_json(page, "/api/attention?sentence=the+river+bank+was+steep&heads=1&mask=none&trained=true")
    best = max(data["relations"], key=lambda r: r["score"])
    expect(answer).to_be_visible()
    expect(answer).to_contain_text(f"the relation served best is {best['name']}")
    expect(answer).to_contain_text(f"{best['name']} {best['score']:.2f}")
    expect(answer).to_contain_text("Right." if best["name"] == "grammar" else "you guessed grammar")


def test_predict_then_reveal_by_keyboard_leak(watched_page) -> None:
    page, _ = watched_page
    prompt = open_prompt(page, "leak", "?mask_sentence=the+dog+ran+near+the+barn")
    press_on(page, prompt.get_by_role("spinbutton", name="Leak"), "2", "0", "Enter")
    # Figure 6's decoder (the language model trained with −∞) under ×0, on the figure's sentence.
    data = get_json(page, "/api/lm/attention?model=neg_inf&mask=zero&sentence=the+dog+ran+near+the+barn")
    leak = round(data["future_leak"] * 100, 1)
    answer = prompt.locator('[data-part="answer"]')
    expect(answer).to_contain_text(
        f"Under ×0, {leak:.1f}% of the decoder's attention on “the dog ran near the barn”"
    )
    expect(answer).to_contain_text("Under −∞ it is exactly 0%")


def test_predict_then_reveal_needs_a_guess_and_answers_the_lowest_loss(watched_page) -> None:
    page, _ = watched_page
    prompt = open_prompt(page, "lowest-loss")
    reveal = prompt.get_by_role("button", name="Reveal")
    press_on(page, reveal, "Enter")
    answer = prompt.locator('[data-part="answer"]')
    expect(answer).to_be_hidden()  # no guess yet: the form asks for one
    press_on(page, prompt.get_by_role("radio", name="−∞"), "Space")
    press_on(page, reveal, "Enter")
    models = get_json(page, "/api/lm")["models"]
    best = min(models, key=lambda m: m["final_validation"])
    label = {"neg_inf": "−∞", "zero": "×0", "next_word": "off-by-one", "none": "no mask"}[best["mask"]]
    expect(answer).to_contain_text(f"Lowest validation loss: {label} (")


def copy_the_link(page: Page) -> None:
    """Open figure 1's page and press Copy link; wait for the link it shows."""
    figure = open_heads_dial(page, "/figure/heads-dial")
    figure.get_by_role("button", name="Copy link to this view").click()
    link_box = figure.get_by_role("textbox", name=f"Link to this view of Figure {number('heads-dial')}")
    expect(link_box).to_be_visible()


def reveal_the_leak(page: Page) -> Locator:
    """On the article, guess 30% for the ×0 leak and reveal the answer; the prompt."""
    prompt = open_prompt(page, "leak")
    prompt.get_by_role("spinbutton", name="Leak").fill("30")
    prompt.get_by_role("button", name="Reveal").click()
    expect(prompt.locator('[data-part="answer"]')).to_contain_text("Under ×0")
    return prompt


def test_the_tools_fit_a_phone(phone_page) -> None:
    page, _ = phone_page
    copy_the_link(page)
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    reveal_the_leak(page)
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]


# ---- screenshots -------------------------------------------------------------------------------------------


@pytest.mark.screenshots
def test_embed_dark_and_phone_screenshots(shots) -> None:
    page = shots.desktop
    open_the_embed(page)
    shots.take(page, "embed-mask-lab")
    page.set_viewport_size(DESKTOP)
    figure = open_heads_dial(page)
    turn_dark(page)
    shots.take(page, "article-dark-desktop")
    shots.take(figure, "heads-dial-dark")
    mask = open_figure(page, "mask-lab")  # the article again, dark from the start: the choice is remembered
    expect(mask.locator("svg.heatmap").first).to_be_visible()
    shots.take(mask, "mask-lab-dark")

    phone = shots.phone
    copy_the_link(phone)
    shots.take(phone, "figure-page-phone")
    shots.take(reveal_the_leak(phone), "predict-phone")
    phone.emulate_media(color_scheme="dark")  # the system's scheme, followed while the reader has not chosen
    phone.goto("/")
    expect(phone.locator('#heads-dial [data-part="drawing"] svg').first).to_be_visible()
    shots.take(phone, "article-dark-phone")
