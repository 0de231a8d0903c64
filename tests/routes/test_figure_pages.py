"""Each figure alone at /figure/<name>, its embed form (?embed=1), and who may frame which."""

import re

import pytest
from fastapi.testclient import TestClient

from app.config import get_settings
from app.figures import FIGURES as REGISTRY
from app.figures import number
from app.routes.pages import figure_names, section_intro
from app.web.middleware import content_security_policy

FIGURES = figure_names(get_settings().templates_dir)


def frame_ancestors(response) -> str:
    csp = response.headers["content-security-policy"]
    return re.search(r"frame-ancestors ([^;]+)", csp).group(1).strip()


def test_every_partial_is_a_figure_name() -> None:
    assert {"heads-dial", "accounting", "head-lab", "mask-lab", "interview"} <= set(FIGURES)
    # Every partial is registered in app/figures.py: an unregistered one would have no number and no page.
    partials = {p.name for p in (get_settings().templates_dir / "figures").glob("*.html")}
    registered = {figure.template.removeprefix("figures/") for figure in REGISTRY if figure.slug in FIGURES}
    assert partials == registered


STYLESHEET = re.compile(r'<link rel="stylesheet" href="/static/css/([^"?]+)\?v=[0-9a-f]{12}">')


def test_the_article_links_the_base_stylesheet_then_each_figures_own(client: TestClient) -> None:
    """main.css is the base; figures/<name>.css styles one figure; the article links them in its order, then
    reserve.css, each figure's space reserved before it draws (tools/reserve.py writes it)."""
    assert {p.stem for p in (get_settings().static_dir / "css/figures").glob("*.css")} == set(FIGURES)
    html = client.get("/").text
    shown = re.findall(r'<figure id="([^"]+)" class="figure\b', html)
    assert shown == FIGURES  # every partial, in app/figures.py's reading order
    assert STYLESHEET.findall(html) == ["main.css", *(f"figures/{name}.css" for name in shown), "reserve.css"]
    for sheet in STYLESHEET.findall(html):
        assert client.get(f"/static/css/{sheet}").status_code == 200, sheet


@pytest.mark.parametrize("name", FIGURES)
def test_a_figure_page_links_the_base_stylesheet_and_its_own(client: TestClient, name: str) -> None:
    for path in (f"/figure/{name}", f"/figure/{name}?embed=1"):
        assert STYLESHEET.findall(client.get(path).text) == ["main.css", f"figures/{name}.css"], path


CAPTION = re.compile(r'<span class="figure-num">Figure (\d+)\.</span>')


@pytest.mark.parametrize("name", FIGURES)
def test_a_figure_page_holds_its_figure_and_its_section_intro(client: TestClient, name: str) -> None:
    response = client.get(f"/figure/{name}")
    assert response.status_code == 200
    html = response.text
    assert html.count(f'<figure id="{name}"') == 1
    assert CAPTION.findall(html) == [str(number(name))]  # its number in the article, alone too
    assert 'id="page-data"' in html
    assert 'class="masthead' in html and 'href="/#' in html  # a way back to the article
    assert "data-toc" not in html  # the contents belong to the article


def test_the_captions_read_1_to_n_in_reading_order(client: TestClient) -> None:
    """The article's captions number its figures 1, 2, 3, … as they come, each by its place in app/figures.py;
    a number is skipped only where a registered figure's partial does not exist yet."""
    html = client.get("/").text
    shown = re.findall(r'<figure id="([^"]+)" class="figure\b', html)
    captions = [int(n) for n in CAPTION.findall(html)]
    assert captions == [number(name) for name in shown]  # each figure's caption, its registered number
    assert captions == sorted(set(captions))  # rising: the article shows them in the registry's order
    skipped = set(range(1, len(REGISTRY) + 1)) - set(captions)
    assert skipped == {number(f.slug) for f in REGISTRY if f.slug not in FIGURES}  # gaps: missing partials


