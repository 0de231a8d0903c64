// The page's one arc drawer. Its parts: a word's box (`drawToken`) and the one arc shape (`arcPath`); from them,
// three drawings of attention as arcs:
// - `drawArcs`, figure 1 (the heads dial) and figure 11 (a real pretrained transformer): tokens in a row, an arc
//   from each token to every token it attends to (above: looking back, below: looking ahead, a small loop:
//   itself), one colour, dash and offset per head. Isolating a head or focusing a token only rewrites the arcs'
//   opacities (`emphasiseArcs`), so a chip or a hover never rebuilds the DOM.
// - `drawRowArcs`, figure 4 (the head lab): one query's row, all above the words.
// - figures/generator/arc-rows.js, figure 5 (the generator): two rows of words, arcs from one row into the
//   other.

import { dashFor, headColour } from "./colours.js";
import { fitLabel, measure } from "./measure.js";
import { r1, svg, svgText } from "./svg.js";

export const MIN_WEIGHT = 0.05; // arcs below this weight are not drawn
export const ARC_BUDGET = 800; // past this many arcs the threshold rises in steps of 0.05: faint arcs are noise anyway
export const FADED = 0.1; // opacity factor of the other heads when one head is isolated
export const ARC_TOKEN_LIMIT = 16; // past this many tokens, arcs turn to mush: draw a grid (heatmap) per head
export const MIN_ARC_SLOT = 44; // px per token below which arcs turn to mush on a narrow screen

/** The page's one rule for "arcs or grids": whether `n` tokens drawn as arcs `width` px wide stay readable. */
export const arcsFit = (n, width) => n <= ARC_TOKEN_LIMIT && width / n >= MIN_ARC_SLOT;

/** Opacity and stroke width of an arc of weight w (w >= MIN_WEIGHT). */
export const arcOpacity = (w) => Math.min(1, 0.22 + 0.78 * w);
export const arcWidth = (w, scale = 1) => 0.8 + 5.2 * w * scale;

/**
 * The one arc shape: a cubic from (x1, y1) to (x2, y2) whose two control points stand at `m` across the line of
 * words, above or below each end (at y = m) or, for words in a column (`sideways`), beside each end (at x = m).
 * Between two points of one row it is an arch; between two rows, an S.
 */
export function arcPath(x1, y1, x2, y2, m, sideways = false) {
  const [c1, c2] = sideways ? [[m, y1], [m, y2]] : [[x1, m], [x2, m]];
  return `M${r1(x1)} ${r1(y1)}C${r1(c1[0])} ${r1(c1[1])} ${r1(c2[0])} ${r1(c2[1])} ${r1(x2)} ${r1(y2)}`;
}

/**
 * One word of an arc drawing, appended to `parent`: a <g> holding a tooltip with the full word when it had to
 * be shortened, its box, optionally a tint (a second box, filled to show a weight) and its text.
 *
 * @param {SVGElement} parent
 * @param {object} o
 * @param {string} o.word
 * @param {number} o.x where the text is anchored: its middle, end or start (`anchor`)
 * @param {number} o.y the text's middle
 * @param {number} o.fontSize px
 * @param {string} o.font CSS font family (for measuring)
 * @param {number} o.maxWidth px the text may take; a longer word is shortened with an ellipsis
 * @param {"middle"|"end"|"start"} [o.anchor]
 * @param {number} [o.height] of the box (1.5 lines and 4 px by default)
 * @param {object} [o.attrs] the <g>'s attributes (class "token" by default)
 * @param {string|null} [o.title] the tooltip (by default the full word, when it was shortened)
 * @param {string|null} [o.tint] the tint box's class, or null for none
 * @returns {{g: SVGGElement, box: {x: number, y: number, w: number, h: number}, tint: SVGRectElement|null}}
 */
export function drawToken(parent, o) {
  const { word, x, y, fontSize, font, maxWidth, anchor = "middle", height = fontSize * 1.5 + 4 } = o;
  const fontSpec = `${fontSize}px ${font}`;
  const shown = fitLabel(word, maxWidth, fontSpec);
  const w = measure(shown, fontSpec) + 10;
  const left = anchor === "middle" ? x - w / 2 : anchor === "end" ? x + 5 - w : x - 5;
  const box = { x: left, y: y - height / 2, w, h: height };
  const g = svg("g", o.attrs ?? { class: "token" }, parent);
  const title = o.title ?? (shown !== word ? word : null);
  if (title) svgText("title", title, {}, g);
  const rect = { x: r1(box.x), y: r1(box.y), width: r1(w), height: r1(height), rx: 4 };
  svg("rect", { class: "token__box", ...rect }, g);
  const tint = o.tint ? svg("rect", { class: o.tint, ...rect, "fill-opacity": 0 }, g) : null;
  const text = { class: "token__text", x: r1(x), y: r1(y), "dominant-baseline": "central", "text-anchor": anchor };
  svgText("text", shown, { ...text, "font-size": r1(fontSize) }, g);
  return { g, box, tint };
}

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
 * @param {number[]} [o.headIds] the head number (0-based: colour, dash, data-head) of each of `weights`' heads;
 *   by default their index, so one head of many can be drawn alone in its own colour
 * @returns {{root: SVGSVGElement, arcs: {path: SVGPathElement, k: number, i: number, base: number,
 *   crowd: number}[], tokens: SVGGElement[], threshold: number}} the drawing, its arcs for `emphasiseArcs`, the
 *   focusable token groups, and the weight below which arcs were left out
 */
