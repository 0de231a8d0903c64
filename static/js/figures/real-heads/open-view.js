// Figure 11's open view: one head of a layer, or every head of it, drawn by the page's one rule for arcs or grids
// (lib/arcs.js `arcsFit`, shared with figure 1). One head is arcs while its tokens fit, else a grid; a whole
// layer is a grid per head (lib/heatmap.js), never twelve heads of arcs on top of each other. Over a grid, a
// strip of the tokens, each focusable, stands in for the arcs' words.

import { arcsFit, drawArcs } from "../../lib/arcs.js";
import { headColour, markerPath } from "../../lib/colours.js";
import { Heatmap, labelRoom } from "../../lib/heatmap.js";
import { measure } from "../../lib/measure.js";
import { rowFocus } from "../../lib/row-words.js";

const GAP = 18; // px between grids, as .heatmaps in main.css
const LAYER_LABEL_PX = 11; // a layer's grids: labels at the page's smallest text, every k-th when cells are small
const LAYER_MIN_CELL = 14; // px: as many of a layer's grids per line as keep a cell this wide (every label)
const HEAD_LABEL_PX = 12; // one head's grid: every label, at this size ...
const HEAD_MIN_CELL = 16; // ... on cells at least this wide, the grid scrolling sideways when it must
const HEAD_MAX_CELL = 34;
const FLOOR = 0.01; // cells below this weight are left out (a long sentence would be thousands of empty cells)

export const pct = (w) => `${Math.round(w * 100)}%`;

/** Row `i` of a head in words: where it looks most, or that it spreads its attention evenly. */
export function rowWords(row, i, labels) {
  const f = rowFocus(row);
  if (f.even) return `spreads its attention evenly (about ${pct(f.share)} on each of ${f.count} tokens)`;
  return `looks most at ${f.j === i ? "itself" : labels[f.j]} (${pct(f.w)})`;
}

/** What a screen reader hears on token `i`: where it is, and from it where each of `heads` looks. */
function tokenLabel(view, weights, heads, i) {
  const { labels, special } = view;
  const parts = heads.map((k) => `head ${k + 1} ${rowWords(weights[k][i], i, labels)}`);
  const kind = special[i] ? ", a marker token" : "";
  return `${labels[i]}, token ${i + 1} of ${labels.length}${kind}: ${parts.join("; ")}`;
}

/** The tokens as a list of focusable items: focusing one picks out its row in every grid. */
function tokenStrip(view, weights, heads, bindToken) {
  const strip = document.createElement("ol");
  strip.className = "real-tokens";
  strip.setAttribute("aria-label", "Tokens: focus one to see only its row");
  view.labels.forEach((label, i) => {
    const li = document.createElement("li");
    li.className = view.special[i] ? "real-token real-token--special" : "real-token";
    li.tabIndex = 0;
    li.dataset.index = String(i);
    li.setAttribute("aria-label", tokenLabel(view, weights, heads, i));
    li.textContent = label;
    strip.appendChild(li);
    bindToken(li, i);
  });
  return strip;
}

/** The frame of a grid's labels (lib/heatmap.js): their size, the room left of the cells, the cells' top. */
function frameFor(labels, size, font) {
  const left = labelRoom(labels, size, font);
  const slant = Math.min(left, Math.max(...labels.map((t) => measure(t, `${size}px ${font}`)))) + 6;
  return { size, left, top: 22 + slant * 0.72, slant };
}

/**
 * Draw layer `layer` (0-based) of `view` (view.js) into `container`, `width` px wide: head `head` (0-based)
 * alone, or with `head` null every head of the layer. `font` is the labels' family; `bindToken(el, i)` makes
 * token i focusable. Returns the mode ("arcs" or "grid"), the arcs (for emphasiseArcs) or the grids (each with
 * focusRow), the weight below which arcs were left out, and whether the drawing is wider than `width`.
 */
export function drawOpen(container, view, { layer, head, width, font, bindToken }) {
  const { labels, special } = view;
  const weights = view.layers[layer];
  const n = labels.length;
  const heads = head === null ? weights.map((_, k) => k) : [head];

  if (head !== null && arcsFit(n, width)) {
    const drawing = drawArcs({
      tokens: labels,
      weights: [weights[head]],
      headIds: [head],
      width,
      font,
      label: `Layer ${layer + 1}, head ${head + 1}: ${n} tokens. Focus a token to see only its arcs.`,
      tokenInfo: (i) => ({
        className: special[i] ? "token token--special" : "token",
        attrs: { "data-special": String(special[i]), "aria-label": tokenLabel(view, weights, heads, i) },
      }),
    });
    drawing.tokens.forEach((g, i) => bindToken(g, i));
    container.appendChild(drawing.root);
    return { mode: "arcs", arcs: drawing.arcs, heatmaps: [], threshold: drawing.threshold, wide: false };
  }

  const legend = document.createElement("p");
  legend.className = "heatmap-axes";
  legend.textContent = "Rows: the token asking (query). Columns: the token looked at (key). Darker: more weight.";
  const grid = document.createElement("div");
  grid.className = "heatmaps";
  container.append(tokenStrip(view, weights, heads, bindToken), legend, grid);

  let frame;
  let cell;
  if (head === null) {
    frame = frameFor(labels, LAYER_LABEL_PX, font);
    const fit = Math.floor((width + GAP) / (frame.left + n * LAYER_MIN_CELL + GAP));
    const columns = Math.max(1, Math.min(heads.length, fit));
    const box = (width - (columns - 1) * GAP) / columns;
    cell = Math.max(4, Math.min(22, Math.floor((box - frame.left - 4) / n)));
  } else {
    frame = frameFor(labels, HEAD_LABEL_PX, font);
    cell = Math.max(HEAD_MIN_CELL, Math.min(HEAD_MAX_CELL, Math.floor((width - frame.left - 4) / n)));
  }
  const heatmaps = heads.map((k) => {
    const summary = labels.map((t, i) => `${t} ${rowWords(weights[k][i], i, labels)}`).join("; ");
    const map = new Heatmap({
      tokens: labels,
      cell,
      colour: headColour(k),
      title: `Head ${k + 1}`,
      marker: markerPath(k, 6, 8, 4.5),
      font,
      axes: false,
      frame,
      sparse: FLOOR,
      focusRows: true,
      label: `Layer ${layer + 1}, head ${k + 1}: ${summary}`,
    });
    map.update(weights[k]);
    map.root.dataset.head = String(k);
    grid.appendChild(map.root);
    return map;
  });
  const wide = (heatmaps[0]?.geometry.width ?? 0) > width;
  return { mode: "grid", arcs: [], heatmaps, threshold: FLOOR, wide };
}
