// Figure 1's heatmap view: one grid per head (lib/heatmap.js), a row per word asking and a column per word
// looked at, laid out in as many columns as keep the cells readable, under a strip of focusable words. Used
// for long sentences and narrow screens, where arcs turn to mush.

import { MIN_WEIGHT } from "../../lib/arcs.js";
import { headColour, markerPath } from "../../lib/colours.js";
import { Heatmap, labelRoom } from "../../lib/heatmap.js";
import { measure } from "../../lib/measure.js";
import { headSummary, tokenLabel } from "./words.js";

const GAP = 18; // px between grids, as .heatmaps in the CSS
const MIN_CELL = 9; // px: as many grids per line as keep a cell at least this wide

/** Cell strength: a little stronger than the weight, so that the weak cells of 24 heads still show. */
const strength = (w) => Math.min(1, w * 1.15);

/**
 * Draw the answer `data` as a strip of words and a heatmap per head into `container`, `width` px wide in the
 * font family `font`; `bindToken(el, i)` makes word i focusable. Returns the heatmaps (each with its head,
 * `k`), ready for `focusRow`.
 */
export function drawHeatmapsView(container, data, { width, font, bindToken }) {
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

  // The room left of a grid for its row labels, then as many grids per line as keep a cell MIN_CELL wide.
  const left = labelRoom(tokens, 11, font);
  const columns = Math.max(1, Math.min(h, Math.floor((width + GAP) / (left + n * MIN_CELL + GAP))));
  const boxW = (width - (columns - 1) * GAP) / columns;
  const cell = Math.max(4, Math.min(22, Math.floor((boxW - left - 4) / n)));
  const size = Math.max(7, Math.min(12, cell * 0.95));
  const slant = Math.min(left, Math.max(...tokens.map((t) => measure(t, `${size}px ${font}`)))) + 6;
  const frame = { size, left, top: 22 + slant * 0.72, slant };

  const grid = document.createElement("div");
  grid.className = "heatmaps";
  const legend = document.createElement("p");
  legend.className = "heatmap-axes";
  legend.textContent = "Rows: the word asking (query). Columns: the word looked at (key).";
  container.append(legend, grid);
  const heatmaps = [];
  for (let k = 0; k < h; k++) {
    const map = new Heatmap({
      tokens,
      known,
      cell,
      colour: headColour(k),
      title: `Head ${k + 1}`,
      marker: markerPath(k, 6, 8, 4.5),
      font,
      axes: false,
      frame,
      sparse: MIN_WEIGHT / 2,
      strength,
      focusRows: true,
      label: `Head ${k + 1}: ${headSummary(data, k)}`,
    });
    map.update(weights[k]);
    map.root.dataset.head = String(k);
    map.k = k;
    heatmaps.push(map);
    grid.appendChild(map.root);
  }
  return heatmaps;
}
