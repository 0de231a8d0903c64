// Small inline SVG keys for head k, in its colour: a stroke in its dash pattern with its marker (for chips), or
// a dot (for a title that names the head).

import { dashFor, headColour, markerPath } from "./colours.js";
import { svg } from "./svg.js";

/** An aria-hidden <svg> key for head `k` (0-based), drawn in the head's colour, dash and marker. */
export function headSwatch(k) {
  const colour = headColour(k);
  const root = svg("svg", {
    class: "swatch",
    width: 26,
    height: 12,
    viewBox: "0 0 26 12",
    "aria-hidden": "true",
    focusable: "false",
  });
  svg(
    "line",
    { x1: 1, x2: 25, y1: 6, y2: 6, stroke: colour, "stroke-width": 2.5, "stroke-dasharray": dashFor(k, 2.5) },
    root,
  );
  svg("path", { d: markerPath(k, 13, 6, 4), fill: colour }, root);
  return root;
}

/** An aria-hidden <svg> dot in head `k`'s colour (0-based): the head lab's key beside "Head k". */
export function headDot(k) {
  const root = svg("svg", { class: "swatch", width: 12, height: 12, viewBox: "0 0 12 12", "aria-hidden": "true" });
  svg("circle", { cx: 6, cy: 6, r: 5, fill: headColour(k) }, root);
  return root;
}

