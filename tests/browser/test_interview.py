"""Figure 7, the interview question and the structural diagnosis, driven in real Chromium."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from urllib.parse import urlencode

import numpy as np
import pytest
from playwright.sync_api import Locator, Page, expect

from tests.browser.conftest import watched
from tests.browser.pages import get_json, open_figure, sideways_scroll, texts_of, too_small

SHORT = {"neg_inf": "−∞", "zero": "×0", "none": "no mask"}


def open_interview(page: Page, query: str = "") -> Locator:
    """Open figure 7 (its own page, with `query`) and wait for its curves, predictions and fingerprints."""
    figure = open_figure(page, "interview", query)
    expect(figure.locator("svg.lm-curves__chart")).to_be_visible()
    expect(read_write(figure).get_by_role("table")).to_have_count(3)
    expect(figure.locator(".lm-model[data-model=none] svg.heatmap").first).to_be_visible()
    return figure


def read_write(figure: Locator) -> Locator:
    return figure.get_by_role("region", name="Reading the answer versus writing alone")


def card(figure: Locator, mask: str) -> Locator:
    return figure.locator(f".lm-model[data-model={mask}]")


def diagnosis(figure: Locator) -> Locator:
    return figure.get_by_role("region", name=re.compile("structural diagnosis"))


def upload(figure: Locator, path: Path, weights: np.ndarray | None = None) -> Locator:
    """Choose the file at `path` in the figure's file input, first saving `weights` there as .npy if given;
    the diagnosis region, which answers it."""
    if weights is not None:
        np.save(path, weights)
    figure.get_by_label("Attention file").set_input_files(str(path))
    return diagnosis(figure)


def generate_samples(figure: Locator, mask: str) -> None:
    """Ask the model trained with `mask` for samples and wait for the first."""
    card(figure, mask).get_by_role("button", name=f"Generate samples ({SHORT[mask]})").click()
    expect(card(figure, mask).locator(".sample").first).to_be_visible()


def try_the_zero_fill_example(figure: Locator) -> Locator:
    """Diagnose the ×0 model's own attention, which leaks; the diagnosis region."""
    region = diagnosis(figure)
    region.get_by_role("button", name="Try an example (×0)").click()
    expect(region.locator(".verdict")).to_have_attribute("data-verdict", "leaks")
    return region


def causal_weights(h: int, n: int, seed: int = 0) -> np.ndarray:
    """Random causal attention: a softmax over scores with every future score at −∞."""
    rng = np.random.default_rng(seed)
    scores = rng.normal(size=(h, n, n))
    scores[:, np.triu(np.ones((n, n), dtype=bool), k=1)] = -np.inf
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def zero_fill_weights(h: int, n: int, seed: int = 1) -> np.ndarray:
    """The ×0 bug: every future score set to 0 before the softmax."""
    rng = np.random.default_rng(seed)
    scores = rng.normal(size=(h, n, n)) * 2
    scores[:, np.triu(np.ones((n, n), dtype=bool), k=1)] = 0.0
    e = np.exp(scores)
    return e / e.sum(axis=-1, keepdims=True)


def test_three_pairs_of_loss_curves_are_drawn_and_labelled(watched_page):
    page, _ = watched_page
    figure = open_interview(page)
    record = page.request.get("/api/lm").json()
    chart = figure.locator("svg.lm-curves__chart")
    for model in record["models"]:
        group = chart.locator(f".lm-curves__model[data-model={model['mask']}]")
        expect(group.locator("path[data-kind=train]")).to_have_count(1)
        expect(group.locator("path[data-kind=validation]")).to_have_count(1)
        label = chart.locator(f".lm-curves__label[data-model={model['mask']}]")
        expect(label).to_have_text(re.compile(f"^{re.escape(SHORT[model['mask']])} "))
    expect(chart.locator(".lm-curves__line")).to_have_count(6)
    expect(chart).to_have_attribute("aria-label", re.compile("−∞.*×0.*no mask"))
    expect(figure.locator(".lm-model")).to_have_count(3)
    expect(figure.locator(".lm-model > .lm-model__title")).to_have_text(
        [re.compile("^−∞"), re.compile("^×0"), "no mask"]
    )
    expect(figure.locator("[data-part=curves-text]")).to_contain_text("Final validation loss")


