// An attention heatmap in SVG: a row per query, a column per key, cell strength = weight, both axes labelled.
//
// Built once per shape; `update(weights)` only rewrites each cell's fill-opacity and value (so a CSS
// transition animates a change of mask). Optional extras: the strict upper triangle (the future) outlined,
// each row's sum in a column on the right, the weight written in each cell when the cells are big enough, a
// head's marker before the title, unknown words' labels set apart, and one row in focus (the rest dimmed).
// A sparse heatmap (figure 1's, up to 24 heads of 64 × 64) draws only the cells above a floor, anew on each
// update.

import { fitLabel, measure } from "./measure.js";
import { r1, setAttrs, svg, svgText } from "./svg.js";

/** The smallest text a heatmap writes, in px: its labels, axis captions, row sums and cell values. */
export const MIN_TEXT = 11;

const COS_SLANT = Math.cos((50 * Math.PI) / 180); // column labels are slanted 50° up from the horizontal

/** A weight as a cell shows it: "0" only for an exact zero, "<.01" for anything smaller than a hundredth. */
export function cellText(w) {
  if (w === 0) return "0";
  if (w >= 0.995) return "1";
  if (w < 0.005) return "<.01";
  return w.toFixed(2).replace(/^0/, "");
}

/** How strongly a cell of weight w is filled: exactly 0 stays empty, anything else shows at least faintly. */
export const cellOpacity = (w) => (w <= 0 ? 0 : Math.min(1, 0.04 + 0.96 * w));

/** A cell size (px, within [minCell, maxCell]) for `count` heatmaps of n columns side by side in `width`: as
 * many heatmaps per line as keep cells at least `prefer` px, else one per line. `extra` is each heatmap's
 * width beyond its cells (labels, row sums). */
export function fitCells(width, n, count, { extra = 60, gap = 18, minCell = 4, maxCell = 40, prefer = 14 } = {}) {
  for (let columns = Math.max(1, count); columns >= 1; columns--) {
    const box = (width - (columns - 1) * gap) / columns;
    const cell = Math.floor((box - extra) / n);
    if (cell >= Math.min(maxCell, prefer) || columns === 1) {
      return { columns, cell: Math.max(minCell, Math.min(maxCell, cell)) };
    }
  }
  return { columns: 1, cell: minCell };
}

/** The room the labels of `tokens` need at `size` px (capped at `cap`), for laying out before drawing. */
export function labelRoom(tokens, size, font, cap = 90) {
  if (!tokens?.length) return 0;
  return Math.min(cap, Math.max(...tokens.map((t) => measure(t, `${size}px ${font}`))) + 8);
}

