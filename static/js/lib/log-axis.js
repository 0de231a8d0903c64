// The one logarithmic axis of the page's charts (figure 1's capacity curve, figure 7's loss curves): the chart
// it stands in, where its ticks go, how a loss is written on it, and its grid lines and labels drawn.

import { r1, svg, svgText } from "./svg.js";

/** Tick values 1, 2 and 5 × 10^k between 10^lo and 10^hi (only the powers of ten when there are 3 or more). */
export function logTicks(lo, hi) {
  const all = [];
  for (let k = Math.floor(lo); k <= Math.ceil(hi); k++) {
    for (const m of [1, 2, 5]) {
      const v = m * 10 ** k;
      if (Math.log10(v) >= lo && Math.log10(v) <= hi) all.push(v);
    }
  }
  const powers = all.filter((v) => Number.isInteger(Math.round(Math.log10(v) * 1e9) / 1e9));
  return powers.length >= 3 ? powers : all;
}

/** A loss as the charts write it: plain decimals, two places from 1 up, else two significant digits (0.0072). */
export function formatLoss(x) {
  if (x === 0) return "0";
  if (x >= 1) return x.toFixed(2);
  return Number(x.toPrecision(2)).toString();
}

/** The y of a log scale: 10^hi at `top`, 10^lo at `bottom` (px); values below 10^lo sit at the bottom. */
export const logScale = (lo, hi, top, bottom) => (v) =>
  top + ((hi - Math.log10(Math.max(v, 10 ** lo))) / (hi - lo)) * (bottom - top);

/**
 * A log y axis into the SVG group `axes`: a grid line from x = `left` to `right` and a loss label left of it
 * at every tick between 10^lo and 10^hi (`y` places them, e.g. logScale), and `title` in the top left corner.
 */
export function drawLogAxis(axes, { lo, hi, y, left, right, title }) {
  for (const t of logTicks(lo, hi)) {
    const ty = r1(y(t));
    svg("line", { class: "chart__grid", x1: left, x2: right, y1: ty, y2: ty }, axes);
    svgText(
      "text",
      formatLoss(t),
      { class: "chart__tick", x: left - 6, y: ty, "text-anchor": "end", "dominant-baseline": "central" },
      axes,
    );
  }
  svgText("text", title, { class: "chart__tick chart__axis-title", x: 0, y: 10 }, axes);
}

/** A chart's <svg> (class `className`, `width` × `height` px, named `label` for screen readers) and the group
 * its axes go in. */
export function chart(className, width, height, label) {
  const root = svg("svg", {
    class: className,
    width,
    height,
    viewBox: `0 0 ${width} ${height}`,
    role: "img",
    "aria-label": label,
  });
  return { root, axes: svg("g", { class: "chart__axes" }, root) };
}