def test_generate_samples_shows_marked_sentences(watched_page):
    page, _ = watched_page
    figure = open_interview(page)
    honest = card(figure, "neg_inf")
    honest.get_by_role("button", name="Generate samples (−∞)").click()
    samples = honest.locator(".sample")
    expect(samples.first).to_be_visible()
    expect(samples.first.get_by_role("img")).to_have_accessible_name(
        re.compile(r"^(grammatical|not grammatical)$")
    )
    expect(samples.first.locator(".sample__mark")).to_have_text(re.compile("^[✓✗]$"))
    expect(samples.first.locator(".sample__text")).to_have_text(re.compile(r"^the\b"))
    expect(honest.locator(".samples__share")).to_have_text(re.compile(r"^Greedy: \d+ of \d+ grammatical"))

    figure.get_by_role("radiogroup", name="Decoding").get_by_role("radio", name="sampled").check()
    expect(page).to_have_url(re.compile(r"[?&]lm_decoding=sample\b"))
    leaky = card(figure, "zero")
    leaky.get_by_role("button", name="Generate samples (×0)").click()
    expect(leaky.locator(".sample")).to_have_count(5)
    marks = leaky.locator(".sample__mark").all_text_contents()
    assert set(marks) <= {"✓", "✗"}
    good = marks.count("✓")
    expect(leaky.locator(".samples__share")).to_have_text(re.compile(rf"^Sampled: {good} of 5 grammatical"))
    expect(card(figure, "none").locator(".sample")).to_have_count(0)


def test_fingerprints_show_each_mask(watched_page):
    page, _ = watched_page
    figure = open_interview(page)
    record = page.request.get("/api/lm").json()
    per_model = record["layers"] * record["heads"]
    for mask in SHORT:
        expect(card(figure, mask).locator("svg.heatmap")).to_have_count(per_model)
    weights = {
        mask: card(figure, mask).evaluate(
            "c => [...c.querySelectorAll('svg.heatmap')].map(svg => {"
            " const n = Math.round(Math.sqrt(svg.querySelectorAll('.heatmap__cell').length));"
            " const w = Array.from({length: n}, () => new Array(n).fill(0));"
            " for (const cell of svg.querySelectorAll('.heatmap__cell'))"
            "   w[+cell.dataset.query][+cell.dataset.key] = +cell.dataset.weight;"
            " return w; })"
        )
        for mask in SHORT
    }
    honest = np.array(weights["neg_inf"])
    n = honest.shape[-1]
    future = np.triu(np.ones((n, n), dtype=bool), k=1)
    assert np.all(honest[:, future] == 0)  # a clean upper triangle
    zero = np.array(weights["zero"])
    assert np.all(zero[:, future] > 0)
    for head in zero:  # equal future weights along every row with two or more future keys
        for i in range(n - 2):
            assert np.allclose(head[i, i + 1 :], head[i, i + 1], rtol=1e-6), (i, head[i])
    unmasked = np.array(weights["none"])
    assert unmasked[:, future].max() > 0.3
    expect(card(figure, "neg_inf").locator(".fingerprint__title")).to_contain_text("future leak 0%")


def test_an_unknown_word_shows_the_server_detail(watched_page):
    page, watch = watched_page
    watch.expected_console.append("status of 422")
    figure = open_interview(page)
    detail = page.request.get(
        "/api/lm/attention", params={"model": "neg_inf", "sentence": "the zorbly fox"}
    ).json()["detail"]
    figure.get_by_role("textbox", name="Sentence").fill("the zorbly fox")
    expect(figure.locator("[data-part=error]")).to_have_text(detail)
    expect(card(figure, "zero").locator(".fingerprint")).to_have_class(re.compile(r"\bis-stale\b"))
    expect(page).to_have_url(re.compile(r"[?&]lm_sentence=the\+zorbly\+fox"))
    figure.get_by_role("textbox", name="Sentence").fill("the old fox slept")
    expect(figure.locator("[data-part=error]")).to_be_hidden()
    expect(card(figure, "zero").locator(".fingerprint")).not_to_have_class(re.compile(r"\bis-stale\b"))
    expect(card(figure, "neg_inf").locator("svg.heatmap").first.locator(".heatmap__cell")).to_have_count(25)


