"""Where figure 5, the generator, draws its arcs, read from the page, and the checks that each arc starts
on its query word and ends on a word it may look at."""

from __future__ import annotations

from playwright.sync_api import Locator

# Every drawn arc of the figure, where it starts and ends, and the box of every word (SVG user units).
ARCS_SCRIPT = """(f) => {
  const box = (g) => {
    const r = g.querySelector('.token__box');
    return { x: +r.getAttribute('x'), y: +r.getAttribute('y'), w: +r.getAttribute('width'),
             h: +r.getAttribute('height'), text: g.querySelector('.token__text').textContent,
             written: g.dataset.written ?? 'true' };
  };
  const groups = '.gen-arcs__group:not([display=none])';
  return {
    source: [...f.querySelectorAll('.gen-token--source')].map(box),
    target: [...f.querySelectorAll('.gen-token--target')].map(box),
    arcs: [...f.querySelectorAll(`${groups} .gen-arc[data-drawn=true]`)].map((a) => {
      const g = a.parentNode;
      const s = a.getPointAtLength(0);
      const e = a.getPointAtLength(a.getTotalLength());
      return { mode: g.dataset.mode, current: g.classList.contains('is-current'), step: +g.dataset.step,
               query: +a.dataset.query, key: +a.dataset.key, weight: +a.dataset.weight,
               start: [s.x, s.y], end: [e.x, e.y] };
    }),
  };
}"""


def drawing(figure: Locator) -> dict:
    return figure.evaluate(ARCS_SCRIPT)


def inside(point: list[float], box: dict, tolerance: float = 2.0) -> bool:
    x, y = point
    return (
        box["x"] - tolerance <= x <= box["x"] + box["w"] + tolerance
        and box["y"] - tolerance <= y <= box["y"] + box["h"] + tolerance
    )


def assert_cross_arcs(figure: Locator, query: int) -> None:
    """The current arcs are cross arcs from French slot `query`, each ending on an English word."""
    d = drawing(figure)
    current = [a for a in d["arcs"] if a["current"]]
    assert current, "no arcs drawn"
    for arc in current:
        assert arc["mode"] == "cross" and arc["query"] == query, arc
        assert 0 <= arc["key"] < len(d["source"]), arc
        assert inside(arc["end"], d["source"][arc["key"]]), (arc, d["source"][arc["key"]])
        assert inside(arc["start"], d["target"][query]), (arc, d["target"][query])
        assert not any(inside(arc["end"], box) for box in d["target"]), arc


def assert_self_arcs(figure: Locator, query: int) -> list[int]:
    """The arcs are self arcs from French slot `query`, each ending on an earlier French word; their keys."""
    d = drawing(figure)
    assert d["arcs"], "no arcs drawn"
    for arc in d["arcs"]:
        assert arc["mode"] == "self" and arc["current"] and arc["query"] == query, arc
        assert 0 <= arc["key"] < query, f"an arc reaches forward: {arc}"
        key_box = d["target"][arc["key"]]
        assert key_box["written"] == "true", arc
        assert inside(arc["end"], key_box), (arc, key_box)
        assert inside(arc["start"], d["target"][query]), arc
        later = d["target"][query + 1 :]
        assert not any(inside(arc["end"], box) for box in later), f"an arc ends on a later word: {arc}"
        assert not any(inside(arc["end"], box) for box in d["source"]), arc
    return sorted(a["key"] for a in d["arcs"])
