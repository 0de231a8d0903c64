// Figure 1's grid view: one heatmap per head (lib/heatmap.js), a row per word asking and a column per word
// looked at, laid out in as many columns as keep the cells readable, under a strip of focusable words. Each
// grid is headed by the head's name and its verdict with its scores. A relation's target cells are outlined in
// its colour only while the reader points at or focuses that relation (`showTargets`), as the lanes show its
// wanted pairs. Used for long sentences and narrow screens, where arcs turn to mush. Every label is 11 px or
// more; rows and columns too small for one are labelled every k-th.

import { MIN_WEIGHT } from "../../lib/arcs.js";
import { headColour, markerPath } from "../../lib/colours.js";
import { fitCells, Heatmap, labelRoom } from "../../lib/heatmap.js";
import { measure } from "../../lib/measure.js";
import { r1, svg, svgText } from "../../lib/svg.js";
import { pairRelations, pairTargets, relationStroke } from "./lanes-view.js";
import { drawVerdictLine } from "./verdict-line.js";
import { headSummary, tokenLabel } from "./words.js";

const GAP = 18; // px between grids, as .heatmaps in the CSS
const LABEL = 11; // px: the labels' size
const LABEL_STEP = 15; // px between two labels: slanted column labels need a little more than their size
const HEADER = 34; // px above the column labels: the head's name and its verdict

/** Cell strength: a little stronger than the weight, so that the weak cells of 24 heads still show. */
const strength = (w) => Math.min(1, w * 1.15);

/**
 * Draw the answer `data` as a strip of words and a heatmap per head into `container`, `width` px wide in the
 * font family `font`, each grid headed by its head's verdict (`verdicts[k]`, verdict.js); `bindToken(el, i)`
 * makes word i focusable. Returns the heatmaps (each with its head, `k`), ready for `focusRow`.
 */
export function drawHeatmapsView(container, data, { width, font, verdicts, bindToken }) {
  const { tokens, known, weights } = data;
  const n = tokens.length;
  const h = weights.length;

  const strip = document.createElement("ol");
  strip.className = "token-strip";
  strip.setAttribute("aria-label", "Words: focus one to see only its row");
  for (let i = 0; i < n; i++) {
    const li = document.createElement("li");
    li.className = known[i] ? "token" : "token token--unknown";
    li.tabIndex = 0;
    li.dataset.index = String(i);
    li.dataset.known = String(known[i]);
    li.setAttribute("aria-label", tokenLabel(data, i));
    li.textContent = tokens[i];
    if (!known[i]) li.title = "not in the lexicon";
    strip.appendChild(li);
    bindToken(li, i);
  }
  container.appendChild(strip);

  // The room left of a grid for its row labels, then as many grids per line as keep every row labelled (a
  // cell of LABEL_STEP), else one grid per line with its rows labelled every k-th.
  // A slanted column label may run past the last column by cos 50° of its length (lib/heatmap.js widens the
  // grid to hold it), so that much more room is kept beside each grid.
  const left = labelRoom(tokens, LABEL, font);
  const slant = Math.min(left, Math.max(...tokens.map((t) => measure(t, `${LABEL}px ${font}`)))) + 6;
  const overhang = Math.ceil(slant * Math.cos((50 * Math.PI) / 180));
  const extra = left + 4 + overhang;
  const { cell } = fitCells(width, n, h, { extra, gap: GAP, minCell: 4, maxCell: 22, prefer: LABEL_STEP });
  const frame = { size: LABEL, left, top: HEADER + slant * 0.77 + 4, slant };

  const grid = document.createElement("div");
  grid.className = "heatmaps";
  const legend = document.createElement("p");
  legend.className = "heatmap-axes";
  // What rows and columns are; pointing at a relation is the hint's to say (index.js), not repeated here.
  legend.textContent = "Rows: the word asking (query). Columns: the word looked at (key).";
  container.append(legend, grid);
  const pairs = pairRelations(data);
  const heatmaps = [];
  for (let k = 0; k < h; k++) {
    const map = new Heatmap({
      tokens,
      known,
      cell,
      colour: "currentColor",
      font,
      axes: false,
      frame,
      sparse: MIN_WEIGHT / 2,
      strength,
      focusRows: true,
      labelStep: LABEL_STEP,
      label: `Head ${k + 1} ${verdicts[k].texts[0]}: ${headSummary(data, k)}`,
    });
    map.update(weights[k]);
    map.root.dataset.head = String(k);
    map.root.dataset.verdict = verdicts[k].kind;
    map.root.classList.add("heatmap--head");
    drawHeader(map, k, verdicts[k], font);
    outlineTargets(map, pairs);
    map.k = k;
    heatmaps.push(map);
    grid.appendChild(map.root);
  }
  return heatmaps;
}

/** The head's key and name, and its verdict on the line below, fitted to the grid's width. */
function drawHeader(map, k, verdict, font) {
  const { width } = map.geometry;
  const head = svg("g", { class: "heatmap__header", "aria-hidden": "true" }, map.root);
  svg("path", { d: markerPath(k, 6, 9, 4.5), fill: headColour(k) }, head);
  svgText("text", `Head ${k + 1}`, { class: "heatmap__title", x: 15, y: 13 }, head);
  drawVerdictLine(head, verdict, { x: 0, y: 29, size: LABEL, room: width - 2, font });
}

/** Outline every relation's target cells in its colour and dash, hidden until `showTargets` shows that
 * relation; a cell two relations claim gets an outline for each, shown one at a time. */
function outlineTargets(map, pairs) {
  const { left, top, cell } = map.geometry;
  const layer = svg("g", { class: "heatmap__targets", fill: "none", "aria-hidden": "true" });
  map.root.insertBefore(layer, map.dim?.[0] ?? null);
  map.targets = [];
  const inset = 0.75;
  const side = cell - 1 - 2 * inset;
  if (side <= 1) return;
  for (const { i, j, relation } of pairTargets(pairs)) {
    const el = svg(
      "rect",
      {
        class: "heatmap__target",
        x: r1(left + j * cell + inset),
        y: r1(top + i * cell + inset),
        width: r1(side),
        height: r1(side),
        ...relationStroke(relation, 1.5),
        visibility: "hidden",
        "data-relation": relation,
        "data-query": i,
        "data-key": j,
      },
      layer,
    );
    map.targets.push({ el, i, relation });
  }
}

/** Outline relation `shown`'s target cells in the grid `map` (none for null), only row `focus`'s when a word
 * is in focus. Attributes only. */
export function showTargets(map, shown, focus) {
  for (const t of map.targets ?? []) {
    const visible = t.relation === shown && (focus === null || t.i === focus);
    t.el.setAttribute("visibility", visible ? "visible" : "hidden");
  }
}