def test_uploading_a_causal_npy_file_says_causal(watched_page, tmp_path: Path):
    page, _ = watched_page
    figure = open_interview(page)
    region = upload(figure, tmp_path / "honest.npy", causal_weights(2, 6))
    expect(region.locator(".verdict")).to_have_attribute("data-verdict", "causal")
    expect(region.locator(".verdict__badge")).to_have_text("✓ causal")
    expect(region.locator(".verdict__summary")).to_contain_text("exactly zero weight on future positions")
    expect(region.locator(".verdict__meta")).to_have_text("honest.npy · shape [2, 6, 6]")
    heads = region.locator(".diagnose-head")
    expect(heads).to_have_count(2)
    expect(heads.locator(".diagnose-head__signature")).to_have_text(["causal", "causal"])
    expect(heads.first.locator("svg.heatmap .heatmap__cell")).to_have_count(36)
    expect(region).to_contain_text("python -m app check-causal FILE")


def test_uploading_a_leaky_json_file_names_the_zero_fill_signature(watched_page, tmp_path: Path):
    page, _ = watched_page
    figure = open_interview(page)
    path = tmp_path / "buggy.json"
    path.write_text(json.dumps(zero_fill_weights(3, 5).tolist()))
    region = upload(figure, path)
    expect(region.locator(".verdict")).to_have_attribute("data-verdict", "leaks")
    expect(region.locator(".verdict__badge")).to_have_text("✗ leaks")
    expect(region.locator(".diagnose-head")).to_have_count(3)
    expect(region.locator(".diagnose-head__signature")).to_have_text(["zero_fill"] * 3)
    expect(region.locator(".diagnose-head__verdict").first).to_have_text("leaks")
    expect(region.locator(".diagnose__key")).to_contain_text("equal future weights along each row")


def test_a_bad_file_shows_the_server_detail_then_recovers(watched_page, tmp_path: Path):
    page, watch = watched_page
    watch.expected_console.append("status of 422")
    figure = open_interview(page)
    path = tmp_path / "rows.csv"
    path.write_text("0.5,0.2\n0.5,0.5\n")
    answer = page.request.post(
        "/api/diagnose",
        multipart={"file": {"name": "rows.csv", "mimeType": "text/csv", "buffer": path.read_bytes()}},
    )
    assert answer.status == 422
    detail = answer.json()["detail"]
    region = upload(figure, path)
    expect(region.get_by_role("alert")).to_have_text(detail)
    expect(region.locator(".verdict")).to_have_count(0)
    expect(region).not_to_have_attribute("aria-busy", "true")

    region.get_by_role("button", name="Try an example (−∞)").click()
    expect(region.get_by_role("alert")).to_be_hidden()
    expect(region.locator(".verdict")).to_have_attribute("data-verdict", "causal")


def test_example_buttons_send_each_models_attention(watched_page):
    page, _ = watched_page
    figure = open_interview(page)
    region = diagnosis(figure)
    region.get_by_role("button", name="Try an example (×0)").click()
    expect(region.locator(".verdict")).to_have_attribute("data-verdict", "leaks")
    expect(region.locator(".verdict__meta")).to_contain_text("example-zero.json")
    assert "zero_fill" in region.locator(".diagnose-head__signature").all_text_contents()
    region.get_by_role("button", name="Try an example (no mask)").click()
    expect(region.locator(".verdict__meta")).to_contain_text("example-none.json")
    expect(region.locator(".verdict")).to_have_attribute("data-verdict", "leaks")
    assert "unmasked" in region.locator(".diagnose-head__signature").all_text_contents()
    region.get_by_role("button", name="Try an example (−∞)").click()
    expect(region.locator(".verdict")).to_have_attribute("data-verdict", "causal")


