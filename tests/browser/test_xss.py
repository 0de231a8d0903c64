"""Cross-site scripting: ten payloads through every text box and every query key the pages read, and the
figure name in /figure/<name>, in real Chromium.

The pages run with their Content-Security-Policy bypassed, so an injection would not be saved by the policy
and would really run: a dialog listener records any alert, and after every step the page is scanned for
markup a payload could have planted (event-handler attributes, javascript: URLs, inline scripts, frames).
Where a page shows the reader's text back (a text box, a token name, the name of a missing figure), the
payload must be there verbatim, as text. One page load per figure, reused for all its inputs.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from urllib.parse import quote, urlencode

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import DESKTOP, keep_on_loopback
from tests.browser.pages import ARTICLE_FIGURES

PAYLOADS = [
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    '"><svg onload=alert(1)>',
    "javascript:alert(1)",
    "</textarea><script>alert(1)</script>",
    "{{7*7}} ${7*7} <%= 7*7 %> #{7*7}",
    "' onmouseover='alert(1)' x='",
    '<iframe srcdoc="<script>alert(1)</script>"></iframe>',
    "</script><script>alert(1)</script><!--",
    "<details open ontoggle=alert(1)><summary>x</summary></details>",
    '<math><mi xlink:href="javascript:alert(1)">x</mi></math><a href="javascript:alert(1)">y</a>',
]
# each figure opens with its own payload
assert len(PAYLOADS) >= len(ARTICLE_FIGURES), "one payload per figure: write another"

# Every query key a figure reads from the URL (static/js/figures/*.js, the `param` of each state schema).
QUERY_KEYS = [
    *("sentence", "heads", "head", "trained"),  # heads dial
    *("acct_d", "acct_h", "acct_n", "kv_model", "kv_dtype", "kv_batch"),  # accounting and its cache
    *("sharing_sentence", "sharing_heads", "sharing_kv"),  # sharing keys and values
    *("lab", "lab_token", "lab_tied", "lab_mask", "lab_scale"),  # head lab
    *("gen_sentence", "gen_mode", "gen_step", "gen_layer", "gen_head"),  # generator
    *("mask_sentence", "mask", "mask_heads", "mask_trained"),  # mask lab
    *("lm_sentence", "lm_decoding"),  # interview
    *("order_sentence", "order_positional", "order_perm"),  # order
    *("real_sentence", "real_layer", "real_head", "real_words", "real_hide"),  # the real model's heads
]
# The text boxes each figure has, by id, and the query key each one mirrors.
SENTENCE_BOXES = {
    "heads-dial": ("heads-dial-sentence", "sentence"),
    "sharing": ("sharing-sentence", "sharing_sentence"),
    "mask-lab": ("mask-lab-sentence", "mask_sentence"),
    "generator": ("generator-sentence", "gen_sentence"),
    "interview": ("interview-sentence", "lm_sentence"),
    "order": ("order-sentence", "order_sentence"),
    "real-heads": ("real-heads-sentence", "real_sentence"),
}
FIGURES = ARTICLE_FIGURES

# Counts fetches in flight, so a step can wait for the figure's answer to arrive and be drawn.
PENDING_SCRIPT = """
window.__pending = 0;
const fetchOriginal = window.fetch;
window.fetch = (...args) => {
  window.__pending += 1;
  return fetchOriginal(...args).finally(() => { window.__pending -= 1; });
};
"""

# What a payload could have planted, found in the live DOM (a list of descriptions; empty when clean).
PLANTED_SCRIPT = """
() => {
  const found = [];
  const urlAttributes = new Set(["href", "src", "action", "formaction", "xlink:href", "data", "srcdoc"]);
  for (const el of document.querySelectorAll("*")) {
    for (const a of el.attributes) {
      if (a.name.startsWith("on")) found.push(`${el.tagName} ${a.name}=${a.value}`);
      const script = /^\\s*javascript:/i.test(a.value);
      if (urlAttributes.has(a.name) && script) found.push(`${el.tagName} ${a.name}`);
      if (a.name === "srcdoc") found.push(`${el.tagName} srcdoc`);
    }
    if (["IFRAME", "FRAME", "OBJECT", "EMBED"].includes(el.tagName)) found.push(el.tagName);
    if (el.tagName === "IMG" && el.getAttribute("src") === "x") found.push("IMG src=x");
  }
  for (const s of document.querySelectorAll("script")) {
    const ok = s.type === "application/json" || (s.src && new URL(s.src).origin === location.origin);
    if (!ok) found.push(`SCRIPT ${s.src || s.textContent.slice(0, 40)}`);
  }
  return found;
}
"""


@dataclass
class Harness:
    page: Page
    dialogs: list[str] = field(default_factory=list)
    page_errors: list[str] = field(default_factory=list)
    foreign: list[str] = field(default_factory=list)

    def settle(self) -> None:
        """Wait until no fetch is in flight and no figure is busy, then one more frame."""
        self.page.wait_for_function(
            "window.__pending === 0 && !document.querySelector('[aria-busy=\"true\"]')", timeout=15_000
        )
        self.page.evaluate("() => new Promise((done) => requestAnimationFrame(() => done()))")

    def assert_clean(self, where: str) -> None:
        assert self.dialogs == [], f"{where}: a payload ran: {self.dialogs}"
        assert self.page.evaluate(PLANTED_SCRIPT) == [], where
        assert self.foreign == [], f"{where}: requests left 127.0.0.1: {self.foreign}"


@pytest.fixture(scope="module")
def harness(browser, server) -> Iterator[Harness]:
    context = browser.new_context(viewport=DESKTOP, base_url=server, bypass_csp=True, reduced_motion="reduce")
    context.add_init_script(PENDING_SCRIPT)
    page = context.new_page()
    page.set_default_timeout(10_000)
    h = Harness(page)

    def on_dialog(dialog) -> None:
        h.dialogs.append(f"{dialog.type}: {dialog.message}")
        dialog.dismiss()

    page.on("dialog", on_dialog)
    page.on("pageerror", lambda e: h.page_errors.append(str(e)))
    keep_on_loopback(context, h.foreign)
    try:
        yield h
    finally:
        context.close()


def start_figures(h: Harness) -> None:
    """Bring every figure on the page into view (they start lazily), waiting for each to settle."""
    for figure in h.page.locator("figure[data-widget]").all():
        figure.scroll_into_view_if_needed()
        h.settle()


def test_the_harness_sees_a_payload_that_runs(harness: Harness) -> None:
    """With the policy bypassed an injected handler really runs, so a silent dialog list means something."""
    harness.page.goto("/figure/placements")
    with harness.page.expect_event("dialog"):
        harness.page.evaluate(
            "() => { document.body.insertAdjacentHTML('beforeend', '<img src=x onerror=alert(7)>'); }"
        )
    assert harness.dialogs == ["alert: 7"]
    assert harness.page.evaluate(PLANTED_SCRIPT) != []
    harness.dialogs.clear()


@pytest.mark.parametrize("index", range(len(FIGURES)), ids=FIGURES)
def test_every_query_key_and_text_box_shows_a_payload_as_text(harness: Harness, index: int) -> None:
    """Figure i's page opens with every query key set to payload i, then takes every payload in its text
    boxes."""
    name, payload = FIGURES[index], PAYLOADS[index]
    page = harness.page
    page.goto(f"/figure/{name}?" + urlencode({key: payload for key in QUERY_KEYS}))
    start_figures(harness)
    harness.assert_clean(f"{name} with every query key = {payload!r}")
    figure = page.locator(f"figure#{name}")
    expect(figure).to_have_count(1)

    if name in SENTENCE_BOXES:
        box_id, key = SENTENCE_BOXES[name]
        box = page.locator(f"#{box_id}")
        max_length = 200 if key == "lm_sentence" else 500
        if len(payload.strip()) <= max_length:
            expect(box).to_have_value(payload.strip())  # read from the URL, shown as the box's text
        # The longest first: its pieces fill figure 7 with heatmaps (n² cells each), which every scan after it
        # walks until a shorter sentence replaces them.
        for typed in sorted(PAYLOADS, key=len, reverse=True):
            box.fill(typed)
            box.press("Enter")
            harness.settle()
            expect(box).to_have_value(typed)
            harness.assert_clean(f"{name}: {typed!r} typed in the Sentence box")

    if name == "head-lab":
        token = figure.get_by_role("textbox", name="Token 1")
        cell = figure.locator("input.mx__cell").first
        for typed in PAYLOADS:
            token.fill(typed)
            token.dispatch_event("change")
            cell.fill(typed)
            harness.settle()
            shown = typed[:40]  # a token name holds at most 40 characters
            expect(token).to_have_value(shown)
            expect(figure.get_by_text(shown, exact=False).first).to_be_attached()
            harness.assert_clean(f"head lab: {typed!r} as a token name and a number")

    if name == "interview":
        upload = figure.get_by_label("Attention file")
        for typed in PAYLOADS:
            filename = typed.replace("/", "_") + ".csv"
            upload.set_input_files({"name": filename, "mimeType": "text/csv", "buffer": b"1,0\n0.5,0.5\n"})
            harness.settle()
            harness.assert_clean(f"interview: an upload named {filename!r}")
        # Every payload as a token of an upload: drawn as heatmap labels and arc words, as text.
        n = len(PAYLOADS)
        weights = [[1.0 if j == i else 0.0 for j in range(n)] for i in range(n)]
        body = json.dumps({"weights": weights, "tokens": list(PAYLOADS)}).encode()
        upload.set_input_files({"name": "tokens.json", "mimeType": "application/json", "buffer": body})
        expect(figure.locator(".upload-head svg.heatmap")).to_be_visible()
        harness.settle()
        harness.assert_clean("interview: payloads as the tokens of an upload")

    assert harness.page_errors == [], harness.page_errors


@pytest.mark.parametrize("payload", PAYLOADS)
def test_a_payload_as_the_figure_name_or_the_embed_flag_is_shown_as_text(
    harness: Harness, payload: str
) -> None:
    page = harness.page
    response = page.goto("/figure/" + quote(payload, safe=""))
    assert response is not None and 400 <= response.status < 500
    if "/" not in payload:  # the name is one path segment: the page that lists the figures
        assert response.status == 404
        expect(page.get_by_role("heading", level=1)).to_have_text(f"No figure called “{payload}”")
    harness.assert_clean(f"/figure/<{payload!r}>")
    response = page.goto("/figure/heads-dial?" + urlencode({"embed": payload}))
    assert response is not None and response.status == 422
    assert response.headers["content-type"] == "application/json"
    harness.assert_clean(f"/figure/heads-dial?embed={payload!r}")
    assert harness.page_errors == [], harness.page_errors
