"""Figure 7's structural diagnosis in real Chromium: an upload judged, gridded by layer × head, and any head
drawn from the reader's own file (a BERT-base-sized export included), with tokens as arcs, examples of the
mask bug zoo, and refusals shown in the server's words."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
from playwright.sync_api import Locator, Page, expect

from tests.browser.pages import open_figure
from tests.browser.test_accessibility import serious_violations

FUTURE = lambda n: np.triu(np.ones((n, n), dtype=bool), k=1)  # noqa: E731


def causal_weights(h: int, n: int, seed: int = 0) -> np.ndarray:
    """Random causal attention: a softmax over scores with every future score at −∞."""
    scores = np.random.default_rng(seed).normal(size=(h, n, n))
    scores[:, FUTURE(n)] = -np.inf
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def zero_fill_weights(h: int, n: int, seed: int = 1) -> np.ndarray:
    """The ×0 bug: every future score set to 0 before the softmax."""
    scores = np.random.default_rng(seed).normal(size=(h, n, n)) * 2
    scores[:, FUTURE(n)] = 0.0
    e = np.exp(scores)
    return e / e.sum(axis=-1, keepdims=True)


def open_diagnosis(page: Page) -> tuple[Locator, Locator]:
    """Figure 7 on its own page; the figure and its diagnosis region."""
    figure = open_figure(page, "interview")
    region = figure.get_by_role("region", name=re.compile("structural diagnosis"))
    expect(figure).to_have_attribute("data-ready", "true")  # listening: a file chosen now is read
    return figure, region


def upload(figure: Locator, path: Path) -> None:
    figure.get_by_label("Attention file").set_input_files(str(path))


def grid_cell(region: Locator, layer: int, head: int) -> Locator:
    """The grid's cell of the array's [layer, head] (0-based, as the file's)."""
    return region.locator(f".upload-cell[data-layer='{layer}'][data-head='{head}']")


def drawn_head(region: Locator) -> Locator:
    return region.locator(".upload-head")


def test_an_upload_is_judged_gridded_and_any_head_drawn_from_the_readers_file(
    watched_page, axe_source: str, tmp_path: Path
):
    """Two layers of three heads, the array's [1, 2] with the ×0 fingerprint: the grid marks it, the head
    drawn first is the worst (layer 2, head 3 to a reader), its cells are the file's own numbers, and a click
    or the arrow keys draw any other head."""
    page, _ = watched_page
    figure, region = open_diagnosis(page)
    weights = causal_weights(3, 5)[None].repeat(2, axis=0)  # (2 layers, 3 heads, 5, 5)
    weights[1, 2] = zero_fill_weights(1, 5)[0]
    np.save(tmp_path / "two-layers.npy", weights)
    upload(figure, tmp_path / "two-layers.npy")
    expect(region.locator(".verdict")).to_have_attribute("data-verdict", "leaks")
    expect(region.locator(".verdict__summary")).to_contain_text("Worst: layer 2, head 3, with")
    expect(region.locator(".verdict__meta")).to_have_text("two-layers.npy · shape [2, 3, 5, 5]")

    grid = region.get_by_role("group", name=re.compile("^Every head's fingerprint, 2 layers by 3 heads"))
    expect(grid.locator(".upload-cell")).to_have_count(6)
    expect(grid_cell(region, 1, 2)).to_have_attribute("data-signature", "zero_fill")
    expect(grid.locator(".upload-cell[data-signature='causal']")).to_have_count(5)
    expect(region.locator(".upload-grid__legend")).to_contain_text("zero_fill 1 head: ×0")
    # each signature's mark, from the server's table (the page data): a letter on a leak, none if causal
    expect(grid_cell(region, 1, 2).locator(".upload-cell__mark")).to_have_text("0")
    expect(grid_cell(region, 0, 0).locator(".upload-cell__mark")).to_have_count(0)
    expect(region.locator(".upload-grid__legend-mark")).to_have_text(["0"])

    head = drawn_head(region)
    expect(head.get_by_role("img", name=re.compile(r"^layer 2, head 3: leaks, ×0"))).to_be_visible()
    cells = head.locator("svg.upload-head__map .heatmap__cell")
    expect(cells).to_have_count(25)
    drawn = [float(w) for w in cells.evaluate_all("cs => cs.map((c) => c.dataset.weight)")]
    assert drawn == weights[1, 2].ravel().tolist()  # read from the file in the browser, bit for bit

    grid_cell(region, 0, 0).click()
    expect(head.get_by_role("img", name=re.compile(r"^layer 1, head 1: causal"))).to_be_visible()
    grid.focus()
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowDown")
    expect(head.get_by_role("img", name=re.compile(r"^layer 2, head 2: causal"))).to_be_visible()
    expect(head.get_by_role("img", name=re.compile(r"head 0\b"))).to_have_count(0)  # counted from 1

    fill = grid_cell(region, 0, 0).locator("rect").evaluate("r => r.style.fillOpacity")
    figure.get_by_role("radiogroup", name="Colour by").get_by_role("radio", name="entropy").check()
    expect(grid_cell(region, 0, 0).locator("rect")).not_to_have_css("fill-opacity", fill)

    region.locator(".upload-table summary").click()  # the grid in words, folded away until asked for
    table = region.get_by_role("region", name="Every head's verdict")
    expect(table.locator("tbody tr")).to_have_count(6)
    assert serious_violations(page, axe_source) == []


def bert_base_export(path: Path) -> np.ndarray:
    """A 12 × 12 × 512 × 512 float16 export (75 MB), written head by head: every head causal except the
    array's [4, 6], which reads only the next word (the off-by-one leak); that head, returned."""
    n = 512
    causal = causal_weights(1, n)[0].astype(np.float16)
    leak = np.roll(np.eye(n, dtype=np.float16), 1, axis=1)  # row i on key i + 1 ...
    leak[-1] = 0
    leak[-1, -1] = 1  # ... and the last row, with no next word, on itself
    with path.open("wb") as out:
        np.lib.format.write_array_header_1_0(
            out, {"descr": "<f2", "fortran_order": False, "shape": (12, 12, n, n)}
        )
        for layer in range(12):
            for head in range(12):
                out.write((leak if (layer, head) == (4, 6) else causal).tobytes())
    return leak


def test_one_layer_is_named_in_the_singular(watched_page, tmp_path: Path) -> None:
    """An [h, n, n] file is one layer: the grid once said "1 layers × 2 heads"."""
    page, _ = watched_page
    figure, region = open_diagnosis(page)
    np.save(tmp_path / "one-layer.npy", causal_weights(2, 5))
    upload(figure, tmp_path / "one-layer.npy")
    expect(region.locator(".upload-grid__title")).to_have_text("Every head: 1 layer × 2 heads")
    grid = region.get_by_role("group", name=re.compile("^Every head's fingerprint, 1 layer by 2 heads"))
    expect(grid.locator(".upload-cell")).to_have_count(2)


def test_a_bert_base_sized_export_and_2048_heads_are_diagnosed_and_gridded(watched_page, tmp_path: Path):
    page, _ = watched_page
    figure, region = open_diagnosis(page)
    path = tmp_path / "bert-base.npy"
    leak = bert_base_export(path)
    assert path.stat().st_size > 75_000_000
    upload(figure, path)
    expect(region.locator(".verdict")).to_have_attribute("data-verdict", "leaks", timeout=60_000)
    expect(region.locator(".verdict__meta")).to_have_text("bert-base.npy · shape [12, 12, 512, 512]")
    expect(region.locator(".upload-cell")).to_have_count(144)
    expect(grid_cell(region, 4, 6)).to_have_attribute("data-signature", "next_word")
    expect(region.locator(".upload-cell[data-signature='causal']")).to_have_count(143)

    head = drawn_head(region)
    expect(head.get_by_role("img", name=re.compile(r"^layer 5, head 7: leaks, off by one"))).to_be_visible()
    expect(head).to_contain_text("each cell is the mean weight of a block of 4 × 4 positions")
    cells = head.locator("svg.upload-head__map .heatmap__cell")
    expect(cells).to_have_count(128 * 128)
    first = float(cells.first.get_attribute("data-weight") or "nan")
    assert first == leak[:4, :4].astype(np.float64).mean()  # 3 of 16 cells hold 1: 0.1875

    grid_cell(region, 11, 11).click()
    expect(head.get_by_role("img", name=re.compile(r"^layer 12, head 12: causal"))).to_be_visible()

    # 2,048 heads, three not causal: the answer lists those three, and the grid still draws all 2,048.
    weights = np.broadcast_to(np.eye(4), (8, 256, 4, 4)).copy()
    weights[2, 7] = weights[5, 0] = np.roll(np.eye(4), 2, axis=1)  # two keys ahead (and back): unmasked
    weights[7, 255] = 0.25  # uniform: the ×0 signature
    np.save(tmp_path / "model.npy", weights.astype(np.float16))
    upload(figure, tmp_path / "model.npy")
    expect(region.locator(".verdict")).to_have_attribute("data-verdict", "leaks")
    expect(region.locator(".upload-cell")).to_have_count(2048)
    expect(region.locator(".upload-table summary")).to_have_text(re.compile(r"^The heads listed: 3 of 2,048"))
    region.locator(".upload-table summary").click()
    listed = region.get_by_role("region", name="Every head's verdict")
    expect(listed.locator("tbody tr td:first-child")).to_have_text(
        ["layer 3, head 8", "layer 6, head 1", "layer 8, head 256"]
    )
    expect(grid_cell(region, 7, 255)).to_have_attribute("data-signature", "zero_fill")


def test_tokens_examples_of_the_zoo_a_dropped_file_and_refusals(watched_page, tmp_path: Path):
    """Tokens drawn as arcs (from a .json object, or a tokens file, refused when their count is wrong),
    the zoo's examples, a dropped file, and a refusal in the server's words."""
    page, watch = watched_page
    watch.expected_console.append("status of 422")
    figure, region = open_diagnosis(page)
    words = ["the", "cat", "sat", "down"]
    path = tmp_path / "with-tokens.json"
    path.write_text(json.dumps({"weights": causal_weights(2, 4).tolist(), "tokens": words}))
    upload(figure, path)
    expect(region.locator(".verdict")).to_have_attribute("data-verdict", "causal")
    arcs = drawn_head(region).locator(".upload-head__arcs svg")
    expect(arcs).to_be_visible()
    for word in words:
        expect(arcs).to_contain_text(word)

    tokens = tmp_path / "tokens.txt"
    tokens.write_text("one\ntwo\nthree\n")
    np.save(tmp_path / "four.npy", causal_weights(1, 4))
    figure.get_by_label("Tokens file").set_input_files(str(tokens))
    upload(figure, tmp_path / "four.npy")
    expect(region.get_by_role("alert")).to_contain_text("tokens: 3 given, the heads have 4 positions")
    expect(region.locator(".verdict")).to_have_count(0)
    four = tmp_path / "four-tokens.txt"
    four.write_text("un\ndeux\ntrois\nquatre\n")
    figure.get_by_label("Tokens file").set_input_files(str(four))  # the file is checked again with them
    expect(region.locator(".verdict")).to_have_attribute("data-verdict", "causal")
    expect(drawn_head(region).locator(".upload-head__arcs svg")).to_contain_text("quatre")

    path = tmp_path / "rows.csv"
    path.write_text("0.5,0.2\n0.7,0.5\n")  # rows summing past 1: not attention weights
    detail = page.request.post(
        "/api/diagnose",
        multipart={"file": {"name": "rows.csv", "mimeType": "text/csv", "buffer": path.read_bytes()}},
    ).json()["detail"]
    upload(figure, path)
    expect(region.get_by_role("alert")).to_have_text(detail)
    expect(region.locator(".verdict")).to_have_count(0)

    example = figure.get_by_label("Example")
    for choice, verdict, signature in (
        ("−∞ model, after softmax", "broken", "after_softmax"),
        ("−∞ model, transposed", "leaks", "transposed"),
        ("the off-by-one model", "leaks", "next_word"),
        ("the ×0 model", "leaks", "zero_fill"),
    ):
        example.select_option(label=choice)
        region.get_by_role("button", name="Try the example").click()
        expect(region.locator(".verdict__meta")).to_contain_text(choice)
        expect(region.get_by_role("alert")).to_be_hidden()
        expect(region.locator(".verdict")).to_have_attribute("data-verdict", verdict)
        expect(region.locator(f".upload-cell[data-signature='{signature}']").first).to_be_visible()
        expect(drawn_head(region).locator(".upload-head__arcs svg")).to_be_visible()  # its tokens came along

    # Off by one the other way: the first row sees nothing, and its NaN cells are drawn grey, written NaN.
    example.select_option(label="−∞ model, off by one: hides itself")
    region.get_by_role("button", name="Try the example").click()
    expect(region.locator(".verdict")).to_have_attribute("data-verdict", "broken")
    head = drawn_head(region)
    expect(head.get_by_role("img", name=re.compile(r"^layer 1, head 1: broken, off by one"))).to_be_visible()
    n = head.locator(".upload-head__map .heatmap__cell[data-query='0']").count()
    assert n >= 2
    expect(head.locator(".upload-head__map .heatmap__cell.is-nan")).to_have_count(n)
    expect(head).to_contain_text("1 NaN row (drawn grey)")

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
    expect(region.locator(".verdict__meta")).to_have_text("dropped.json · shape [4, 4]")
    expect(region.locator(".verdict")).to_have_attribute("data-verdict", "causal")


def test_the_legend_and_the_head_say_what_the_servers_table_says(watched_page):
    """The words for each fingerprint come from the one table (app/core/head_signatures.py SIGNATURE_RULES),
    by way of the page's data: the legend's line and the drawn head's name."""
    from app.core.head_signatures import SIGNATURE_RULES

    page, _ = watched_page
    figure, region = open_diagnosis(page)
    figure.get_by_label("Example").select_option(label="the ×0 model")
    region.get_by_role("button", name="Try the example").click()
    expect(region.locator(".verdict")).to_have_attribute("data-verdict", "leaks")
    said = SIGNATURE_RULES["zero_fill"][2]
    expect(region.locator(".upload-grid__legend li")).to_contain_text([f": {said}"])
    name = re.compile(rf"^layer \d+, head \d+: leaks, {re.escape(said)}$")
    expect(drawn_head(region).get_by_role("img", name=name)).to_be_visible()