def test_a_file_dropped_on_the_drop_zone_is_checked(watched_page):
    page, _ = watched_page
    figure = open_interview(page)
    matrix = json.dumps(causal_weights(1, 4)[0].tolist())
    transfer = page.evaluate_handle(
        "text => { const t = new DataTransfer();"
        " t.items.add(new File([text], 'dropped.json', { type: 'application/json' })); return t; }",
        matrix,
    )
    drop = figure.locator("[data-part=drop]")
    drop.dispatch_event("dragover", {"dataTransfer": transfer})
    expect(drop).to_have_class(re.compile(r"\bis-over\b"))
    drop.dispatch_event("drop", {"dataTransfer": transfer})
    region = diagnosis(figure)
    expect(region.locator(".verdict__meta")).to_have_text("dropped.json · shape [4, 4]")
    expect(region.locator(".verdict")).to_have_attribute("data-verdict", "causal")
    expect(drop).not_to_have_class(re.compile(r"\bis-over\b"))


def test_a_large_upload_gets_a_table_instead_of_heatmaps(watched_page, tmp_path: Path):
    page, _ = watched_page
    figure = open_interview(page)
    region = upload(figure, tmp_path / "big.npy", causal_weights(3, 40))
    expect(region.locator(".verdict")).to_have_attribute("data-verdict", "causal")
    expect(region.locator(".diagnose__table tbody tr")).to_have_count(3)
    expect(region.locator("svg.heatmap")).to_have_count(0)


def three_leaking_heads_of_2048(folder: Path) -> Path:
    """A model.npy of 8 layers of 256 causal heads, three of which leak, in `folder`."""
    weights = np.broadcast_to(np.eye(4), (8, 256, 4, 4)).copy()
    weights[2, 7] = weights[5, 0] = np.roll(np.eye(4), 1, axis=1)  # each row on the next key: unmasked
    weights[7, 255] = 0.25  # uniform: the ×0 signature
    path = folder / "model.npy"
    np.save(path, weights.astype(np.float16))
    return path


def test_past_the_listing_threshold_the_figure_says_how_many_heads_it_lists(watched_page, tmp_path):
    """2,048 heads, three of them leaking: the server lists those three; the figure says so, from the answer,
    and shows every layer's count."""
    page, _ = watched_page
    figure = open_interview(page)
    path = three_leaking_heads_of_2048(tmp_path)
    answer = page.request.post(
        "/api/diagnose",
        multipart={
            "file": {"name": "model.npy", "mimeType": "application/octet-stream", "buffer": path.read_bytes()}
        },
    ).json()
    assert (answer["heads_listed"], answer["heads_total"]) == (3, 2048)
    region = upload(figure, path)
    expect(region.locator(".verdict")).to_have_attribute("data-verdict", "leaks")
    expect(region.locator(".diagnose__listed")).to_have_text(
        re.compile(r"^Heads listed: 3 of the 2,048\. .*lists only those that leak")
    )
    layers = region.get_by_role("region", name="Leaking heads, layer by layer")
    expect(layers.locator("tbody tr")).to_have_count(8)
    # Layers and heads are counted from 1 on the page: the array's [2, 7] is layer 3, head 8.
    expect(layers.locator("tbody tr").nth(2).locator("td")).to_have_text(["3", "256", "1", "0", "1", "1.00"])
    expect(layers.locator("tbody tr").nth(7).locator("td")).to_have_text(["8", "256", "1", "1", "0", "0.250"])
    listed = region.get_by_role("region", name="The leaking heads listed")
    expect(listed.locator("tbody tr td:first-child")).to_have_text(
        ["layer 3, head 8", "layer 6, head 1", "layer 8, head 256"]
    )

    every = tmp_path / "every.npy"  # 2,048 heads that all leak: the answer holds the first 1,024
    np.save(every, np.full((8, 256, 4, 4), 0.25, dtype=np.float16))
    upload(figure, every)
    expect(region.locator(".diagnose__listed")).to_have_text(
        re.compile(r"^Heads listed: 1,024 of the 2,048\. .*lists the first 1,024 of the 2,048 that leak")
    )

    small = tmp_path / "small.csv"
    small.write_text("1,0\n0,1\n")  # a small file again: every head listed, and no note
    upload(figure, small)
    expect(region.locator(".verdict__meta").first).to_have_text("small.csv · shape [2, 2]")
    expect(region.locator(".diagnose__listed")).to_have_count(0)
    expect(region.locator(".diagnose-head")).to_have_count(1)


