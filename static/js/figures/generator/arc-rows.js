// Two rows of words and the arcs between them, drawn with lib/arcs.js's word box and arc shape: figure 5's
// cross-attention (an arc from a word of the second row up into the first) and masked self-attention (an arc
// from a word back to an earlier word of its own row). On a narrow screen the rows stand as two columns.
//
// The layout says where everything goes; the figure builds its arcs once and `weighArcs` restyles them in place
// for each row of weights, so stepping through a translation never rebuilds the DOM.

import { arcPath } from "../../lib/arcs.js";
import { dashFor } from "../../lib/colours.js";
import { fitLabel, measure } from "../../lib/measure.js";
import { r1, setAttrs } from "../../lib/svg.js";

export const MIN_ROW_SLOT = 58; // px per word below which the two rows turn into two columns
export const MIN_ROW_WEIGHT = 0.02; // two-row arcs below this weight are hidden (the numbers still show them)

const clamp = (lo, hi, x) => Math.max(lo, Math.min(hi, x));

/**
 * Where two rows of words sit, and how an arc runs from word q of the second row (`queries`) to word j of the
 * first (`keys`, above) or back to an earlier word p of its own. Arcs leave and land within their words' boxes.
 * When a word would get less than MIN_ROW_SLOT px, the keys stand in a column on the left and the queries in
 * one on the right (phones, long sentences).
 *
 * @param {number} width px
 * @param {string[]} keys
 * @param {string[]} queries
 * @param {string} font CSS font family (for measuring)
 * @returns {object} `kind` ("rows" or "columns"), `height`, `fontSize`, `boxH` (a word's box height),
 *   `stroke` (a stroke-width factor, smaller when words sit close), `titles` ([keys', queries'] {x, y, anchor}),
 *   `key(j)` and `query(p)` (where a word goes: {x, y, anchor, maxWidth} for `drawToken`), `across(q, j)` and
 *   `back(q, p)` (an arc's path), `keyValue(box)` and `queryValue(box)` (a number's place beside a word's box:
 *   the attributes of its <text>)
 */
export function twoRowLayout(width, keys, queries, font) {
  const slot = width / Math.max(keys.length, queries.length);
  return slot >= MIN_ROW_SLOT ? rowsLayout(width, keys, queries, font) : columnsLayout(width, keys, queries, font);
}

/** Keys on top, queries below; `across` arcs run up between the rows, `back` arcs rise from the queries' row. */
function rowsLayout(width, keys, queries, font) {
  const slot = width / Math.max(keys.length, queries.length);
  const longest = Math.max(...[...keys, ...queries].map((w) => measure(w, `16px ${font}`)));
  const fontSize = r1(clamp(11, 16, Math.min(slot / 5.2, (16 * (slot - 12)) / longest)));
  const boxH = Math.round(fontSize * 1.5 + 4);
  const gap = clamp(130, 210, width * 0.2);
  const yKey = 28 + boxH / 2;
  const yQuery = yKey + gap;
  const height = yQuery + boxH / 2 + 44;
  const xk = (j) => (width - keys.length * slot) / 2 + slot * (j + 0.5);
  const xq = (p) => (width - queries.length * slot) / 2 + slot * (p + 0.5);
  const keyEdge = yKey + boxH / 2;
  const queryEdge = yQuery - boxH / 2;
  // Half the width of each query's box, so every arc leaves and lands within its word.
  const fontSpec = `${fontSize}px ${font}`;
  const half = queries.map((w) => (measure(fitLabel(w, slot - 8, fontSpec), fontSpec) + 10) / 2);
  const spread = (q, i, n) => (n > 1 ? (i / (n - 1) - 0.5) * Math.min(slot * 0.3, 22, 2 * half[q] - 6) : 0);
  const room = queryEdge - keyEdge - 14; // back arcs stay under the keys' row
  const nudge = (p) => Math.min(slot * 0.1, 6, half[p] - 3);
  return {
    kind: "rows",
    stroke: clamp(0.6, 1, slot / 120), // thinner strokes when the words sit close together
    height,
    fontSize,
    boxH,
    titles: [
      { x: 0, y: 11, anchor: "start" },
      { x: 0, y: height - 3, anchor: "start" },
    ],
    key: (j) => ({ x: xk(j), y: yKey, anchor: "middle", maxWidth: slot - 8 }),
    query: (p) => ({ x: xq(p), y: yQuery, anchor: "middle", maxWidth: slot - 8 }),
    across: (q, j) =>
      arcPath(xq(q) + spread(q, j, keys.length), queryEdge, xk(j), keyEdge, (queryEdge + keyEdge) / 2),
    back(q, p) {
      // Out of the word's left half: arcs to the farthest words leave nearest its middle, so they nest.
      const x1 = xq(q) - (half[q] - 3) * (q > 1 ? 0.2 + (0.6 * p) / (q - 1) : 0.5);
      const rise = room * (0.3 + (0.7 * (q - p - 1)) / Math.max(1, queries.length - 2));
      return arcPath(x1, queryEdge, xq(p) + nudge(p), queryEdge, queryEdge - rise / 0.75);
    },
    keyValue: (box) => ({ x: r1(box.x + box.w / 2), y: r1(box.y - 6), "text-anchor": "middle" }),
    queryValue: (box) => ({ x: r1(box.x + box.w / 2), y: r1(box.y + box.h + 14), "text-anchor": "middle" }),
  };
}

