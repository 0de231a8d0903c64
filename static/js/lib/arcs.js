// The arc diagram shared by figure 1 (the heads dial) and figure 10 (a real pretrained transformer): tokens in a
// row, an arc from each token to every token it attends to (above: looking back, below: looking ahead, a small
// loop: itself), one colour, dash and offset per head.
//
// Drawn once per answer. Isolating a head or focusing a token only rewrites the arcs' opacities
// (`emphasiseArcs`), so a chip or a hover never rebuilds the DOM.

import { dashFor, headColour } from "./colours.js";
import { fitLabel, measure } from "./heatmap.js";
import { r1, svg, svgText } from "./svg.js";

export const MIN_WEIGHT = 0.05; // arcs below this weight are not drawn
export const ARC_BUDGET = 800; // past this many arcs the threshold rises in steps of 0.05: faint arcs are noise anyway
export const FADED = 0.1; // opacity factor of the other heads when one head is isolated

/** Opacity and stroke width of an arc of weight w (w >= MIN_WEIGHT). */
export const arcOpacity = (w) => Math.min(1, 0.22 + 0.78 * w);
export const arcWidth = (w, scale = 1) => 0.8 + 5.2 * w * scale;

/**
 * Draw `weights` ([head][query i][key j]) over `tokens` as arcs, in an <svg> `width` px wide.
 *
 * @param {object} o
 * @param {string[]} o.tokens the labels, in reading order
 * @param {number[][][]} o.weights [head][query][key]; every row sums to 1
 * @param {number} o.width px
 * @param {string} o.font CSS font family of the labels (for measuring them)
 * @param {string} o.label the drawing's accessible name
 * @param {(i: number) => {className?: string, attrs?: object, title?: string|null}} [o.tokenInfo] per token:
 *   its class (default "token"), extra attributes (an aria-label, data-*), and a tooltip (default: the full
 *   label when it had to be shortened)
 * @returns {{root: SVGSVGElement, arcs: {path: SVGPathElement, k: number, i: number, base: number,
 *   crowd: number}[], tokens: SVGGElement[], threshold: number}} the drawing, its arcs for `emphasiseArcs`, the
 *   focusable token groups, and the weight below which arcs were left out
 */