def test_phone_width_has_no_horizontal_scroll(phone_page):
    page, _ = phone_page
    figure = open_interview(page)
    assert sideways_scroll(page) <= 0
    generate_samples(figure, "neg_inf")
    try_the_zero_fill_example(figure)
    assert sideways_scroll(page) <= 0


@pytest.mark.screenshots
def test_phone_and_desktop_screenshots(shots, tmp_path):
    figure = open_interview(shots.phone)
    generate_samples(figure, "neg_inf")
    try_the_zero_fill_example(figure)
    shots.take(figure, "interview-phone")

    page = shots.desktop
    figure = open_interview(page)
    for mask in SHORT:
        generate_samples(figure, mask)
    try_the_zero_fill_example(figure)
    page.wait_for_load_state("networkidle")
    shots.take(figure, "interview-desktop")
    shots.take(page, "article-desktop-full", full_page=True)
    region = upload(figure, three_leaking_heads_of_2048(tmp_path))
    expect(region.locator(".diagnose__listed")).to_have_text(re.compile(r"^Heads listed: 3 of the 2,048\."))
    shots.take(region, "interview-diagnose-listing")


def pct(x: float) -> str:
    """A share as figure 7 writes it (names.js pct)."""
    p = x * 100
    if p == 0:
        return "0%"
    if p < 0.1:
        return "<0.1%"
    return f"{p:.1f}%" if p < 9.95 else f"{math.floor(p + 0.5)}%"


def loss(x: float) -> str:
    """A loss as the page writes it (lib/log-axis.js formatLoss)."""
    if x == 0:
        return "0"
    return f"{x:.2f}" if x >= 1 else repr(float(f"{x:.2g}"))


def shown(word: str) -> str:
    return "(end)" if word == "</s>" else word


def test_each_model_reads_and_writes_side_by_side_beside_its_recorded_loss(watched_page):
    """The side-by-side view: per model its recorded losses, its score reading the sentence (teacher forcing)
    and writing alone (free running), and every prediction both ways, all as the server computed them."""
    page, _ = watched_page
    figure = open_interview(page)
    sentence = figure.get_by_role("textbox", name="Sentence").input_value()
    answer = get_json(page, f"/api/lm/predictions?{urlencode({'sentence': sentence})}")
    n = answer["positions"]
    region = read_write(figure)
    for m in answer["models"]:
        name = SHORT[m["model"]]
        column = region.get_by_role("region", name=name, exact=True)
        expect(column.locator(".rw-model__record")).to_have_text(
            f"Recorded loss: training {loss(m['final_train'])}, validation {loss(m['final_validation'])}"
        )
        for key in ("teacher_forced", "free_running"):
            reading = m[key]
            box = column.locator(f".rw-score[data-reading={key}]")
            expect(box.locator(".rw-score__value")).to_have_text(
                f"{reading['right']} of {n} right ({pct(reading['accuracy'])})"
            )
            expect(box.locator(".rw-score__loss")).to_have_text(f"loss {loss(reading['loss'])}")
        table = column.get_by_role(
            "table", name=f"{name}: the next word at each position, reading versus writing"
        )
        rows = table.locator("tbody tr")
        expect(rows).to_have_count(n)
        expect(rows.locator("th")).to_have_text([shown(t) for t in answer["targets"]])
        expect(rows.locator("td:nth-child(2) .rw-cell__word")).to_have_text(
            [shown(w) for w in m["teacher_forced"]["predicted"]]
        )
        expect(rows.locator("td:nth-child(3) .rw-cell__word")).to_have_text(
            [shown(w) for w in m["free_running"]["predicted"]]
        )
        kinds = rows.locator("td:nth-child(3)").evaluate_all("cells => cells.map(c => c.dataset.kind)")
        assert [k == "right" for k in kinds] == m["free_running"]["correct"]

    honest, zero, _ = answer["models"]
    # The story the numbers must tell, checked on the answer (not fixed numbers): the ×0 model copies when
    # it can read and fails alone, while −∞ predicts the same words both ways.
    assert zero["teacher_forced"]["accuracy"] - zero["free_running"]["accuracy"] >= 0.5
    assert honest["same"] == n
    text = region.locator("[data-part=read-write-text]")
    f, w = zero["teacher_forced"], zero["free_running"]
    expect(text).to_contain_text(
        f"The ×0 model gets {f['right']} of {n} right ({pct(f['accuracy'])}) when it can read them and "
        f"{w['right']} of {n} ({pct(w['accuracy'])}) when it writes alone; its loss on the sentence goes "
        f"from {loss(f['loss'])} to {loss(w['loss'])}."
    )
    right = honest["teacher_forced"]["right"]
    expect(text).to_contain_text(f"The −∞ model gets {right} of {n} right both ways")
    # Step one: both losses are low for every model, so this is not overfitting; said from the record.
    widest = max(answer["models"], key=lambda m: abs(m["validation_gap"]))
    overfitting = region.locator("[data-part=overfitting]")
    expect(overfitting).to_contain_text("is it overfitting?")
    expect(overfitting).to_contain_text(
        f"The widest gap is {loss(abs(widest['validation_gap']))} ({SHORT[widest['model']]})"
    )
    for m in answer["models"]:
        expect(overfitting).to_contain_text(
            f"{SHORT[m['model']]} {loss(m['final_train'])} and {loss(m['final_validation'])}"
        )
    expect(region).to_contain_text("computed live on the server")