/** Keys in a column on the left, queries on the right; `across` arcs run between them, `back` arcs bow left. */
function columnsLayout(width, keys, queries, font) {
  const fontSize = 14;
  const rowH = 30;
  const valueW = 38; // room for a weight beside each word
  const longest = (words) => Math.max(...words.map((w) => measure(w, `${fontSize}px ${font}`))) + 12;
  // Each column as wide as its longest word, within limits that leave the arcs at least a fifth of the width.
  let keysW = Math.min(width * 0.34, longest(keys));
  let queriesW = Math.min(width * 0.38, longest(queries));
  const room = width - 2 * valueW - width * 0.2;
  if (keysW + queriesW > room) {
    const scale = room / (keysW + queriesW);
    keysW *= scale;
    queriesW *= scale;
  }
  const keysRight = valueW + keysW; // right edge of the keys' words
  const queriesLeft = width - valueW - queriesW; // left edge of the queries' words
  const top = 24;
  const y = (i) => top + rowH * (i + 0.5);
  const fan = Math.min(rowH * 0.3, 8);
  const spread = (i, n) => (n > 1 ? (i / (n - 1) - 0.5) * fan : 0);
  return {
    kind: "columns",
    stroke: 0.6,
    height: top + rowH * Math.max(keys.length, queries.length) + 4,
    fontSize,
    boxH: 25,
    titles: [
      { x: keysRight, y: 11, anchor: "end" },
      { x: queriesLeft, y: 11, anchor: "start" },
    ],
    key: (j) => ({ x: keysRight - 5, y: y(j), anchor: "end", maxWidth: keysW - 10 }),
    query: (p) => ({ x: queriesLeft + 5, y: y(p), anchor: "start", maxWidth: queriesW - 10 }),
    across: (q, j) =>
      arcPath(queriesLeft, y(q) + spread(j, keys.length), keysRight, y(j), (queriesLeft + keysRight) / 2, true),
    back(q, p) {
      const y1 = y(q) - 3 - (q > 1 ? ((q - 1 - p) / (q - 1)) * 5 : 0);
      const rise = (queriesLeft - keysRight) * 0.85 * (0.3 + (0.7 * (q - p - 1)) / Math.max(1, queries.length - 2));
      return arcPath(queriesLeft, y1, queriesLeft, y(p) + 3, queriesLeft - rise / 0.75, true);
    },
    keyValue: (box) => ({ x: r1(box.x - 4), y: r1(box.y + box.h / 2), "text-anchor": "end" }),
    queryValue: (box) => ({ x: r1(box.x + box.w + 4), y: r1(box.y + box.h / 2), "text-anchor": "start" }),
  };
}

/**
 * Restyle two-row arcs for a row of weights: arc `idx` of `paths` gets weight `row[idx]` as its width and
 * opacity (hidden below MIN_ROW_WEIGHT), drawn in head `head`'s dash (solid for null: an average of heads).
 * `scale` is the layout's `stroke`. Attributes only.
 */
export function weighArcs(paths, row, head = null, scale = 1) {
  paths.forEach((path, idx) => {
    const w = row[idx];
    const drawn = w >= MIN_ROW_WEIGHT;
    const width = 1 + 7 * w * scale;
    setAttrs(path, {
      "data-weight": w.toFixed(4),
      "data-drawn": String(drawn),
      visibility: drawn ? null : "hidden",
      opacity: drawn ? (0.3 + 0.7 * w).toFixed(3) : 0,
      "stroke-width": r1(width),
      "stroke-dasharray": head === null ? null : dashFor(head, width),
    });
  });
}