export function drawArcs({ tokens, weights, width, font, label, tokenInfo = () => ({}), headIds = null }) {
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
  for (let drawn = 0; drawn < h; drawn++) {
    const k = headIds?.[drawn] ?? drawn;
    const colour = headColour(k);
    const group = svg("g", { class: "arcs__head", "data-head": k, stroke: colour }, arcsLayer);
    const lift = h === 1 ? 0 : (drawn / (h - 1) - 0.5) * Math.min(10, 2 * h);
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < n; j++) {
        const w = weights[drawn][i][j];
        if (w < minWeight) continue;
        let d;
        if (i === j) {
          const cx = x(i) + dx(drawn);
          const top = yMid - gap + 2 - (loopH + lift * 0.5) / 0.75;
          const half = Math.min(12, slot * 0.12);
          const y0 = r1(yMid - gap);
          d = `M${r1(cx - 3)} ${y0}C${r1(cx - half)} ${r1(top)} ${r1(cx + half)} ${r1(top)} ${r1(cx + 3)} ${y0}`;
        } else {
          const back = j < i; // a key to the left: drawn above
          const x1 = x(i) + (back ? -anchor : anchor) + dx(drawn);
          const x2 = x(j) + (back ? anchor : -anchor) + dx(drawn);
          const y0 = back ? yMid - gap : yMid + gap;
          const c = ((rise(Math.abs(i - j)) + lift) / 0.75) * (back ? -1 : 1);
          d = arcPath(x1, y0, x2, y0, y0 + c);
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
    const info = tokenInfo(i);
    const { g } = drawToken(tokenLayer, {
      word: tokens[i],
      x: x(i),
      y: yMid,
      fontSize,
      font,
      maxWidth: slot - 6,
      attrs: { class: info.className ?? "token", tabindex: 0, role: "img", "data-index": i, ...(info.attrs ?? {}) },
      title: info.title,
    });
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

/**
 * One query's row of attention (figure 4, the head lab): an arc from token `query` to every token it weighs,
 * all above the words (a small loop: itself), thicker and darker for more weight, each weight written under
 * its word. A word gets `width / n` px, kept between 40 and 110, and is cut (full text in a tooltip) to fit.
 *
 * @param {object} o
 * @param {string[]} o.tokens the labels, in reading order
 * @param {number[]} o.row the query's weights over `tokens`; they sum to 1
 * @param {number} o.query the index of the token whose row it is
 * @param {number} o.head 0-based: the colour
 * @param {number} o.width px available
 * @param {(w: number) => string} o.format how a weight is written
 * @param {string} o.label the drawing's accessible name
 * @returns {SVGSVGElement}
 */
export function drawRowArcs({ tokens, row, query: i, head, width: available, format, label }) {
  const n = tokens.length;
  const slot = Math.max(40, Math.min(110, available / n));
  const width = r1(slot * n);
  const rise = 64;
  const base = rise + 14;
  const height = base + 42;
  const x = (j) => slot * (j + 0.5);
  const colour = headColour(head);
  const root = svg("svg", {
    class: "lab-arcs",
    width,
    height,
    viewBox: `0 0 ${width} ${height}`,
    role: "img",
    "aria-label": label,
  });
  const arcs = svg("g", { fill: "none", stroke: colour, "stroke-linecap": "round" }, root);
  row.forEach((w, j) => {
    if (w < 0.005) return;
    let d;
    if (j === i) {
      const cx = x(j);
      d = `M${r1(cx - 5)} ${base}C${r1(cx - 16)} ${base - 30} ${r1(cx + 16)} ${base - 30} ${r1(cx + 5)} ${base}`;
    } else {
      const h = 14 + ((rise - 14) * (Math.abs(i - j) - 1)) / Math.max(1, n - 2);
      d = `M${r1(x(i))} ${base}Q${r1((x(i) + x(j)) / 2)} ${r1(base - 2 * h)} ${r1(x(j))} ${base}`;
    }
    svg("path", { d, "stroke-width": r1(0.8 + 7 * w), opacity: (0.25 + 0.75 * w).toFixed(2), "data-key": j }, arcs);
    svg("circle", { cx: r1(x(j)), cy: base, r: r1(1.5 + 4 * Math.sqrt(w)), fill: colour, stroke: "none" }, root);
  });
  // Words are cut to what fits in their slot, at a size that shrinks with it, down to 11 px like the weights
  // under them: past that the drawing keeps its width and its card scrolls sideways (head-lab.css).
  const size = Math.max(11, Math.min(13, slot / 5));
  const fits = Math.max(3, Math.floor(slot / (size * 0.62)));
  tokens.forEach((t, j) => {
    const cut = t.length > fits;
    const className = j === i ? "lab-arcs__token is-chosen" : "lab-arcs__token";
    const attrs = { x: r1(x(j)), y: base + 17, "text-anchor": "middle", "font-size": r1(size), class: className };
    const word = svgText("text", cut ? `${t.slice(0, fits - 1)}…` : t, attrs, root);
    if (cut) svgText("title", t, {}, word);
    const weight = { x: r1(x(j)), y: base + 34, "text-anchor": "middle", class: "lab-arcs__weight" };
    svgText("text", format(row[j]), { ...weight, "font-size": r1(Math.max(11, size - 2)) }, root);
  });
  return root;
}
