"""The attention modes have one home, app/core/masks.py, and their names one, app/routes/pages.py: the
page data, the mask lab's radios, figure 7's models (their select, the "lowest loss" question) and the browser
code all read them from there."""

import json
import re
from pathlib import Path

from fastapi.testclient import TestClient

from app.config import get_settings
from app.core.head_signatures import SIGNATURE_MARKS, SIGNATURE_RULES, SIGNATURES
from app.core.masks import ATTENTION_MODES, MASK_MODES, ZOO_MODES
from app.models.tiny_lm import MODEL_ORDER
from app.routes.pages import MODE_NAMES, mode_label, model_name

PAGE_DATA = re.compile(r'<script type="application/json" id="page-data">(.*?)</script>', re.S)
# A JS array literal of quoted strings, and the strings in it.
ARRAY = re.compile(r"\[([^\[\]]*)\]")
QUOTED = re.compile(r"\"([a-z_]+)\"")
# Any quoted string, in JS or in a Jinja tag, and a Jinja tag.
STRING = re.compile(r"\"([^\"\n]*)\"|'([^'\n]*)'")
JINJA_TAG = re.compile(r"\{%.*?%\}", re.S)
# Every name the page gives a mode: its name, its radio's label, figure 7's name for its model.
NAMES = {*MODE_NAMES.values(), *map(mode_label, ATTENTION_MODES), *map(model_name, MODEL_ORDER)}
# The templates of figure 7 and its "lowest loss" question, which list its models and the bugs.
INTERVIEW_TEMPLATES = ("figures/interview.html", "predict.html")


def page_data(html: str) -> dict:
    match = PAGE_DATA.search(html)
    assert match, "the page carries no page data"
    return json.loads(match.group(1))


def strings(text: str) -> set[str]:
    """The quoted strings in ``text``."""
    return {a or b for a, b in STRING.findall(text)}


def test_every_mode_has_its_names_once() -> None:
    assert list(MODE_NAMES) == list(ATTENTION_MODES)


def test_figure_7_names_its_models_by_their_masks() -> None:
    """A model is named as its mask, but the one trained off by one: "off-by-one" (a legend's word)."""
    assert {mode: model_name(mode) for mode in MODEL_ORDER} == {
        "neg_inf": MODE_NAMES["neg_inf"],
        "zero": MODE_NAMES["zero"],
        "next_word": "off-by-one",
        "none": MODE_NAMES["none"],
    }


def test_the_page_data_lists_every_mode_in_order(client: TestClient) -> None:
    for path in ("/", "/figure/mask-lab"):
        modes = page_data(client.get(path).text)["maskModes"]
        assert [m["mode"] for m in modes] == list(ATTENTION_MODES), path
        assert [m["name"] for m in modes] == [MODE_NAMES[mode] for mode in ATTENTION_MODES], path


def test_the_page_data_names_figure_7s_models_in_order(client: TestClient) -> None:
    for path in ("/", "/figure/interview"):
        models = page_data(client.get(path).text)["lmModels"]
        assert models == [{"mask": mode, "name": model_name(mode)} for mode in MODEL_ORDER], path


def test_figure_7s_select_and_question_name_models_and_bugs_as_the_server_does(client: TestClient) -> None:
    html = client.get("/").text
    examples = re.findall(r'<option value="([a-z_]+)\|([a-z_]+)">([^<]+)</option>', html)
    neg_inf = model_name("neg_inf")
    bugs = [mode for mode in ZOO_MODES if mode not in MODEL_ORDER]  # next_word is a model of its own
    assert examples == [
        *[(mode, mode, f"the {model_name(mode)} model") for mode in MODEL_ORDER],
        *[("neg_inf", mode, f"{neg_inf} model, {mode_label(mode)}") for mode in bugs],
    ]
    assert f'<optgroup label="The {neg_inf} model under a bug">' in html
    radios = re.findall(r'name="model" value="([a-z_]+)"(?: required)?> ([^<(]+?) ?(?:\(|</label>)', html)
    assert radios == [(mode, model_name(mode)) for mode in MODEL_ORDER]


