"""The attention modes have one home, app/core/masks.py, and their names one, app/routes/pages.py: the
page data, the mask lab's radios and the browser code all read them from there."""

import json
import re
from pathlib import Path

from fastapi.testclient import TestClient

from app.config import get_settings
from app.core.masks import ATTENTION_MODES, MASK_MODES, ZOO_MODES
from app.routes.pages import MODE_NAMES, mode_label

PAGE_DATA = re.compile(r'<script type="application/json" id="page-data">(.*?)</script>', re.S)
# A JS array literal of quoted strings, and the strings in it.
ARRAY = re.compile(r"\[([^\[\]]*)\]")
QUOTED = re.compile(r"\"([a-z_]+)\"")


def page_data(html: str) -> dict:
    match = PAGE_DATA.search(html)
    assert match, "the page carries no page data"
    return json.loads(match.group(1))


def test_every_mode_has_its_names_once() -> None:
    assert list(MODE_NAMES) == list(ATTENTION_MODES)


def test_the_page_data_lists_every_mode_in_order(client: TestClient) -> None:
    for path in ("/", "/figure/mask-lab"):
        modes = page_data(client.get(path).text)["maskModes"]
        assert [m["mode"] for m in modes] == list(ATTENTION_MODES), path
        assert [m["name"] for m in modes] == [MODE_NAMES[mode] for mode in ATTENTION_MODES], path


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