export class Heatmap {
  /**
   * @param {object} o
   * @param {string[]|null} o.tokens labels of rows and columns (null: numbered axes, labelled sparsely)
   * @param {number} [o.n] the size of the matrix when there are no tokens
   * @param {number} o.cell cell size in px
   * @param {string} o.colour fill of the cells
   * @param {string} [o.title] drawn above the grid
   * @param {string} [o.marker] an SVG path drawn in `colour` before the title (a head's marker)
   * @param {string} [o.font] CSS font family for measuring labels
   * @param {boolean[]} [o.known] per token, false for a word not in the lexicon: its labels are set apart
   * @param {boolean} [o.axes] write "query ↓ key →" above the grid (default true)
   * @param {{size: number, left: number, top: number, slant: number}} [o.frame] the caller's own layout: the
   *   labels' font size, the room left of the grid, the grid's top, and the length the column labels (always
   *   slanted) are cut to; without it the heatmap lays itself out
   * @param {boolean} [o.outlineFuture] outline the strict upper triangle (j > i)
   * @param {boolean} [o.rowSums] write each row's sum on its right
   * @param {boolean} [o.values] write each weight in its cell (only when cells are at least 26 px)
   * @param {number|null} [o.sparse] draw only the cells of weight at least this, anew on every update
   * @param {(w: number) => number} [o.strength] a cell's fill-opacity for weight w (cellOpacity by default)
   * @param {boolean} [o.focusRows] ready to dim every row but one (`focusRow`)
   * @param {number} [o.labelStep] the least px between two labelled rows (or columns): every k-th is labelled
   *   when cells are smaller (the labels' font size by default; slanted labels need a little more)
   * @param {string} [o.label] the accessible name of the drawing (role=img)
   * @param {string} [o.className] extra classes on the <svg>
   */
  constructor(o) {
    const { tokens, n, cell, colour, strength = cellOpacity, sparse = null } = o; // the cells
    const { title = "", marker = null, label = "", className = "", font = "sans-serif", known = null } = o; // names
    const { axes = true, frame = null, outlineFuture = false, rowSums = false, values = false, focusRows = false } = o;
    this.n = n ?? tokens.length;
    this.cell = cell;
    this.values = values && cell >= 26 && sparse === null;
    this.rowSums = rowSums;
    this.sparse = sparse;
    this.strength = strength;
    this.font = font;
    const N = this.n;
    const size = frame?.size ?? Math.max(MIN_TEXT, Math.min(12, cell * 0.8));
    const fontOf = (px) => `${px}px ${font}`;
    const names = tokens ?? Array.from({ length: N }, (_, i) => String(i));
    const left = frame?.left ?? (tokens ? labelRoom(tokens, size, font) : measure(String(N - 1), fontOf(size)) + 8);
    // Column labels stand upright when every one fits its column, else (and always in a frame) slanted.
    const upright = !frame && (!tokens || names.every((t) => measure(t, fontOf(size)) <= cell - 2));
    const titleH = title ? 18 : 0;
    const axisH = axes ? 14 : 0;
    // The room above the grid for the column labels: a line when upright, else the longest label at 50°.
    const colLabelH = frame ? 0 : upright ? size + 6 : Math.min(left, labelRoom(names, size, font)) * 0.72 + 6;
    const top = frame?.top ?? titleH + axisH + colLabelH;
    const slant = frame?.slant ?? colLabelH / 0.72; // how long a slanted column label may be
    const sumW = rowSums ? Math.max(34, measure("1.00", fontOf(MIN_TEXT)) + 12) : 0;
    // A slanted column label runs up and to the right of its column, by cos 50° of its length: the last few
    // may run past the grid (and the row sums), so the drawing is widened to hold them whole.
    const colLabels = upright ? null : tokens ? names.map((t) => fitLabel(t, slant, fontOf(size))) : names;
    const overhang = upright
      ? 0
      : Math.max(0, ...colLabels.map((t, i) => (i + 0.5) * cell + measure(t, fontOf(size)) * COS_SLANT));
    const width = Math.max(left + N * cell + sumW + 2, left + overhang + 2);
    const height = top + N * cell + 4;
    this.geometry = { left, top, cell, n: N, width, height };

    const root = svg("svg", {
      class: `heatmap ${className}`.trim(),
      width: r1(width),
      height: r1(height),
      viewBox: `0 0 ${r1(width)} ${r1(height)}`,
      role: "img",
      "aria-label": label || title,
    });
    this.root = root;
    const g = svg("g", { class: "heatmap__body" }, root);
    if (marker) svg("path", { d: marker, fill: colour }, g);
    if (title) svgText("text", title, { class: "heatmap__title", x: marker ? 14 : 0, y: 12 }, g);
    if (axes) this.drawAxes(g, titleH, sumW);
    svg("rect", { class: "heatmap__bg", x: left, y: r1(top), width: N * cell, height: N * cell }, g);
    this.cellGroup = svg("g", { class: "heatmap__cells", fill: colour }, g);
    this.cells = [];
    this.texts = [];
    if (sparse === null) this.drawCells(g);
    if (outlineFuture && N > 1) this.drawFuture(g);

    // Every row and column is labelled, or every k-th when the cells are too small for every label.
    const step = o.labelStep ?? size;
    const every = tokens ? (cell < step ? Math.ceil(step / cell) : 1) : Math.max(1, Math.ceil(24 / cell));
    for (let i = 0; i < N; i += every) {
      const cls = known && !known[i] ? "heatmap__label heatmap__label--unknown" : "heatmap__label";
      const cy = r1(top + (i + 0.5) * cell);
      const labelText = tokens ? fitLabel(names[i], left - 6, fontOf(size)) : names[i];
      const rowLabel = { class: cls, x: left - 4, y: cy, "text-anchor": "end", "dominant-baseline": "central" };
      svgText("text", labelText, { ...rowLabel, "font-size": r1(size) }, g);
      const cx = r1(left + (i + 0.5) * cell);
      const ly = r1(top - 4);
      svgText(
        "text",
        upright ? labelText : colLabels[i],
        upright
          ? { class: cls, x: cx, y: ly, "text-anchor": "middle", "font-size": r1(size) }
          : { class: cls, x: cx, y: ly, transform: `rotate(-50 ${cx} ${ly})`, "font-size": r1(size) },
        g,
      );
    }
    this.sumTexts = [];
    if (rowSums) this.drawSumColumn(g, sumW);
    if (focusRows) {
      const dim = { class: "heatmap__dim", x: 0, y: r1(top), width: r1(width), height: 0, visibility: "hidden" };
      this.dim = [svg("rect", dim, root), svg("rect", dim, root)]; // above and below the row in focus
    }
  }

  /** "query ↓" left of the grid and "key →" over it; or one caption across the top when the left is narrow. */
  drawAxes(g, titleH, sumW) {
    const { left, cell, n } = this.geometry;
    const caption = (text, attrs) =>
      svgText("text", text, { class: "heatmap__axis", y: titleH + 10, "font-size": MIN_TEXT, ...attrs }, g);
    if (left - 4 >= measure("query ↓", `${MIN_TEXT}px ${this.font}`)) {
      caption("key →", { x: left });
      caption("query ↓", { x: left - 4, "text-anchor": "end" });
    } else {
      caption("query ↓ key →", { x: 0 }); // no room left of the grid
    }
    if (this.rowSums) caption("row sum", { x: left + n * cell + sumW / 2, "text-anchor": "middle" });
  }