def test_the_mask_labs_radios_are_the_modes_in_order(client: TestClient) -> None:
    html = client.get("/figure/mask-lab").text
    radios = re.findall(r'name="mask-lab-mode" value="([a-z_]+)"', html)
    assert radios == list(ATTENTION_MODES)
    labels = re.findall(r'name="mask-lab-mode" value="[a-z_]+"[^>]*><span>([^<]+)</span>', html)
    assert labels == [mode_label(mode) for mode in ATTENTION_MODES]
    assert labels[3:5] == ["off by one: hides itself", "off by one: next word"]
    head_lab = client.get("/figure/head-lab").text
    assert re.findall(r'name="head-lab-mask" value="([a-z_]+)"', head_lab) == list(MASK_MODES)


def test_no_browser_module_lists_the_modes_again() -> None:
    """A list of the masks or of the zoo's bugs in static/js would be a second copy of the server's; a module
    may still name a mode or two (the decoder's own, the models figure 7 trained)."""
    for path in sorted((get_settings().static_dir / "js").rglob("*.js")):
        text = path.read_text(encoding="utf-8")
        for array in ARRAY.findall(text):
            named = set(QUOTED.findall(array)) & set(ATTENTION_MODES)
            assert not set(ZOO_MODES) <= named, f"{path}: {array}"
            assert len(named) < len(MASK_MODES) + 2, f"{path}: {array}"


def test_the_mask_lab_reads_its_modes_from_the_page() -> None:
    index = Path(get_settings().static_dir / "js/figures/mask-lab/index.js").read_text(encoding="utf-8")
    assert "pageData.maskModes" in index


def test_no_browser_module_writes_the_modes_names_again() -> None:
    """A table of the modes' names in static/js (as figure 7's models were once named there) would be a second
    copy of the server's: a module may write one name in its own text, never two."""
    for path in sorted((get_settings().static_dir / "js").rglob("*.js")):
        named = strings(path.read_text(encoding="utf-8")) & NAMES
        assert len(named) < 2, f"{path}: {sorted(named)}"


def test_no_template_lists_the_modes_names_again() -> None:
    """A Jinja tag may not list the names (they come as mask_options, bug_options and model_options); figure
    7's templates may not list the modes either, in a tag or as their options' and radios' values."""
    templates = get_settings().templates_dir
    for path in sorted(templates.rglob("*.html")):
        for tag in JINJA_TAG.findall(path.read_text(encoding="utf-8")):
            named = strings(tag) & NAMES
            assert len(named) < 2, f"{path}: {sorted(named)} in {tag[:80]}"
    for name in INTERVIEW_TEMPLATES:
        text = (templates / name).read_text(encoding="utf-8")
        in_tags = set().union(*(strings(tag) for tag in JINJA_TAG.findall(text))) & set(ATTENTION_MODES)
        as_values = set(re.findall(r'value="([a-z_]+)[|"]', text)) & set(ATTENTION_MODES)
        assert len(in_tags | as_values) < 2, f"{name}: {sorted(in_tags | as_values)}"


def test_the_diagnosis_grids_marks_come_from_the_one_table_of_signatures(client: TestClient) -> None:
    """Figure 7's grid marks each head with its signature's letter: every signature the diagnosis can give has
    one, in app/core/head_signatures.py, and the page data carries that table; no browser module keeps one."""
    assert list(SIGNATURE_MARKS) and set(SIGNATURE_MARKS) == set(SIGNATURES) == set(SIGNATURE_RULES)
    assert page_data(client.get("/figure/interview").text)["signatureMarks"] == SIGNATURE_MARKS
    for path in (get_settings().static_dir / "js").rglob("*.js"):
        assert not re.search(r"\bzero_fill:\s*\"0\"", path.read_text(encoding="utf-8")), path
