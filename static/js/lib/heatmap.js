// An attention heatmap in SVG: a row per query, a column per key, cell strength = weight, both axes labelled.
//
// Built once per shape; `update(weights)` only rewrites each cell's fill-opacity and value (so a CSS
// transition animates a change of mask). Optional extras: the strict upper triangle (the future) outlined,
// each row's sum in a column on the right, and the weight written in each cell when the cells are big enough.

import { r1, svg, svgText } from "./svg.js";

/** Width of `text` in px for a CSS `font`, measured on an offscreen canvas. */
export const measure = (() => {
  let ctx = null;
  return (text, font) => {
    ctx ??= document.createElement("canvas").getContext("2d");
    ctx.font = font;
    return ctx.measureText(text).width;
  };
})();

/** `text`, shortened with an ellipsis until it fits in `maxWidth` px. */
export function fitLabel(text, maxWidth, font) {
  if (measure(text, font) <= maxWidth) return text;
  let cut = text;
  while (cut.length > 1 && measure(`${cut}…`, font) > maxWidth) cut = cut.slice(0, -1);
  return `${cut}…`;
}

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
   * @param {string} [o.font] CSS font family for measuring labels
   * @param {boolean} [o.outlineFuture] outline the strict upper triangle (j > i)
   * @param {boolean} [o.rowSums] write each row's sum on its right
   * @param {boolean} [o.values] write each weight in its cell (only when cells are at least 26 px)
   * @param {string} [o.label] the accessible name of the drawing (role=img)
   * @param {string} [o.className] extra classes on the <svg>
   */
  constructor({
    tokens,
    n,
    cell,
    colour,
    title = "",
    font = "sans-serif",
    outlineFuture = false,
    rowSums = false,
    values = false,
    label = "",
    className = "",
  }) {
    this.n = n ?? tokens.length;
    this.cell = cell;
    this.values = values && cell >= 26;
    this.rowSums = rowSums;
    const N = this.n;
    const size = Math.max(7, Math.min(12, cell * 0.8));
    const fontOf = (px) => `${px}px ${font}`;
    const names = tokens ?? Array.from({ length: N }, (_, i) => String(i));
    const every = tokens ? (cell < size ? Math.ceil(size / cell) : 1) : Math.max(1, Math.ceil(24 / cell));
    const labelW = tokens ? labelRoom(tokens, size, font) : measure(String(N - 1), fontOf(size)) + 8;
    // Column labels stand upright when every one fits its column, else they are slanted.
    const upright = names.every((t) => measure(t, fontOf(size)) <= cell - 2) || !tokens;
    const colLabelH = upright ? size + 6 : Math.min(labelW, labelRoom(names, size, font)) * 0.72 + 6;
    const titleH = title ? 18 : 0;
    const axisH = 14;
    const top = titleH + axisH + colLabelH;
    const left = labelW;
    const sumW = rowSums ? Math.max(34, measure("1.00", fontOf(size)) + 12) : 0;
    const width = left + N * cell + sumW + 2;
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
    if (title) svgText("text", title, { class: "heatmap__title", x: 0, y: 12 }, g);
    if (left - 4 >= measure("query ↓", fontOf(10))) {
      svgText("text", "key →", { class: "heatmap__axis", x: left, y: titleH + 10, "font-size": 10 }, g);
      svgText(
        "text",
        "query ↓",
        { class: "heatmap__axis", x: left - 4, y: titleH + 10, "text-anchor": "end", "font-size": 10 },
        g,
      );
    } else {
      // No room left of the grid: one caption across the top.
      svgText("text", "query ↓ key →", { class: "heatmap__axis", x: 0, y: titleH + 10, "font-size": 10 }, g);
    }
    if (rowSums) {
      svgText(
        "text",
        "row sum",
        { class: "heatmap__axis", x: left + N * cell + sumW / 2, y: titleH + 10, "text-anchor": "middle", "font-size": 10 },
        g,
      );
    }
    svg("rect", { class: "heatmap__bg", x: left, y: r1(top), width: N * cell, height: N * cell }, g);

    const gapPx = cell > 6 ? 1 : 0;
    const cells = svg("g", { class: "heatmap__cells", fill: colour }, g);
    this.cells = [];
    this.texts = [];
    for (let i = 0; i < N; i++) {
      const row = [];
      const textRow = [];
      for (let j = 0; j < N; j++) {
        const rect = svg(
          "rect",
          {
            class: "heatmap__cell",
            x: left + j * cell,
            y: r1(top + i * cell),
            width: Math.max(1, cell - gapPx),
            height: Math.max(1, cell - gapPx),
            "data-query": i,
            "data-key": j,
            "data-future": String(j > i),
          },
          cells,
        );
        row.push(rect);
        if (this.values) {
          textRow.push(
            svgText(
              "text",
              "",
              {
                class: "heatmap__value",
                x: r1(left + (j + 0.5) * cell - gapPx / 2),
                y: r1(top + (i + 0.5) * cell - gapPx / 2),
                "text-anchor": "middle",
                "dominant-baseline": "central",
                "font-size": r1(Math.min(11, cell * 0.34)),
                "aria-hidden": "true",
              },
              g,
            ),
          );
        }
      }
      this.cells.push(row);
      this.texts.push(textRow);
    }

    if (outlineFuture && N > 1) {
      // The strict upper triangle: along the top edge, down the right edge, then a staircase back.
      const x = (j) => r1(left + j * cell);
      const y = (i) => r1(top + i * cell);
      let d = `M${x(1)} ${y(0)}H${x(N)}V${y(N - 1)}`;
      for (let i = N - 1; i >= 1; i--) d += `H${x(i)}V${y(i - 1)}`;
      svg("path", { class: "heatmap__future", d: `${d}Z` }, g);
    }

    this.sumTexts = [];
    for (let i = 0; i < N; i += every) {
      const cy = r1(top + (i + 0.5) * cell);
      const labelText = tokens ? fitLabel(names[i], labelW - 6, fontOf(size)) : names[i];
      svgText(
        "text",
        labelText,
        {
          class: "heatmap__label",
          x: left - 4,
          y: cy,
          "text-anchor": "end",
          "dominant-baseline": "central",
          "font-size": r1(size),
        },
        g,
      );
      const cx = r1(left + (i + 0.5) * cell);
      const ly = r1(top - 4);
      svgText(
        "text",
        tokens && !upright ? fitLabel(names[i], colLabelH / 0.72, fontOf(size)) : labelText,
        upright
          ? { class: "heatmap__label", x: cx, y: ly, "text-anchor": "middle", "font-size": r1(size) }
          : { class: "heatmap__label", x: cx, y: ly, transform: `rotate(-50 ${cx} ${ly})`, "font-size": r1(size) },
        g,
      );
    }
    if (rowSums) {
      for (let i = 0; i < N; i++) {
        this.sumTexts.push(
          svgText(
            "text",
            "",
            {
              class: "heatmap__sum",
              x: r1(left + N * cell + sumW / 2),
              y: r1(top + (i + 0.5) * cell),
              "text-anchor": "middle",
              "dominant-baseline": "central",
              "font-size": r1(Math.min(11, size)),
            },
            g,
          ),
        );
      }
    }
  }

  /** Show `weights` (n × n): attributes and text only, so the cells' CSS transitions run. */
  update(weights) {
    const N = this.n;
    for (let i = 0; i < N; i++) {
      let sum = 0;
      for (let j = 0; j < N; j++) {
        const w = weights[i][j];
        sum += w;
        const rect = this.cells[i][j];
        const o = cellOpacity(w);
        rect.style.setProperty("fill-opacity", o.toFixed(3));
        rect.dataset.weight = String(w);
        if (this.values) {
          const t = this.texts[i][j];
          t.textContent = cellText(w);
          t.classList.toggle("is-strong", o > 0.55);
          t.classList.toggle("is-tiny", w > 0 && w < 0.005);
        }
      }
      if (this.rowSums) this.sumTexts[i].textContent = sum.toFixed(2);
    }
  }
}