export function drawArcs({ tokens, weights, width, font, label, tokenInfo = () => ({}) }) {
  const n = tokens.length;
  const h = weights.length;
  const slot = width / n;
  const fontSize = Math.max(11, Math.min(16, slot / 5.2));
  const maxH = Math.max(90, Math.min(150, width * 0.2));
  const loopH = Math.min(30, maxH * 0.4);
  const yMid = maxH + 26;
  const gap = 15;
  const height = yMid + gap + maxH + 12;
  const x = (i) => slot * (i + 0.5);
  const anchor = slot * 0.14; // departures and arrivals sit on opposite sides of a word
  const spread = Math.min(slot * 0.24, 7 * h); // heads side by side within that
  const dx = (k) => (h === 1 ? 0 : (k / (h - 1) - 0.5) * spread);
  // Thinner strokes when many heads share the drawing or the words sit close together.
  const strokeScale = Math.min(1, Math.sqrt(3 / h)) * Math.min(1, Math.max(0.5, slot / 120));
  const crowd = Math.min(1, Math.sqrt(4 / h)); // and fainter: an isolated head is drawn at full strength
  // Raise the drawing threshold until the arcs fit the budget (every weight stays in the token labels).
  let minWeight = MIN_WEIGHT;
  const count = (t) => weights.flat(2).filter((w) => w >= t).length;
  while (minWeight < 0.3 && count(minWeight) > ARC_BUDGET) minWeight = Math.round((minWeight + 0.05) * 100) / 100;
  const rise = (dist) => (n <= 2 ? 0.55 : 0.25 + (0.75 * (dist - 1)) / (n - 2)) * maxH;

  const root = svg("svg", {
    class: "arcs",
    width,
    height,
    viewBox: `0 0 ${r1(width)} ${r1(height)}`,
    role: "group",
    "aria-label": label,
  });
  svgText("text", "↶ looking back", { class: "arcs__axis", x: 2, y: 12, "aria-hidden": "true" }, root);
  svgText("text", "looking ahead ↷", { class: "arcs__axis", x: 2, y: height - 4, "aria-hidden": "true" }, root);

  const dashes = new Map(); // one dash string per (head, stroke width): thousands of arcs share a few
  const dash = (k, strokeWidth) => {
    const key = `${k}:${r1(strokeWidth)}`;
    if (!dashes.has(key)) dashes.set(key, dashFor(k, strokeWidth));
    return dashes.get(key);
  };
  const arcs = [];
  const arcsLayer = svg("g", { class: "arcs__layer", fill: "none", "aria-hidden": "true" }, root);
  for (let k = 0; k < h; k++) {
    const colour = headColour(k);
    const group = svg("g", { class: "arcs__head", "data-head": k, stroke: colour }, arcsLayer);
    const lift = h === 1 ? 0 : (k / (h - 1) - 0.5) * Math.min(10, 2 * h);
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < n; j++) {
        const w = weights[k][i][j];
        if (w < minWeight) continue;
        let d;
        if (i === j) {
          const cx = x(i) + dx(k);
          const top = yMid - gap + 2 - (loopH + lift * 0.5) / 0.75;
          const half = Math.min(12, slot * 0.12);
          const y0 = r1(yMid - gap);
          d = `M${r1(cx - 3)} ${y0}C${r1(cx - half)} ${r1(top)} ${r1(cx + half)} ${r1(top)} ${r1(cx + 3)} ${y0}`;
        } else {
          const back = j < i; // a key to the left: drawn above
          const x1 = x(i) + (back ? -anchor : anchor) + dx(k);
          const x2 = x(j) + (back ? anchor : -anchor) + dx(k);
          const y0 = back ? yMid - gap : yMid + gap;
          const c = ((rise(Math.abs(i - j)) + lift) / 0.75) * (back ? -1 : 1);
          d = `M${r1(x1)} ${r1(y0)}C${r1(x1)} ${r1(y0 + c)} ${r1(x2)} ${r1(y0 + c)} ${r1(x2)} ${r1(y0)}`;
        }
        const strokeWidth = arcWidth(w, strokeScale);
        const base = arcOpacity(w);
        const path = svg(
          "path",
          {
            class: "arc",
            d,
            "stroke-width": r1(strokeWidth),
            "stroke-dasharray": dash(k, strokeWidth),
            opacity: (base * crowd).toFixed(3),
            "data-head": k,
            "data-query": i,
            "data-key": j,
            "data-weight": w.toFixed(3),
          },
          group,
        );
        arcs.push({ path, k, i, base, crowd });
      }
    }
  }

  const tokenEls = [];
  const tokenLayer = svg("g", { class: "arcs__tokens" }, root);
  for (let i = 0; i < n; i++) {
    const shown = fitLabel(tokens[i], slot - 6, `${fontSize}px ${font}`);
    const textWidth = measure(shown, `${fontSize}px ${font}`);
    const info = tokenInfo(i);
    const g = svg(
      "g",
      { class: info.className ?? "token", tabindex: 0, role: "img", "data-index": i, ...(info.attrs ?? {}) },
      tokenLayer,
    );
    const title = info.title ?? (shown !== tokens[i] ? tokens[i] : null);
    if (title) svgText("title", title, {}, g);
    svg(
      "rect",
      {
        class: "token__box",
        x: r1(x(i) - textWidth / 2 - 5),
        y: r1(yMid - fontSize * 0.75 - 2),
        width: r1(textWidth + 10),
        height: r1(fontSize * 1.5 + 4),
        rx: 4,
      },
      g,
    );
    svgText(
      "text",
      shown,
      {
        class: "token__text",
        x: r1(x(i)),
        y: r1(yMid),
        "dominant-baseline": "central",
        "text-anchor": "middle",
        "font-size": r1(fontSize),
      },
      g,
    );
    tokenEls.push(g);
  }
  return { root, arcs, tokens: tokenEls, threshold: minWeight };
}

/**
 * Rewrite the arcs' opacities: with head `isolated` (0-based, or null) the other heads fade to FADED; with
 * token `focus` (or null) only that token's arcs stay. Attributes only.
 */
export function emphasiseArcs(arcs, isolated, focus) {
  for (const arc of arcs) {
    let o = arc.base;
    if (isolated === null)
      o *= arc.crowd; // an isolated head is drawn at full strength
    else if (arc.k !== isolated) o *= FADED * arc.crowd;
    if (focus !== null && arc.i !== focus) o = 0;
    arc.path.setAttribute("opacity", o.toFixed(3));
  }
}