def test_the_figure_page_carries_the_section_heading_and_intro(client: TestClient) -> None:
    html = client.get("/figure/mask-lab").text
    assert "The mask: −∞, not 0" in html
    assert f"<title>{number('mask-lab')} The mask: −∞, not 0 · Attention Explorable</title>" in html
    assert "What it is replaced with decides everything." in html  # the intro paragraph
    assert "Unmasked, the decoder's heads" not in html  # the text after the figure stays in the article


@pytest.mark.parametrize("name", FIGURES)
def test_the_embed_form_is_the_figure_alone(client: TestClient, name: str) -> None:
    response = client.get(f"/figure/{name}", params={"embed": "1"})
    assert response.status_code == 200
    html = response.text
    assert html.count(f'<figure id="{name}"') == 1
    assert "data-embed" in html
    for chrome in ('class="masthead', "data-toc", "skip-link", "<h2 ", "data-theme-toggle", "data-predict"):
        assert chrome not in html, chrome


def test_only_the_embed_form_may_be_framed_by_other_sites(client: TestClient) -> None:
    assert frame_ancestors(client.get("/figure/heads-dial")) == "'self'"
    assert frame_ancestors(client.get("/figure/heads-dial?embed=0")) == "'self'"
    assert frame_ancestors(client.get("/")) == "'self'"
    assert frame_ancestors(client.get("/?embed=1")) == "'self'"  # only figure pages have an embed form
    assert frame_ancestors(client.get("/figure/heads-dial?embed=1")) == "*"
    assert frame_ancestors(client.get("/figure/heads-dial?sentence=a+dog&embed=true")) == "*"
    # The rest of the policy is the same strict one.
    embed = client.get("/figure/heads-dial?embed=1").headers["content-security-policy"]
    page = client.get("/figure/heads-dial").headers["content-security-policy"]
    assert embed.replace("frame-ancestors *", "") == page.replace("frame-ancestors 'self'", "")
    assert "script-src 'self'" in embed and "unsafe-inline" not in embed


def test_the_policy_lets_exports_draw_from_data_urls() -> None:
    """The PNG export draws the serialised SVG from a data: URL into a canvas; no blob: source is needed."""
    assert "img-src 'self' data:" in content_security_policy()


def test_the_state_in_the_query_string_reaches_the_figure_page(client: TestClient) -> None:
    """The page is the same whatever the query holds (no redirect drops it): the widget reads the same keys
    from the address as on the article."""
    response = client.get("/figure/heads-dial", params={"sentence": "the dog ran", "heads": "2"})
    assert response.status_code == 200 and not response.history
    assert response.url.params["sentence"] == "the dog ran" and response.url.params["heads"] == "2"
    assert response.text == client.get("/figure/heads-dial").text
    assert 'data-widget="heads-dial"' in response.text


def test_an_unknown_figure_is_a_404_page_listing_the_figures(client: TestClient) -> None:
    response = client.get("/figure/no-such-figure")
    assert response.status_code == 404
    assert "text/html" in response.headers["content-type"]
    assert "No figure called “no-such-figure”" in response.text
    for name in FIGURES:
        assert f'href="/figure/{name}"' in response.text


def test_a_hostile_name_is_escaped_in_the_404_page(client: TestClient) -> None:
    response = client.get("/figure/%3Cscript%3Ealert(1)%3C%2Fscript%3E")
    assert response.status_code == 404
    assert "<script>alert" not in response.text


def test_section_intro_stops_at_the_figure_and_after_an_earlier_figure() -> None:
    html = (
        '<section id="s"><h2>Title</h2><p>lead</p><figure id="a"></figure><p>between</p>'
        '<figure id="b"></figure><p>after</p></section>'
    )
    assert section_intro(html, "a") == "<h2>Title</h2><p>lead</p>"
    assert section_intro(html, "b") == "<p>between</p>"
    assert section_intro(html, "c") is None