  /** One rect per cell (and its value text when `values`), built once: `update` only restyles them. */
  drawCells(g) {
    const { n: N } = this.geometry;
    for (let i = 0; i < N; i++) {
      const row = [];
      const textRow = [];
      for (let j = 0; j < N; j++) {
        row.push(this.cellRect(i, j));
        if (this.values) textRow.push(this.valueText(i, j, g));
      }
      this.cells.push(row);
      this.texts.push(textRow);
    }
  }

  /** The rect of cell (i, j), in the cells' group. */
  cellRect(i, j) {
    const { left, top, cell } = this.geometry;
    const side = Math.max(1, cell - (cell > 6 ? 1 : 0));
    return svg(
      "rect",
      {
        class: "heatmap__cell",
        x: left + j * cell,
        y: r1(top + i * cell),
        width: side,
        height: side,
        "data-query": i,
        "data-key": j,
        "data-future": String(j > i),
      },
      this.cellGroup,
    );
  }

  valueText(i, j, g) {
    const { left, top, cell } = this.geometry;
    const gapPx = cell > 6 ? 1 : 0;
    return svgText(
      "text",
      "",
      {
        class: "heatmap__value",
        x: r1(left + (j + 0.5) * cell - gapPx / 2),
        y: r1(top + (i + 0.5) * cell - gapPx / 2),
        "text-anchor": "middle",
        "dominant-baseline": "central",
        "font-size": MIN_TEXT, // cells with values are at least 26 px: room for "<.01" at 11 px
        "aria-hidden": "true",
      },
      g,
    );
  }

  /** The strict upper triangle: along the top edge, down the right edge, then a staircase back. */
  drawFuture(g) {
    const { left, top, cell, n: N } = this.geometry;
    const x = (j) => r1(left + j * cell);
    const y = (i) => r1(top + i * cell);
    let d = `M${x(1)} ${y(0)}H${x(N)}V${y(N - 1)}`;
    for (let i = N - 1; i >= 1; i--) d += `H${x(i)}V${y(i - 1)}`;
    svg("path", { class: "heatmap__future", d: `${d}Z` }, g);
  }

  drawSumColumn(g, sumW) {
    const { left, top, cell, n: N } = this.geometry;
    // Every row's sum when the rows are as tall as the text, else every k-th row's (as the row labels are)
    const every = cell < MIN_TEXT + 2 ? Math.ceil((MIN_TEXT + 2) / cell) : 1;
    const x = r1(left + N * cell + sumW / 2);
    for (let i = 0; i < N; i++) {
      const at = { class: "heatmap__sum", x, y: r1(top + (i + 0.5) * cell), "font-size": MIN_TEXT };
      const centred = { "text-anchor": "middle", "dominant-baseline": "central" };
      this.sumTexts.push(i % every === 0 ? svgText("text", "", { ...at, ...centred }, g) : null);
    }
  }

  /** Show `weights` (n × n): attributes and text only, so the cells' CSS transitions run (a sparse heatmap
   * draws its cells above the floor anew). A weight that is NaN or null (a fully masked row's) is drawn grey
   * and written "NaN", and so is its row's sum. */
  update(weights) {
    const N = this.n;
    if (this.sparse !== null) this.cellGroup.replaceChildren();
    for (let i = 0; i < N; i++) {
      let sum = 0;
      for (let j = 0; j < N; j++) {
        const w = weights[i][j] ?? NaN;
        const missing = Number.isNaN(w);
        sum += w;
        if (this.sparse !== null && !missing && w < this.sparse) continue;
        const rect = this.sparse === null ? this.cells[i][j] : this.cellRect(i, j);
        const o = missing ? 1 : this.strength(w);
        rect.classList.toggle("is-nan", missing);
        rect.style.setProperty("fill-opacity", o.toFixed(3));
        rect.dataset.weight = String(w);
        if (this.values) {
          const t = this.texts[i][j];
          t.textContent = missing ? "NaN" : cellText(w);
          t.classList.toggle("is-strong", !missing && o > 0.55);
          t.classList.toggle("is-tiny", w > 0 && w < 0.005);
        }
      }
      if (this.sumTexts[i]) this.sumTexts[i].textContent = sum.toFixed(2); // "NaN" for a row holding one
    }
  }

  /** Dim every row but row `i` (null: dim none); the heatmap must have been made with `focusRows`. */
  focusRow(i) {
    const { top, cell, n } = this.geometry;
    const [above, below] = this.dim;
    if (i === null) {
      above.setAttribute("visibility", "hidden");
      below.setAttribute("visibility", "hidden");
      return;
    }
    setAttrs(above, { y: r1(top), height: r1(i * cell), visibility: "visible" });
    setAttrs(below, { y: r1(top + (i + 1) * cell), height: r1((n - i - 1) * cell), visibility: "visible" });
  }
}
