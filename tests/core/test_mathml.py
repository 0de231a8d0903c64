"""The server-side MathML: well-formed XML in the MathML namespace, with the structure each formula needs."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from app.core.mathml import FORMULAS, MATHML_NS, apply, fenced, formula, math, mfrac, mi, mn, mo, msub

M = f"{{{MATHML_NS}}}"


def parse(markup: str) -> ET.Element:
    return ET.fromstring(markup)


def texts(root: ET.Element, tag: str) -> list[str]:
    return [el.text or "" for el in root.iter(M + tag)]


@pytest.mark.parametrize("name", sorted(FORMULAS))
def test_every_formula_is_a_well_formed_block_math_element(name: str) -> None:
    root = parse(formula(name))
    assert root.tag == M + "math"
    assert root.get("display") == "block"
    assert root.get("aria-label")
    # Every element is MathML: no stray HTML inside.
    assert all(el.tag.startswith(M) for el in root.iter())


def test_multihead_concatenates_h_heads_and_projects_with_w_o() -> None:
    root = parse(FORMULAS["multihead"])
    assert {"MultiHead", "Concat", "Q", "K", "V", "W", "O", "head", "h"} <= set(texts(root, "mi"))
    subs = [[child.text for child in el] for el in root.iter(M + "msub")]
    assert ["head", "1"] in subs and ["head", "h"] in subs
    sups = [[child.text for child in el] for el in root.iter(M + "msup")]
    assert ["W", "O"] in sups
    assert "\u2061" in texts(root, "mo")  # function application, for screen readers


def test_head_i_projects_q_k_and_v_with_its_own_matrices() -> None:
    root = parse(FORMULAS["head_i"])
    scripts = [[child.text for child in el] for el in root.iter(M + "msubsup")]
    assert scripts == [["W", "i", "Q"], ["W", "i", "K"], ["W", "i", "V"]]


def test_attention_divides_by_the_root_of_d_k_inside_stretchy_brackets() -> None:
    root = parse(FORMULAS["attention"])
    (frac,) = root.iter(M + "mfrac")
    numerator, denominator = list(frac)
    assert [el.text for el in numerator.iter(M + "mi")] == ["Q", "K", "T"]
    assert denominator.tag == M + "msqrt"
    assert [el.text for el in denominator.iter(M + "mi")] == ["d", "k"]
    stretchy = [el.text for el in root.iter(M + "mo") if el.get("stretchy") == "true"]
    assert stretchy == ["(", ")"]
    assert "softmax" in texts(root, "mi")


def test_the_parameter_count_ends_in_four_d_model_squared() -> None:
    root = parse(FORMULAS["parameters"])
    last = list(root.iter(M + "msubsup"))[-1]
    assert [el.text for el in last] == ["d", "model", "2"]


def test_text_and_attributes_are_escaped() -> None:
    markup = math(mi("<script>alert(1)</script>"), mo("&"), label='"quoted" <label>')
    root = parse(markup)
    assert texts(root, "mi") == ["<script>alert(1)</script>"]
    assert texts(root, "mo") == ["&"]
    assert root.get("aria-label") == '"quoted" <label>'
    assert "<script>" not in markup


def test_builders_nest_as_expected() -> None:
    root = parse(math(apply("f", msub(mi("x"), mn(1))), mo("="), fenced(mfrac(mn(1), mn(2)))))
    assert [el.tag.removeprefix(M) for el in root.iter()][:4] == ["math", "mrow", "mrow", "mi"]
    assert texts(root, "mn") == ["1", "1", "2"]


def test_only_the_constant_formulas_can_be_asked_for() -> None:
    with pytest.raises(KeyError):
        formula("<b>not a formula</b>")


def test_masked_attention_adds_m_to_the_scaled_scores_inside_the_softmax() -> None:
    root = parse(FORMULAS["masked_attention"])
    fence = next(el for el in root.iter(M + "mrow") if (el[0].get("fence") == "true" and el[0].text == "("))
    inside = [el.tag.removeprefix(M) for el in fence][1:-1]
    assert inside == ["mfrac", "mo", "mi"]
    assert fence[2].text == "+" and fence[3].text == "M"
    (frac,) = root.iter(M + "mfrac")
    assert [el.text for el in frac[0].iter(M + "mi")] == ["Q", "K", "T"]
    assert frac[1].tag == M + "msqrt"
    assert "softmax" in texts(root, "mi")


def test_the_causal_mask_is_zero_on_and_below_the_diagonal_and_minus_infinity_above() -> None:
    root = parse(FORMULAS["causal_mask"])
    (sub,) = root.iter(M + "msub")
    assert [el.text for el in sub.iter(M + "mi")] == ["M", "i", "j"]
    rows = list(root.iter(M + "mtr"))
    assert len(rows) == 2
    cases = []
    for row in rows:
        value, condition = list(row)
        cases.append(
            (
                "".join(el.text or "" for el in value.iter() if el.tag != M + "mtd"),
                [el.text for el in condition.iter() if el.tag in (M + "mi", M + "mo")],
            )
        )
    assert cases == [("0", ["j", "≤", "i"]), ("−∞", ["j", ">", "i"])]
