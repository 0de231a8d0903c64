"""MathML written on the server: a handful of element builders and the page's constant formulas.

The browser typesets MathML natively, so the page needs no JavaScript maths library. Every text node and
attribute value goes through XML escaping; only the constant formulas in FORMULAS (written here, never from
a reader) are meant to be marked safe by the templates.
"""

from __future__ import annotations

from xml.sax.saxutils import escape, quoteattr

MATHML_NS = "http://www.w3.org/1998/Math/MathML"

FUNCTION_APPLICATION = "\u2061"  # invisible operator between a function's name and its argument
INVISIBLE_TIMES = "\u2062"
INVISIBLE_SEPARATOR = "\u2063"  # between subscripts: M_ij is M sub i, j


def _element(tag: str, content: str, attrs: dict[str, str] | None = None) -> str:
    attributes = "".join(f" {name}={quoteattr(value)}" for name, value in (attrs or {}).items())
    return f"<{tag}{attributes}>{content}</{tag}>"


def mi(name: str, **attrs: str) -> str:
    """An identifier: one letter is set in italic, a longer name upright (MathML's own rule)."""
    return _element("mi", escape(name), attrs)


def mn(number: str | int) -> str:
    return _element("mn", escape(str(number)))


def mo(op: str, **attrs: str) -> str:
    """An operator; pass stretchy="true" for a bracket that must grow with what it encloses."""
    return _element("mo", escape(op), attrs)


def mrow(*children: str) -> str:
    return _element("mrow", "".join(children))


def msub(base: str, sub: str) -> str:
    return _element("msub", base + sub)


def msup(base: str, sup: str) -> str:
    return _element("msup", base + sup)


def msubsup(base: str, sub: str, sup: str) -> str:
    return _element("msubsup", base + sub + sup)


def mfrac(numerator: str, denominator: str) -> str:
    return _element("mfrac", numerator + denominator)


def msqrt(*children: str) -> str:
    return _element("msqrt", "".join(children))


def fenced(*children: str, open_: str = "(", close: str = ")") -> str:
    """Children between a pair of brackets that stretch to the height of what they enclose."""
    return mrow(
        mo(open_, stretchy="true", fence="true", form="prefix"),
        *children,
        mo(close, stretchy="true", fence="true", form="postfix"),
    )


def args(*items: str) -> str:
    """A comma-separated argument list in brackets that keep the text's size: (a, b, c)."""
    inner: list[str] = [mo("(", stretchy="false", form="prefix")]
    for k, item in enumerate(items):
        if k:
            inner.append(mo(",", separator="true"))
        inner.append(item)
    inner.append(mo(")", stretchy="false", form="postfix"))
    return mrow(*inner)


def apply(name: str, *arguments: str) -> str:
    """name(arguments), with the invisible function-application operator screen readers expect."""
    return mrow(mi(name), mo(FUNCTION_APPLICATION), args(*arguments))


def mtext(text: str) -> str:
    return _element("mtext", escape(text))


def cases(*rows: tuple[str, str]) -> str:
    """A piecewise definition: a stretchy brace, then one (value, condition) row per case, left-aligned."""
    cells = "".join(
        _element("mtr", _element("mtd", value) + _element("mtd", condition)) for value, condition in rows
    )
    table = _element("mtable", cells, {"columnalign": "left left", "columnspacing": "1em"})
    return mrow(mo("{", stretchy="true", fence="true", form="prefix"), table)


def math(*children: str, display: str = "block", label: str | None = None) -> str:
    """A complete <math> element; `label`, when given, becomes its aria-label."""
    attrs = {"xmlns": MATHML_NS, "display": display}
    if label:
        attrs["aria-label"] = label
    return _element("math", mrow(*children), attrs)


# ---- the page's formulas -------------------------------------------------------------------------------

_Q, _K, _V = mi("Q"), mi("K"), mi("V")
_D_MODEL = msub(mi("d"), mi("model"))
_D_K = msub(mi("d"), mi("k"))


def _head(sub: str) -> str:
    return msub(mi("head"), sub)


def _projection(x: str, which: str) -> str:
    """X W_i^which: an input times head i's projection matrix."""
    return mrow(x, mo(INVISIBLE_TIMES), msubsup(mi("W"), mi("i"), mi(which)))


MULTIHEAD = math(
    apply("MultiHead", _Q, _K, _V),
    mo("="),
    apply("Concat", _head(mn(1)), mo("…"), _head(mi("h"))),
    mo(INVISIBLE_TIMES),
    msup(mi("W"), mi("O")),
    label="MultiHead of Q, K, V equals Concat of head 1 to head h, times W O",
)

HEAD_I = math(
    _head(mi("i")),
    mo("="),
    apply("Attention", _projection(_Q, "Q"), _projection(_K, "K"), _projection(_V, "V")),
    label="head i equals Attention of Q W i Q, K W i K, V W i V",
)

ATTENTION = math(
    apply("Attention", _Q, _K, _V),
    mo("="),
    mi("softmax"),
    mo(FUNCTION_APPLICATION),
    fenced(mfrac(mrow(_Q, mo(INVISIBLE_TIMES), msup(mi("K"), mi("T"))), msqrt(_D_K))),
    mo(INVISIBLE_TIMES),
    _V,
    label="Attention of Q, K, V equals softmax of Q K transpose over the square root of d k, times V",
)

# h heads of width d_model / h: three projections each, then W_O; the h cancels.
PARAMETERS = math(
    mn(3),
    mo("·"),
    mi("h"),
    mo("·"),
    _D_MODEL,
    mo("·"),
    fenced(mfrac(_D_MODEL, mi("h"))),
    mo("+"),
    _D_MODEL,
    mo("·"),
    _D_MODEL,
    mo("="),
    mn(4),
    msubsup(mi("d"), mi("model"), mn(2)),
    label="3 times h times d model times d model over h, plus d model times d model, "
    "equals 4 d model squared",
)

# The causal (decoder) mask: added to the scaled scores, it sends every future score to -inf.
_M = mi("M")
_I, _J = mi("i"), mi("j")

MASKED_ATTENTION = math(
    apply("MaskedAttention", _Q, _K, _V),
    mo("="),
    mi("softmax"),
    mo(FUNCTION_APPLICATION),
    fenced(
        mfrac(mrow(_Q, mo(INVISIBLE_TIMES), msup(mi("K"), mi("T"))), msqrt(_D_K)),
        mo("+"),
        _M,
    ),
    mo(INVISIBLE_TIMES),
    _V,
    label="Masked attention of Q, K, V equals softmax of Q K transpose over the square root of d k, plus M, "
    "times V",
)

CAUSAL_MASK = math(
    msub(_M, mrow(_I, mo(INVISIBLE_SEPARATOR), _J)),
    mo("="),
    cases(
        (mn(0), mrow(mtext("if\u00a0"), _J, mo("≤"), _I)),
        (mrow(mo("−"), mi("∞")), mrow(mtext("if\u00a0"), _J, mo(">"), _I)),
    ),
    label="M i j equals 0 if j is at most i, and minus infinity if j is greater than i",
)

FORMULAS: dict[str, str] = {
    "multihead": MULTIHEAD,
    "head_i": HEAD_I,
    "attention": ATTENTION,
    "parameters": PARAMETERS,
    "masked_attention": MASKED_ATTENTION,
    "causal_mask": CAUSAL_MASK,
}


def formula(name: str) -> str:
    """The MathML of one of the page's constant formulas (a KeyError for any other name)."""
    return FORMULAS[name]