def test_a_new_sentence_is_read_and_written_again(watched_page):
    page, _ = watched_page
    figure = open_interview(page)
    figure.get_by_role("textbox", name="Sentence").fill("her cat slept")
    region = read_write(figure)
    expect(region).to_have_attribute("data-sentence", "her cat slept")
    table = region.get_by_role("table", name="×0: the next word at each position, reading versus writing")
    expect(table.locator("tbody th")).to_have_text(["her", "cat", "slept", "(end)"])
    answer = get_json(page, "/api/lm/predictions?sentence=her+cat+slept")
    written = answer["models"][0]["written"]
    expect(region.get_by_role("region", name="−∞", exact=True).locator(".rw-model__written")).to_contain_text(
        " ".join(written)
    )


def test_the_diagnosis_names_heads_from_1(watched_page, tmp_path: Path):
    page, _ = watched_page
    figure = open_interview(page)
    weights = causal_weights(3, 5)[None].repeat(2, axis=0)  # (2 layers, 3 heads, 5, 5)
    weights[1, 2] = zero_fill_weights(1, 5)[0]  # the array's [1, 2] leaks: layer 2, head 3 to a reader
    region = upload(figure, tmp_path / "two-layers.npy", weights)
    expect(region.locator(".verdict")).to_have_attribute("data-verdict", "leaks")
    expect(region.get_by_role("img", name=re.compile(r"^layer 2, head 3: leaks"))).to_have_count(1)
    expect(region.get_by_role("img", name=re.compile(r"^layer 1, head 1: causal"))).to_have_count(1)
    expect(region.get_by_role("img", name=re.compile(r"head 0\b"))).to_have_count(0)
    expect(region.locator(".verdict__summary")).to_contain_text("Worst: layer 2, head 3, with")
    expect(region.locator(".diagnose__key")).to_contain_text("counted from 1")


@pytest.mark.parametrize("width", [1280, 390])
def test_every_text_in_the_interview_renders_at_11_px_or_more(browser, server, width, tmp_path: Path):
    """Drawn in full (the predictions, samples of every model, the fingerprints and a diagnosis), figure 7's
    smallest visible text is at least 11 CSS px."""
    with watched(browser, server, {"width": width, "height": 900}) as (page, _):
        figure = open_interview(page)
        for mask in SHORT:
            generate_samples(figure, mask)
        try_the_zero_fill_example(figure)
        page.wait_for_load_state("networkidle")
        page.evaluate("() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))")
        texts = texts_of(page, "interview")
        assert texts and too_small(texts) == [], too_small(texts)[:10]
        assert sideways_scroll(page) <= 0
